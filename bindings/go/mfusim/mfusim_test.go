package mfusim

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestLayoutMatchesC(t *testing.T) {
	for _, f := range layoutFacts() {
		if f.goVal != f.cVal {
			t.Errorf("%s: Go %d, C %d", f.name, f.goVal, f.cVal)
		}
	}
	if got := len(layoutFacts()); got < 5 {
		t.Fatalf("only %d layout facts", got)
	}
}

func TestVersionAndCatalogue(t *testing.T) {
	if VersionNumber() != HeaderVersionNumber {
		t.Errorf("loaded library %d (%s), compiled against header %d", VersionNumber(), Version(), HeaderVersionNumber)
	}
	if strings.Count(Version(), ".") != 2 {
		t.Errorf("Version() = %q", Version())
	}
	contains := func(list []string, want string) bool {
		for _, s := range list {
			if strings.EqualFold(s, want) {
				return true
			}
		}
		return false
	}
	for _, m := range []string{"qwen3-8b", "llama-3.1-8b-instruct"} {
		if !contains(Models(), m) {
			t.Errorf("model catalogue %v lacks %s", Models(), m)
		}
	}
	for _, g := range []string{"H100", "H20"} {
		if !contains(GPUs(), g) {
			t.Errorf("GPU catalogue %v lacks %s", GPUs(), g)
		}
	}
}

func finitePositive(t *testing.T, what string, v float64) {
	t.Helper()
	if !(v > 0) || math.IsInf(v, 0) || math.IsNaN(v) {
		t.Fatalf("%s = %v, want a positive finite time", what, v)
	}
}

func stepTime(t *testing.T, e *Estimator, reqs []Request) float64 {
	t.Helper()
	v, err := e.StepTime(reqs)
	if err != nil {
		t.Fatalf("StepTime(%d requests): %v", len(reqs), err)
	}
	finitePositive(t, "StepTime", v)
	return v
}

func decodes(n int, context int64) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Decode(context)
	}
	return reqs
}

func TestRooflineStepTime(t *testing.T) {
	for _, model := range []string{"llama-3.1-8b-instruct", "qwen3-8b"} {
		t.Run(model, func(t *testing.T) {
			e := open(t, Options{Model: model, GPU: "H100"})
			// The fixed per-step overhead: vLLM's fitted step_us is 0 (docs/engine.md), so >= 0, finite.
			if v, err := e.StepTime(nil); err != nil || !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("empty step: %v, %v", v, err)
			}
			stepTime(t, e, decodeStep())
			stepTime(t, e, mixedStep(256))
			// Decode grows with the batch and with the context.
			prev := 0.0
			for _, n := range []int{1, 8, 64, 256, 1024} {
				v := stepTime(t, e, decodes(n, 4096))
				if v <= prev {
					t.Errorf("decode batch %d: %v us, not above the smaller batch's %v us", n, v, prev)
				}
				prev = v
			}
			prev = 0
			for _, c := range []int64{128, 1024, 8192, 32768} {
				v := stepTime(t, e, decodes(64, c))
				if v <= prev {
					t.Errorf("decode context %d: %v us, not above the shorter context's %v us", c, v, prev)
				}
				prev = v
			}
			// A prefill chunk costs more than one decode.
			if p, d := stepTime(t, e, []Request{Prefill(2048, 0, true)}), stepTime(t, e, decodeStep()); p <= d {
				t.Errorf("prefill 2048 = %v us, decode = %v us", p, d)
			}
		})
	}
}

func TestBatchEqualsSingleCalls(t *testing.T) {
	for _, o := range []Options{rooflineOptions, compatOptions} {
		e := open(t, o)
		steps := [][]Request{decodeStep(), mixedStep(256), nil, mixedStep(17), decodes(3, 100), {Prefill(4096, 0, true)}}
		var all []Request
		var sizes []int64
		for _, s := range steps {
			all = append(all, s...)
			sizes = append(sizes, int64(len(s)))
		}
		out := make([]float64, len(steps))
		if err := e.StepTimeBatch(all, sizes, out); err != nil {
			t.Fatalf("mode %d: StepTimeBatch: %v", o.Mode, err)
		}
		for i, s := range steps {
			single, err := e.StepTime(s)
			if err != nil {
				t.Fatalf("mode %d step %d: %v", o.Mode, i, err)
			}
			if math.Float64bits(single) != math.Float64bits(out[i]) {
				t.Errorf("mode %d step %d: batch %v, single %v", o.Mode, i, out[i], single)
			}
		}
	}
}

func TestStepDetail(t *testing.T) {
	e := open(t, rooflineOptions)
	var r StepResult
	for _, reqs := range [][]Request{decodeStep(), mixedStep(256)} {
		if err := e.StepDetail(reqs, &r); err != nil {
			t.Fatal(err)
		}
		want, _ := e.StepTime(reqs)
		if math.Float64bits(r.TotalUS) != math.Float64bits(want) {
			t.Errorf("StepDetail total %v, StepTime %v", r.TotalUS, want)
		}
		if r.nOps != OpCount || len(r.Ops()) != OpCount || OpCount > OpCapacity {
			t.Errorf("n_ops %d, Ops() has %d, OpCount %d, OpCapacity %d", r.nOps, len(r.Ops()), OpCount, OpCapacity)
		}
		if r.Op(OpOverhead) != &r.Ops()[OpOverhead] || r.Op(Op(len(r.Ops()))) != nil || r.Op(-1) != nil {
			t.Errorf("Op(op) does not follow Ops()")
		}
		var some bool
		for op, d := range r.Ops() {
			op := Op(op)
			if d.TimeUS < 0 || math.IsNaN(d.TimeUS) {
				t.Errorf("%s: time %v", op, d.TimeUS)
			}
			some = some || d.TimeUS > 0
			_ = d.Table()
			if d.Source.String() == "" || d.Bound.String() == "" {
				t.Errorf("%s: unnamed bound or source", op)
			}
		}
		if !some {
			t.Errorf("no operation has time")
		}
		if r.Bound.String() == "" || OpQKVProj.String() != "qkv_proj" {
			t.Errorf("names: bound %q, op %q", r.Bound, OpQKVProj)
		}
	}
}

func TestErrorsAreTyped(t *testing.T) {
	_, err := Open(Options{Model: "no-such-model-xyz", GPU: "H100"})
	var me *Error
	if !errors.As(err, &me) || me.Status != ErrUnknownName || !errors.Is(err, ErrUnknownName) {
		t.Fatalf("unknown model: %#v", err)
	}
	if !strings.Contains(me.Message, "no-such-model-xyz") {
		t.Errorf("message does not name the model: %q", me.Message)
	}
	if errors.Is(err, ErrIO) {
		t.Errorf("errors.Is matched the wrong status")
	}
	if _, err := Open(Options{Model: "qwen3-8b", GPU: "no-such-gpu"}); !errors.Is(err, ErrUnknownName) {
		t.Errorf("unknown GPU: %v", err)
	}
	if _, err := Open(Options{GPU: "H100"}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("no model: %v", err)
	}
	if _, err := Open(Options{Model: "qwen3-8b", GPU: "H100", TensorParallel: -2}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("TP -2: %v", err)
	}

	e := open(t, rooflineOptions)
	_, err = e.StepTime([]Request{Decode(10), {NewTokens: -5, Context: 1}})
	if !errors.As(err, &me) || me.Status != ErrInvalidArgument || !strings.Contains(me.Message, "request 1") {
		t.Errorf("negative tokens: %v", err)
	}
	out := []float64{-1, -1}
	err = e.StepTimeBatch([]Request{Decode(10), {NewTokens: 1, Context: -1}}, []int64{1, 1}, out)
	if !errors.As(err, &me) || me.Status != ErrInvalidArgument || !strings.Contains(me.Message, "step 1") {
		t.Errorf("batch error: %v", err)
	}
	if out[0] != -1 || out[1] != -1 {
		t.Errorf("out written on failure: %v", out)
	}
	// The library checks the step sizes against len(reqs), naming the step at fault.
	err = e.StepTimeBatch(decodeStep(), []int64{1, 1}, out)
	if !errors.As(err, &me) || me.Status != ErrInvalidArgument || !strings.Contains(me.Message, "step 1") {
		t.Errorf("sizes past the requests: %v", err)
	}
	if err := e.StepTimeBatch(decodes(3, 100), []int64{1, 1}, out); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("sizes short of the requests: %v", err)
	}
	if out[0] != -1 || out[1] != -1 {
		t.Errorf("out written on failure: %v", out)
	}
	if err := e.StepTimeBatch(decodeStep(), []int64{1}, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("out too short: %v", err)
	}
	if err := e.StepTimeBatch(decodeStep(), []int64{-1}, out); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative size: %v", err)
	}
	if err := e.StepDetail(decodeStep(), nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("nil out: %v", err)
	}
	t.Logf("example error: %v", err)
}

func TestCompatMode(t *testing.T) {
	e := open(t, compatOptions)
	if v, err := e.StepTime(nil); err != nil || v != 0 { // InferSim has no step without work
		t.Errorf("empty compat step: %v, %v; want 0", v, err)
	}
	stepTime(t, e, decodes(32, 4096))
	stepTime(t, e, []Request{Prefill(4096, 0, true)})
	s := DefaultScenario()
	if s.InputLen != 4096 || s.OutputLen != 2048 || s.DecodeBatch != -1 {
		t.Errorf("DefaultScenario = %+v", s)
	}
	r, err := e.Estimate(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"prefill.ttft_ms", "decode.tpot_ms"} {
		v, err := r.Value(name)
		if err != nil {
			t.Fatalf("Value(%s): %v (names %v)", name, err, r.Names())
		}
		finitePositive(t, name, v)
	}
	if _, err := r.Value("no.such.quantity"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing quantity: %v", err)
	}
	if r.Len() == 0 || r.Name(0) == "" || r.ValueAt(0) != r.values[0] {
		t.Errorf("report order accessors")
	}
	_ = r.Warnings() + r.SoftErrors()

	// InferSim does not know the H100: compat refuses it.
	if _, err := Open(Options{Model: "qwen3-8b", GPU: "H100", Mode: ModeInferSim}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("compat on H100: %v", err)
	}
}

func TestRooflineEstimate(t *testing.T) {
	e := open(t, rooflineOptions)
	s := DefaultScenario()
	s.InputLen, s.OutputLen = 1024, 128
	r, err := e.Estimate(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"prefill.ttft_ms", "decode.tpot_ms"} {
		v, err := r.Value(name)
		if err != nil {
			t.Fatal(err)
		}
		finitePositive(t, name, v)
	}
	s.InputLen = -1
	if _, err := e.Estimate(s); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative input: %v", err)
	}
}

func TestConcurrentUseGivesIdenticalResults(t *testing.T) {
	e := open(t, rooflineOptions)
	steps := [][]Request{decodeStep(), mixedStep(256), mixedStep(64), decodes(128, 1000)}
	want := make([]float64, len(steps))
	for i, s := range steps {
		want[i] = stepTime(t, e, s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			local := make([][]Request, len(steps)) // each goroutine its own request memory
			for i, s := range steps {
				local[i] = append([]Request(nil), s...)
			}
			out := make([]float64, 1)
			for k := 0; k < 500; k++ {
				i := (g + k) % len(steps)
				v, err := e.StepTime(local[i])
				if err == nil && math.Float64bits(v) != math.Float64bits(want[i]) {
					err = &Error{Message: "different result"}
				}
				if err == nil {
					err = e.StepTimeBatch(local[i], []int64{int64(len(local[i]))}, out)
					if err == nil && math.Float64bits(out[0]) != math.Float64bits(want[i]) {
						err = &Error{Message: "different batch result"}
					}
				}
				if err != nil {
					errs <- err.Error()
					return
				}
				if k%100 == 0 {
					runtime.Gosched()
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestZeroAllocationsOnTheHotPath(t *testing.T) {
	e := open(t, rooflineOptions)
	one, mixed := decodeStep(), mixedStep(256)
	batch := append(append([]Request(nil), mixed...), one...)
	sizes := []int64{256, 1}
	out := make([]float64, 2)
	var detail StepResult
	var sink float64
	cases := map[string]func(){
		"StepTime(1)":   func() { v, _ := e.StepTime(one); sink += v },
		"StepTime(256)": func() { v, _ := e.StepTime(mixed); sink += v },
		"StepTimeBatch": func() { _ = e.StepTimeBatch(batch, sizes, out) },
		"StepDetail":    func() { _ = e.StepDetail(mixed, &detail) },
	}
	for name, f := range cases {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
	_ = sink
}

func TestCloseIsIdempotent(t *testing.T) {
	e, err := Open(rooflineOptions)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.StepTime(decodeStep()); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("StepTime after Close: %v", err)
	}
}

func TestFinalizerBackstop(t *testing.T) {
	for i := 0; i < 20; i++ {
		if _, err := Open(rooflineOptions); err != nil { // never closed: the finalizer frees it
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC()
}

func TestNewOptions(t *testing.T) {
	base := stepTime(t, open(t, rooflineOptions), decodeStep())
	o := rooflineOptions
	o.Engine = "none"
	bare := stepTime(t, open(t, o), decodeStep())
	if !(bare < base) {
		t.Errorf("engine none %v us, not below the default engine's %v us", bare, base)
	}
	o = rooflineOptions
	o.Quant = "fp8"
	stepTime(t, open(t, o), decodeStep())
	o = rooflineOptions
	o.Engine = "no-such-engine"
	if _, err := Open(o); err == nil {
		t.Errorf("unknown engine accepted")
	}
	o = rooflineOptions
	o.ExpertParallel = -3
	if _, err := Open(o); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative expert parallelism: %v", err)
	}
}

func TestEngineOperation(t *testing.T) {
	e := open(t, rooflineOptions)
	var r StepResult
	if err := e.StepDetail(decodeStep(), &r); err != nil {
		t.Fatal(err)
	}
	if name := OpEngine.String(); name == "" || name == "unknown" || r.Op(OpEngine) == nil || !(r.Op(OpEngine).TimeUS > 0) {
		t.Errorf("engine operation: %q %+v", OpEngine, r.Op(OpEngine))
	}
}

func TestServingEstimate(t *testing.T) {
	w := DefaultServing()
	if w.InputLen <= 0 || w.OutputLen <= 0 || w.Concurrency <= 0 {
		t.Fatalf("DefaultServing = %+v", w)
	}
	e := open(t, rooflineOptions)
	r, err := e.ServingEstimate(w)
	if err != nil {
		t.Fatal(err)
	}
	finitePositive(t, "TTFTms", r.TTFTms)
	finitePositive(t, "TPOTms", r.TPOTms)
	if r.LimitedBy.String() == "unknown" {
		t.Errorf("LimitedBy %d", r.LimitedBy)
	}
	w.OutputLen = 0
	if _, err := e.ServingEstimate(w); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("output_len 0: %v", err)
	} else if err.(*Error).Message == "" {
		t.Errorf("no message")
	}
	if _, err := open(t, compatOptions).ServingEstimate(DefaultServing()); !errors.Is(err, ErrUnsupported) {
		t.Errorf("compat serving: %v", err)
	}
}

// mfusim_disagg_estimate through the binding (docs/disagg.md): every field lands where the C struct puts it (TTFT
// is its five parts, E2E and throughput follow from TTFT, TPOT and the GPUs of both pools), TTFT grows with the
// prompt, more prefill workers cut the prefill queue, and bad inputs give the library's typed errors.
func TestDisaggEstimate(t *testing.T) {
	w := DefaultDisaggServing()
	if w.InputLen <= 0 || w.OutputLen <= 0 || w.Concurrency <= 0 || w.PrefillWorkers != 1 || w.DecodeWorkers != 1 {
		t.Fatalf("DefaultDisaggServing = %+v", w)
	}
	prefill := open(t, rooflineOptions)
	tp2 := rooflineOptions
	tp2.TensorParallel = 2
	decode := open(t, tp2)
	w.InputLen, w.OutputLen, w.Concurrency, w.DecodeBatch = 2048, 256, 32, 64
	r, err := DisaggEstimate(prefill, decode, w)
	if err != nil {
		t.Fatal(err)
	}
	finitePositive(t, "TTFTms", r.TTFTms)
	finitePositive(t, "TPOTms", r.TPOTms)
	finitePositive(t, "PrefillMs", r.PrefillMs)
	finitePositive(t, "TransferMs", r.TransferMs)
	finitePositive(t, "KVTransferBytes", r.KVTransferBytes)
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("TTFTms", r.TTFTms, r.AdmissionMs+r.PrefillQueueMs+r.PrefillMs+r.TransferMs+r.DecodeWaitMs)
	near("E2Ems", r.E2Ems, r.TTFTms+float64(w.OutputLen-1)*r.TPOTms)
	near("OutputTokensPerSecPerGPU", r.OutputTokensPerSecPerGPU, r.RequestsPerSec*float64(w.OutputLen)/3)
	if r.PrefillGPUs != 1 || r.DecodeGPUs != 2 || r.TransferOverNetwork() {
		t.Errorf("GPUs %d + %d, over network %v", r.PrefillGPUs, r.DecodeGPUs, r.TransferOverNetwork())
	}
	if s := r.String(); strings.Contains(s, "structSize") || !strings.Contains(s, "TransferOverNetwork:false") {
		t.Errorf("String() = %q", s)
	}

	longer := w
	longer.InputLen = 8192
	if l, err := DisaggEstimate(prefill, decode, longer); err != nil || !(l.PrefillMs > r.PrefillMs && l.TTFTms > r.TTFTms) {
		t.Errorf("ISL 8192: prefill %v TTFT %v (ISL 2048: %v, %v), %v", l.PrefillMs, l.TTFTms, r.PrefillMs, r.TTFTms, err)
	}
	more := w
	more.PrefillWorkers = 4
	if m, err := DisaggEstimate(prefill, decode, more); err != nil || !(m.PrefillQueueMs < r.PrefillQueueMs) {
		t.Errorf("4 prefill workers: queue %v ms (1 worker: %v), %v", m.PrefillQueueMs, r.PrefillQueueMs, err)
	}

	bad := w
	bad.PrefillWorkers = 0
	if _, err := DisaggEstimate(prefill, decode, bad); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "prefill_workers") {
		t.Errorf("prefill_workers 0: %v", err)
	}
	if _, err := DisaggEstimate(nil, decode, w); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("nil prefill: %v", err)
	}
	compat := open(t, compatOptions)
	if _, err := DisaggEstimate(compat, compat, DefaultDisaggServing()); !errors.Is(err, ErrUnsupported) {
		t.Errorf("compat disagg: %v", err)
	}
}

func TestCalibrationScalesTheFamiliesItNames(t *testing.T) {
	base := open(t, Options{Model: "llama-3.1-8b-instruct", GPU: "H100"})
	cal := open(t, Options{Model: "llama-3.1-8b-instruct", GPU: "H100",
		Calibration: `{"mfusim_calibration": 1, "efficiency": {"decode_attention": 2.0}}`})
	step := decodes(64, 4096)
	var b, c StepResult
	if err := base.StepDetail(step, &b); err != nil {
		t.Fatal(err)
	}
	if err := cal.StepDetail(step, &c); err != nil {
		t.Fatal(err)
	}
	attention := b.Op(OpAttnDecode).TimeUS
	if !(attention > 0) || math.Abs(c.Op(OpAttnDecode).TimeUS-2*attention) > 1e-9*attention ||
		math.Abs(c.TotalUS-b.TotalUS-attention) > 1e-9*c.TotalUS {
		t.Errorf("decode attention %v -> %v, total %v -> %v", attention, c.Op(OpAttnDecode).TimeUS, b.TotalUS, c.TotalUS)
	}
	_, err := Open(Options{Model: "llama-3.1-8b-instruct", GPU: "H100",
		Calibration: `{"mfusim_calibration": 1, "efficiency": {"gemm": 9}}`})
	var e *Error
	if !errors.As(err, &e) || e.Status != ErrConfig || !strings.Contains(e.Message, "efficiency.gemm") {
		t.Errorf("out-of-range multiplier: %v", err)
	}
}
