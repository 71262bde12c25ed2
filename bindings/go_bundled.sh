#!/usr/bin/env bash
# The Go binding with no installed libmfusim (-tags mfusim_bundled: cgo compiles the library's sources), as a user
# meets it:
#  1. the committed wrappers match src/ (bundle.sh check);
#  2. the binding's and adapter's tests pass bundled, with pkg-config made unusable (PKG_CONFIG=false);
#  3. -tags "mfusim_bundled mfusim_static": the adapter's test binary needs neither libmfusim nor libstdc++;
#  4. `go get` of a release: the module as a release commit carries it (bundle.sh sources), zipped and served by a
#     file:// module proxy; a new module outside the repository runs `go get .../bindings/go@v1.0.0`, builds with
#     -tags mfusim_bundled and runs, printing a result (no structSize in it).
# Usage: go_bundled.sh <go> <work dir>     (CXX=/usr/lib/ccache/g++ makes reruns fast; not CXX="ccache g++", whose -no-pie probe fails)
set -euo pipefail
go=$1
work=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")/go" && pwd)
export PKG_CONFIG=false CGO_ENABLED=1
unset PKG_CONFIG_PATH

"$here/bundle.sh" check
cd "$here"
"$go" test -count=1 -tags mfusim_bundled ./mfusim ./adapter

"$go" test -c -tags "mfusim_bundled mfusim_static" -o "$work/adapter.test" ./adapter
if ldd "$work/adapter.test" | grep -Eq 'libmfusim|libstdc\+\+'; then
    ldd "$work/adapter.test"
    echo "FAIL: the bundled static adapter still needs libmfusim or libstdc++ at run time" >&2
    exit 1
fi
"$work/adapter.test" -test.count=1 -test.run 'TestLifecycle|TestNoAllocationsInAnyMethod'

# A release of the module: its files (no nested modules), plus the bundled sources, as a module proxy serves them.
rel=$work/release
rm -rf "$rel" "$work/proxy" "$work/consumer" "$work/gopath"
mkdir -p "$rel"
(cd "$here" && tar --exclude=./blis --exclude=./internal/bundled/csrc -cf - .) | (cd "$rel" && tar -xf -)
"$here/bundle.sh" sources "$rel"
mod=github.com/libmfusim/libmfusim/bindings/go
python3 - "$rel" "$work/proxy" "$mod" <<'PY'
import os, sys, zipfile, json
rel, proxy, mod = sys.argv[1:4]
d = os.path.join(proxy, mod, "@v"); os.makedirs(d)
open(os.path.join(d, "list"), "w").write("v1.0.0\n")
json.dump({"Version": "v1.0.0", "Time": "2026-01-01T00:00:00Z"}, open(os.path.join(d, "v1.0.0.info"), "w"))
open(os.path.join(d, "v1.0.0.mod"), "w").write(open(os.path.join(rel, "go.mod")).read())
with zipfile.ZipFile(os.path.join(d, "v1.0.0.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for base, _, files in os.walk(rel):
        for f in files:
            p = os.path.join(base, f)
            z.write(p, f"{mod}@v1.0.0/" + os.path.relpath(p, rel))
PY
mkdir -p "$work/consumer"
cd "$work/consumer"
cat > main.go <<'GO'
package main

import (
	"fmt"
	"os"

	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
)

func main() {
	est, err := mfusim.Open(mfusim.Options{Model: "llama-3.1-8b-instruct", GPU: "H100"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer est.Close()
	var r mfusim.StepResult
	if err := est.StepDetail([]mfusim.Request{mfusim.Decode(2048)}, &r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := est.ServingEstimate(mfusim.DefaultServing())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("step %.1f us\n%+v\n", r.TotalUS, s)
}
GO
export GOPROXY=file://$work/proxy GOSUMDB=off GOFLAGS=-mod=mod GOPATH=$work/gopath GOMODCACHE=$work/gopath/pkg/mod
"$go" mod init example.com/consumer >/dev/null 2>&1
"$go" get $mod@v1.0.0
"$go" build -tags mfusim_bundled -o consumer .
out=$(./consumer)
echo "$out"
grep -q '^step [0-9.]* us$' <<<"$out" || { echo "FAIL: no step time" >&2; exit 1; }
if grep -q structSize <<<"$out"; then echo "FAIL: the printed result shows structSize" >&2; exit 1; fi
grep -q 'TTFTms:' <<<"$out" || { echo "FAIL: the printed result lacks TTFTms" >&2; exit 1; }
chmod -R u+w "$work/gopath"
echo "go_bundled: OK"
