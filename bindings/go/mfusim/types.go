package mfusim

/*
#include <stddef.h>
#include <mfusim.h>

// Layout facts of the C structs the Go types below mirror, for the compile-time checks in this file.
enum {
	mfusim_go_request_size = sizeof(mfusim_request),
	mfusim_go_request_new_tokens = offsetof(mfusim_request, new_tokens),
	mfusim_go_request_context = offsetof(mfusim_request, context),
	mfusim_go_request_flags = offsetof(mfusim_request, flags),
	mfusim_go_request_reserved = offsetof(mfusim_request, reserved),
	mfusim_go_op_detail_size = sizeof(mfusim_op_detail),
	mfusim_go_op_detail_bound = offsetof(mfusim_op_detail, bound),
	mfusim_go_op_detail_source = offsetof(mfusim_op_detail, source),
	mfusim_go_op_detail_table = offsetof(mfusim_op_detail, table),
	mfusim_go_step_result_size = sizeof(mfusim_step_result),
	mfusim_go_step_result_total_us = offsetof(mfusim_step_result, total_us),
	mfusim_go_step_result_bound = offsetof(mfusim_step_result, bound),
	mfusim_go_step_result_n_ops = offsetof(mfusim_step_result, n_ops),
	mfusim_go_step_result_ops = offsetof(mfusim_step_result, ops),
	// Slots of mfusim_step_result.ops as this header declares them (MFUSIM_OP_CAPACITY by the ABI's intent).
	mfusim_go_step_result_op_slots = sizeof(((mfusim_step_result*)0)->ops) / sizeof(mfusim_op_detail)
};
*/
import "C"

import (
	"bytes"
	"unsafe"
)

// Request is one request's share of an engine step. It has the exact memory layout of mfusim_request (24 bytes,
// no pointers), so a []Request is handed to C without copying.
type Request struct {
	NewTokens int64  // tokens computed this step: a prefill chunk's length, or 1 for a decode
	Context   int64  // tokens already in the KV cache before this step
	Flags     uint32 // RequestNoOutput, or 0
	reserved  uint32 // must be 0; unexported so that keyed literals leave it so
}

// RequestNoOutput marks a prefill chunk that is not the last of its prompt: it produces no token (no LM head).
const RequestNoOutput uint32 = C.MFUSIM_REQUEST_NO_OUTPUT

// Decode is a request producing one token over context tokens of KV history.
func Decode(context int64) Request { return Request{NewTokens: 1, Context: context} }

// Prefill is a prefill chunk of newTokens on top of a cached prefix of context tokens; last says whether it is the
// prompt's final chunk (which produces the first output token).
func Prefill(newTokens, context int64, last bool) Request {
	r := Request{NewTokens: newTokens, Context: context}
	if !last {
		r.Flags = RequestNoOutput
	}
	return r
}

// Op names an operation of the step breakdown (stable numbers).
type Op int32

// The operations of mfusim.h.
const (
	OpQKVProj     Op = C.MFUSIM_OP_QKV_PROJ
	OpAttnPrefill Op = C.MFUSIM_OP_ATTN_PREFILL
	OpAttnDecode  Op = C.MFUSIM_OP_ATTN_DECODE
	OpOProj       Op = C.MFUSIM_OP_O_PROJ
	OpFFN         Op = C.MFUSIM_OP_FFN
	OpMoEExperts  Op = C.MFUSIM_OP_MOE_EXPERTS
	OpMoEShared   Op = C.MFUSIM_OP_MOE_SHARED
	OpLinearAttn  Op = C.MFUSIM_OP_LINEAR_ATTN
	OpLMHead      Op = C.MFUSIM_OP_LM_HEAD
	OpTPAllReduce Op = C.MFUSIM_OP_TP_ALLREDUCE
	OpEPComm      Op = C.MFUSIM_OP_EP_COMM
	OpWeightLoad  Op = C.MFUSIM_OP_WEIGHT_LOAD
	OpOverhead    Op = C.MFUSIM_OP_OVERHEAD
	OpCount          = 13 // MFUSIM_OP_COUNT: operations this binding knows (checked at compile time below)
)

// OpCapacity is MFUSIM_OP_CAPACITY: the slots StepResult reserves, fixed so that appending operations never
// changes its layout. A library may know fewer or more operations than this binding (StepResult.Ops says how
// many it filled).
const OpCapacity = C.MFUSIM_OP_CAPACITY

// opSlots is the length of mfusim_step_result.ops taken from the header itself, so that the Go mirror can never
// disagree with it.
const opSlots = C.mfusim_go_step_result_op_slots

// String is the name the CLI's JSON uses ("qkv_proj").
func (o Op) String() string { return C.GoString(C.mfusim_op_name(C.mfusim_op(o))) }

// Bound is what dominated an operation.
type Bound int32

// The bounds of mfusim.h.
const (
	BoundNone          Bound = C.MFUSIM_BOUND_NONE
	BoundCompute       Bound = C.MFUSIM_BOUND_COMPUTE
	BoundMemory        Bound = C.MFUSIM_BOUND_MEMORY
	BoundCommunication Bound = C.MFUSIM_BOUND_COMMUNICATION
	BoundFixed         Bound = C.MFUSIM_BOUND_FIXED
)

func (b Bound) String() string { return C.GoString(C.mfusim_bound_name(C.mfusim_bound(b))) }

// Source is where an efficiency value came from.
type Source int32

// The sources of mfusim.h.
const (
	SourceNone              Source = C.MFUSIM_SOURCE_NONE
	SourceTableExact        Source = C.MFUSIM_SOURCE_TABLE_EXACT
	SourceTableInterpolated Source = C.MFUSIM_SOURCE_TABLE_INTERPOLATED
	SourceTableNearest      Source = C.MFUSIM_SOURCE_TABLE_NEAREST
	SourceAnalytical        Source = C.MFUSIM_SOURCE_ANALYTICAL
	SourceDefault           Source = C.MFUSIM_SOURCE_DEFAULT
)

func (s Source) String() string { return C.GoString(C.mfusim_source_name(C.mfusim_source(s))) }

// OpDetail is one operation's share of a step; the layout of mfusim_op_detail.
type OpDetail struct {
	TimeUS     float64 // this operation's share of the step, all layers, per GPU
	FLOPs      float64 // FLOPs per GPU for the whole step (0 where not modelled)
	Bytes      float64 // bytes moved per GPU for the whole step (0 where not modelled)
	Efficiency float64 // the MFU applied (0 if none)
	Distance   float64 // SourceTableNearest: distance to the measured shape
	Bound      Bound
	Source     Source
	table      [96]byte
}

// Table is the table that supplied Efficiency, relative to bench_data; "" if none.
func (d *OpDetail) Table() string {
	if i := bytes.IndexByte(d.table[:], 0); i >= 0 {
		return string(d.table[:i])
	}
	return string(d.table[:])
}

// StepResult is a step time with its breakdown; the layout of mfusim_step_result. The zero value is ready for
// Estimator.StepDetail, which fills it in place (reuse one to stay allocation-free).
type StepResult struct {
	structSize uintptr
	TotalUS    float64
	Bound      Bound // the bound of the operation that took the most time
	nOps       int32
	ops        [opSlots]OpDetail
}

// Ops is the breakdown, indexed by Op: the library's n_ops valid entries (MFUSIM_OP_COUNT as the library knows
// it, at most OpCapacity), a view of r without a copy. Empty before the first StepDetail.
func (r *StepResult) Ops() []OpDetail {
	n := int(r.nOps)
	if n < 0 {
		n = 0
	} else if n > len(r.ops) {
		n = len(r.ops)
	}
	return r.ops[:n]
}

// Op is one operation's detail, or nil if the library that filled r does not know op.
func (r *StepResult) Op(op Op) *OpDetail {
	if ops := r.Ops(); op >= 0 && int(op) < len(ops) {
		return &ops[op]
	}
	return nil
}

// Compile-time layout checks: each line fails to compile (constant index out of range, or overflow) unless the
// Go and C values are equal.
var (
	_ = [1]int{}[unsafe.Sizeof(Request{})-uintptr(C.mfusim_go_request_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_request_size)-unsafe.Sizeof(Request{})]
	_ = [1]int{}[unsafe.Offsetof(Request{}.Context)-uintptr(C.mfusim_go_request_context)]
	_ = [1]int{}[uintptr(C.mfusim_go_request_context)-unsafe.Offsetof(Request{}.Context)]
	_ = [1]int{}[unsafe.Offsetof(Request{}.Flags)-uintptr(C.mfusim_go_request_flags)]
	_ = [1]int{}[uintptr(C.mfusim_go_request_flags)-unsafe.Offsetof(Request{}.Flags)]
	_ = [1]int{}[unsafe.Sizeof(StepResult{})-uintptr(C.mfusim_go_step_result_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_step_result_size)-unsafe.Sizeof(StepResult{})]
	_ = [1]int{}[OpCount-int(C.MFUSIM_OP_COUNT)]
	_ = [1]int{}[int(C.MFUSIM_OP_COUNT)-OpCount]
	_ = [1]int{}[unsafe.Offsetof(StepResult{}.ops)-uintptr(C.mfusim_go_step_result_ops)]
	_ = [1]int{}[uintptr(C.mfusim_go_step_result_ops)-unsafe.Offsetof(StepResult{}.ops)]
)

// layoutPair is one Go/C layout fact, for the test that prints and compares them all.
type layoutPair struct {
	name  string
	goVal uintptr
	cVal  uintptr
}

func layoutFacts() []layoutPair {
	var r Request
	var d OpDetail
	var s StepResult
	return []layoutPair{
		{"sizeof(mfusim_request)", unsafe.Sizeof(r), C.mfusim_go_request_size},
		{"offsetof(mfusim_request, new_tokens)", unsafe.Offsetof(r.NewTokens), C.mfusim_go_request_new_tokens},
		{"offsetof(mfusim_request, context)", unsafe.Offsetof(r.Context), C.mfusim_go_request_context},
		{"offsetof(mfusim_request, flags)", unsafe.Offsetof(r.Flags), C.mfusim_go_request_flags},
		{"offsetof(mfusim_request, reserved)", unsafe.Offsetof(r.reserved), C.mfusim_go_request_reserved},
		{"sizeof(mfusim_op_detail)", unsafe.Sizeof(d), C.mfusim_go_op_detail_size},
		{"offsetof(mfusim_op_detail, bound)", unsafe.Offsetof(d.Bound), C.mfusim_go_op_detail_bound},
		{"offsetof(mfusim_op_detail, source)", unsafe.Offsetof(d.Source), C.mfusim_go_op_detail_source},
		{"offsetof(mfusim_op_detail, table)", unsafe.Offsetof(d.table), C.mfusim_go_op_detail_table},
		{"sizeof(mfusim_step_result)", unsafe.Sizeof(s), C.mfusim_go_step_result_size},
		{"offsetof(mfusim_step_result, total_us)", unsafe.Offsetof(s.TotalUS), C.mfusim_go_step_result_total_us},
		{"offsetof(mfusim_step_result, bound)", unsafe.Offsetof(s.Bound), C.mfusim_go_step_result_bound},
		{"offsetof(mfusim_step_result, n_ops)", unsafe.Offsetof(s.nOps), C.mfusim_go_step_result_n_ops},
		{"offsetof(mfusim_step_result, ops)", unsafe.Offsetof(s.ops), C.mfusim_go_step_result_ops},
		{"slots of mfusim_step_result.ops", uintptr(len(s.ops)), C.mfusim_go_step_result_op_slots},
	}
}
