// The BLIS latency backend (latency/mfusim.go, copied into inference-sim's sim/latency) and its tests, built
// against fixture copies of BLIS's package sim and of logrus (the proxy does not serve inference-sim; the tests
// need no download). docs/blis.md shows the real wiring.
module github.com/libmfusim/libmfusim/bindings/go/blis

go 1.21

require (
	github.com/inference-sim/inference-sim v0.0.0
	github.com/libmfusim/libmfusim/bindings/go v0.0.0
	github.com/sirupsen/logrus v1.9.3
)

replace (
	github.com/inference-sim/inference-sim => ./fixture
	github.com/libmfusim/libmfusim/bindings/go => ../
	github.com/sirupsen/logrus => ./fixture/logrus
)
