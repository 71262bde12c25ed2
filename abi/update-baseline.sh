#!/usr/bin/env bash
# Accepts the current ABI as the baseline (docs/abi.md): rebuilds libmfusim.so.1, rewrites abi/libmfusim.so.1.abi
# and abi/mfusim.constants, and shows what changed against the previous baseline. Review that, then commit abi/ with
# the change that caused it, saying why it is compatible (or bumping MFUSIM_VERSION_MAJOR and the SONAME if not).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/abi-common.sh"

build_library
previous=$(mktemp -d)
trap 'rm -rf "$previous"' EXIT
[ -s "$baseline" ] && cp "$baseline" "$previous/"
[ -s "$constants_baseline" ] && cp "$constants_baseline" "$previous/"
dump_abi "$baseline"
dump_constants "$constants_baseline"
if [ -f "$previous/libmfusim.so.1.abi" ]; then
  echo "== abi: changes accepted into the baseline:"
  abidiff --suppressions "$abi/mfusim.abignore" "$previous/libmfusim.so.1.abi" "$baseline" || true
  diff -u "$previous/mfusim.constants" "$constants_baseline" | grep -E '^[-+][^-+]' || true
fi
echo "== abi: wrote $baseline and $constants_baseline; review 'git diff abi/' and commit"
