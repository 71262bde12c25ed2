#!/usr/bin/env bash
# Sets up, builds and runs every test: C++ unit and conformance tests, the C API test, the CLI, the Python
# tools, and the benchmarks once (as a smoke test). Prints ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
# Benchmarks are measurements, not tests: run each once so a broken one is noticed.
./build/bench/mfusim_bench --benchmark_min_time=0.01 >/dev/null
