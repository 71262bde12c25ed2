package mfusim

import (
	"errors"
	"testing"
)

// Plan's rows are the serving estimates of their deployments, and the best of each GPU is the fastest row within
// the limits.
func TestPlan(t *testing.T) {
	w := DefaultServing()
	w.InputLen, w.OutputLen = 1024, 128
	r := DefaultPlanRequest()
	if r.MaxConcurrency != 512 {
		t.Fatalf("default MaxConcurrency %d, want 512", r.MaxConcurrency)
	}
	r.GPUs = []string{"H100", "H200"}
	r.TPList = []int64{1, 2}
	r.MaxConcurrency = 16
	r.MaxTPOTms = 10
	p, err := Plan(Options{Model: "llama-3.1-8b-instruct"}, w, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 20 || len(p.GPUs) != 2 || p.GPUs[1].Name != "H200" {
		t.Fatalf("%d rows, %d GPUs (%+v); want 20 rows over H100, H200", len(p.Rows), len(p.GPUs), p.GPUs)
	}
	for g, gpu := range p.GPUs {
		best := -1.0
		for _, row := range p.Rows {
			if row.GPUIndex == g && row.MeetsLimits && row.OutputTokSGPU > best {
				best = row.OutputTokSGPU
			}
		}
		if gpu.BestRow < 0 || !p.Rows[gpu.BestRow].Best || p.Rows[gpu.BestRow].OutputTokSGPU != best {
			t.Errorf("GPU %s: best row %d is not the fastest within the limits (%g)", gpu.Name, gpu.BestRow, best)
		}
	}
	row := p.Rows[13]
	e := open(t, Options{Model: "llama-3.1-8b-instruct", GPU: "H200", TensorParallel: int(row.TP)})
	w.Concurrency = row.Concurrency
	s, err := e.ServingEstimate(w)
	if err != nil || s.TTFTms != row.TTFTms || s.TPOTms != row.TPOTms {
		t.Errorf("row %+v against ServingEstimate %+v (%v)", row, s, err)
	}
	r.GPUs = []string{"no-such-gpu"}
	if _, err := Plan(Options{Model: "llama-3.1-8b-instruct"}, w, r); !errors.Is(err, ErrUnknownName) {
		t.Errorf("an unknown GPU gave %v, want ErrUnknownName", err)
	}
}
