// Package adapter serves the latency-model interface of a discrete-event serving simulator from libmfusim.
//
// inference-sim (BLIS) asks its latency model four things, all in microseconds:
//
//	StepTime(batch []*sim.Request) int64   // one engine step over the running batch, >= 1
//	QueueingTime(req *sim.Request) int64   // a request's time before its first step (admission, tokenisation)
//	OutputTokenProcessingTime() int64      // per generated token, off the GPU's path
//	PostDecodeFixedOverhead() int64        // after a decode step, outside the step
//
// Model[R] has exactly these methods for any request type R, read through an Accessor[R] answering four counts
// (tokens computed so far, tokens this step, prompt length, cached-prefix tokens not counted in the first), so the
// simulator's *sim.Request plugs in without a copy. BLIS's ProgressIndex counts the cached prefix from the step
// after admission on, so its accessor answers only the part not yet counted (bindings/go/blis/latency/mfusim.go,
// the ready BLIS backend):
//
//	type blisRequest struct{}
//	func (blisRequest) Tokens(r *sim.Request) (progress, newTokens, promptLen, cachedPrefix int64) {
//		return r.ProgressIndex, int64(r.NumNewTokens), r.InputLen(), max(0, r.CachedPrefixTokens-r.ProgressIndex)
//	}
//
//	est, err := mfusim.Open(mfusim.Options{Model: "llama-3.1-8b-instruct", GPU: "H100", Engine: "vllm"})
//	m, err := adapter.New[*sim.Request](est, blisRequest{})
//	us := m.StepTime(batch)
//
// Errors come at construction. The step path never panics: a step the library rejects returns the last good step
// time (before any, the engine's empty-step time, at least 1 us) and is counted in Stats. A Model reuses one
// request buffer, so a step allocates nothing; it belongs to one simulator goroutine, while the *mfusim.Estimator
// behind it may be shared by many Models (one per simulated instance). docs/blis.md shows the wiring.
package adapter

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
)

// Accessor reads what the latency model needs from the simulator's request type R, in one call per request (a
// step of 256 requests makes 256 calls, not 1024). It must not retain its argument; a zero-size struct type is the
// natural implementation (no allocation). The four counts, in tokens:
//
//   - progress: computed by earlier steps, not counting the cached prefix: prompt tokens prefilled so far, then
//     prompt plus generated tokens. After a preemption that frees its KV cache the simulator resets it to 0.
//   - newTokens: computed this step: a prefill chunk's length, 1 for a decode. 0 means "the rest of the prompt"
//     while prefilling, 1 afterwards.
//   - promptLen: to process before the request produces output: the prompt (input) length; after a preemption
//     with recompute, the tokens to recompute (input + generated so far).
//   - cachedPrefix: prompt tokens found in the prefix cache at admission that progress does not count (no step
//     computes them); 0 without prefix caching.
type Accessor[R any] interface {
	Tokens(r R) (progress, newTokens, promptLen, cachedPrefix int64)
}

// Entry is the libmfusim request entry for one request of a step:
// context = cached prefix + progress, new_tokens = tokens this step, and RequestNoOutput while a prefill chunk
// ends before the prompt does (no LM head for it). A decode is the same rule with one new token.
func Entry(progress, newTokens, promptLen, cached int64) mfusim.Request {
	ctx := cached + progress
	if newTokens <= 0 {
		newTokens = 1
		if ctx < promptLen {
			newTokens = promptLen - ctx
		}
	}
	r := mfusim.Request{NewTokens: newTokens, Context: ctx}
	if ctx+newTokens < promptLen {
		r.Flags = mfusim.RequestNoOutput
	}
	return r
}

// Stats are a Model's counters since construction (or ResetStats).
type Stats struct {
	Calls     int64 // calls of the four latency-model methods
	Steps     int64 // StepTime calls
	Requests  int64 // request entries timed by StepTime
	Errors    int64 // StepTime calls the library rejected (answered with the fallback)
	LastError error // the most recent of them, nil if none
}

// Model is a simulator latency model backed by a libmfusim estimator. Not safe for concurrent use (it owns a
// reusable request buffer); make one per simulator goroutine.
type Model[R any] struct {
	est   *mfusim.Estimator
	owned bool
	acc   Accessor[R]
	reqs  []mfusim.Request // reused across steps; grows to the largest batch once

	terms     mfusim.EngineTerms
	emptyStep int64 // the engine's per-step time (a step with no requests), >= 1
	lastStep  int64 // the last good StepTime answer, the fallback of a failed step
	warnings  string
	stats     Stats
	outputUS  int64
}

// New returns a Model over est (not closed by the Model) reading requests through acc. It fails if est cannot
// time a step (a closed estimator). The engine's out-of-step terms come from the library (mfusim.EngineTerms);
// where this libmfusim cannot report them they are 0 and LoadWarnings says so.
func New[R any](est *mfusim.Estimator, acc Accessor[R]) (*Model[R], error) {
	if est == nil {
		return nil, errors.New("mfusim adapter: nil estimator")
	}
	if acc == nil {
		return nil, errors.New("mfusim adapter: nil accessor")
	}
	empty, err := est.StepTime(nil)
	if err != nil {
		return nil, fmt.Errorf("mfusim adapter: timing an empty step: %w", err)
	}
	m := &Model[R]{est: est, acc: acc, emptyStep: clampMicros(empty)}
	m.lastStep = m.emptyStep
	var warn []string
	if w := strings.TrimSpace(est.LoadWarnings()); w != "" {
		warn = append(warn, w)
	}
	terms, err := est.EngineTerms()
	switch {
	case err == nil:
		m.terms = terms
	case errors.Is(err, mfusim.ErrUnsupported):
		warn = append(warn, "adapter: QueueingTime and OutputTokenProcessingTime answer 0: "+err.Error())
	default:
		return nil, fmt.Errorf("mfusim adapter: reading the engine terms: %w", err)
	}
	m.outputUS = roundMicros(m.terms.OutputTokenUS, 0)
	m.warnings = strings.Join(warn, "\n")
	return m, nil
}

// Open opens an estimator with o and returns a Model owning it (Close frees it).
func Open[R any](o mfusim.Options, acc Accessor[R]) (*Model[R], error) {
	est, err := mfusim.Open(o)
	if err != nil {
		return nil, err
	}
	m, err := New(est, acc)
	if err != nil {
		est.Close()
		return nil, err
	}
	m.owned = true
	return m, nil
}

// Close frees the estimator if the Model opened it (Open); a Model from New leaves its estimator alone.
func (m *Model[R]) Close() error {
	if m.owned {
		return m.est.Close()
	}
	return nil
}

// Estimator is the estimator behind the Model.
func (m *Model[R]) Estimator() *mfusim.Estimator { return m.est }

// EngineTerms are the engine's out-of-step terms the Model answers with (zero where the library cannot report
// them; see LoadWarnings).
func (m *Model[R]) EngineTerms() mfusim.EngineTerms { return m.terms }

// LoadWarnings are the estimator's load warnings (fallbacks taken) and the adapter's own, one per line; "" if none.
func (m *Model[R]) LoadWarnings() string { return m.warnings }

// Stats returns the counters.
func (m *Model[R]) Stats() Stats { return m.stats }

// ResetStats zeroes the counters.
func (m *Model[R]) ResetStats() { m.stats = Stats{} }

// Requests fills the reused buffer with the libmfusim entries of batch and returns it (valid until the next call):
// what StepTime hands to the library.
func (m *Model[R]) Requests(batch []R) []mfusim.Request {
	if cap(m.reqs) < len(batch) {
		m.reqs = make([]mfusim.Request, len(batch))
	}
	reqs := m.reqs[:len(batch)]
	for i, r := range batch {
		reqs[i] = Entry(m.acc.Tokens(r))
	}
	return reqs
}

// StepTimeMicros is the step's time in microseconds, unrounded, or the library's error (not counted in Stats).
func (m *Model[R]) StepTimeMicros(batch []R) (float64, error) {
	return m.est.StepTime(m.Requests(batch))
}

// StepTime is the time of one engine step over batch in whole microseconds (rounded to nearest), at least 1.
// It never panics: if the library rejects the batch (a negative token count, a closed estimator) it returns the
// last good answer (before any, the empty step's time) and counts the error in Stats.
func (m *Model[R]) StepTime(batch []R) int64 {
	m.stats.Calls++
	m.stats.Steps++
	m.stats.Requests += int64(len(batch))
	us, err := m.StepTimeMicros(batch)
	if err != nil {
		m.stats.Errors++
		m.stats.LastError = err
		return m.lastStep
	}
	m.lastStep = clampMicros(us)
	return m.lastStep
}

// QueueingTime is a request's time before its first step: the engine's admission_us + input_token_us x prompt
// tokens (the whole prompt, cached prefix included: it is tokenised all the same), rounded to microseconds.
func (m *Model[R]) QueueingTime(req R) int64 {
	m.stats.Calls++
	_, _, n, _ := m.acc.Tokens(req)
	if n < 0 {
		n = 0
	}
	return roundMicros(m.terms.AdmissionUS+m.terms.InputTokenUS*float64(n), 0)
}

// OutputTokenProcessingTime is the engine's output_token_us (detokenisation and streaming per generated token),
// rounded to microseconds.
func (m *Model[R]) OutputTokenProcessingTime() int64 {
	m.stats.Calls++
	return m.outputUS
}

// PostDecodeFixedOverhead is 0: libmfusim's engine profile has no term acting after a decode step outside it.
// The engine's per-step work (scheduling, sampling, launch gaps) is inside every StepTime already, and its
// per-token output work is OutputTokenProcessingTime; a non-zero value here would count one of them twice.
func (m *Model[R]) PostDecodeFixedOverhead() int64 {
	m.stats.Calls++
	return 0
}

// maxMicros bounds every answer: the simulator adds times to its clock, and MaxInt64/2 leaves it room to.
const maxMicros = math.MaxInt64 / 2

// clampMicros is a step time in whole microseconds, in [1, maxMicros].
func clampMicros(us float64) int64 { return roundMicros(us, 1) }

// roundMicros rounds us to whole microseconds within [lo, maxMicros]: the one float-to-integer conversion of the
// adapter. Go's int64(f) of a float past the int64 range (a huge prompt times the per-token cost) or NaN is
// unspecified (MinInt64 on amd64), so a too-large time would come back as a negative one.
func roundMicros(us float64, lo int64) int64 {
	if !(us >= float64(lo)) { // also NaN
		return lo
	}
	if us >= maxMicros {
		return maxMicros
	}
	return int64(math.Round(us))
}
