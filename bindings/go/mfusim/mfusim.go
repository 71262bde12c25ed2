package mfusim

/*
#include <stdlib.h>
#include <string.h>
#include <mfusim.h>

// Every call takes its message from the mfusim_error of that same call (never a repeated call). The error struct
// lives on the C stack of these helpers, so the Go side allocates nothing: on success only the status comes
// back; on failure the message is copied into malloc'd memory that the Go side frees.
typedef struct mfusim_go_outcome {
	double us;
	mfusim_status status;
	char* message; // NULL on success; malloc'd on failure (NULL too if malloc failed)
} mfusim_go_outcome;

static inline char* mfusim_go_message(const mfusim_error* e) {
	size_t n = strnlen(e->message, MFUSIM_ERROR_MESSAGE_CAPACITY);
	char* m = (char*)malloc(n + 1);
	if (m) {
		memcpy(m, e->message, n);
		m[n] = '\0';
	}
	return m;
}

static inline mfusim_go_outcome mfusim_go_step_time(const mfusim_estimator* est, const mfusim_request* r, size_t n) {
	mfusim_go_outcome o = {0, MFUSIM_OK, NULL};
	mfusim_error e;
	o.status = mfusim_step_time(est, r, n, &o.us, &e);
	if (o.status != MFUSIM_OK) {
		o.us = 0;
		o.message = mfusim_go_message(&e);
	}
	return o;
}

static inline mfusim_go_outcome mfusim_go_step_time_batch(const mfusim_estimator* est, const mfusim_request* r,
                                                          size_t n, const int64_t* sizes, size_t n_steps,
                                                          double* out) {
	mfusim_go_outcome o = {0, MFUSIM_OK, NULL};
	mfusim_error e;
	o.status = mfusim_step_time_batch(est, r, n, sizes, n_steps, out, &e);
	if (o.status != MFUSIM_OK) o.message = mfusim_go_message(&e);
	return o;
}

static inline mfusim_go_outcome mfusim_go_step_detail(const mfusim_estimator* est, const mfusim_request* r, size_t n,
                                                      mfusim_step_result* out) {
	mfusim_go_outcome o = {0, MFUSIM_OK, NULL};
	mfusim_error e;
	o.status = mfusim_step_detail(est, r, n, out, &e);
	if (o.status != MFUSIM_OK) o.message = mfusim_go_message(&e);
	return o;
}

static inline mfusim_go_outcome mfusim_go_serving_estimate(const mfusim_estimator* est, const mfusim_serving* w,
                                                           mfusim_serving_result* out) {
	mfusim_go_outcome o = {0, MFUSIM_OK, NULL};
	mfusim_error e;
	o.status = mfusim_serving_estimate(est, w, out, &e);
	if (o.status != MFUSIM_OK) o.message = mfusim_go_message(&e);
	return o;
}
static inline mfusim_go_outcome mfusim_go_disagg_estimate(const mfusim_estimator* prefill,
                                                          const mfusim_estimator* decode,
                                                          const mfusim_disagg_serving* w, mfusim_disagg_result* out) {
	mfusim_go_outcome o = {0, MFUSIM_OK, NULL};
	mfusim_error e;
	o.status = mfusim_disagg_estimate(prefill, decode, w, out, &e);
	if (o.status != MFUSIM_OK) o.message = mfusim_go_message(&e);
	return o;
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// Version is the version of the libmfusim actually loaded ("1.0.0").
func Version() string { return C.GoString(C.mfusim_version_string()) }

// VersionNumber is MAJOR*10000 + MINOR*100 + PATCH of the loaded library.
func VersionNumber() uint32 { return uint32(C.mfusim_version_number()) }

// HeaderVersionNumber is the version of the mfusim.h this package was compiled against.
const HeaderVersionNumber = 10000 // MFUSIM_VERSION_NUMBER (checked at compile time in types.go)

// Models lists the built-in model catalogue.
func Models() []string {
	n := int(C.mfusim_catalogue_model_count())
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		names = append(names, C.GoString(C.mfusim_catalogue_model_name(C.size_t(i))))
	}
	return names
}

// GPUs lists the built-in GPU profiles.
func GPUs() []string {
	n := int(C.mfusim_catalogue_gpu_count())
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		names = append(names, C.GoString(C.mfusim_catalogue_gpu_name(C.size_t(i))))
	}
	return names
}

// Mode selects the model that answers queries.
type Mode int32

const (
	// ModeRoofline is the per-step model for simulators (the default).
	ModeRoofline Mode = 0
	// ModeInferSim reproduces InferSim number for number, quirks included.
	ModeInferSim Mode = 1
)

// Options describe what to load. Zero values mean the library's defaults (every zero here is either the default
// or invalid in C, so nothing is ambiguous).
type Options struct {
	Model           string  // catalogue name, path to a Hugging Face config.json, or the JSON text. Required.
	GPU             string  // built-in name (H100, H20, ...) or path to a JSON profile. Required.
	BenchDataDir    string  // bench_data directory; "" for none (analytical or default efficiencies)
	Mode            Mode    // ModeRoofline (default) or ModeInferSim
	TensorParallel  int     // TP degree; 0 means 1
	WorldSize       int     // GPUs in the deployment; 0 means 1
	NumNodes        int     // 0 means 1
	FP8GEMM         bool    // FP8 weights and FP8 peak for GEMMs
	FP8KV           bool    // FP8 KV cache
	DeepEP          bool    // DeepEP expert-parallel communication (compat)
	TwoBatchOverlap bool    // InferSim's TBO (compat)
	SMRatio         float64 // compat TBO prefill SM share; 0 means the default (108/132)
	// Engine is the serving engine around the kernels (roofline): "vllm" ("" means the default), "sglang",
	// "trtllm", or "none" (the kernels alone).
	Engine string
	// Quant overrides the checkpoint's weight quantization (roofline): "bf16", "fp8", "fp8_block", "nvfp4",
	// "mxfp4", "int4_wo"; "" means as the checkpoint states.
	Quant                 string
	ExpertParallel        int // GPUs the routed experts are sharded over (roofline); 0 means 1
	AttentionDataParallel int // attention data-parallel replicas inside the EP group (roofline); 0 means 1
	// Calibration is a calibration file written by `mfusim calibrate --steps` (roofline): its path or its JSON
	// text, holding per-family efficiency multipliers and engine terms fitted to your own measurements; ""
	// means the built-in constants (docs/calibration.md).
	Calibration string
}

// Estimator is a loaded, immutable model on a GPU. Safe for concurrent use by many goroutines, except Close.
type Estimator struct {
	handle *C.mfusim_estimator
}

// Open parses the model and GPU, loads the tables, and returns a ready estimator. It reads files: call it once,
// not per step.
func Open(o Options) (*Estimator, error) {
	// Not a hot path: pass an error struct straight away.
	cerr, err := newCError()
	if err != nil {
		return nil, err
	}
	defer freeCError(cerr)
	copts, free, err := cOptions(o, cerr)
	if err != nil {
		return nil, err
	}
	defer free()

	var handle *C.mfusim_estimator
	if st := C.mfusim_estimator_create(&copts, &handle, cerr); st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	e := &Estimator{handle: handle}
	runtime.SetFinalizer(e, (*Estimator).Close)
	return e, nil
}

// checkNUL refuses a string holding a NUL byte: C.CString would pass it to the library cut there (so that
// "model.json\x00junk" loaded "model.json").
func checkNUL(name, s string) error {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return &Error{Status: ErrInvalidArgument,
			Message: fmt.Sprintf("%s: embedded NUL byte at offset %d (the library reads text up to a NUL)", name, i)}
	}
	return nil
}

// cOptions converts o for a C call: the strings are copied into C memory that free releases (call it once the C
// call has returned, on failure too).
func cOptions(o Options, cerr *C.mfusim_error) (C.mfusim_options, func(), error) {
	var copts C.mfusim_options
	var owned []*C.char
	free := func() {
		for _, p := range owned {
			C.free(unsafe.Pointer(p))
		}
	}
	if st := C.mfusim_options_init(&copts, C.sizeof_mfusim_options, cerr); st != C.MFUSIM_OK {
		return copts, free, errorFrom(st, cerr)
	}
	for _, f := range [...]struct{ name, value string }{{"Model", o.Model}, {"GPU", o.GPU},
		{"BenchDataDir", o.BenchDataDir}, {"Engine", o.Engine}, {"Quant", o.Quant}, {"Calibration", o.Calibration}} {
		if err := checkNUL("Options."+f.name, f.value); err != nil {
			return copts, free, err
		}
	}
	cstr := func(s string) *C.char {
		if s == "" {
			return nil
		}
		p := C.CString(s)
		owned = append(owned, p)
		return p
	}
	copts.model = cstr(o.Model)
	copts.gpu = cstr(o.GPU)
	copts.bench_data_dir = cstr(o.BenchDataDir)
	copts.engine = cstr(o.Engine)
	copts.quant = cstr(o.Quant)
	copts.calibration = cstr(o.Calibration)
	copts.mode = C.mfusim_mode(o.Mode)
	setInt := func(dst *C.int32_t, v int, name string) error {
		if v == 0 {
			return nil
		}
		if v < -1<<31 || v > 1<<31-1 {
			return &Error{Status: ErrInvalidArgument, Message: fmt.Sprintf("%s %d does not fit in int32", name, v)}
		}
		*dst = C.int32_t(v)
		return nil
	}
	if err := setInt(&copts.tensor_parallel, o.TensorParallel, "TensorParallel"); err != nil {
		return copts, free, err
	}
	if err := setInt(&copts.world_size, o.WorldSize, "WorldSize"); err != nil {
		return copts, free, err
	}
	if err := setInt(&copts.num_nodes, o.NumNodes, "NumNodes"); err != nil {
		return copts, free, err
	}
	if err := setInt(&copts.expert_parallel, o.ExpertParallel, "ExpertParallel"); err != nil {
		return copts, free, err
	}
	if err := setInt(&copts.attention_data_parallel, o.AttentionDataParallel, "AttentionDataParallel"); err != nil {
		return copts, free, err
	}
	flag := func(b bool) C.int32_t {
		if b {
			return 1
		}
		return 0
	}
	copts.fp8_gemm = flag(o.FP8GEMM)
	copts.fp8_kv = flag(o.FP8KV)
	copts.deepep = flag(o.DeepEP)
	copts.two_batch_overlap = flag(o.TwoBatchOverlap)
	if o.SMRatio != 0 {
		copts.sm_ratio = C.double(o.SMRatio)
	}
	return copts, free, nil
}

// Close frees the native estimator. Idempotent; must not run concurrently with other calls on e. Calls after
// Close fail with ErrInvalidArgument.
func (e *Estimator) Close() error {
	if e.handle != nil {
		C.mfusim_estimator_free(e.handle)
		e.handle = nil
		runtime.SetFinalizer(e, nil)
	}
	return nil
}

// LoadWarnings are the messages produced while loading that did not stop it (fallbacks taken), one per line.
func (e *Estimator) LoadWarnings() string {
	s := C.GoString(C.mfusim_estimator_load_warnings(e.handle))
	runtime.KeepAlive(e)
	return s
}

// requests returns the C view of a request slice: the same memory, no copy. A Go slice of pointer-free structs may
// be passed to C (cgo rules); C does not keep it after the call.
func requests(reqs []Request) *C.mfusim_request {
	return (*C.mfusim_request)(unsafe.Pointer(unsafe.SliceData(reqs)))
}

// StepTime is the time of one engine step in microseconds. An empty step gives the engine's fixed per-step
// overhead in roofline mode, and 0 in compat mode (InferSim has no step without work). Allocation-free; safe from
// many goroutines.
func (e *Estimator) StepTime(reqs []Request) (float64, error) {
	o := C.mfusim_go_step_time(e.handle, requests(reqs), C.size_t(len(reqs)))
	runtime.KeepAlive(e)
	if o.status != C.MFUSIM_OK {
		return 0, outcomeError(o)
	}
	return float64(o.us), nil
}

// StepTimeBatch evaluates many steps in one call: step i is the next sizes[i] requests of reqs (concatenated),
// and its time goes to out[i]. The sizes must add up to len(reqs) exactly (the library checks it and names the
// step at fault), and len(out) must be at least len(sizes). On failure out is untouched. Allocation-free; safe
// from many goroutines (each with its own out).
func (e *Estimator) StepTimeBatch(reqs []Request, sizes []int64, out []float64) error {
	// The one check C cannot make: how long out is.
	if len(out) < len(sizes) {
		return &Error{Status: ErrInvalidArgument,
			Message: fmt.Sprintf("out has %d slots for %d steps", len(out), len(sizes))}
	}
	reqsC, nReqs := requests(reqs), C.size_t(len(reqs))
	sizesC, nSteps := (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(sizes))), C.size_t(len(sizes))
	outC := (*C.double)(unsafe.Pointer(unsafe.SliceData(out)))
	o := C.mfusim_go_step_time_batch(e.handle, reqsC, nReqs, sizesC, nSteps, outC)
	runtime.KeepAlive(e)
	if o.status != C.MFUSIM_OK {
		return outcomeError(o)
	}
	return nil
}

// StepDetail fills out with the step time, its breakdown by operation (out.Ops(): the library's n_ops valid
// entries), and the provenance of each efficiency value. out may be reused across calls (then no allocation).
// Slower than StepTime (it fills the whole breakdown, with each operation's table name).
func (e *Estimator) StepDetail(reqs []Request, out *StepResult) error {
	if out == nil {
		return &Error{Status: ErrInvalidArgument, Message: "out is nil"}
	}
	out.structSize = C.sizeof_mfusim_step_result
	outC := (*C.mfusim_step_result)(unsafe.Pointer(out))
	o := C.mfusim_go_step_detail(e.handle, requests(reqs), C.size_t(len(reqs)), outC)
	runtime.KeepAlive(e)
	if o.status != C.MFUSIM_OK {
		return outcomeError(o)
	}
	return nil
}

// Phases selects which phases a scenario runs.
type Phases int32

const (
	PhasesBoth        Phases = 0
	PhasesPrefillOnly Phases = 1
	PhasesDecodeOnly  Phases = 2
)

// Scenario is InferSim's TTFT / TPOT question. Start from DefaultScenario: zero is a meaningful value for several
// fields.
type Scenario struct {
	InputLen         int64   // prompt tokens
	OutputLen        int64   // generated tokens
	MaxPrefillTokens int64   // tokens per prefill step per GPU
	DecodeBatch      int64   // decode batch per GPU; < 0: ceil(TargetTGS * TargetTPOTms / 1000)
	TargetTGS        float64 // tokens/GPU/s goal for the default batch
	TargetTPOTms     float64 // TPOT SLO in ms
	Phases           Phases
}

// DefaultScenario is the library's default scenario (mfusim_scenario_init).
func DefaultScenario() Scenario {
	var c C.mfusim_scenario
	if st := C.mfusim_scenario_init(&c, C.sizeof_mfusim_scenario, nil); st != C.MFUSIM_OK {
		panic("mfusim: mfusim_scenario_init refused this binding's layout: " + Status(st).String())
	}
	return Scenario{
		InputLen:         int64(c.input_len),
		OutputLen:        int64(c.output_len),
		MaxPrefillTokens: int64(c.max_prefill_tokens),
		DecodeBatch:      int64(c.decode_batch),
		TargetTGS:        float64(c.target_tgs),
		TargetTPOTms:     float64(c.target_tpot_ms),
		Phases:           Phases(c.phases),
	}
}

// Report is the result of Estimate: named quantities (the oracle's column names, e.g. "prefill.ttft_ms",
// "decode.tpot_ms") in the library's order, plus warnings and soft errors. A plain Go value.
type Report struct {
	names      []string
	values     []float64
	index      map[string]int
	warnings   string
	softErrors string
}

// Estimate evaluates a scenario. Allocates the report; safe from many goroutines.
func (e *Estimator) Estimate(s Scenario) (*Report, error) {
	cerr, err := newCError()
	if err != nil {
		return nil, err
	}
	defer freeCError(cerr)
	var c C.mfusim_scenario
	if st := C.mfusim_scenario_init(&c, C.sizeof_mfusim_scenario, cerr); st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	c.input_len = C.int64_t(s.InputLen)
	c.output_len = C.int64_t(s.OutputLen)
	c.max_prefill_tokens = C.int64_t(s.MaxPrefillTokens)
	c.decode_batch = C.int64_t(s.DecodeBatch)
	c.target_tgs = C.double(s.TargetTGS)
	c.target_tpot_ms = C.double(s.TargetTPOTms)
	c.phases = C.mfusim_phases(s.Phases)
	var rep *C.mfusim_report
	st := C.mfusim_estimate(e.handle, &c, &rep, cerr)
	runtime.KeepAlive(e)
	if st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	defer C.mfusim_report_free(rep)
	n := int(C.mfusim_report_count(rep))
	r := &Report{names: make([]string, n), values: make([]float64, n), index: make(map[string]int, n)}
	for i := 0; i < n; i++ {
		r.names[i] = C.GoString(C.mfusim_report_name(rep, C.size_t(i)))
		r.values[i] = float64(C.mfusim_report_value_at(rep, C.size_t(i)))
		r.index[r.names[i]] = i
	}
	r.warnings = C.GoString(C.mfusim_report_warnings(rep))
	r.softErrors = C.GoString(C.mfusim_report_soft_errors(rep))
	return r, nil
}

// Len is the number of quantities.
func (r *Report) Len() int { return len(r.names) }

// Name and ValueAt give the i-th quantity in the library's order.
func (r *Report) Name(i int) string     { return r.names[i] }
func (r *Report) ValueAt(i int) float64 { return r.values[i] }

// Names lists the quantities in the library's order (a copy).
func (r *Report) Names() []string { return append([]string(nil), r.names...) }

// Value looks a quantity up by name; an *Error with ErrNotFound if the report does not have it (a phase that
// did not run).
func (r *Report) Value(name string) (float64, error) {
	if i, ok := r.index[name]; ok {
		return r.values[i], nil
	}
	return 0, &Error{Status: ErrNotFound, Message: fmt.Sprintf("the report has no quantity named %q", name)}
}

// Warnings are InferSim-style warnings joined by " | " (sorted, de-duplicated); "" if none.
func (r *Report) Warnings() string { return r.warnings }

// SoftErrors are soft errors joined by " | " in emission order; "" if none.
func (r *Report) SoftErrors() string { return r.softErrors }

// Serving is a closed-loop serving workload: Concurrency clients each keep one request of InputLen prompt tokens
// and OutputLen generated tokens in flight, served with aggregated in-flight batching (docs/serving.md). Start
// from DefaultServing: zero means "the engine's default" for the last three fields only.
type Serving struct {
	InputLen             int64   // prompt tokens per request (ISL)
	OutputLen            int64   // generated tokens per request (OSL), >= 1
	Concurrency          int64   // requests held in flight by the clients
	MaxBatchedTokens     int64   // scheduler token budget per step; 0: the engine's default
	MaxSeqs              int64   // most requests running at once; 0: the engine's default
	GPUMemoryUtilization float64 // share of GPU memory the engine may use (weights + KV); 0: the engine's default
	// RequestsPerClient: 0 for steady state; k >= 1 for means over k requests per client whose first wave arrives
	// at once (a benchmark with num_prompts = k x concurrency).
	RequestsPerClient float64
}

// DefaultServing is the library's default workload (mfusim_serving_init).
func DefaultServing() Serving {
	var c C.mfusim_serving
	if st := C.mfusim_serving_init(&c, C.sizeof_mfusim_serving, nil); st != C.MFUSIM_OK {
		panic("mfusim: mfusim_serving_init refused this binding's layout: " + Status(st).String())
	}
	return Serving{
		InputLen:             int64(c.input_len),
		OutputLen:            int64(c.output_len),
		Concurrency:          int64(c.concurrency),
		MaxBatchedTokens:     int64(c.max_batched_tokens),
		MaxSeqs:              int64(c.max_seqs),
		GPUMemoryUtilization: float64(c.gpu_memory_utilization),
		RequestsPerClient:    float64(c.requests_per_client),
	}
}

// ServingEstimate is the steady-state TTFT, TPOT and throughput of a serving workload, from this estimator's own
// step times (so the two always agree). Roofline mode only (compat: ErrUnsupported). Safe from many goroutines;
// about 10 step evaluations.
func (e *Estimator) ServingEstimate(w Serving) (ServingResult, error) {
	var c C.mfusim_serving
	if st := C.mfusim_serving_init(&c, C.sizeof_mfusim_serving, nil); st != C.MFUSIM_OK {
		return ServingResult{}, &Error{Status: Status(st), Message: "mfusim_serving_init refused this binding's layout"}
	}
	c.input_len = C.int64_t(w.InputLen)
	c.output_len = C.int64_t(w.OutputLen)
	c.concurrency = C.int64_t(w.Concurrency)
	c.max_batched_tokens = C.int64_t(w.MaxBatchedTokens)
	c.max_seqs = C.int64_t(w.MaxSeqs)
	c.gpu_memory_utilization = C.double(w.GPUMemoryUtilization)
	c.requests_per_client = C.double(w.RequestsPerClient)
	var r ServingResult
	r.structSize = C.sizeof_mfusim_serving_result
	o := C.mfusim_go_serving_estimate(e.handle, &c, (*C.mfusim_serving_result)(unsafe.Pointer(&r)))
	runtime.KeepAlive(e)
	if o.status != C.MFUSIM_OK {
		return ServingResult{}, outcomeError(o)
	}
	return r, nil
}

// DisaggServing is a disaggregated serving workload (docs/disagg.md): PrefillWorkers workers compute the prompts,
// DecodeWorkers workers generate the tokens, and each request's KV cache moves from one pool to the other, while
// Concurrency clients each keep one request of InputLen prompt tokens and OutputLen generated tokens in flight.
// Start from DefaultDisaggServing: zero means "the engine's default" for the last four fields only.
type DisaggServing struct {
	InputLen             int64   // prompt tokens per request (ISL)
	OutputLen            int64   // generated tokens per request (OSL), >= 1
	Concurrency          int64   // requests held in flight by the clients
	PrefillWorkers       int64   // workers of the prefill pool, >= 1
	DecodeWorkers        int64   // workers of the decode pool, >= 1
	PrefillBatch         int64   // most prompts per prefill batch of an attention replica; 0: the token budget's
	DecodeBatch          int64   // most requests an attention replica decodes at once; 0: the engine's max_seqs
	MaxBatchedTokens     int64   // the prefill workers' token budget; 0: the engine's default
	GPUMemoryUtilization float64 // share of GPU memory the engines may use; 0: their default
}

// DefaultDisaggServing is the library's default disaggregated workload (mfusim_disagg_serving_init).
func DefaultDisaggServing() DisaggServing {
	var c C.mfusim_disagg_serving
	if st := C.mfusim_disagg_serving_init(&c, C.sizeof_mfusim_disagg_serving, nil); st != C.MFUSIM_OK {
		panic("mfusim: mfusim_disagg_serving_init refused this binding's layout: " + Status(st).String())
	}
	return DisaggServing{
		InputLen:             int64(c.input_len),
		OutputLen:            int64(c.output_len),
		Concurrency:          int64(c.concurrency),
		PrefillWorkers:       int64(c.prefill_workers),
		DecodeWorkers:        int64(c.decode_workers),
		PrefillBatch:         int64(c.prefill_batch),
		DecodeBatch:          int64(c.decode_batch),
		MaxBatchedTokens:     int64(c.max_batched_tokens),
		GPUMemoryUtilization: float64(c.gpu_memory_utilization),
	}
}

// DisaggEstimate is the disaggregated serving estimate (mfusim_disagg_estimate): prefill describes one worker of
// the prefill pool and decode one of the decode pool (the same model and GPU; each its own TensorParallel,
// ExpertParallel and AttentionDataParallel; the same Estimator may be both). Both in roofline mode (else
// ErrUnsupported) on the same GPU (else ErrConfig); a bad field is ErrInvalidArgument naming it. Safe from many
// goroutines; its cost grows with the concurrency (about a millisecond at 1,000 clients).
func DisaggEstimate(prefill, decode *Estimator, w DisaggServing) (DisaggResult, error) {
	if prefill == nil || decode == nil {
		return DisaggResult{}, &Error{Status: ErrInvalidArgument, Message: "DisaggEstimate: a nil *Estimator"}
	}
	var c C.mfusim_disagg_serving
	if st := C.mfusim_disagg_serving_init(&c, C.sizeof_mfusim_disagg_serving, nil); st != C.MFUSIM_OK {
		return DisaggResult{}, &Error{Status: Status(st),
			Message: "mfusim_disagg_serving_init refused this binding's layout"}
	}
	c.input_len = C.int64_t(w.InputLen)
	c.output_len = C.int64_t(w.OutputLen)
	c.concurrency = C.int64_t(w.Concurrency)
	c.prefill_workers = C.int64_t(w.PrefillWorkers)
	c.decode_workers = C.int64_t(w.DecodeWorkers)
	c.prefill_batch = C.int64_t(w.PrefillBatch)
	c.decode_batch = C.int64_t(w.DecodeBatch)
	c.max_batched_tokens = C.int64_t(w.MaxBatchedTokens)
	c.gpu_memory_utilization = C.double(w.GPUMemoryUtilization)
	var r DisaggResult
	r.structSize = C.sizeof_mfusim_disagg_result
	o := C.mfusim_go_disagg_estimate(prefill.handle, decode.handle, &c, (*C.mfusim_disagg_result)(unsafe.Pointer(&r)))
	runtime.KeepAlive(prefill)
	runtime.KeepAlive(decode)
	if o.status != C.MFUSIM_OK {
		return DisaggResult{}, outcomeError(o)
	}
	return r, nil
}

// outcomeError converts a failed call's outcome (status and the message its own error struct received) and frees
// the message.
func outcomeError(o C.mfusim_go_outcome) error {
	if o.message == nil {
		return &Error{Status: Status(o.status), Message: "(no memory for the error message)"}
	}
	defer C.free(unsafe.Pointer(o.message))
	return &Error{Status: Status(o.status), Message: C.GoString(o.message)}
}
