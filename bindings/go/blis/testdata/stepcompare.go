//go:build mfusim

// stepcompare times the same batches with BLIS's three backends: roofline, trained-physics (the coefficients of
// BLIS's defaults.yaml, fitted on real vLLM runs) and mfusim, with each backend's out-of-step answers. Not part of
// the wiring: after apply.sh, copy it to BLIS's cmd/stepcompare/main.go and, from BLIS's root,
//
//	CGO_ENABLED=1 go run -tags mfusim ./cmd/stepcompare llama-2-7b-hf [TP] 2>/dev/null
//
// Batches: one 2048-token prefill (-2048), a 512-token chunk with 31 decodes (-512), and 1/8/32/128 decodes, each
// over 512, 1024 and 2048 tokens of context. H100, BLIS's hardware_config.json and model_configs/<model>.
package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/inference-sim/inference-sim/sim"
	"github.com/inference-sim/inference-sim/sim/latency"
	"gopkg.in/yaml.v3"
)

func main() {
	model, tp := os.Args[1], 1
	if len(os.Args) > 2 {
		tp, _ = strconv.Atoi(os.Args[2])
	}
	hf, err := latency.ParseHFConfig("model_configs/" + model + "/config.json")
	if err != nil {
		panic(err)
	}
	mc, err := latency.GetModelConfigFromHF(hf)
	if err != nil {
		panic(err)
	}
	hc, err := latency.GetHWConfig("hardware_config.json", "H100")
	if err != nil {
		panic(err)
	}
	var d struct {
		TP struct {
			Alpha []float64 `yaml:"alpha_coeffs"`
			Beta  []float64 `yaml:"beta_coeffs"`
		} `yaml:"trained_physics_coefficients"`
	}
	b, _ := os.ReadFile("defaults.yaml")
	dec := yaml.NewDecoder(bytes.NewReader(b))
	_ = dec.Decode(&d)
	latency.MfusimModelConfigFolder = "model_configs/" + model
	for _, ctx := range []int64{512, 1024, 2048} {
		for _, n := range []int{-2048, -512, 1, 8, 32, 128} {
			var batch []*sim.Request
			if n < 0 { // one prefill chunk of -n tokens, plus 31 decodes over ctx when -n == 512
				batch = append(batch, &sim.Request{InputTokens: make([]sim.TokenID, -n), NumNewTokens: -n})
				if n == -512 {
					for i := 0; i < 31; i++ {
						batch = append(batch, &sim.Request{InputTokens: make([]sim.TokenID, ctx), OutputTokens: make([]sim.TokenID, 8), ProgressIndex: ctx, NumNewTokens: 1})
					}
				}
			} else {
				for i := 0; i < n; i++ {
					batch = append(batch, &sim.Request{InputTokens: make([]sim.TokenID, ctx), OutputTokens: make([]sim.TokenID, 8), ProgressIndex: ctx, NumNewTokens: 1})
				}
			}
			fmt.Printf("%s tp%d %4d %4d:", model, tp, n, ctx)
			for _, be := range []string{"roofline", "trained-physics", "mfusim"} {
				coeffs := sim.NewLatencyCoeffs([]float64{0, 0, 0}, []float64{0, 0, 0})
				if be == "trained-physics" {
					coeffs = sim.NewLatencyCoeffs(d.TP.Beta, d.TP.Alpha)
				}
				hw := sim.NewModelHardwareConfig(*mc, hc, model, "H100", tp, 1, false, "", be, 0)
				m, err := latency.NewLatencyModel(coeffs, hw)
				if err != nil {
					panic(err)
				}
				fmt.Printf("  %s %6d us (OTP %d, PDO %d)", be, m.StepTime(batch), m.OutputTokenProcessingTime(), m.PostDecodeFixedOverhead())
			}
			fmt.Println()
		}
	}
}
