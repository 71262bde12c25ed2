#!/usr/bin/env bash
# Format stage: every tracked C and C++ source is as clang-format 14 (Debian bookworm's, the version pinned here so
# that every machine formats alike) writes it with the repository's .clang-format. Fix with:
#   git ls-files '*.c' '*.h' '*.cpp' '*.hpp' ':!third_party' | xargs clang-format-14 -i
# third_party/ (vendored nlohmann/json) stays as its authors wrote it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
files=$(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' ':!third_party')
if ! clang-format-14 --dry-run -Werror $files; then
  echo "format: the files above differ from clang-format-14's output (fix command in ci/format.sh)" >&2
  exit 1
fi
echo "format: $(echo "$files" | wc -l) files as clang-format-14 writes them"
