#!/usr/bin/env bash
# The Go benchmarks of both packages (hand-written and SWIG), short; allocation counts are reported per benchmark
# (the zero-allocation assertions themselves are tests). Usage: go_bench.sh <swig package dir> <swig> <go> [benchtime]
set -euo pipefail
out=$1 swig=$2 go=$3 benchtime=${4:-2000x}
here=$(cd "$(dirname "$0")" && pwd)
(cd "$here/go" && "$go" test -run '^$' -bench . -benchmem -benchtime="$benchtime" ./...)
"$here/go-swig/test.sh" "$out" "$swig" "$go" -run '^$' -bench . -benchmem -benchtime="$benchtime" .
