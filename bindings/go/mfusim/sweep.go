package mfusim

// Sweeping (mfusim_sweep; docs/c-api.md): `mfusim sweep` as data.

/*
#include <stddef.h>
#include <stdlib.h>
#include <mfusim.h>

enum {
	mfusim_go_sweep_row_size = sizeof(mfusim_sweep_row),
	mfusim_go_sweep_row_ok = offsetof(mfusim_sweep_row, ok),
	mfusim_go_sweep_row_step_ms = offsetof(mfusim_sweep_row, step_ms),
	mfusim_go_sweep_row_ttft_ms = offsetof(mfusim_sweep_row, ttft_ms),
	mfusim_go_sweep_row_request_throughput = offsetof(mfusim_sweep_row, request_throughput_req_s),
	mfusim_go_plan_row_size = sizeof(mfusim_plan_row),
	mfusim_go_plan_gpu_size = sizeof(mfusim_plan_gpu)
};
*/
import "C"

import (
	"strings"
	"unsafe"
)

// SweepParam is the parameter a sweep varies (mfusim_sweep_param). Step sweeps vary the step (SweepDecodeBatch,
// SweepContext, SweepChunk), serving sweeps the workload (SweepConcurrency, SweepISL, SweepOSL); SweepTP, SweepGPU
// and SweepModel go with either.
type SweepParam int32

const (
	SweepNone        SweepParam = -1 // no series
	SweepDecodeBatch SweepParam = 0  // step: decode requests in the step
	SweepContext     SweepParam = 1  // step: tokens each decode has cached
	SweepChunk       SweepParam = 2  // step: new tokens of one prefill chunk, 0 for none
	SweepConcurrency SweepParam = 3  // serving: requests in flight
	SweepISL         SweepParam = 4  // serving: prompt tokens
	SweepOSL         SweepParam = 5  // serving: generated tokens
	SweepTP          SweepParam = 6  // tensor-parallel degree
	SweepGPU         SweepParam = 7  // GPU names or profile paths
	SweepModel       SweepParam = 8  // model names, paths or JSON
)

// SweepRequest is what Sweep varies and the step every point starts from; start from DefaultSweepRequest. Values
// are decimal integers or names, as on `mfusim sweep`'s command line.
type SweepRequest struct {
	Serving      bool // false: time one step per point; true: the serving metrics
	Simulate     bool // serving: the simulated benchmark instead of the closed form
	Vary         SweepParam
	VaryValues   []string   // 1..4096 values
	Series       SweepParam // a second parameter; SweepNone: none
	SeriesValues []string
	DecodeBatch  int64 // the step every point starts from: decodes ...
	Context      int64 // ... at this many cached tokens each ...
	Chunk        int64 // ... and one prefill chunk of this many new tokens (0: none)
}

// DefaultSweepRequest is the library's default request (mfusim_sweep_request_init), with no values.
func DefaultSweepRequest() SweepRequest {
	var c C.mfusim_sweep_request
	if st := C.mfusim_sweep_request_init(&c, C.sizeof_mfusim_sweep_request, nil); st != C.MFUSIM_OK {
		panic("mfusim: mfusim_sweep_request_init refused this binding's layout: " + Status(st).String())
	}
	return SweepRequest{Serving: c.serving != 0, Simulate: c.simulate != 0, Vary: SweepParam(c.vary),
		Series: SweepParam(c.series), DecodeBatch: int64(c.decode_batch), Context: int64(c.context),
		Chunk: int64(c.chunk)}
}

// SweepRow is one point of a sweep: the layout of mfusim_sweep_row (64 bytes, checked at compile time).
type SweepRow struct {
	VaryIndex             int32 // into VaryValues
	SeriesIndex           int32 // into SeriesValues; 0 without a series
	OK                    int32 // 1: evaluated; 0: refused (SweepResult.Errors says why), the metrics 0
	_                     int32
	StepMs                float64 // step sweeps: the step's time
	TTFTms                float64 // serving sweeps: as ServingResult
	TPOTms                float64
	OutputTokSGPU         float64
	E2Ems                 float64
	RequestThroughputReqS float64
}

var (
	_ = [1]int{}[unsafe.Sizeof(SweepRow{})-uintptr(C.mfusim_go_sweep_row_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_sweep_row_size)-unsafe.Sizeof(SweepRow{})]
	_ = [1]int{}[unsafe.Offsetof(SweepRow{}.OK)-uintptr(C.mfusim_go_sweep_row_ok)]
	_ = [1]int{}[uintptr(C.mfusim_go_sweep_row_ok)-unsafe.Offsetof(SweepRow{}.OK)]
	_ = [1]int{}[unsafe.Offsetof(SweepRow{}.StepMs)-uintptr(C.mfusim_go_sweep_row_step_ms)]
	_ = [1]int{}[uintptr(C.mfusim_go_sweep_row_step_ms)-unsafe.Offsetof(SweepRow{}.StepMs)]
	_ = [1]int{}[unsafe.Offsetof(SweepRow{}.TTFTms)-uintptr(C.mfusim_go_sweep_row_ttft_ms)]
	_ = [1]int{}[uintptr(C.mfusim_go_sweep_row_ttft_ms)-unsafe.Offsetof(SweepRow{}.TTFTms)]
	_ = [1]int{}[unsafe.Offsetof(SweepRow{}.RequestThroughputReqS)-uintptr(C.mfusim_go_sweep_row_request_throughput)]
	_ = [1]int{}[uintptr(C.mfusim_go_sweep_row_request_throughput)-unsafe.Offsetof(SweepRow{}.RequestThroughputReqS)]
	// PlanRow and PlanGPU are copied field by field (cgo checks each name and type); the C rows' sizes are fixed
	// forever (arrays of them cross the boundary): 152 and 40 bytes.
	_ = [1]int{}[uintptr(C.mfusim_go_plan_row_size)-152]
	_ = [1]int{}[152-uintptr(C.mfusim_go_plan_row_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_plan_gpu_size)-40]
	_ = [1]int{}[40-uintptr(C.mfusim_go_plan_gpu_size)]
	_ = [1]int{}[int(SweepModel)-int(C.MFUSIM_SWEEP_MODEL)]
	_ = [1]int{}[int(C.MFUSIM_SWEEP_MODEL)-int(SweepModel)]
	_ = [1]int{}[int(SweepNone)-int(C.MFUSIM_SWEEP_NONE)]
	_ = [1]int{}[int(C.MFUSIM_SWEEP_NONE)-int(SweepNone)]
	_ = [1]int{}[int(SweepConcurrency)-int(C.MFUSIM_SWEEP_CONCURRENCY)]
	_ = [1]int{}[int(C.MFUSIM_SWEEP_CONCURRENCY)-int(SweepConcurrency)]
)

// SweepResult is the sweep's data, copied out of the library's handle (freed before Sweep returns).
type SweepResult struct {
	Rows     []SweepRow // every point, series-major
	Details  []string   // per row: what bounded the step or limited the running requests ("" when refused)
	Errors   []string   // per row: why the point was refused ("" when evaluated)
	Warnings []string   // the estimators' load warnings
}

// Sweep evaluates every point as `mfusim sweep` does (mfusim_sweep; series-major). opts is the deployment every
// point starts from (a varied GPU, model or TP replaces its own), w the workload of a serving sweep. A point the
// library refuses keeps its row with OK 0; a request mixing step and serving parameters, or a value out of its
// bound, is ErrInvalidArgument naming the field. It builds estimators: not a hot path.
func Sweep(opts Options, w Serving, r SweepRequest) (*SweepResult, error) {
	for _, v := range append(append([]string(nil), r.VaryValues...), r.SeriesValues...) {
		if err := checkNUL("SweepRequest values", v); err != nil {
			return nil, err
		}
	}
	cerr, err := newCError()
	if err != nil {
		return nil, err
	}
	defer freeCError(cerr)
	copts, free, err := cOptions(opts, cerr)
	defer free()
	if err != nil {
		return nil, err
	}
	cs, err := cServing(w, cerr)
	if err != nil {
		return nil, err
	}
	var cr C.mfusim_sweep_request
	if st := C.mfusim_sweep_request_init(&cr, C.sizeof_mfusim_sweep_request, cerr); st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	vary, nv, freeVary := cStrings(r.VaryValues)
	defer freeVary()
	series, ns, freeSeries := cStrings(r.SeriesValues)
	defer freeSeries()
	cr.serving = cBool(r.Serving)
	cr.simulate = cBool(r.Simulate)
	cr.vary = C.mfusim_sweep_param(r.Vary)
	cr.series = C.mfusim_sweep_param(r.Series)
	cr.vary_values, cr.vary_count = vary, nv
	cr.series_values, cr.series_count = series, ns
	cr.decode_batch = C.int64_t(r.DecodeBatch)
	cr.context = C.int64_t(r.Context)
	cr.chunk = C.int64_t(r.Chunk)
	var handle *C.mfusim_sweep_result
	if st := C.mfusim_sweep(&copts, &cs, &cr, &handle, cerr); st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	defer C.mfusim_sweep_result_free(handle)
	var n C.size_t
	rows := C.mfusim_sweep_result_rows(handle, &n)
	out := &SweepResult{}
	if n > 0 {
		out.Rows = append([]SweepRow(nil), unsafe.Slice((*SweepRow)(unsafe.Pointer(rows)), int(n))...)
	}
	for i := C.size_t(0); i < n; i++ {
		out.Details = append(out.Details, C.GoString(C.mfusim_sweep_result_detail(handle, i)))
		out.Errors = append(out.Errors, C.GoString(C.mfusim_sweep_result_error(handle, i)))
	}
	for _, line := range strings.Split(C.GoString(C.mfusim_sweep_result_warnings(handle)), "\n") {
		if line != "" {
			out.Warnings = append(out.Warnings, line)
		}
	}
	return out, nil
}
