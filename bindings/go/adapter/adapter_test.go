package adapter

import (
	"errors"
	"math"
	"testing"

	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
)

// simRequest mimics the fields of a BLIS sim.Request that a latency model reads.
type simRequest struct {
	InputTokens   []int
	ProgressIndex int
	NumNewTokens  int
}

func view(r *simRequest) Step {
	return Step{Progress: int64(r.ProgressIndex), NewTokens: int64(r.NumNewTokens), PromptLen: int64(len(r.InputTokens))}
}

func openEstimator(t testing.TB) *mfusim.Estimator {
	t.Helper()
	e, err := mfusim.Open(mfusim.Options{Model: "llama-3.1-8b-instruct", GPU: "H100"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// batch: prompts of 3000 tokens; request i has processed i*50 tokens (the first ones prefilling in chunks of at
// most 512, the rest decoding), like a scheduler with chunked prefill would form it.
func makeBatch(n int) []*simRequest {
	prompt := make([]int, 3000)
	batch := make([]*simRequest, n)
	for i := range batch {
		r := &simRequest{InputTokens: prompt, ProgressIndex: i * 50}
		if r.ProgressIndex < len(prompt) {
			r.NumNewTokens = min(512, len(prompt)-r.ProgressIndex)
		} else {
			r.NumNewTokens = 1
		}
		batch[i] = r
	}
	return batch
}

func TestConversion(t *testing.T) {
	cases := []struct {
		step Step
		want mfusim.Request
	}{
		{Step{Progress: 0, NewTokens: 512, PromptLen: 2000}, mfusim.Prefill(512, 0, false)},
		{Step{Progress: 1536, NewTokens: 464, PromptLen: 2000}, mfusim.Prefill(464, 1536, true)},
		{Step{Progress: 0, NewTokens: 0, PromptLen: 700}, mfusim.Prefill(700, 0, true)},
		{Step{Progress: 2000, NewTokens: 1, PromptLen: 2000}, mfusim.Decode(2000)},
		{Step{Progress: 2500, NewTokens: 0, PromptLen: 2000}, mfusim.Decode(2500)},
	}
	for _, c := range cases {
		if got := c.step.Request(); got != c.want {
			t.Errorf("%+v: got %+v, want %+v", c.step, got, c.want)
		}
	}
}

func TestStepTimeMatchesTheLibrary(t *testing.T) {
	e := openEstimator(t)
	timer := New(e, view)
	for _, n := range []int{0, 1, 7, 64, 256} {
		batch := makeBatch(n)
		reqs := make([]mfusim.Request, n)
		for i, r := range batch {
			reqs[i] = view(r).Request()
		}
		want, err := e.StepTime(reqs)
		if err != nil {
			t.Fatal(err)
		}
		got := timer.StepTime(batch)
		if got != int64(math.Round(want)) || got <= 0 {
			t.Errorf("batch of %d: StepTime %d, library %v us", n, got, want)
		}
		micros, err := timer.StepTimeMicros(batch)
		if err != nil || math.Float64bits(micros) != math.Float64bits(want) {
			t.Errorf("batch of %d: StepTimeMicros %v (%v), library %v", n, micros, err, want)
		}
	}
}

func TestDecodeStepsGrowWithTheBatch(t *testing.T) {
	timer := New(openEstimator(t), view)
	prompt := make([]int, 100)
	var prev int64
	for _, n := range []int{1, 16, 128, 1024} {
		batch := make([]*simRequest, n)
		for i := range batch {
			batch[i] = &simRequest{InputTokens: prompt, ProgressIndex: 4000, NumNewTokens: 1}
		}
		us := timer.StepTime(batch)
		if us <= prev {
			t.Errorf("decode batch %d: %d us, not above %d", n, us, prev)
		}
		prev = us
	}
}

func TestNoAllocationsPerStep(t *testing.T) {
	timer := New(openEstimator(t), view)
	batch := makeBatch(256)
	timer.StepTime(batch) // grows the scratch slice once
	var sink int64
	if n := testing.AllocsPerRun(1000, func() { sink += timer.StepTime(batch) }); n != 0 {
		t.Errorf("%v allocations per step, want 0", n)
	}
	_ = sink
}

func TestImpossibleBatchPanicsWithTheLibraryError(t *testing.T) {
	timer := New(openEstimator(t), view)
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		} else if err, ok := r.(error); !ok || !errors.Is(err, mfusim.ErrInvalidArgument) {
			t.Fatalf("panic value %v", r)
		}
	}()
	timer.StepTime([]*simRequest{{InputTokens: make([]int, 10), ProgressIndex: -4, NumNewTokens: 3}})
}

func BenchmarkStepTime256(b *testing.B) {
	timer := New(openEstimator(b), view)
	batch := makeBatch(256)
	b.ReportAllocs()
	b.ResetTimer()
	var sink int64
	for i := 0; i < b.N; i++ {
		sink += timer.StepTime(batch)
	}
	_ = sink
}
