#!/usr/bin/env bash
# The simulator adapter linked statically (-tags mfusim_static: libmfusim.a and the C++ runtime inside the Go
# binary, as the simulator ships): builds the adapter's test binary, checks that it needs neither libmfusim nor
# libstdc++ at run time, and runs its lifecycle and allocation tests.
# Usage: go_adapter_static.sh <go> <work dir>   (PKG_CONFIG_PATH must find mfusim-static.pc)
set -euo pipefail
go=$1
work=$(mkdir -p "$2" && cd "$2" && pwd)
cd "$(dirname "$0")/go"
"$go" test -c -tags mfusim_static -o "$work/adapter.test" ./adapter
if ldd "$work/adapter.test" | grep -Eq 'libmfusim|libstdc\+\+'; then
    ldd "$work/adapter.test"
    echo "FAIL: the static adapter still needs libmfusim or libstdc++ at run time" >&2
    exit 1
fi
"$work/adapter.test" -test.count=1 -test.run 'TestLifecycle|TestNoAllocationsInAnyMethod|TestFailedStep'
