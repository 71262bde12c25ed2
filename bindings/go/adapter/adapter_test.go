package adapter

import (
	"errors"
	"math"
	"testing"

	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
)

// simRequest mimics the fields of a BLIS sim.Request that a latency model reads, plus what the test's scheduler
// needs to drive it through its lifecycle.
type simRequest struct {
	ID            int
	InputTokens   []int
	ProgressIndex int // tokens computed by earlier steps, cached prefix not counted
	NumNewTokens  int // tokens scheduled this step
	CachedTokens  int // prompt tokens hit in the prefix cache at admission
	OutputLen     int // tokens to generate
	Generated     int
	Recompute     int // after a preemption: tokens to prefill again (input + generated), else 0
}

func (r *simRequest) prefillTarget() int {
	if r.Recompute > 0 {
		return r.Recompute
	}
	return len(r.InputTokens)
}

// access is the Accessor a simulator writes: a zero-size type reading the request's own fields.
type access struct{}

func (access) Tokens(r *simRequest) (progress, newTokens, promptLen, cachedPrefix int64) {
	return int64(r.ProgressIndex), int64(r.NumNewTokens), int64(r.prefillTarget()), int64(r.CachedTokens)
}

var options = mfusim.Options{Model: "llama-3.1-8b-instruct", GPU: "H100", Engine: "vllm"}

func openEstimator(t testing.TB) *mfusim.Estimator {
	t.Helper()
	e, err := mfusim.Open(options)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func newModel(t testing.TB, e *mfusim.Estimator) *Model[*simRequest] {
	t.Helper()
	m, err := New[*simRequest](e, access{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reference is the test's own statement of the mapping (docs/blis.md), independent of Entry.
func reference(batch []*simRequest) []mfusim.Request {
	out := make([]mfusim.Request, len(batch))
	for i, r := range batch {
		ctx := int64(r.CachedTokens + r.ProgressIndex)
		n := int64(r.NumNewTokens)
		last := ctx+n >= int64(r.prefillTarget())
		out[i] = mfusim.Prefill(n, ctx, last) // a decode is a 1-token "chunk" past the prompt, which is last
	}
	return out
}

func libraryMicros(t testing.TB, e *mfusim.Estimator, reqs []mfusim.Request) int64 {
	t.Helper()
	us, err := e.StepTime(reqs)
	if err != nil {
		t.Fatal(err)
	}
	return int64(math.Max(1, math.Round(us)))
}

func TestEntry(t *testing.T) {
	cases := []struct {
		progress, newTokens, prompt, cached int64
		want                                mfusim.Request
	}{
		{0, 512, 2000, 0, mfusim.Prefill(512, 0, false)},
		{1536, 464, 2000, 0, mfusim.Prefill(464, 1536, true)},
		{0, 0, 700, 0, mfusim.Prefill(700, 0, true)},
		{0, 451, 547, 96, mfusim.Prefill(451, 96, true)}, // prefix-cache hit: one chunk over the cached 96
		{0, 256, 547, 96, mfusim.Prefill(256, 96, false)},
		{256, 195, 547, 96, mfusim.Prefill(195, 352, true)},
		{2000, 1, 2000, 0, mfusim.Decode(2000)},
		{1904, 1, 2000, 96, mfusim.Decode(2000)},
		{2500, 0, 2000, 0, mfusim.Decode(2500)},
	}
	for _, c := range cases {
		if got := Entry(c.progress, c.newTokens, c.prompt, c.cached); got != c.want {
			t.Errorf("Entry%v: got %+v, want %+v", []int64{c.progress, c.newTokens, c.prompt, c.cached}, got, c.want)
		}
	}
}

// The case: a 547-token prompt with 96 cached reaches the step as progress 0, 451 new tokens. Without the
// cached count the chunk is timed over an empty context and as not producing output.
func TestCachedPrefixCounts(t *testing.T) {
	e := openEstimator(t)
	m := newModel(t, e)
	r := &simRequest{InputTokens: make([]int, 547), NumNewTokens: 451, CachedTokens: 96, OutputLen: 10}
	got := m.StepTime([]*simRequest{r})
	if want := libraryMicros(t, e, []mfusim.Request{mfusim.Prefill(451, 96, true)}); got != want {
		t.Errorf("cached-prefix step %d us, library %d us", got, want)
	}
	r.CachedTokens = 0
	without := m.StepTime([]*simRequest{r})
	if without >= got {
		t.Errorf("without the cached prefix %d us, with it %d us: want less", without, got)
	}
}

// scheduler is a small vLLM-V1-like scheduler: a token budget per step shared by the running decodes and the
// prefill chunks (FCFS), a KV budget that preempts the newest running request (recompute), prefix-cache hits.
type scheduler struct {
	budget, kvTokens int
	waiting, running []*simRequest
	batch            []*simRequest
	done             int
}

func (s *scheduler) kvUsed() int {
	n := 0
	for _, r := range s.running {
		n += r.CachedTokens + r.ProgressIndex
	}
	return n
}

// schedule forms the next step's batch; it reuses s.batch.
func (s *scheduler) schedule() []*simRequest {
	s.batch = s.batch[:0]
	left := s.budget
	// Preempt the newest running request while the KV cache would overflow (recompute: its KV is freed and it
	// prefills input + generated again).
	for len(s.running) > 1 && s.kvUsed()+len(s.running) > s.kvTokens {
		v := s.running[len(s.running)-1]
		s.running = s.running[:len(s.running)-1]
		v.Recompute = len(v.InputTokens) + v.Generated
		v.ProgressIndex, v.CachedTokens = 0, 0
		s.waiting = append([]*simRequest{v}, s.waiting...)
	}
	for _, r := range s.running {
		if left == 0 {
			break
		}
		n := 1
		if rem := r.prefillTarget() - r.CachedTokens - r.ProgressIndex; rem > 0 {
			n = min(rem, left)
		}
		r.NumNewTokens = n
		left -= n
		s.batch = append(s.batch, r)
	}
	for left > 0 && len(s.waiting) > 0 {
		r := s.waiting[0]
		s.waiting = s.waiting[1:]
		s.running = append(s.running, r)
		r.NumNewTokens = min(r.prefillTarget()-r.CachedTokens-r.ProgressIndex, left)
		left -= r.NumNewTokens
		s.batch = append(s.batch, r)
	}
	return s.batch
}

// advance applies a finished step: progress moves by the tokens computed; a step reaching the end of the prompt
// (or a decode) produces a token; finished requests leave.
func (s *scheduler) advance() {
	for _, r := range s.batch {
		r.ProgressIndex += r.NumNewTokens
		if r.CachedTokens+r.ProgressIndex >= r.prefillTarget() {
			r.Generated++
		}
	}
	kept := s.running[:0]
	for _, r := range s.running {
		if r.Generated >= r.OutputLen {
			s.done++
			continue
		}
		kept = append(kept, r)
	}
	s.running = kept
}

// The lifecycle: arrivals over time, prompts longer than the budget prefilled in several chunks, prefix-cache
// hits, decodes to completion, and a KV budget small enough to preempt and recompute.
func TestLifecycle(t *testing.T) {
	e := openEstimator(t)
	m := newModel(t, e)
	s := &scheduler{budget: 512, kvTokens: 6000}
	prompts := []int{1800, 547, 64, 3000, 900, 547, 120, 2048, 300, 700}
	var arrivals []*simRequest
	for i, p := range prompts {
		r := &simRequest{ID: i, InputTokens: make([]int, p), OutputLen: 20 + 13*i}
		if i%3 == 1 {
			r.CachedTokens = 96 * (1 + i%2) // prefix-cache hit
		}
		arrivals = append(arrivals, r)
	}
	terms := m.EngineTerms()
	if m.Stats().Calls != 0 {
		t.Fatal("counters not zero at construction")
	}

	var chunked, cachedHits, preempted, decodes, steps int
	allocChecks := 0
	for step := 0; s.done < len(prompts); step++ {
		if step > 20000 {
			t.Fatal("the lifecycle does not finish")
		}
		// One arrival every 7 steps; each is queued for QueueingTime before it can be scheduled.
		if step%7 == 0 && len(arrivals) > 0 {
			r := arrivals[0]
			arrivals = arrivals[1:]
			q := m.QueueingTime(r)
			want := int64(math.Round(terms.AdmissionUS + terms.InputTokenUS*float64(len(r.InputTokens))))
			if q != want || q < 0 {
				t.Errorf("QueueingTime %d, engine terms give %d", q, want)
			}
			s.waiting = append(s.waiting, r)
		}
		batch := s.schedule()
		if len(batch) == 0 {
			continue
		}
		for _, r := range batch {
			switch {
			case r.Recompute > 0 && r.ProgressIndex == 0:
				preempted++
			case r.CachedTokens > 0 && r.ProgressIndex == 0:
				cachedHits++
			}
			if r.NumNewTokens > 1 && r.CachedTokens+r.ProgressIndex+r.NumNewTokens < r.prefillTarget() {
				chunked++
			}
			if r.NumNewTokens == 1 {
				decodes++
			}
		}
		steps++
		ref := reference(batch)
		got := m.StepTime(batch)
		want := libraryMicros(t, e, ref)
		if got != want {
			t.Fatalf("step %d (%d requests): adapter %d us, library %d us", step, len(batch), got, want)
		}
		if got < 1 {
			t.Fatalf("step %d: %d us", step, got)
		}
		// Monotone in work: one more decode, or one more prefill token, never takes less time.
		more := append(append([]mfusim.Request(nil), ref...), mfusim.Decode(4096))
		if w := libraryMicros(t, e, more); w < got {
			t.Errorf("step %d: adding a decode gives %d us < %d us", step, w, got)
		}
		if allocChecks < 40 && step%5 == 0 && !asan {
			allocChecks++
			if n := testing.AllocsPerRun(20, func() { m.StepTime(batch) }); n != 0 {
				t.Errorf("step %d: %v allocations per StepTime", step, n)
			}
		}
		if m.OutputTokenProcessingTime() != int64(math.Round(terms.OutputTokenUS)) {
			t.Errorf("OutputTokenProcessingTime %d, engine term %v", m.OutputTokenProcessingTime(), terms.OutputTokenUS)
		}
		if m.PostDecodeFixedOverhead() != 0 {
			t.Error("PostDecodeFixedOverhead not 0")
		}
		s.advance()
	}
	t.Logf("%d steps: %d chunks not last, %d cached-prefix first chunks, %d recomputes after preemption, %d decodes",
		steps, chunked, cachedHits, preempted, decodes)
	if chunked == 0 || cachedHits == 0 || preempted == 0 || decodes == 0 {
		t.Errorf("the lifecycle missed a phase: chunks %d, cache hits %d, preemptions %d, decodes %d",
			chunked, cachedHits, preempted, decodes)
	}
	if st := m.Stats(); st.Errors != 0 || st.Steps == 0 || st.Requests < st.Steps {
		t.Errorf("stats %+v", st)
	}
}

func TestMonotoneInWork(t *testing.T) {
	m := newModel(t, openEstimator(t))
	prompt := make([]int, 100000)
	// Decode batches.
	var prev int64
	for _, n := range []int{1, 16, 128, 1024} {
		batch := make([]*simRequest, n)
		for i := range batch {
			batch[i] = &simRequest{InputTokens: prompt[:100], ProgressIndex: 4000, NumNewTokens: 1}
		}
		us := m.StepTime(batch)
		if us < prev {
			t.Errorf("decode batch %d: %d us < %d us", n, us, prev)
		}
		prev = us
	}
	// Longer chunks, longer contexts.
	prev = 0
	for _, n := range []int{1, 64, 512, 2048, 8192} {
		us := m.StepTime([]*simRequest{{InputTokens: prompt[:8192], NumNewTokens: n}})
		if us < prev {
			t.Errorf("chunk %d: %d us < %d us", n, us, prev)
		}
		prev = us
	}
	prev = 0
	for _, c := range []int{0, 1000, 10000, 50000} {
		us := m.StepTime([]*simRequest{{InputTokens: prompt[:c+512], CachedTokens: c, NumNewTokens: 512}})
		if us < prev {
			t.Errorf("chunk over %d cached: %d us < %d us", c, us, prev)
		}
		prev = us
	}
}

func TestNoAllocationsInAnyMethod(t *testing.T) {
	if asan {
		t.Skip("-asan instrumentation allocates")
	}
	m := newModel(t, openEstimator(t))
	batch := mixedBatch(256)
	m.StepTime(batch) // grows the request buffer once
	var sink int64
	for name, f := range map[string]func(){
		"StepTime":                  func() { sink += m.StepTime(batch) },
		"QueueingTime":              func() { sink += m.QueueingTime(batch[0]) },
		"OutputTokenProcessingTime": func() { sink += m.OutputTokenProcessingTime() },
		"PostDecodeFixedOverhead":   func() { sink += m.PostDecodeFixedOverhead() },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
	_ = sink
}

func TestEmptyStepIsTheEnginesStepTime(t *testing.T) {
	e := openEstimator(t)
	m := newModel(t, e)
	if got, want := m.StepTime(nil), libraryMicros(t, e, nil); got != want || got < 1 {
		t.Errorf("empty step %d us, library %d", got, want)
	}
	// Kernels alone: an empty step costs nothing, still answered as 1 us.
	none, err := mfusim.Open(mfusim.Options{Model: options.Model, GPU: options.GPU, Engine: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	if got := newModel(t, none).StepTime(nil); got != 1 {
		t.Errorf("engine none, empty step: %d us, want 1", got)
	}
}

func TestFailedStepFallsBackAndCounts(t *testing.T) {
	m := newModel(t, openEstimator(t))
	good := m.StepTime(mixedBatch(32))
	bad := []*simRequest{{InputTokens: make([]int, 10), ProgressIndex: -40, NumNewTokens: 3}}
	if got := m.StepTime(bad); got != good {
		t.Errorf("failed step answered %d, want the last good %d", got, good)
	}
	st := m.Stats()
	if st.Errors != 1 || st.Steps != 2 || st.Requests != 33 || st.Calls != 2 {
		t.Errorf("stats %+v", st)
	}
	if !errors.Is(st.LastError, mfusim.ErrInvalidArgument) {
		t.Errorf("LastError %v", st.LastError)
	}
	// Before any good step the fallback is the empty step's time.
	m2 := newModel(t, m.Estimator())
	if got, empty := m2.StepTime(bad), m2.StepTime(nil); got != empty || got < 1 {
		t.Errorf("first step failed: %d us, empty step %d us", got, empty)
	}
	m.ResetStats()
	if m.Stats() != (Stats{}) {
		t.Error("ResetStats")
	}
}

func TestConstructionErrors(t *testing.T) {
	if _, err := Open[*simRequest](mfusim.Options{Model: "no-such-model", GPU: "H100"}, access{}); !errors.Is(err, mfusim.ErrUnknownName) {
		t.Errorf("unknown model: %v", err)
	}
	e, err := mfusim.Open(options)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	if _, err := New[*simRequest](e, access{}); err == nil {
		t.Error("closed estimator accepted")
	}
	if _, err := New[*simRequest](nil, access{}); err == nil {
		t.Error("nil estimator accepted")
	}
	m, err := Open[*simRequest](options, access{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	terms, err := m.Estimator().EngineTerms()
	if err == nil {
		if m.EngineTerms() != terms {
			t.Errorf("terms %+v, library %+v", m.EngineTerms(), terms)
		}
	} else if !errors.Is(err, mfusim.ErrUnsupported) || m.LoadWarnings() == "" {
		t.Errorf("engine terms unavailable (%v) but no load warning: %q", err, m.LoadWarnings())
	}
}

// mixedBatch is the fixtures' mixed step seen from the simulator (bindings/README.md, "Shared fixtures"): 4 prefill
// chunks of 512 tokens over 0, 1024, 2048, 3072 computed tokens (the even ones not their prompt's last), then
// decodes over 256 + (i*97 mod 8192) tokens.
// n == 1 is the fixtures' 1-request step, a decode over 2048 tokens.
func mixedBatch(n int) []*simRequest {
	if n == 1 {
		return []*simRequest{{InputTokens: make([]int, 128), ProgressIndex: 2048, NumNewTokens: 1}}
	}
	batch := make([]*simRequest, n)
	for i := range batch {
		if i < 4 {
			prompt := 1024*i + 512
			if i%2 == 0 {
				prompt += 512
			}
			batch[i] = &simRequest{InputTokens: make([]int, prompt), ProgressIndex: 1024 * i, NumNewTokens: 512}
		} else {
			ctx := 256 + (i*97)%8192
			batch[i] = &simRequest{InputTokens: make([]int, 128), ProgressIndex: ctx, NumNewTokens: 1}
		}
	}
	return batch
}

func benchAdapter(b *testing.B, n int) {
	m := newModel(b, openEstimator(b))
	batch := mixedBatch(n)
	m.StepTime(batch)
	b.ReportAllocs()
	b.ResetTimer()
	var sink int64
	for i := 0; i < b.N; i++ {
		sink += m.StepTime(batch)
	}
	_ = sink
}

// benchDirect is the same step as a ready []mfusim.Request handed straight to the library.
func benchDirect(b *testing.B, n int) {
	e := openEstimator(b)
	reqs := reference(mixedBatch(n))
	b.ReportAllocs()
	b.ResetTimer()
	var sink float64
	for i := 0; i < b.N; i++ {
		us, err := e.StepTime(reqs)
		if err != nil {
			b.Fatal(err)
		}
		sink += us
	}
	_ = sink
}

func BenchmarkAdapterStepTime1(b *testing.B)   { benchAdapter(b, 1) }
func BenchmarkDirectStepTime1(b *testing.B)    { benchDirect(b, 1) }
func BenchmarkAdapterStepTime32(b *testing.B)  { benchAdapter(b, 32) }
func BenchmarkDirectStepTime32(b *testing.B)   { benchDirect(b, 32) }
func BenchmarkAdapterStepTime256(b *testing.B) { benchAdapter(b, 256) }
func BenchmarkDirectStepTime256(b *testing.B)  { benchDirect(b, 256) }

// Every float-to-integer conversion saturates: a huge prompt's queueing time (past int64 as a float) was MinInt64,
// a negative time, before roundMicros.
func TestConversionsSaturate(t *testing.T) {
	m := newModel(t, openEstimator(t))
	m.terms.AdmissionUS, m.terms.InputTokenUS = 100, 2.5
	huge := &simRequest{Recompute: math.MaxInt64}
	if q := m.QueueingTime(huge); q != maxMicros {
		t.Errorf("QueueingTime of a %d-token prompt: %d, want the saturated %d", huge.Recompute, q, int64(maxMicros))
	}
	if q := m.QueueingTime(&simRequest{Recompute: 1000}); q != 2600 {
		t.Errorf("QueueingTime of 1000 tokens: %d, want 2600", q)
	}
	for _, c := range []struct {
		us     float64
		lo     int64
		expect int64
	}{
		{math.NaN(), 0, 0}, {math.Inf(1), 0, maxMicros}, {math.Inf(-1), 1, 1}, {-5, 0, 0}, {1e300, 1, maxMicros},
		{math.MaxInt64, 0, maxMicros}, {0.4, 1, 1}, {2.5, 0, 3}, {1e15 + 0.5, 0, 1e15 + 1},
	} {
		if got := roundMicros(c.us, c.lo); got != c.expect {
			t.Errorf("roundMicros(%g, %d) = %d, want %d", c.us, c.lo, got, c.expect)
		}
	}
}
