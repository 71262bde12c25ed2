#!/usr/bin/env bash
# A fresh Cargo project that depends on `mfusim` only, as a third party would after `cargo add mfusim`: the two
# crates are packaged (`cargo package`, the bundled C++ sources included) and stand in for crates.io through
# [patch.crates-io]; their other dependencies (cmake, cc, pkg-config) come from crates.io. The default `bundled`
# feature builds libmfusim from the packaged sources and links it statically: the program must run with no
# libmfusim anywhere (no MFUSIM_LIB_DIR, PKG_CONFIG_PATH or LD_LIBRARY_PATH).
# Usage: rust_consumer_test.sh <cargo> <cache dir>
# The cache dir keeps the packaged crates and the consumer's target dir, so the C++ core compiles once (CMake
# rebuilds incrementally when the sources change).
set -euo pipefail
cargo=$1
cache=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
rust=$(cd "$here/../../bindings/rust" && pwd)
unset MFUSIM_LIB_DIR MFUSIM_INCLUDE_DIR PKG_CONFIG_PATH LD_LIBRARY_PATH CARGO_TARGET_DIR MFUSIM_NO_BUNDLED
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }

step "the documented publish command, dry run: both crates package (the bundled build is verified below)"
# No PKG_CONFIG_PATH or MFUSIM_LIB_DIR (unset above): mfusim-sys must package on its own. --no-verify because the
# consumer below builds the packaged crates, which is what the verification would do a second time.
(cd "$rust" && CARGO_TARGET_DIR="$cache/package-target" "$cargo" publish --dry-run --workspace --no-verify \
    --allow-dirty --locked -q) || fail "cargo publish --dry-run --workspace"
(cd "$rust" && CARGO_TARGET_DIR="$cache/package-target" "$cargo" package --workspace --no-verify --allow-dirty \
    --locked -q) || fail "cargo package"

step "mfusim-sys carries every C++ source file of the library (bundled/libmfusim follows the repository)"
root=$(cd "$rust/../.." && pwd)
(cd "$rust" && "$cargo" package --list -p mfusim-sys --allow-dirty --locked) | sed -n 's#^bundled/libmfusim/##p' |
    sort >"$cache/packaged.txt"
git -C "$root" ls-files CMakeLists.txt LICENSE cmake pkgconfig include src third_party | sort >"$cache/wanted.txt"
[ -s "$cache/wanted.txt" ] || fail "git ls-files listed nothing"
missing=$(comm -23 "$cache/wanted.txt" "$cache/packaged.txt")
[ -z "$missing" ] || fail "mfusim-sys would publish without: $(echo "$missing" | head -n 5 | tr '\n' ' ')"
echo "$(wc -l <"$cache/packaged.txt") bundled files, every tracked one among them"
mkdir -p "$cache/crates"
# A .crate stores every file with the same fixed time, so unpacking over an earlier copy would hide changes from
# CMake's make: copy only the files whose content changed (they get the current time) and drop removed ones.
sync_tree() { # from to
    local from=$1 to=$2 f
    mkdir -p "$to"
    (cd "$from" && find . -type f) | while read -r f; do
        if ! cmp -s "$from/$f" "$to/$f"; then mkdir -p "$(dirname "$to/$f")"; cp "$from/$f" "$to/$f"; fi
    done
    (cd "$to" && find . -type f) | while read -r f; do [ -f "$from/$f" ] || rm -f "$to/$f"; done
}
for crate in mfusim-sys mfusim; do
    file="$cache/package-target/package/$crate-1.0.0.crate"
    [ -f "$file" ] || fail "$file not produced"
    rm -rf "$cache/unpack"
    mkdir -p "$cache/unpack"
    tar -xzf "$file" -C "$cache/unpack"
    sync_tree "$cache/unpack/$crate-1.0.0" "$cache/crates/$crate-1.0.0"
done
rm -rf "$cache/unpack"
[ -f "$cache/crates/mfusim-sys-1.0.0/bundled/libmfusim/CMakeLists.txt" ] || fail "the mfusim-sys crate lacks the C++ sources"

step "a fresh project depending on mfusim = \"1.0.0\" only"
app=$cache/app
rm -rf "$app/src"
mkdir -p "$app/src"
cp "$here/rust_consumer/src/main.rs" "$app/src/"
cat >"$app/Cargo.toml" <<TOML
[package]
name = "mfusim-consumer"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
mfusim = "1.0.0"

# Stands in for crates.io, where the two crates would be published.
[patch.crates-io]
mfusim = { path = "$cache/crates/mfusim-1.0.0" }
mfusim-sys = { path = "$cache/crates/mfusim-sys-1.0.0" }

[workspace]
TOML
# On failure, say why: cargo's report of a failed build script ends with the script's whole stdout, which can be cut
# short in ctest's log before the reason, so the build script's own stderr (the cmake crate's panic, CMake's and the
# compiler's messages) is printed first, from where cargo keeps it.
if ! (cd "$app" && CARGO_TARGET_DIR="$cache/consumer-target" "$cargo" build --release -j 2); then
    for log in "$cache"/consumer-target/release/build/mfusim-sys-*/stderr; do
        [ -s "$log" ] && { echo "== $log (last 80 lines)" >&2; tail -n 80 "$log" >&2; }
    done
    fail "cargo build"
fi
bin=$cache/consumer-target/release/mfusim-consumer

step "run it with no libmfusim on any search path"
ldd "$bin"
! ldd "$bin" | grep -q libmfusim || fail "the program links a shared libmfusim"
"$bin" || fail "the program failed"
echo "PASS: a fresh Cargo project depending on mfusim only built libmfusim from the packaged sources and ran"
