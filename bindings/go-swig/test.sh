#!/usr/bin/env bash
# Generates the SWIG Go package into <out> and runs `go test` there with the remaining arguments.
# Usage: test.sh <out dir> <swig> <go> [go test arguments...]
set -euo pipefail
out=$1 swig=$2 go=$3
shift 3
"$(dirname "$0")/generate.sh" "$out" "$swig"
cd "$out"
exec "$go" test "$@"
