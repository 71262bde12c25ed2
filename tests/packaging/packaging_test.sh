#!/usr/bin/env bash
# Installs libmfusim into a temporary prefix, then builds and runs a tiny C consumer five ways: pkg-config against
# the install, pkg-config against the build tree (pkgconfig-uninstalled), CMake find_package(mfusim) (run from
# its build tree and again after `cmake --install` of the consumer itself, where CMake drops its build rpath; and
# mfusim::mfusim_static), and statically with mfusim-static.pc (no libmfusim or libstdc++ at run time). No
# LD_LIBRARY_PATH anywhere: the rpaths must do the work.
# Usage: packaging_test.sh <build dir> [C compiler]
set -euo pipefail
build=$(cd "$1" && pwd)
cc=${2:-cc}
here=$(cd "$(dirname "$0")" && pwd)
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
for tool in cmake pkg-config "$cc"; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool not found" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/mfusim-packaging.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "target names: \`--target mfusim\` is the library (Ninja once took it for the file <build>/mfusim, the CLI)"
if [ -f "$build/build.ninja" ]; then
    # Captured first: `ninja | grep -q` under pipefail fails when grep stops reading early.
    query=$(ninja -C "$build" -t query mfusim) && grep -q 'src/libmfusim\.so' <<<"$query" ||
        fail "ninja target mfusim is not libmfusim.so"
    query=$(ninja -C "$build" -t query mfusim_static) && grep -q 'src/libmfusim\.a' <<<"$query" ||
        fail "ninja target mfusim_static is not libmfusim.a"
fi

step "cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "install"; }
for f in include/mfusim.h; do [ -f "$prefix/$f" ] || fail "$f not installed"; done
pc=$(find "$prefix" -name mfusim.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "mfusim.pc not installed"
pcdir=$(dirname "$pc")
config=$(find "$prefix" -name mfusimConfig.cmake | head -n 1)
[ -n "$config" ] && [ -f "$(dirname "$config")/mfusimConfigVersion.cmake" ] || fail "CMake package config not installed"
libdir=$(dirname "$pcdir")
ls "$libdir"/libmfusim.so.1 >/dev/null || fail "no SONAME link libmfusim.so.1 in $libdir"

check_run() { # binary, directory its libmfusim must come from
    local bin=$1 want=$2 out got
    out=$(env -u LD_LIBRARY_PATH "$bin") || fail "$bin did not run"
    echo "$out"
    got=$(ldd "$bin" | awk '/libmfusim/ {print $3}')
    [ "$(cd "$(dirname "$got")" && pwd -P)" = "$(cd "$want" && pwd -P)" ] ||
        fail "$bin loads libmfusim from $got, expected $want"
}

step "pkg-config, installed prefix"
export PKG_CONFIG_PATH=$pcdir
[ "$(pkg-config --variable=prefix mfusim)" = "$prefix" ] || fail "mfusim.pc prefix is $(pkg-config --variable=prefix mfusim)"
pkg-config --cflags --libs mfusim
# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Wextra -Werror -o "$work/c_installed" "$here/consumer/consumer.c" $(pkg-config --cflags --libs mfusim)
check_run "$work/c_installed" "$libdir"

step "pkg-config, uninstalled build tree"
export PKG_CONFIG_PATH=$build/pkgconfig-uninstalled
pkg-config --cflags --libs mfusim
# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Wextra -Werror -o "$work/c_uninstalled" "$here/consumer/consumer.c" $(pkg-config --cflags --libs mfusim)
check_run "$work/c_uninstalled" "$(pkg-config --variable=libdir mfusim)"
unset PKG_CONFIG_PATH

step "CMake find_package(mfusim)"
cmake -S "$here/consumer" -B "$work/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/configure.log" || { cat "$work/configure.log"; fail "configure"; }
cmake --build "$work/consumer-build" >"$work/build.log" || { cat "$work/build.log"; fail "build"; }
check_run "$work/consumer-build/consumer" "$libdir"
step "CMake mfusim::mfusim_static: no libmfusim (nor libstdc++) at run time"
env -u LD_LIBRARY_PATH "$work/consumer-build/consumer_static" || fail "static CMake consumer did not run"
! ldd "$work/consumer-build/consumer_static" | grep -Eq 'libmfusim|libstdc\+\+' ||
    fail "the static CMake consumer needs libmfusim or libstdc++"
step "CMake consumer installed (its build rpath dropped): the package's rpath must remain, as pkg-config's does"
cmake --install "$work/consumer-build" --prefix "$work/consumer-prefix" >"$work/consumer-install.log" ||
    { cat "$work/consumer-install.log"; fail "consumer install"; }
check_run "$work/consumer-prefix/bin/consumer" "$libdir"

step "pkg-config mfusim-static: no libmfusim (nor libstdc++) at run time"
export PKG_CONFIG_PATH=$pcdir
[ -f "$libdir/libmfusim.a" ] || fail "libmfusim.a not installed"
[ "$(pkg-config --variable=prefix mfusim-static)" = "$prefix" ] ||
    fail "mfusim-static.pc prefix is $(pkg-config --variable=prefix mfusim-static)"
pkg-config --libs mfusim-static
# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Wextra -Werror -o "$work/c_static" "$here/consumer/consumer.c" $(pkg-config --cflags --libs mfusim-static)
unset PKG_CONFIG_PATH
env -u LD_LIBRARY_PATH "$work/c_static" || fail "static consumer did not run"
ldd "$work/c_static"
! ldd "$work/c_static" | grep -Eq 'libmfusim|libstdc\+\+' || fail "the static consumer needs libmfusim or libstdc++"

echo "PASS: install; pkg-config (installed, uninstalled, static) and find_package (shared and static; built, installed) consumers all ran"
