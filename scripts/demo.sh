#!/usr/bin/env bash
# Sets up, builds, and runs the main job: the mfusim CLI on a built-in model and GPU, no files given.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target mfusim_cli
./build/mfusim estimate --mode infersim --model qwen3-8b --gpu H20 "$@"
