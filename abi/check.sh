#!/usr/bin/env bash
# ABI check (docs/abi.md): rebuilds libmfusim.so.1, compares its ABI with the committed baseline
# (abi/libmfusim.so.1.abi, with abidiff) and the header's constants and struct layouts with abi/mfusim.constants.
# Exits 0 when both are unchanged; 1 on any change, compatible or not, printing what changed and how to accept an
# intended change (abi/update-baseline.sh). Environment: MFUSIM_ABI_BUILD_DIR (<repo>/build-abi), MFUSIM_JOBS (2).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/abi-common.sh"

build_library
current=$build/abi-current
mkdir -p "$current"
dump_abi "$current/libmfusim.so.1.abi"
dump_constants "$current/mfusim.constants"

status=0
set +e
abidiff --suppressions "$abi/mfusim.abignore" "$baseline" "$current/libmfusim.so.1.abi" \
  >"$current/abidiff.txt" 2>&1
diff_status=$?
set -e
if [ $diff_status -ne 0 ]; then
  if (( diff_status & 8 )); then
    echo "== abi: INCOMPATIBLE change to libmfusim.so.1 (abidiff exit $diff_status):"
  elif (( diff_status & 4 )) && grep -qE 'Functions changes summary: 0 Removed, 0 Changed( \([0-9]+ filtered out\))?, [1-9]' \
         "$current/abidiff.txt" && grep -qE 'Variables changes summary: 0 Removed, 0 Changed' "$current/abidiff.txt"; then
    echo "== abi: functions were added to libmfusim.so.1 (compatible; accept them into the baseline):"
  elif (( diff_status & 4 )); then
    echo "== abi: an existing function or type of libmfusim.so.1 changed: INCOMPATIBLE unless docs/abi.md says otherwise:"
  else
    echo "== abi: abidiff failed (exit $diff_status):"
  fi
  cat "$current/abidiff.txt"
  status=1
fi
if ! diff -u "$constants_baseline" "$current/mfusim.constants" >"$current/constants.diff"; then
  echo "== abi: constants or struct layouts of mfusim.h changed (- baseline, + now):"
  grep -E '^[-+][^-+]' "$current/constants.diff"
  if grep -qE '^-[^-]' "$current/constants.diff"; then
    echo "   a value was changed or removed: INCOMPATIBLE (stable numbers are only ever appended)"
  else
    echo "   only additions: compatible if they are appended values or new fields at the end of a struct_size struct"
  fi
  status=1
fi
if [ $status -ne 0 ]; then
  echo "== abi: if the change is intended and compatible, accept it: abi/update-baseline.sh, then commit abi/"
  exit 1
fi
echo "== abi: libmfusim.so.1 matches the baseline ($(grep -c '<elf-symbol' "$baseline") functions, $(wc -l <"$constants_baseline") constants and layouts)"
