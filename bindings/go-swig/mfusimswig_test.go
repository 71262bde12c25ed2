package mfusimswig

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
)

// Shared fixtures (bindings/README.md): the same configurations and steps as every other binding.
func mixedStep(n int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		if i < 4 {
			reqs[i] = Request{NewTokens: 512, Context: int64(1024 * i)}
			if i%2 == 0 {
				reqs[i].Flags = uint32(MFUSIM_REQUEST_NO_OUTPUT)
			}
		} else {
			reqs[i] = Request{NewTokens: 1, Context: int64(256 + (i*97)%8192)}
		}
	}
	return reqs
}

func decodeStep() []Request { return []Request{{NewTokens: 1, Context: 2048}} }

func open(t testing.TB, model, gpu string, mode int) Estimator {
	t.Helper()
	opts := NewOptions()
	defer DeleteOptions(opts)
	opts.SetModel(model)
	opts.SetGpu(gpu)
	opts.SetMode(mode)
	var e Estimator
	if err := EstimatorCreate(opts, &e); err != nil {
		t.Fatalf("EstimatorCreate(%s, %s): %v", model, gpu, err)
	}
	t.Cleanup(func() { EstimatorFree(e) })
	return e
}

func roofline(t testing.TB) Estimator {
	return open(t, "llama-3.1-8b-instruct", "H100", MFUSIM_MODE_ROOFLINE)
}

func stepTime(t *testing.T, e Estimator, reqs []Request) float64 {
	t.Helper()
	var us float64
	if err := StepTime(e, reqs, &us); err != nil {
		t.Fatal(err)
	}
	if !(us > 0) || math.IsInf(us, 0) {
		t.Fatalf("step time %v", us)
	}
	return us
}

func TestRequestLayout(t *testing.T) {
	if g, c := requestLayout(); g != c {
		t.Fatalf("Request layout: Go %v, C %v", g, c)
	}
}

func TestVersionAndCatalogue(t *testing.T) {
	if VersionNumber() != uint(MFUSIM_VERSION_NUMBER) || !strings.Contains(VersionString(), ".") {
		t.Errorf("version %d %q", VersionNumber(), VersionString())
	}
	var models []string
	for i := int64(0); i < CatalogueModelCount(); i++ {
		models = append(models, CatalogueModelName(i))
	}
	if !strings.Contains(strings.Join(models, ","), "qwen3-8b") {
		t.Errorf("models %v", models)
	}
	if CatalogueGpuCount() == 0 || CatalogueGpuName(0) == "" {
		t.Errorf("no GPUs")
	}
}

func TestStepTimeGrows(t *testing.T) {
	e := roofline(t)
	var empty float64
	if err := StepTime(e, nil, &empty); err != nil || empty != 0 {
		t.Errorf("empty step: %v us, %v (the fitted vllm profile has no per-step cost)", empty, err)
	}
	stepTime(t, e, mixedStep(256))
	prev := 0.0
	for _, n := range []int{1, 16, 256, 1024} {
		reqs := make([]Request, n)
		for i := range reqs {
			reqs[i] = Request{NewTokens: 1, Context: 4096}
		}
		if v := stepTime(t, e, reqs); v <= prev {
			t.Errorf("batch %d: %v us not above %v", n, v, prev)
		} else {
			prev = v
		}
	}
	prev = 0
	for _, c := range []int64{128, 2048, 32768} {
		reqs := []Request{{NewTokens: 1, Context: c}, {NewTokens: 1, Context: c}}
		if v := stepTime(t, e, reqs); v <= prev {
			t.Errorf("context %d: %v us not above %v", c, v, prev)
		} else {
			prev = v
		}
	}
}

func TestBatchEqualsSingle(t *testing.T) {
	for mode, e := range []Estimator{roofline(t), open(t, "qwen3-8b", "H20", MFUSIM_MODE_INFERSIM)} {
		steps := [][]Request{decodeStep(), mixedStep(256), nil, mixedStep(9)}
		var all []Request
		var sizes []int64
		for _, s := range steps {
			all = append(all, s...)
			sizes = append(sizes, int64(len(s)))
		}
		out := make([]float64, len(steps))
		if err := StepTimeBatch(e, all, sizes, out); err != nil {
			t.Fatal(err)
		}
		for i, s := range steps {
			var single float64
			if err := StepTime(e, s, &single); err != nil {
				t.Fatal(err)
			}
			// An empty step: the engine's fixed per-step cost in roofline mode (0 for the fitted vllm profile), 0 in
			// compat mode.
			if len(s) == 0 && single != 0 {
				t.Errorf("mode %d: empty step %v", mode, single)
			}
			if math.Float64bits(single) != math.Float64bits(out[i]) {
				t.Errorf("step %d: batch %v single %v", i, out[i], single)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	opts := NewOptions()
	defer DeleteOptions(opts)
	opts.SetModel("no-such-model-xyz")
	opts.SetGpu("H100")
	var e Estimator
	err := EstimatorCreate(opts, &e)
	var me *Error
	if !errors.As(err, &me) || !errors.Is(err, ErrUnknownName) || !strings.Contains(me.Message, "no-such-model-xyz") {
		t.Fatalf("unknown model: %v", err)
	}
	if e != nil {
		t.Errorf("estimator set on failure")
	}

	est := roofline(t)
	var us float64
	err = StepTime(est, []Request{{NewTokens: -1}}, &us)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "request 0") {
		t.Errorf("negative tokens: %v", err)
	}
	out := make([]float64, 1)
	// The library checks the step sizes against len(reqs), naming the step at fault.
	if err := StepTimeBatch(est, decodeStep(), []int64{2}, out); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "step 0") {
		t.Errorf("sizes past the requests: %v", err)
	}
	if err := StepTimeBatch(est, mixedStep(3), []int64{2}, out); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("sizes short of the requests: %v", err)
	}
	if err := StepTimeBatch(est, decodeStep(), []int64{1, 0}, out); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("out too short: %v", err)
	}
}

func TestDetailAndReport(t *testing.T) {
	e := open(t, "qwen3-8b", "H20", MFUSIM_MODE_INFERSIM)
	r := NewStepResult()
	defer DeleteStepResult(r)
	if err := StepDetail(e, mixedStep(256), r); err != nil {
		t.Fatal(err)
	}
	if r.GetTotal_us() != stepTime(t, e, mixedStep(256)) || r.GetN_ops() != MFUSIM_OP_COUNT ||
		MFUSIM_OP_COUNT > MFUSIM_OP_CAPACITY {
		t.Errorf("detail total %v, n_ops %d, capacity %d", r.GetTotal_us(), r.GetN_ops(), MFUSIM_OP_CAPACITY)
	}
	for op := 0; op < int(r.GetN_ops()); op++ {
		if d := r.Op(op); d.Swigcptr() == 0 || d.GetTime_us() < 0 || OpName(op) == "" {
			t.Errorf("op %d", op)
		}
	}
	if r.Op(int(r.GetN_ops())).Swigcptr() != 0 || r.Op(-1).Swigcptr() != 0 {
		t.Errorf("Op past n_ops is not nil")
	}
	s := NewScenario()
	defer DeleteScenario(s)
	var rep Report
	if err := Estimate(e, s, &rep); err != nil {
		t.Fatal(err)
	}
	defer ReportFree(rep)
	var ttft float64
	if err := ReportValue(rep, "prefill.ttft_ms", &ttft); err != nil || !(ttft > 0) {
		t.Errorf("prefill.ttft_ms = %v (%v)", ttft, err)
	}
	if err := ReportValue(rep, "no.such", &ttft); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing quantity: %v", err)
	}
	if ReportCount(rep) == 0 || ReportName(rep, 0) == "" {
		t.Errorf("empty report")
	}
}

func TestConcurrent(t *testing.T) {
	e := roofline(t)
	reqs := mixedStep(256)
	want := stepTime(t, e, reqs)
	var wg sync.WaitGroup
	bad := make(chan float64, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := append([]Request(nil), reqs...)
			var us float64
			for k := 0; k < 500; k++ {
				if err := StepTime(e, local, &us); err != nil || us != want {
					bad <- us
					return
				}
			}
		}()
	}
	wg.Wait()
	close(bad)
	for v := range bad {
		t.Errorf("concurrent result %v, want %v", v, want)
	}
}

func TestZeroAllocations(t *testing.T) {
	e := roofline(t)
	one, mixed := decodeStep(), mixedStep(256)
	us := new(float64)
	out := make([]float64, 1)
	sizes := []int64{256}
	for name, f := range map[string]func(){
		"StepTime(1)":   func() { _ = StepTime(e, one, us) },
		"StepTime(256)": func() { _ = StepTime(e, mixed, us) },
		"StepTimeBatch": func() { _ = StepTimeBatch(e, mixed, sizes, out) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
}

func benchSingle(b *testing.B, reqs []Request) {
	e := roofline(b)
	us := new(float64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := StepTime(e, reqs, us); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStepTime1(b *testing.B)   { benchSingle(b, decodeStep()) }
func BenchmarkStepTime256(b *testing.B) { benchSingle(b, mixedStep(256)) }

func benchBatch(b *testing.B, step []Request, nSteps int) {
	e := roofline(b)
	var reqs []Request
	sizes := make([]int64, nSteps)
	for i := range sizes {
		reqs = append(reqs, step...)
		sizes[i] = int64(len(step))
	}
	out := make([]float64, nSteps)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := StepTimeBatch(e, reqs, sizes, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nSteps), "ns/step")
}

func BenchmarkStepTimeBatch1x1000(b *testing.B) { benchBatch(b, decodeStep(), 1000) }
func BenchmarkStepTimeBatch256x64(b *testing.B) { benchBatch(b, mixedStep(256), 64) }

func TestServingAndNewOptions(t *testing.T) {
	opts := NewOptions()
	defer DeleteOptions(opts)
	opts.SetModel("llama-3.1-8b-instruct")
	opts.SetGpu("H100")
	opts.SetEngine("none")
	opts.SetQuant("fp8")
	if opts.GetEngine() != "none" || opts.GetExpert_parallel() != 1 || opts.GetAttention_data_parallel() != 1 {
		t.Errorf("options: engine %q, ep %d, adp %d", opts.GetEngine(), opts.GetExpert_parallel(),
			opts.GetAttention_data_parallel())
	}
	var e Estimator
	if err := EstimatorCreate(opts, &e); err != nil {
		t.Fatal(err)
	}
	defer EstimatorFree(e)
	w := NewServing()
	defer DeleteServing(w)
	r := NewServingResult()
	defer DeleteServingResult(r)
	if err := ServingEstimate(e, w, r); err != nil || !(r.GetTtft_ms() > 0) || !(r.GetTpot_ms() > 0) {
		t.Errorf("serving: ttft %v, tpot %v (%v)", r.GetTtft_ms(), r.GetTpot_ms(), err)
	}
	w.SetOutput_len(0)
	var me *Error
	if err := ServingEstimate(e, w, r); !errors.As(err, &me) || me.Status != ErrInvalidArgument || me.Message == "" {
		t.Errorf("output_len 0: %v", err)
	}
}
