//go:build !mfusim

// mfusim_off.go: --latency-model mfusim in a BLIS built without -tags mfusim (no cgo, no libmfusim needed). Kept in
// libmfusim's repository next to mfusim.go and copied with it into BLIS's sim/latency/.
package latency

import (
	"errors"

	"github.com/inference-sim/inference-sim/sim"
)

// MfusimModelConfigFolder is set by cmd/root.go; unused in this build.
var MfusimModelConfigFolder string

func newMfusimModel(sim.ModelHardwareConfig, sim.AdapterCost) (sim.LatencyModel, error) {
	return nil, errors.New("latency model: mfusim: this binary was built without libmfusim; rebuild with " +
		"CGO_ENABLED=1 go build -tags mfusim (libmfusim installed, PKG_CONFIG_PATH finding mfusim.pc)")
}

// MfusimReport is empty in this build.
func MfusimReport() string { return "" }
