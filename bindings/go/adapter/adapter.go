// Package adapter serves a discrete-event serving simulator's latency-model interface from libmfusim.
//
// BLIS (inference-sim) asks its latency model `StepTime(batch []*sim.Request) int64`: the duration of one engine
// step in microseconds, for the running batch as the scheduler formed it. Each request there knows its prompt
// length, how many tokens it has already processed (its progress index: prompt tokens prefilled so far, then
// tokens generated) and how many tokens this step computes. StepTimer converts that view into a reused
// []mfusim.Request and asks the estimator, allocating nothing per step:
//
//	view := func(r *sim.Request) adapter.Step {
//		return adapter.Step{Progress: int64(r.ProgressIndex), NewTokens: int64(r.NumNewTokens),
//			PromptLen: int64(len(r.InputTokens))}
//	}
//	timer := adapter.New(estimator, view)
//	us := timer.StepTime(batch) // int64 microseconds
//
// A StepTimer owns a scratch slice, so it belongs to one simulator goroutine; the *mfusim.Estimator behind it may
// be shared by any number of StepTimers (one per simulated instance).
package adapter

import (
	"fmt"
	"math"

	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
)

// Step is what the simulator knows about one request of the batch.
type Step struct {
	Progress  int64 // tokens already processed: prompt tokens prefilled so far, then generated tokens
	NewTokens int64 // tokens computed this step (a prefill chunk's length, or 1 for a decode); 0 counts as 1
	PromptLen int64 // prompt (input) tokens
}

// Request converts the simulator's view: while Progress < PromptLen the request is prefilling a chunk of
// NewTokens on top of Progress cached tokens, and only the prompt's last chunk produces a token; afterwards it
// decodes one token over Progress tokens of KV history.
func (s Step) Request() mfusim.Request {
	if s.Progress < s.PromptLen {
		n := s.NewTokens
		if n <= 0 {
			n = s.PromptLen - s.Progress
		}
		return mfusim.Prefill(n, s.Progress, s.Progress+n >= s.PromptLen)
	}
	n := s.NewTokens
	if n <= 0 {
		n = 1
	}
	return mfusim.Request{NewTokens: n, Context: s.Progress}
}

// StepTimer is a simulator latency model backed by an estimator.
type StepTimer[R any] struct {
	est  *mfusim.Estimator
	view func(R) Step
	reqs []mfusim.Request // reused across steps; grows to the largest batch once
}

// New returns a StepTimer reading requests of type R through view (which must not retain its argument).
func New[R any](est *mfusim.Estimator, view func(R) Step) *StepTimer[R] {
	return &StepTimer[R]{est: est, view: view}
}

// StepTimeMicros is the step duration in microseconds, unrounded, or the library's error.
func (t *StepTimer[R]) StepTimeMicros(batch []R) (float64, error) {
	t.reqs = t.reqs[:0]
	for _, r := range batch {
		t.reqs = append(t.reqs, t.view(r).Request())
	}
	return t.est.StepTime(t.reqs)
}

// StepTime is the step duration in whole microseconds (rounded to nearest), the simulator's tick. The interface
// has no error return: an error here means the simulator handed over an impossible batch (negative token counts)
// or a closed estimator, so it panics with the *mfusim.Error.
func (t *StepTimer[R]) StepTime(batch []R) int64 {
	us, err := t.StepTimeMicros(batch)
	if err != nil {
		panic(fmt.Errorf("mfusim adapter: %w", err))
	}
	return int64(math.Round(us))
}
