#!/usr/bin/env bash
# Sets up, builds and runs every test: C++ unit and conformance tests, the C API test, the CLI, the Python tools,
# the Go, Rust and Java bindings and packaging, then the reliability stages (sanitizers, TSan concurrency, fuzzing,
# ABI check) and one pass of the benchmarks as a smoke test.
# MFUSIM_QUICK=1 skips the reliability stages (a fast local loop).
set -euo pipefail
cd "$(dirname "$0")/.."
export MFUSIM_WITH_BINDINGS=1 MFUSIM_WITH_CHECKS=1
scripts/install-deps.sh
export PATH="$PATH:/usr/local/go/bin:$HOME/.cargo/bin"
jobs=$(nproc)

echo "== build and test (bindings on)"
cmake -S . -B build -G Ninja -DMFUSIM_BUILD_BINDINGS=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
# A reference test that skipped while the reference data is present has checked nothing: a broken path, not a pass.
reference="${MFUSIM_REFERENCE_DIR:-../shared/reference}"
if [ -d "$reference" ] && grep -E "reference data.*absent" build/Testing/Temporary/LastTest.log >/dev/null; then
  echo "reference data is present at $reference, but these tests skipped for want of it:" >&2
  grep -E "reference data.*absent" build/Testing/Temporary/LastTest.log | sort | uniq -c >&2
  exit 1
fi

echo "== benchmarks, once each (smoke test; figures come from Release builds, see bench/README.md)"
./build/bench/mfusim_bench --benchmark_min_time=0.01 >/dev/null

if [ "${MFUSIM_QUICK:-0}" != 1 ]; then
  for stage in ci/*.sh; do
    [ -e "$stage" ] || continue
    echo "== $stage"
    bash "$stage"
  done
fi
echo "all stages passed"
