#!/usr/bin/env bash
# Sanitizer stage (docs/reliability.md), for .ci/run:
#   asan  configure <repo>/build-asan with -DMFUSIM_SANITIZE=address,undefined (GCC), build everything but the
#         bindings and benchmarks, run the whole CTest suite (unit, conformance, C API, CLI, bad-input corpus, fuzz
#         corpora replayed, concurrency). Any sanitizer report fails the test it happens in.
#   tsan  configure <repo>/build-tsan with -DMFUSIM_SANITIZE=thread, build the concurrency test alone (many threads
#         on one loaded handle, both modes) and run it: a data race fails it, as does any answer that is not
#         bit-identical to one thread's.
#   ci/sanitizers.sh            # both stages
#   ci/sanitizers.sh asan|tsan  # one of them
# Environment: MFUSIM_JOBS (2), MFUSIM_ASAN_BUILD_DIR, MFUSIM_TSAN_BUILD_DIR, CC/CXX (the default compiler: GCC).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=${MFUSIM_JOBS:-2}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(asan tsan)

# -O1 (not -O2): a third less compile time, and the sanitizers' own recommendation for readable reports.
configure() {  # build-dir sanitizers
  cmake -S "$root" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" -DMFUSIM_SANITIZE="$2" \
    -DMFUSIM_BUILD_BINDINGS=OFF -DMFUSIM_BUILD_BENCHMARKS=OFF -DMFUSIM_BUILD_FUZZERS=OFF >/dev/null
}

asan() {
  local build=${MFUSIM_ASAN_BUILD_DIR:-$root/build-asan}
  echo "== sanitizers: address,undefined in $build"
  configure "$build" address,undefined
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  cmake --build "$build" -j "$jobs"
  (cd "$build" && ctest -j "$jobs" --output-on-failure --timeout 900)
}

tsan() {
  local build=${MFUSIM_TSAN_BUILD_DIR:-$root/build-tsan}
  echo "== sanitizers: thread in $build"
  configure "$build" thread
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  cmake --build "$build" -j "$jobs" --target mfusim_concurrency_tests
  "$build/tests/concurrency/mfusim_concurrency_tests"
}

for stage in "${stages[@]}"; do
  case $stage in
    asan) asan ;;
    tsan) tsan ;;
    *) echo "usage: $0 [asan] [tsan]" >&2; exit 2 ;;
  esac
done
echo "== sanitizers: ${stages[*]} passed"
