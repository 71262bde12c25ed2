#!/usr/bin/env bash
# A fresh Go module using the binding as a third party would (require github.com/libmfusim/libmfusim/bindings/go;
# a replace directive stands in for the module proxy), built with -tags mfusim_static against an installed
# libmfusim (cmake --install): the binary must have no libmfusim and no libstdc++ run-time dependency. Also checks
# that `go doc` shows the package's constants as values, not C expressions.
# Usage: go_static_test.sh <go> <CMake build dir> <work dir>
set -euo pipefail
go=$1
build=$(cd "$2" && pwd)
work=$(mkdir -p "$3" && cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
module=$(cd "$here/../../bindings/go" && pwd)
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off CGO_ENABLED=1
# A build cache of its own: Go's cache does not key cgo packages on pkg-config's answer, so a package cached
# against another prefix would be linked with that prefix's flags.
export GOCACHE=$work/gocache
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }

prefix=$work/prefix
rm -rf "$prefix"
step "cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "install"; }
pc=$(find "$prefix" -name mfusim-static.pc | head -n 1)
[ -n "$pc" ] && [ -f "$(dirname "$(dirname "$pc")")/libmfusim.a" ] || fail "libmfusim.a or mfusim-static.pc not installed"
export PKG_CONFIG_PATH=$(dirname "$pc")

step "a fresh module, go build -tags mfusim_static"
app=$work/app
rm -rf "$app"
mkdir -p "$app"
cp "$here/go_static/main.go" "$app/"
(cd "$app" && "$go" mod init example.com/mfusim-consumer >/dev/null 2>&1 &&
    "$go" mod edit -require=github.com/libmfusim/libmfusim/bindings/go@v1.0.0 \
        -replace=github.com/libmfusim/libmfusim/bindings/go="$module" &&
    "$go" build -tags mfusim_static -o consumer .) || fail "go build -tags mfusim_static"
ldd "$app/consumer" || true
! ldd "$app/consumer" | grep -Eq 'libmfusim|libstdc\+\+' || fail "the static binary still needs libmfusim or libstdc++"
# Run it from a copy in a directory of its own after removing the install: nothing of libmfusim is left to load.
rm -rf "$prefix"
"$app/consumer" || fail "the static binary did not run"

step "go doc shows constants as values"
doc=$(cd "$module" && "$go" doc -all ./mfusim 2>/dev/null || true)
grep -q 'ModeInferSim Mode = 1' <<<"$doc" || fail "go doc does not show ModeInferSim's value"
! grep -q 'C\.MFUSIM' <<<"$doc" || fail "go doc shows C expressions: $(grep -m3 'C\.MFUSIM' <<<"$doc")"
echo "PASS: static Go binary with no libmfusim or libstdc++ dependency; constants documented as values"
