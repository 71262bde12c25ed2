#!/usr/bin/env bash
# CTest driver of the Python binding: a fresh venv in the build tree, the pinned build and test dependencies from
# PyPI, `pip install` of this package against the build tree's libmfusim (no second compile of the C++ core: see
# README.md, "Prebuilt library"), then pytest against the installed wheel.
# Usage: ci.sh <python3> <libmfusim.so file> <work dir in the build tree>
# Environment: MFUSIM_PYTEST_PRELOAD (see the pytest step).
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
"$venv/bin/python" -m pip install -q scikit-build-core nanobind numpy pytest
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
step "done"
