package mfusim

/*
#include <stdlib.h>
#include <mfusim.h>
*/
import "C"

import (
	"strings"
	"unsafe"
)

// PlanRequest is what Plan searches beyond the model (Options) and the workload (Serving); start from
// DefaultPlanRequest. Nil slices take the library's defaults (GPUs H100, H200, B200; TP 1, 2, 4, 8; decode
// batches 1..256 doubling); a zero limit is no limit.
type PlanRequest struct {
	GPUs              []string // GPU names or profile paths, at most 64
	TPList            []int64  // tensor-parallel degrees 1..65536 (with Disagg also GPUs per worker), at most 64
	MaxConcurrency    int64    // the largest concurrency tried (powers of two from 1), 1..2^20
	MaxTTFTms         float64  // mean TTFT limit; 0: none
	MaxTPOTms         float64  // mean TPOT limit; 0: none
	GPUBudget         int64    // most GPUs of one deployment; 0: none (with Disagg: 16)
	Simulate          bool     // answer each point by the simulated benchmark
	Disagg            bool     // also search disaggregated deployments (roofline mode only)
	DecodeBatches     []int64  // with Disagg: requests per decode replica, 1..65536
	LeastLoadedRouter bool     // with Disagg and Simulate: least-loaded instead of round-robin
}

// DefaultPlanRequest is the library's default request (mfusim_plan_request_init).
func DefaultPlanRequest() PlanRequest {
	var c C.mfusim_plan_request
	if st := C.mfusim_plan_request_init(&c, C.sizeof_mfusim_plan_request, nil); st != C.MFUSIM_OK {
		panic("mfusim: mfusim_plan_request_init refused this binding's layout: " + Status(st).String())
	}
	return PlanRequest{MaxConcurrency: int64(c.max_concurrency)}
}

// PlanRow is one deployment evaluated (mfusim_plan_row): aggregated (TP, EP) or, when Disaggregated, a prefill
// and a decode pool of workers.
type PlanRow struct {
	GPUIndex           int // into the request's GPUs
	Disaggregated      bool
	MeetsLimits        bool // mean TTFT and TPOT within the limits
	Best               bool // the most output tokens/s per GPU among its GPU's rows meeting the limits
	TP, EP             int64
	GPUs, Concurrency  int64
	PrefillWorkers     int64
	PrefillTP          int64
	PrefillEP          int64
	PrefillAttentionDP int64
	DecodeWorkers      int64
	DecodeTP           int64
	DecodeEP           int64
	DecodeAttentionDP  int64
	DecodeBatch        int64
	TTFTms, TPOTms     float64
	OutputTokSGPU      float64 // generated tokens per second per GPU
	OutputTokSUser     float64 // 1000 / TPOTms
}

// PlanGPU is what the search did on one GPU of the request (mfusim_plan_gpu).
type PlanGPU struct {
	Name              string
	Evaluated         int64
	MeetingLimits     int64
	BestRow           int64 // index into Plan.Rows; -1 when nothing meets the limits
	SkippedNotFitting int64
	SkippedInvalid    int64
	LastSkip          string // why the last skipped deployment was skipped; "" when none
}

// PlanResult is the search's data, copied out of the library's handle (freed before Plan returns).
type PlanResult struct {
	Rows     []PlanRow
	GPUs     []PlanGPU
	Warnings []string // the estimators' load warnings
}

// Plan searches deployments as `mfusim plan` does (mfusim_plan; the rows of its --json, in its order). opts names
// the model, engine, quantization and mode (GPU and parallelism are searched); w the lengths and engine limits
// (Concurrency is searched). Deployments that do not fit are counted, not failed; an unknown GPU is
// ErrUnknownName, a bad field ErrInvalidArgument naming it. It builds estimators: seconds, not a hot path.
func Plan(opts Options, w Serving, r PlanRequest) (*PlanResult, error) {
	for _, g := range r.GPUs {
		if err := checkNUL("GPUs", g); err != nil {
			return nil, err
		}
	}
	cerr, err := newCError()
	if err != nil {
		return nil, err
	}
	defer freeCError(cerr)
	if opts.GPU == "" {
		opts.GPU = "H100" // searched: any name passes the options' own check
	}
	copts, free, err := cOptions(opts, cerr)
	defer free()
	if err != nil {
		return nil, err
	}
	cs, err := cServing(w, cerr)
	if err != nil {
		return nil, err
	}
	var cr C.mfusim_plan_request
	if st := C.mfusim_plan_request_init(&cr, C.sizeof_mfusim_plan_request, cerr); st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	// The arrays live in C memory: the request struct passed to C may hold no Go pointers.
	names, ngpu, freeNames := cStrings(r.GPUs)
	defer freeNames()
	cr.gpus, cr.gpu_count = names, ngpu
	tps, ntp, freeTP := cInts(r.TPList)
	defer freeTP()
	batches, nb, freeB := cInts(r.DecodeBatches)
	defer freeB()
	cr.tp_list, cr.tp_count = tps, ntp
	cr.decode_batches, cr.decode_batch_count = batches, nb
	cr.max_concurrency = C.int64_t(r.MaxConcurrency)
	cr.max_ttft_ms = C.double(r.MaxTTFTms)
	cr.max_tpot_ms = C.double(r.MaxTPOTms)
	cr.gpu_budget = C.int64_t(r.GPUBudget)
	cr.simulate = cBool(r.Simulate)
	cr.disagg = cBool(r.Disagg)
	cr.least_loaded_router = cBool(r.LeastLoadedRouter)
	var handle *C.mfusim_plan_result
	if st := C.mfusim_plan(&copts, &cs, &cr, &handle, cerr); st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	defer C.mfusim_plan_result_free(handle)
	var n, ng C.size_t
	rows := C.mfusim_plan_result_rows(handle, &n)
	gpus := C.mfusim_plan_result_gpus(handle, &ng)
	out := &PlanResult{}
	for _, c := range unsafe.Slice(rows, int(n)) {
		out.Rows = append(out.Rows, PlanRow{
			GPUIndex: int(c.gpu_index), Disaggregated: c.disaggregated != 0, MeetsLimits: c.meets_limits != 0,
			Best: c.best != 0, TP: int64(c.tp), EP: int64(c.ep), GPUs: int64(c.gpus),
			Concurrency: int64(c.concurrency), PrefillWorkers: int64(c.prefill_workers),
			PrefillTP: int64(c.prefill_tp), PrefillEP: int64(c.prefill_ep),
			PrefillAttentionDP: int64(c.prefill_attention_dp), DecodeWorkers: int64(c.decode_workers),
			DecodeTP: int64(c.decode_tp), DecodeEP: int64(c.decode_ep),
			DecodeAttentionDP: int64(c.decode_attention_dp), DecodeBatch: int64(c.decode_batch),
			TTFTms: float64(c.ttft_ms), TPOTms: float64(c.tpot_ms), OutputTokSGPU: float64(c.output_tok_s_gpu),
			OutputTokSUser: float64(c.output_tok_s_user),
		})
	}
	for i, g := range unsafe.Slice(gpus, int(ng)) {
		out.GPUs = append(out.GPUs, PlanGPU{
			Name:      C.GoString(C.mfusim_plan_result_gpu_name(handle, C.size_t(i))),
			Evaluated: int64(g.evaluated), MeetingLimits: int64(g.meeting_limits), BestRow: int64(g.best_row),
			SkippedNotFitting: int64(g.skipped_not_fitting), SkippedInvalid: int64(g.skipped_invalid),
			LastSkip: C.GoString(C.mfusim_plan_result_last_skip(handle, C.size_t(i))),
		})
	}
	for _, line := range strings.Split(C.GoString(C.mfusim_plan_result_warnings(handle)), "\n") {
		if line != "" {
			out.Warnings = append(out.Warnings, line)
		}
	}
	return out, nil
}

// cServing converts w for a C call (the library's defaults first, then every field of w).
func cServing(w Serving, cerr *C.mfusim_error) (C.mfusim_serving, error) {
	var cs C.mfusim_serving
	if st := C.mfusim_serving_init(&cs, C.sizeof_mfusim_serving, cerr); st != C.MFUSIM_OK {
		return cs, errorFrom(st, cerr)
	}
	cs.input_len = C.int64_t(w.InputLen)
	cs.output_len = C.int64_t(w.OutputLen)
	cs.concurrency = C.int64_t(w.Concurrency)
	cs.max_batched_tokens = C.int64_t(w.MaxBatchedTokens)
	cs.max_seqs = C.int64_t(w.MaxSeqs)
	cs.gpu_memory_utilization = C.double(w.GPUMemoryUtilization)
	cs.requests_per_client = C.double(w.RequestsPerClient)
	return cs, nil
}

// cStrings copies values into a C array of C strings (a request struct passed to C may hold no Go pointers);
// nil and 0 for none. Call free once the C call has returned.
func cStrings(values []string) (**C.char, C.size_t, func()) {
	if len(values) == 0 {
		return nil, 0, func() {}
	}
	p := (*[1 << 20]*C.char)(C.calloc(C.size_t(len(values)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))[:len(values):len(values)]
	for i, v := range values {
		p[i] = C.CString(v)
	}
	return &p[0], C.size_t(len(values)), func() {
		for _, s := range p {
			C.free(unsafe.Pointer(s))
		}
		C.free(unsafe.Pointer(&p[0]))
	}
}

// cInts copies values into C memory; nil and 0 for none. Call free once the C call has returned.
func cInts(values []int64) (*C.int64_t, C.size_t, func()) {
	if len(values) == 0 {
		return nil, 0, func() {}
	}
	p := (*[1 << 20]C.int64_t)(C.calloc(C.size_t(len(values)), 8))[:len(values):len(values)]
	for i, v := range values {
		p[i] = C.int64_t(v)
	}
	return &p[0], C.size_t(len(values)), func() { C.free(unsafe.Pointer(&p[0])) }
}

func cBool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}
