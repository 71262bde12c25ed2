#!/usr/bin/env bash
# Copies what the `bundled` feature builds into mfusim-sys/bundled/ (plain files, no symlinks), so that
# `cargo package` / `cargo publish` put the C++ library's sources into the crate:
#   libmfusim/  CMakeLists.txt, cmake/, pkgconfig/, include/, src/ of the repository (the CMake project itself)
#   nlohmann/   the nlohmann/json headers the library is built with (MIT; its licence text alongside), so the
#               bundled build needs no system JSON package
# Usage: copy-bundled.sh [nlohmann include dir (default /usr/include)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
nlohmann=${1:-/usr/include}
[ -f "$nlohmann/nlohmann/json.hpp" ] || { echo "FAIL: no $nlohmann/nlohmann/json.hpp (apt-get install nlohmann-json3-dev)" >&2; exit 1; }
out=$here/bundled
rm -rf "$out"
mkdir -p "$out/libmfusim" "$out/nlohmann"
cp -L "$root/CMakeLists.txt" "$root/LICENSE" "$out/libmfusim/"
cp -RL "$root/cmake" "$root/pkgconfig" "$root/include" "$out/libmfusim/"
mkdir -p "$out/libmfusim/src"
# The library's sources; the CLI (src/cli) is not built by the bundled configuration.
cp -RL "$root/src/." "$out/libmfusim/src/"
rm -rf "$out/libmfusim/src/cli"
cp -RL "$nlohmann/nlohmann" "$out/nlohmann/"
for c in /usr/share/doc/nlohmann-json3-dev/copyright "$nlohmann/../share/licenses/nlohmann_json/LICENSE.MIT"; do
    [ -f "$c" ] && { cp "$c" "$out/nlohmann/LICENSE.MIT"; break; }
done
[ -f "$out/nlohmann/LICENSE.MIT" ] || { echo "FAIL: nlohmann/json's licence text not found" >&2; exit 1; }
echo "bundled: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1)"
