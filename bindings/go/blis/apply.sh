#!/usr/bin/env bash
# Wires libmfusim into a BLIS (inference-sim) checkout as --latency-model mfusim: applies blis.patch (registration,
# the cached-prefix field, cmd/root.go's model/KV/max-model-len resolution, the backend-name list of BLIS's tests),
# copies latency/mfusim.go and latency/mfusim_off.go into sim/latency/, and points go.mod at this binding.
# Usage: apply.sh BLIS_DIR          (made against inference-sim @ f90a1e3a; docs/blis.md says what each edit does)
# Then: cd BLIS_DIR && CGO_ENABLED=1 PKG_CONFIG_PATH=<dir of mfusim.pc> go build -tags mfusim -o blis .
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
blis=$(cd "${1:?usage: apply.sh BLIS_DIR}" && pwd)
[ -f "$blis/sim/latency/latency.go" ] || { echo "apply.sh: $blis is not a BLIS checkout (no sim/latency/latency.go)" >&2; exit 1; }
git -C "$blis" apply --check "$here/blis.patch" 2>/dev/null || patch --dry-run -d "$blis" -p1 < "$here/blis.patch" >/dev/null ||
    { echo "apply.sh: blis.patch does not apply to $blis (made against f90a1e3a; see docs/blis.md to apply by hand)" >&2; exit 1; }
git -C "$blis" apply "$here/blis.patch" 2>/dev/null || patch -d "$blis" -p1 < "$here/blis.patch" >/dev/null
cp "$here/latency/mfusim.go" "$here/latency/mfusim_off.go" "$blis/sim/latency/"
(cd "$blis" && go mod edit -require=github.com/libmfusim/libmfusim/bindings/go@v0.0.0 \
    -replace="github.com/libmfusim/libmfusim/bindings/go=$(cd "$here/.." && pwd)")
echo "apply.sh: wired; build with: cd $blis && CGO_ENABLED=1 go build -tags mfusim -o blis ."
