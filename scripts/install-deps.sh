#!/usr/bin/env bash
# Installs what building and testing libmfusim needs, from Debian packages and PyPI. Idempotent; needs root
# (or sudo) for apt-get. Set MFUSIM_SKIP_APT=1 to skip the apt step on a prepared machine.
set -euo pipefail
if [ "${MFUSIM_SKIP_APT:-0}" != 1 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  packages=(cmake ninja-build g++ pkg-config nlohmann-json3-dev libsimdjson-dev libyaml-cpp-dev libgtest-dev libbenchmark-dev
            swig python3)
  if [ "${MFUSIM_WITH_BINDINGS:-0}" = 1 ]; then
    # Java binding (JNI headers, Maven); Go and Rust come with their own installers (see bindings/README.md).
    packages+=(openjdk-17-jdk-headless maven)
  fi
  if [ "${MFUSIM_WITH_CHECKS:-0}" = 1 ]; then
    # Sanitizer, fuzzing, ABI and format stages.
    packages+=(clang libclang-rt-14-dev abigail-tools clang-format-14)
    # CLI tests: charts rendered (rsvg-convert), HTML reports run in a headless browser.
    packages+=(librsvg2-bin chromium)
  fi
  missing=()
  for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi
python3 -c 'import pytest' 2>/dev/null || python3 -m pip install -q pytest
# PyYAML: the CLI tests read the Kubernetes manifest of examples/kubernetes (tests/cli/kubernetes_check.py).
python3 -c 'import yaml' 2>/dev/null || python3 -m pip install -q pyyaml
