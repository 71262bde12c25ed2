#!/usr/bin/env bash
# Bindings under the sanitizers (docs/reliability.md): libmfusim built with ASan+UBSan (GCC, -O1, in the asan stage's
# build folder, so ci/sanitizers.sh reuses the objects), then
#   go      the hand-written Go binding and the simulator adapter, `go test -asan` (cgo compiled and linked with
#           -fsanitize=address, so the ASan runtime comes first and also checks the Go side of every C call);
#   python  the Python binding's wheel carrying the sanitized library, pytest with the GCC ASan runtime (and
#           libstdc++) preloaded (the interpreter is not built with it) and Python's allocator switched to malloc so ASan sees the
#           extension's buffers; leak detection off for the interpreter, which keeps its objects until exit.
# Any sanitizer report fails the stage: -fno-sanitize-recover=all makes UBSan abort, ASan aborts by default.
#   ci/bindings_sanitize.sh            # both
#   ci/bindings_sanitize.sh go|python  # one of them
# Environment: MFUSIM_JOBS (2), MFUSIM_ASAN_BUILD_DIR (<repo>/build-asan), MFUSIM_PYTHON (python3), CC/CXX (GCC).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=${MFUSIM_JOBS:-2}
build=${MFUSIM_ASAN_BUILD_DIR:-$root/build-asan}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(go python)
export PATH="$PATH:/usr/local/go/bin"

# The configuration of ci/sanitizers.sh's asan stage, exactly: one build folder serves both.
echo "== bindings_sanitize: libmfusim with address,undefined in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" -DMFUSIM_SANITIZE=address,undefined \
  -DMFUSIM_BUILD_BINDINGS=OFF -DMFUSIM_BUILD_BENCHMARKS=OFF -DMFUSIM_BUILD_FUZZERS=OFF >/dev/null
# The shared library by its path: the Ninja target "mfusim" is also the CLI binary's file name (mfusim_cli).
cmake --build "$build" -j "$jobs" --target src/libmfusim.so
lib=$(find "$build/src" -maxdepth 1 -name 'libmfusim.so.*.*' | head -n 1)
[ -n "$lib" ] || { echo "no libmfusim.so.* in $build/src" >&2; exit 1; }

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PKG_CONFIG_PATH=$build/pkgconfig-uninstalled

go_tests() {
  echo "== bindings_sanitize: go test -asan (bindings/go)"
  # -race cannot be combined with -asan (the binding test without sanitizers runs -race). Leak detection stays on:
  # the Go runtime's own memory is not malloc'd, so what LSan reports is C memory the binding lost.
  (cd "$root/bindings/go" && GOCACHE=$build/go-cache GOTOOLCHAIN=local CGO_ENABLED=1 \
     ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 go test -asan -count=1 ./...)
}

python_tests() {
  echo "== bindings_sanitize: pytest with libasan preloaded (bindings/python)"
  local asan cxx
  asan=$(${CC:-gcc} -print-file-name=libasan.so)
  [ -f "$asan" ] || { echo "no libasan.so from ${CC:-gcc} -print-file-name" >&2; exit 1; }
  # libstdc++ preloaded too: the interpreter does not link it, and ASan's __cxa_throw interceptor, set up before the
  # extension loads it, would find no real __cxa_throw ("CHECK failed: real___cxa_throw != 0") at the first throw.
  cxx=$(${CXX:-g++} -print-file-name=libstdc++.so.6)
  # MFUSIM_SKIP_ABI3: the abi3 wheel's build and test (ci.sh) ran in the CTest run; this stage is about the library.
  ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 PYTHONMALLOC=malloc MFUSIM_PYTEST_PRELOAD=$asan:$cxx MFUSIM_SKIP_ABI3=1 \
    bash "$root/bindings/python/ci.sh" "${MFUSIM_PYTHON:-python3}" "$lib" "$build/python"
}

for stage in "${stages[@]}"; do
  case $stage in
    go) go_tests ;;
    python) python_tests ;;
    *) echo "usage: $0 [go] [python]" >&2; exit 2 ;;
  esac
done
echo "== bindings_sanitize: ${stages[*]} passed"
