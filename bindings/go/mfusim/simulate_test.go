package mfusim

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func smallSimulation() Simulation {
	s := DefaultSimulation()
	s.NumPrompts = 24
	s.Warmup = 2
	s.MaxConcurrency = 4
	s.InputDistribution = LengthUniform
	s.InputLen = 256
	s.InputSpread = 64
	s.OutputLen = 16
	s.Seed = 7
	return s
}

func simulate(t *testing.T, e *Estimator, s Simulation) *SimulationResult {
	t.Helper()
	r, err := e.Simulate(&s)
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestSimulationDefaults(t *testing.T) {
	s := DefaultSimulation()
	if s.NumPrompts != 1000 || !math.IsInf(s.RequestRate, 1) || s.Burstiness != 1 || s.InputLen != 1024 ||
		s.OutputLen != 128 || s.Scheduler != SchedulerEngine {
		t.Fatalf("DefaultSimulation() = %+v", s)
	}
}

func TestSimulate(t *testing.T) {
	e := open(t, rooflineOptions)
	s := smallSimulation()
	s.RecordTimeline = true
	s.SLOTTFTms = 1e9
	r := simulate(t, e, s)
	sum, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Completed != 22 || sum.TotalOutputTokens != 22*16 || sum.RequestGoodput != sum.RequestThroughput {
		t.Fatalf("summary %+v", sum)
	}
	finitePositive(t, "TTFT mean", sum.TTFTms.Mean)
	finitePositive(t, "ITL mean", sum.ITLms.Mean)
	if !(sum.TTFTms.Min <= sum.TTFTms.Median && sum.TTFTms.Median <= sum.TTFTms.P99 && sum.TTFTms.P99 <= sum.TTFTms.Max) {
		t.Fatalf("TTFT %+v out of order", sum.TTFTms)
	}
	reqs := r.Requests()
	if len(reqs) != 24 || reqs[0].Warmup != 1 || reqs[2].Warmup != 0 {
		t.Fatalf("requests %+v", reqs)
	}
	for i, q := range reqs {
		if q.InputLen < 192 || q.InputLen > 320 || q.OutputLen != 16 || !(q.E2ELms >= q.TTFTms) || !(q.TTFTms > 0) {
			t.Fatalf("request %d: %+v", i, q)
		}
	}
	steps := r.Timeline()
	if int64(len(steps)) != sum.Steps || steps[0].DurationMs <= 0 || steps[0].Running <= 0 {
		t.Fatalf("timeline of %d steps for %d; first %+v", len(steps), sum.Steps, steps[0])
	}
	if p, err := r.Percentile(MetricTTFT, 50); err != nil || p != sum.TTFTms.Median {
		t.Fatalf("Percentile(TTFT, 50) = %v, %v; median %v", p, err, sum.TTFTms.Median)
	}
	if p, err := r.Percentile(MetricITL, 99); err != nil || p != sum.ITLms.P99 {
		t.Fatalf("Percentile(ITL, 99) = %v, %v; p99 %v", p, err, sum.ITLms.P99)
	}
	var merr *Error
	if _, err := r.Percentile(Metric(9), 50); !errors.As(err, &merr) || merr.Status != ErrInvalidArgument {
		t.Fatalf("Percentile(9) error %v", err)
	}

	// Determinism: the same simulation gives the same requests; another seed other lengths.
	again := simulate(t, e, smallSimulation())
	if !reflect.DeepEqual(again.Requests(), reqs) {
		t.Fatal("the same seed gave different requests")
	}
	other := smallSimulation()
	other.Seed = 8
	if reflect.DeepEqual(simulate(t, e, other).Requests(), reqs) {
		t.Fatal("another seed gave the same requests")
	}
	if again.Timeline() != nil {
		t.Fatal("a timeline without RecordTimeline")
	}
	again.Close()
	again.Close() // idempotent
	if again.Requests() != nil {
		t.Fatal("requests after Close")
	}
}

func TestSimulateTraceAndErrors(t *testing.T) {
	e := open(t, rooflineOptions)
	s := DefaultSimulation()
	s.Trace = []TraceRequest{{0, 128, 8, -1, 0}, {0.01, 256, 4, 1, 64}, {0.02, 256, 4, 1, 64}}
	r := simulate(t, e, s)
	reqs := r.Requests()
	if len(reqs) != 3 || reqs[0].InputLen != 128 || reqs[2].OutputLen != 4 {
		t.Fatalf("trace requests %+v", reqs)
	}
	check := func(s Simulation, field string) {
		t.Helper()
		_, err := e.Simulate(&s)
		var merr *Error
		if !errors.As(err, &merr) || merr.Status != ErrInvalidArgument || !strings.Contains(merr.Message, field) {
			t.Fatalf("want ErrInvalidArgument naming %s, got %v", field, err)
		}
	}
	bad := smallSimulation()
	bad.NumPrompts = 0
	check(bad, "num_prompts")
	bad = smallSimulation()
	bad.MaxSeqs = -1
	check(bad, "max_seqs")
	bad = smallSimulation()
	bad.SLOTPOTms = math.NaN()
	check(bad, "slo_tpot_ms")
	bad = smallSimulation()
	bad.RampUpS = -1
	check(bad, "ramp_up_s")
	ramped := smallSimulation()
	ramped.RampUpS = 0.3
	if sent := simulate(t, e, ramped).Requests(); sent[0].SendMs != 0 || sent[3].SendMs < 200 || sent[3].SendMs > 300 {
		t.Fatalf("ramp over 0.3 s: sends %v %v", sent[0].SendMs, sent[3].SendMs)
	}
	s.Trace[2].ArrivalS = 0.001
	check(s, "trace[2].arrival_s")
	if _, err := e.Simulate(nil); err == nil {
		t.Fatal("Simulate(nil) succeeded")
	}
	c := open(t, compatOptions)
	small := smallSimulation()
	var merr *Error
	if _, err := c.Simulate(&small); !errors.As(err, &merr) || merr.Status != ErrUnsupported {
		t.Fatalf("compat Simulate: %v", err)
	}
}
