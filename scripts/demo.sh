#!/usr/bin/env bash
# Sets up, builds, and runs the main job: the mfusim CLI on a built-in model and GPU, no files given.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMFUSIM_BUILD_TESTS=OFF -DMFUSIM_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build --target mfusim_cli mfusim
./build/mfusim estimate --mode infersim --model qwen3-8b --gpu H20 "$@"
