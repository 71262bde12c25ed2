package mfusim

import (
	"errors"
	"strings"
	"testing"
)

// A serving sweep over concurrency: every point is the serving estimate of its workload, and more requests in
// flight make each token slower and the GPU more productive.
func TestSweepServing(t *testing.T) {
	w := DefaultServing()
	w.InputLen, w.OutputLen = 1024, 128
	r := DefaultSweepRequest()
	if r.Vary != SweepDecodeBatch || r.Series != SweepNone || r.DecodeBatch != 32 {
		t.Fatalf("default request %+v", r)
	}
	r.Serving = true
	r.Vary = SweepConcurrency
	r.VaryValues = []string{"1", "2", "4", "8", "16", "32"}
	s, err := Sweep(Options{Model: "llama-3.1-8b-instruct", GPU: "H100"}, w, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rows) != 6 || len(s.Details) != 6 || len(s.Errors) != 6 {
		t.Fatalf("%d rows, %d details, %d errors; want 6", len(s.Rows), len(s.Details), len(s.Errors))
	}
	for i := 1; i < len(s.Rows); i++ {
		a, b := s.Rows[i-1], s.Rows[i]
		if b.OK != 1 || int(b.VaryIndex) != i || b.TPOTms < a.TPOTms || b.OutputTokSGPU <= a.OutputTokSGPU {
			t.Errorf("point %d %+v after %+v: want TPOT and throughput rising with concurrency", i, b, a)
		}
	}
	e := open(t, Options{Model: "llama-3.1-8b-instruct", GPU: "H100"})
	w.Concurrency = 8
	served, err := e.ServingEstimate(w)
	if err != nil || served.TTFTms != s.Rows[3].TTFTms || served.TPOTms != s.Rows[3].TPOTms {
		t.Errorf("point %+v against ServingEstimate %+v (%v)", s.Rows[3], served, err)
	}
}

// A step sweep with a series: rows series-major, each the step time of its step, rising with the decode batch.
func TestSweepStep(t *testing.T) {
	r := DefaultSweepRequest()
	r.VaryValues = []string{"1", "16", "128"}
	r.Series, r.SeriesValues = SweepTP, []string{"1", "2"}
	r.Context = 4096
	s, err := Sweep(Options{Model: "llama-3.1-8b-instruct", GPU: "H100"}, DefaultServing(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rows) != 6 {
		t.Fatalf("%d rows, want 6", len(s.Rows))
	}
	for i, row := range s.Rows {
		if int(row.VaryIndex) != i%3 || int(row.SeriesIndex) != i/3 || row.OK != 1 || s.Details[i] == "" {
			t.Errorf("row %d: %+v (%q)", i, row, s.Details[i])
		}
		if i%3 > 0 && row.StepMs < s.Rows[i-1].StepMs {
			t.Errorf("row %d: step time falls with a larger decode batch: %g < %g", i, row.StepMs, s.Rows[i-1].StepMs)
		}
	}
	e := open(t, Options{Model: "llama-3.1-8b-instruct", GPU: "H100", TensorParallel: 2})
	step := make([]Request, 16)
	for i := range step {
		step[i] = Decode(4096)
	}
	us, err := e.StepTime(step)
	if err != nil || s.Rows[4].StepMs != us/1000 {
		t.Errorf("row 4 %g ms against StepTime %g us (%v)", s.Rows[4].StepMs, us, err)
	}
}

func TestSweepErrorsNameTheField(t *testing.T) {
	o := Options{Model: "llama-3.1-8b-instruct", GPU: "H100"}
	for _, c := range []struct {
		edit func(*SweepRequest)
		want string
	}{
		{func(r *SweepRequest) { r.Vary, r.VaryValues = SweepConcurrency, []string{"4"} }, "concurrency"},
		{func(r *SweepRequest) { r.VaryValues = []string{"-1"} }, "decode-batch"},
		{func(r *SweepRequest) {}, "vary_values"},
		{func(r *SweepRequest) { r.VaryValues, r.Vary = []string{"1"}, SweepParam(42) }, "vary"},
	} {
		r := DefaultSweepRequest()
		c.edit(&r)
		_, err := Sweep(o, DefaultServing(), r)
		var e *Error
		if !errors.Is(err, ErrInvalidArgument) || !errors.As(err, &e) || !strings.Contains(e.Message, c.want) {
			t.Errorf("%+v gave %v, want ErrInvalidArgument naming %s", r, err, c.want)
		}
	}
}
