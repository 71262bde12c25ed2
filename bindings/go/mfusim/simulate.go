package mfusim

// The engine simulator (mfusim_simulate; docs/simulate.md): a serving benchmark replayed step by step.

/*
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <mfusim.h>

enum {
	mfusim_go_trace_request_size = sizeof(mfusim_trace_request),
	mfusim_go_trace_request_prefix_len = offsetof(mfusim_trace_request, prefix_len),
	mfusim_go_simulated_request_size = sizeof(mfusim_simulated_request),
	mfusim_go_simulated_request_input_len = offsetof(mfusim_simulated_request, input_len),
	mfusim_go_simulated_request_warmup = offsetof(mfusim_simulated_request, warmup),
	mfusim_go_simulated_step_size = sizeof(mfusim_simulated_step),
	mfusim_go_simulated_step_running = offsetof(mfusim_simulated_step, running),
	mfusim_go_simulated_step_kv_used = offsetof(mfusim_simulated_step, kv_used)
};
*/
import "C"

import (
	"math"
	"runtime"
	"unsafe"
)

// LengthDistribution is how prompt and output lengths are drawn (mfusim_length_distribution).
type LengthDistribution int32

// Length distributions; values of mfusim.h.
const (
	LengthFixed     LengthDistribution = 0 // the mean exactly
	LengthUniform   LengthDistribution = 1 // integers in [mean - spread, mean + spread]
	LengthNormal    LengthDistribution = 2 // standard deviation spread
	LengthLognormal LengthDistribution = 3 // log-normal with that mean and standard deviation
)

// SchedulerPolicy is the scheduler the simulated engine runs (mfusim_scheduler_policy).
type SchedulerPolicy int32

// Scheduler policies; values of mfusim.h.
const (
	SchedulerEngine SchedulerPolicy = 0 // the estimator's engine's own
	SchedulerVLLMV1 SchedulerPolicy = 1
	SchedulerSGLang SchedulerPolicy = 2
	SchedulerTRTLLM SchedulerPolicy = 3
	// SchedulerTRTLLMMaxUtilization is TensorRT-LLM's MAX_UTILIZATION capacity policy.
	SchedulerTRTLLMMaxUtilization SchedulerPolicy = 4
)

// Metric names a quantity for SimulationResult.Percentile (mfusim_metric).
type Metric int32

// Metrics; values of mfusim.h.
const (
	MetricTTFT  Metric = 0 // per measured request
	MetricTPOT  Metric = 1 // per measured request with more than one output token
	MetricITL   Metric = 2 // per generated token after the first
	MetricE2EL  Metric = 3
	MetricQueue Metric = 4
)

// TraceRequest is one request of a trace; the layout of mfusim_trace_request (40 bytes).
type TraceRequest struct {
	ArrivalS  float64 // send time, seconds from the start; non-decreasing
	InputLen  int64
	OutputLen int64
	PrefixID  int64 // requests with the same id share their first PrefixLen prompt tokens; -1: none
	PrefixLen int64
}

// Simulation is a simulated serving benchmark (mfusim_simulation). Start from DefaultSimulation. Scheduler values of
// 0 keep the estimator's engine's defaults; SLOs of 0 are none.
type Simulation struct {
	NumPrompts         int64   // requests sent (ignored with a Trace)
	Warmup             int64   // the first requests, left out of the statistics
	RequestRate        float64 // requests per second; math.Inf(1): every request at time 0
	Burstiness         float64 // gamma shape of the gaps: 1 Poisson
	ConstantRate       bool    // exact 1/RequestRate intervals
	MaxConcurrency     int64   // most requests in flight; 0: no limit
	InputDistribution  LengthDistribution
	InputLen           float64 // mean prompt tokens
	InputSpread        float64
	OutputDistribution LengthDistribution
	OutputLen          float64 // mean generated tokens
	OutputSpread       float64
	NumPrefixPrompts   int64 // shared prefixes: request i starts with prefix i mod NumPrefixPrompts
	PrefixLen          int64
	Seed               uint64

	Scheduler                 SchedulerPolicy
	MaxBatchedTokens          int64
	MaxSeqs                   int64
	BlockTokens               int64
	LongPrefillTokenThreshold int64
	GPUMemoryUtilization      float64
	DisableChunkedPrefill     bool
	DisablePrefixCaching      bool

	SLOTTFTms, SLOTPOTms, SLOE2ELms float64

	// Trace, when not empty, replaces the generated requests (MaxConcurrency still applies).
	Trace          []TraceRequest
	RecordTimeline bool
	// RampUpS starts closed-loop clients (infinite rate, MaxConcurrency) evenly over this many seconds; 0: together.
	RampUpS float64
}

// DefaultSimulation is the library's defaults (mfusim_simulation_init): 1000 requests of 1024 prompt and 128 output
// tokens, all sent at once, the engine's own scheduler.
func DefaultSimulation() Simulation {
	var c C.mfusim_simulation
	if st := C.mfusim_simulation_init(&c, C.sizeof_mfusim_simulation, nil); st != C.MFUSIM_OK {
		panic("mfusim: mfusim_simulation_init refused this binding's layout: " + Status(st).String())
	}
	return Simulation{
		NumPrompts:         int64(c.num_prompts),
		Warmup:             int64(c.warmup),
		RequestRate:        float64(c.request_rate),
		Burstiness:         float64(c.burstiness),
		MaxConcurrency:     int64(c.max_concurrency),
		InputDistribution:  LengthDistribution(c.input_distribution),
		InputLen:           float64(c.input_len),
		InputSpread:        float64(c.input_spread),
		OutputDistribution: LengthDistribution(c.output_distribution),
		OutputLen:          float64(c.output_len),
		OutputSpread:       float64(c.output_spread),
		NumPrefixPrompts:   int64(c.num_prefix_prompts),
		PrefixLen:          int64(c.prefix_len),
		Seed:               uint64(c.seed),
		Scheduler:          SchedulerPolicy(c.scheduler),
	}
}

func flag(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// LatencySummary is a distribution over the measured requests in ms (mfusim_latency_summary).
type LatencySummary struct {
	Mean, Median, Std, P90, P95, P99, Min, Max float64
}

// SimulationSummary is a run's statistics over the measured (non-warm-up) requests (mfusim_simulation_summary).
type SimulationSummary struct {
	Completed                              int64
	TotalInputTokens, TotalOutputTokens    int64
	DurationS                              float64 // first measured send to last measured completion
	RequestThroughput, RequestGoodput      float64 // requests/s; goodput: those meeting every SLO
	OutputThroughput, TotalTokenThroughput float64 // tokens/s
	Steps, Preemptions, PrefixHitTokens    int64
	MeanBatchTokens, MeanRunning           float64
	TTFTms, TPOTms, ITLms, E2ELms, QueueMs LatencySummary
}

// SimulatedRequest is one request as the client saw it; the layout of mfusim_simulated_request (80 bytes).
type SimulatedRequest struct {
	SendMs, TTFTms, TPOTms, E2ELms, QueueMs float64
	InputLen, OutputLen                     int64
	Preemptions, PrefixHitTokens            int64
	Warmup                                  int32 // 1: left out of the statistics
	reserved                                int32
}

// SimulatedStep is one engine step of a recorded timeline; the layout of mfusim_simulated_step (40 bytes).
type SimulatedStep struct {
	StartMs, DurationMs                           float64
	Running, Waiting, PrefillTokens, DecodeTokens int32
	KVUsed                                        float64 // share of the KV cache in use
}

var (
	_ = [1]int{}[unsafe.Sizeof(TraceRequest{})-uintptr(C.mfusim_go_trace_request_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_trace_request_size)-unsafe.Sizeof(TraceRequest{})]
	_ = [1]int{}[unsafe.Offsetof(TraceRequest{}.PrefixLen)-uintptr(C.mfusim_go_trace_request_prefix_len)]
	_ = [1]int{}[uintptr(C.mfusim_go_trace_request_prefix_len)-unsafe.Offsetof(TraceRequest{}.PrefixLen)]
	_ = [1]int{}[unsafe.Sizeof(SimulatedRequest{})-uintptr(C.mfusim_go_simulated_request_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_simulated_request_size)-unsafe.Sizeof(SimulatedRequest{})]
	_ = [1]int{}[unsafe.Offsetof(SimulatedRequest{}.InputLen)-uintptr(C.mfusim_go_simulated_request_input_len)]
	_ = [1]int{}[uintptr(C.mfusim_go_simulated_request_input_len)-unsafe.Offsetof(SimulatedRequest{}.InputLen)]
	_ = [1]int{}[unsafe.Offsetof(SimulatedRequest{}.Warmup)-uintptr(C.mfusim_go_simulated_request_warmup)]
	_ = [1]int{}[uintptr(C.mfusim_go_simulated_request_warmup)-unsafe.Offsetof(SimulatedRequest{}.Warmup)]
	_ = [1]int{}[unsafe.Sizeof(SimulatedStep{})-uintptr(C.mfusim_go_simulated_step_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_simulated_step_size)-unsafe.Sizeof(SimulatedStep{})]
	_ = [1]int{}[unsafe.Offsetof(SimulatedStep{}.Running)-uintptr(C.mfusim_go_simulated_step_running)]
	_ = [1]int{}[uintptr(C.mfusim_go_simulated_step_running)-unsafe.Offsetof(SimulatedStep{}.Running)]
	_ = [1]int{}[unsafe.Offsetof(SimulatedStep{}.KVUsed)-uintptr(C.mfusim_go_simulated_step_kv_used)]
	_ = [1]int{}[uintptr(C.mfusim_go_simulated_step_kv_used)-unsafe.Offsetof(SimulatedStep{}.KVUsed)]
	_ = [1]int{}[int(LengthLognormal)-int(C.MFUSIM_LENGTH_LOGNORMAL)]
	_ = [1]int{}[int(C.MFUSIM_LENGTH_LOGNORMAL)-int(LengthLognormal)]
	_ = [1]int{}[int(SchedulerTRTLLM)-int(C.MFUSIM_SCHEDULER_TRTLLM)]
	_ = [1]int{}[int(C.MFUSIM_SCHEDULER_TRTLLM)-int(SchedulerTRTLLM)]
	_ = [1]int{}[int(SchedulerTRTLLMMaxUtilization)-int(C.MFUSIM_SCHEDULER_TRTLLM_MAX_UTILIZATION)]
	_ = [1]int{}[int(C.MFUSIM_SCHEDULER_TRTLLM_MAX_UTILIZATION)-int(SchedulerTRTLLMMaxUtilization)]
	_ = [1]int{}[int(MetricQueue)-int(C.MFUSIM_METRIC_QUEUE)]
	_ = [1]int{}[int(C.MFUSIM_METRIC_QUEUE)-int(MetricQueue)]
)

// SimulationResult is a finished simulation: it owns the library's result (mfusim_simulation_result). Close frees
// it (a forgotten one is freed by the garbage collector). Safe for concurrent use, except Close.
type SimulationResult struct {
	handle *C.mfusim_simulation_result
}

// Simulate runs a simulated serving benchmark against this estimator's deployment with its own step times
// (roofline mode; compat: ErrUnsupported). Deterministic: the same Simulation gives the same result. A bad field is
// ErrInvalidArgument naming it. Allocates; takes time in proportion to the engine steps simulated; safe from many
// goroutines.
func (e *Estimator) Simulate(s *Simulation) (*SimulationResult, error) {
	if s == nil {
		return nil, &Error{Status: ErrInvalidArgument, Message: "simulation is nil"}
	}
	cerr, err := newCError()
	if err != nil {
		return nil, err
	}
	defer freeCError(cerr)
	var c C.mfusim_simulation
	if st := C.mfusim_simulation_init(&c, C.sizeof_mfusim_simulation, cerr); st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	c.num_prompts = C.int64_t(s.NumPrompts)
	c.warmup = C.int64_t(s.Warmup)
	c.request_rate = C.double(s.RequestRate)
	c.burstiness = C.double(s.Burstiness)
	c.max_concurrency = C.int64_t(s.MaxConcurrency)
	c.input_distribution = C.mfusim_length_distribution(s.InputDistribution)
	c.output_distribution = C.mfusim_length_distribution(s.OutputDistribution)
	c.input_len = C.double(s.InputLen)
	c.input_spread = C.double(s.InputSpread)
	c.output_len = C.double(s.OutputLen)
	c.output_spread = C.double(s.OutputSpread)
	c.num_prefix_prompts = C.int64_t(s.NumPrefixPrompts)
	c.prefix_len = C.int64_t(s.PrefixLen)
	c.seed = C.uint64_t(s.Seed)
	c.constant_rate = flag(s.ConstantRate)
	c.scheduler = C.mfusim_scheduler_policy(s.Scheduler)
	c.max_batched_tokens = C.int64_t(s.MaxBatchedTokens)
	c.max_seqs = C.int64_t(s.MaxSeqs)
	c.block_tokens = C.int64_t(s.BlockTokens)
	c.long_prefill_token_threshold = C.int64_t(s.LongPrefillTokenThreshold)
	c.gpu_memory_utilization = C.double(s.GPUMemoryUtilization)
	c.disable_chunked_prefill = flag(s.DisableChunkedPrefill)
	c.disable_prefix_caching = flag(s.DisablePrefixCaching)
	c.slo_ttft_ms = C.double(s.SLOTTFTms)
	c.slo_tpot_ms = C.double(s.SLOTPOTms)
	c.slo_e2el_ms = C.double(s.SLOE2ELms)
	c.record_timeline = flag(s.RecordTimeline)
	c.ramp_up_s = C.double(s.RampUpS)
	if n := len(s.Trace); n > 0 {
		// cgo forbids a Go pointer inside the struct passed to C: the trace is copied into C memory for the call.
		size := C.size_t(n) * C.sizeof_mfusim_trace_request
		trace := C.malloc(size)
		if trace == nil {
			return nil, &Error{Status: ErrOutOfMemory, Message: "no memory for the trace"}
		}
		defer C.free(trace)
		C.memcpy(trace, unsafe.Pointer(&s.Trace[0]), size)
		c.trace = (*C.mfusim_trace_request)(trace)
		c.trace_count = C.size_t(n)
	}
	var handle *C.mfusim_simulation_result
	st := C.mfusim_simulate(e.handle, &c, &handle, cerr)
	runtime.KeepAlive(e)
	if st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	r := &SimulationResult{handle: handle}
	runtime.SetFinalizer(r, (*SimulationResult).Close)
	return r, nil
}

// Close frees the result. Idempotent; must not run concurrently with other calls on r.
func (r *SimulationResult) Close() error {
	if r.handle != nil {
		C.mfusim_simulation_result_free(r.handle)
		r.handle = nil
		runtime.SetFinalizer(r, nil)
	}
	return nil
}

func latency(l C.mfusim_latency_summary) LatencySummary {
	return LatencySummary{Mean: float64(l.mean), Median: float64(l.median), Std: float64(l.std), P90: float64(l.p90),
		P95: float64(l.p95), P99: float64(l.p99), Min: float64(l.min), Max: float64(l.max)}
}

// Summary is the run's statistics.
func (r *SimulationResult) Summary() (SimulationSummary, error) {
	var c C.mfusim_simulation_summary
	var cerr C.mfusim_error
	if st := C.mfusim_simulation_summary_init(&c, C.sizeof_mfusim_simulation_summary, &cerr); st != C.MFUSIM_OK {
		return SimulationSummary{}, errorFrom(st, &cerr)
	}
	st := C.mfusim_simulation_result_summary(r.handle, &c, &cerr)
	runtime.KeepAlive(r)
	if st != C.MFUSIM_OK {
		return SimulationSummary{}, errorFrom(st, &cerr)
	}
	return SimulationSummary{
		Completed:            int64(c.completed),
		TotalInputTokens:     int64(c.total_input_tokens),
		TotalOutputTokens:    int64(c.total_output_tokens),
		DurationS:            float64(c.duration_s),
		RequestThroughput:    float64(c.request_throughput),
		RequestGoodput:       float64(c.request_goodput),
		OutputThroughput:     float64(c.output_throughput),
		TotalTokenThroughput: float64(c.total_token_throughput),
		Steps:                int64(c.steps),
		Preemptions:          int64(c.preemptions),
		PrefixHitTokens:      int64(c.prefix_hit_tokens),
		MeanBatchTokens:      float64(c.mean_batch_tokens),
		MeanRunning:          float64(c.mean_running),
		TTFTms:               latency(c.ttft_ms),
		TPOTms:               latency(c.tpot_ms),
		ITLms:                latency(c.itl_ms),
		E2ELms:               latency(c.e2el_ms),
		QueueMs:              latency(c.queue_ms),
	}, nil
}

// Requests is every request in send order, warm-up included, copied into a new slice (nil after Close).
func (r *SimulationResult) Requests() []SimulatedRequest {
	var n C.size_t
	p := C.mfusim_simulation_result_requests(r.handle, &n)
	defer runtime.KeepAlive(r)
	if p == nil || n == 0 {
		return nil
	}
	return append([]SimulatedRequest(nil), unsafe.Slice((*SimulatedRequest)(unsafe.Pointer(p)), int(n))...)
}

// Timeline is one record per engine step when the Simulation had RecordTimeline set (else nil), copied.
func (r *SimulationResult) Timeline() []SimulatedStep {
	var n C.size_t
	p := C.mfusim_simulation_result_timeline(r.handle, &n)
	defer runtime.KeepAlive(r)
	if p == nil || n == 0 {
		return nil
	}
	return append([]SimulatedStep(nil), unsafe.Slice((*SimulatedStep)(unsafe.Pointer(p)), int(n))...)
}

// Percentile is the p-th percentile (0..100, NumPy's linear interpolation) of a metric in ms over the measured
// requests; 0 when there is no value.
func (r *SimulationResult) Percentile(m Metric, p float64) (float64, error) {
	var out C.double
	var cerr C.mfusim_error
	st := C.mfusim_simulation_result_percentile(r.handle, C.mfusim_metric(m), C.double(p), &out, &cerr)
	runtime.KeepAlive(r)
	if st != C.MFUSIM_OK {
		return math.NaN(), errorFrom(st, &cerr)
	}
	return float64(out), nil
}
