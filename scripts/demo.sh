#!/usr/bin/env bash
# Sets up, builds, and runs the main job: the mfusim CLI on a built-in model and GPU, no files given.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target mfusim_cli
# The main job on built-in data: a serving estimate (TTFT, TPOT, throughput at a concurrency, with the breakdown of
# the steps it assumed) for a built-in model and GPU under the default engine profile (vLLM).
./build/mfusim serve --model llama-3.1-8b-instruct --gpu H100 --isl 2048 --osl 256 --concurrency 32 "$@"
