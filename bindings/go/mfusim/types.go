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
	mfusim_go_serving_result_size = sizeof(mfusim_serving_result),
	mfusim_go_serving_result_ttft_ms = offsetof(mfusim_serving_result, ttft_ms),
	mfusim_go_serving_result_kv_capacity_tokens = offsetof(mfusim_serving_result, kv_capacity_tokens),
	mfusim_go_serving_result_limited_by = offsetof(mfusim_serving_result, limited_by),
	mfusim_go_disagg_result_size = sizeof(mfusim_disagg_result),
	mfusim_go_disagg_result_ttft_ms = offsetof(mfusim_disagg_result, ttft_ms),
	mfusim_go_disagg_result_tpot_ms = offsetof(mfusim_disagg_result, tpot_ms),
	mfusim_go_disagg_result_e2e_ms = offsetof(mfusim_disagg_result, e2e_ms),
	mfusim_go_disagg_result_output_throughput_tok_s_gpu = offsetof(mfusim_disagg_result, output_throughput_tok_s_gpu),
	mfusim_go_disagg_result_request_throughput_req_s = offsetof(mfusim_disagg_result, request_throughput_req_s),
	mfusim_go_disagg_result_admission_ms = offsetof(mfusim_disagg_result, admission_ms),
	mfusim_go_disagg_result_prefill_queue_ms = offsetof(mfusim_disagg_result, prefill_queue_ms),
	mfusim_go_disagg_result_prefill_ms = offsetof(mfusim_disagg_result, prefill_ms),
	mfusim_go_disagg_result_transfer_ms = offsetof(mfusim_disagg_result, transfer_ms),
	mfusim_go_disagg_result_decode_wait_ms = offsetof(mfusim_disagg_result, decode_wait_ms),
	mfusim_go_disagg_result_prefill_batch_ms = offsetof(mfusim_disagg_result, prefill_batch_ms),
	mfusim_go_disagg_result_prompts_per_batch = offsetof(mfusim_disagg_result, prompts_per_batch),
	mfusim_go_disagg_result_prefill_utilization = offsetof(mfusim_disagg_result, prefill_utilization),
	mfusim_go_disagg_result_decode_step_ms = offsetof(mfusim_disagg_result, decode_step_ms),
	mfusim_go_disagg_result_decode_batch = offsetof(mfusim_disagg_result, decode_batch),
	mfusim_go_disagg_result_decode_slots = offsetof(mfusim_disagg_result, decode_slots),
	mfusim_go_disagg_result_kv_transfer_bytes = offsetof(mfusim_disagg_result, kv_transfer_bytes),
	mfusim_go_disagg_result_transfer_over_network = offsetof(mfusim_disagg_result, transfer_over_network),
	mfusim_go_disagg_result_prefill_gpus = offsetof(mfusim_disagg_result, prefill_gpus),
	mfusim_go_disagg_result_decode_gpus = offsetof(mfusim_disagg_result, decode_gpus),
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
const RequestNoOutput uint32 = 1

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
	OpQKVProj     Op = 0
	OpAttnPrefill Op = 1
	OpAttnDecode  Op = 2
	OpOProj       Op = 3
	OpFFN         Op = 4
	OpMoEExperts  Op = 5
	OpMoEShared   Op = 6
	OpLinearAttn  Op = 7
	OpLMHead      Op = 8
	OpTPAllReduce Op = 9
	OpEPComm      Op = 10
	OpWeightLoad  Op = 11
	OpOverhead    Op = 12
	OpEngine      Op = 13 // the engine around the kernels: scheduling, input preparation, sampling, launch gaps
	OpCount          = 14 // MFUSIM_OP_COUNT: operations this binding knows (checked at compile time below)
)

// OpCapacity is MFUSIM_OP_CAPACITY: the slots StepResult reserves, fixed so that appending operations never
// changes its layout. A library may know fewer or more operations than this binding (StepResult.Ops says how
// many it filled).
const OpCapacity = 32

// opSlots is the length of mfusim_step_result.ops taken from the header itself, so that the Go mirror can never
// disagree with it.
const opSlots = C.mfusim_go_step_result_op_slots

// String is the name the CLI's JSON uses ("qkv_proj").
func (o Op) String() string { return C.GoString(C.mfusim_op_name(C.mfusim_op(o))) }

// Bound is what dominated an operation.
type Bound int32

// The bounds of mfusim.h.
const (
	BoundNone          Bound = 0
	BoundCompute       Bound = 1
	BoundMemory        Bound = 2
	BoundCommunication Bound = 3
	BoundFixed         Bound = 4
)

func (b Bound) String() string { return C.GoString(C.mfusim_bound_name(C.mfusim_bound(b))) }

// Source is where an efficiency value came from.
type Source int32

// The sources of mfusim.h.
const (
	SourceNone              Source = 0
	SourceTableExact        Source = 1
	SourceTableInterpolated Source = 2
	SourceTableNearest      Source = 3
	SourceAnalytical        Source = 4
	SourceDefault           Source = 5
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

// ServingLimit is what held the number of running requests below the concurrency.
type ServingLimit int32

// The serving limits of mfusim.h.
const (
	ServingLimitNone        ServingLimit = 0 // every client's request runs at once
	ServingLimitTokenBudget ServingLimit = 1 // prompts arrive faster than the token budget admits them
	ServingLimitMaxSeqs     ServingLimit = 2 // Serving.MaxSeqs
	ServingLimitKVCapacity  ServingLimit = 3 // the KV cache holds fewer requests than the concurrency
)

func (l ServingLimit) String() string {
	switch l {
	case ServingLimitNone:
		return "none"
	case ServingLimitTokenBudget:
		return "token_budget"
	case ServingLimitMaxSeqs:
		return "max_seqs"
	case ServingLimitKVCapacity:
		return "kv_capacity"
	}
	return "unknown"
}

// ServingResult is a serving estimate; the layout of mfusim_serving_result. Times in milliseconds.
type ServingResult struct {
	structSize                uintptr
	TTFTms                    float64 // mean time to first token, waiting for admission included
	TPOTms                    float64 // mean time per output token after the first
	E2Ems                     float64 // mean request latency: TTFT + (OutputLen - 1) * TPOT
	OutputTokensPerSecPerGPU  float64 // generated tokens per second per GPU of the deployment
	RequestsPerSec            float64 // finished requests per second, whole deployment
	DecodeStepMs              float64 // a step of the steady decode batch alone
	MixedStepMs               float64 // a step of the decode batch plus the prefill chunks it carries
	MixedStepFraction         float64 // share of steps that carry prefill chunks
	DecodeBatch               float64 // mean requests decoding in a step (per attention replica)
	PrefillTokensPerMixedStep float64
	PrefillStepsPerRequest    float64 // steps a prompt's chunks span
	QueueMs                   float64 // share of TTFT spent waiting for admission
	RunningRequests           float64 // mean requests admitted at once (per attention replica)
	KVCapacityTokens          float64 // KV-cache tokens per attention replica
	LimitedBy                 ServingLimit
}

// DisaggResult is a disaggregated serving estimate; the layout of mfusim_disagg_result (docs/disagg.md derives
// it). Times in milliseconds; TTFTms is AdmissionMs + PrefillQueueMs + PrefillMs + TransferMs + DecodeWaitMs.
type DisaggResult struct {
	structSize               uintptr
	TTFTms                   float64 // mean time to first token: the five parts below added
	TPOTms                   float64 // mean time per output token after the first: the decode step at DecodeBatch
	E2Ems                    float64 // mean request latency: TTFT + (OutputLen - 1) * TPOT
	OutputTokensPerSecPerGPU float64 // generated tokens per second per GPU, both pools' GPUs counted
	RequestsPerSec           float64 // finished requests per second, whole deployment
	AdmissionMs              float64 // the engine's admission, tokenisation and first token out
	PrefillQueueMs           float64 // waiting for a prefill worker
	PrefillMs                float64 // one prompt's prefill on an idle worker
	TransferMs               float64 // the KV cache from the prefill to the decode worker
	DecodeWaitMs             float64 // waiting for a decode slot
	PrefillBatchMs           float64 // one prefill batch of PromptsPerBatch prompts
	PromptsPerBatch          float64 // per attention replica of a prefill worker
	PrefillUtilization       float64 // busy share of the prefill pool
	DecodeStepMs             float64 // the decode step at DecodeBatch
	DecodeBatch              float64 // mean requests decoding per attention replica of a decode worker
	DecodeSlots              float64 // the most requests a decode replica holds (batch, max_seqs, KV cache)
	KVTransferBytes          float64 // one request's KV over the busiest GPU link
	transferOverNetwork      int64
	PrefillGPUs              int64 // GPUs of one prefill worker
	DecodeGPUs               int64 // GPUs of one decode worker
}

// TransferOverNetwork is true when the KV cache moves over RDMA between nodes, false over NVLink inside one domain.
func (r DisaggResult) TransferOverNetwork() bool { return r.transferOverNetwork != 0 }

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
	_ = [1]int{}[int(OpQKVProj)-int(C.MFUSIM_OP_QKV_PROJ)]
	_ = [1]int{}[int(C.MFUSIM_OP_QKV_PROJ)-int(OpQKVProj)]
	_ = [1]int{}[int(OpAttnPrefill)-int(C.MFUSIM_OP_ATTN_PREFILL)]
	_ = [1]int{}[int(C.MFUSIM_OP_ATTN_PREFILL)-int(OpAttnPrefill)]
	_ = [1]int{}[int(OpAttnDecode)-int(C.MFUSIM_OP_ATTN_DECODE)]
	_ = [1]int{}[int(C.MFUSIM_OP_ATTN_DECODE)-int(OpAttnDecode)]
	_ = [1]int{}[int(OpOProj)-int(C.MFUSIM_OP_O_PROJ)]
	_ = [1]int{}[int(C.MFUSIM_OP_O_PROJ)-int(OpOProj)]
	_ = [1]int{}[int(OpFFN)-int(C.MFUSIM_OP_FFN)]
	_ = [1]int{}[int(C.MFUSIM_OP_FFN)-int(OpFFN)]
	_ = [1]int{}[int(OpMoEExperts)-int(C.MFUSIM_OP_MOE_EXPERTS)]
	_ = [1]int{}[int(C.MFUSIM_OP_MOE_EXPERTS)-int(OpMoEExperts)]
	_ = [1]int{}[int(OpMoEShared)-int(C.MFUSIM_OP_MOE_SHARED)]
	_ = [1]int{}[int(C.MFUSIM_OP_MOE_SHARED)-int(OpMoEShared)]
	_ = [1]int{}[int(OpLinearAttn)-int(C.MFUSIM_OP_LINEAR_ATTN)]
	_ = [1]int{}[int(C.MFUSIM_OP_LINEAR_ATTN)-int(OpLinearAttn)]
	_ = [1]int{}[int(OpLMHead)-int(C.MFUSIM_OP_LM_HEAD)]
	_ = [1]int{}[int(C.MFUSIM_OP_LM_HEAD)-int(OpLMHead)]
	_ = [1]int{}[int(OpTPAllReduce)-int(C.MFUSIM_OP_TP_ALLREDUCE)]
	_ = [1]int{}[int(C.MFUSIM_OP_TP_ALLREDUCE)-int(OpTPAllReduce)]
	_ = [1]int{}[int(OpEPComm)-int(C.MFUSIM_OP_EP_COMM)]
	_ = [1]int{}[int(C.MFUSIM_OP_EP_COMM)-int(OpEPComm)]
	_ = [1]int{}[int(OpWeightLoad)-int(C.MFUSIM_OP_WEIGHT_LOAD)]
	_ = [1]int{}[int(C.MFUSIM_OP_WEIGHT_LOAD)-int(OpWeightLoad)]
	_ = [1]int{}[int(OpOverhead)-int(C.MFUSIM_OP_OVERHEAD)]
	_ = [1]int{}[int(C.MFUSIM_OP_OVERHEAD)-int(OpOverhead)]
	_ = [1]int{}[int(OpCapacity)-int(C.MFUSIM_OP_CAPACITY)]
	_ = [1]int{}[int(C.MFUSIM_OP_CAPACITY)-int(OpCapacity)]
	_ = [1]int{}[int(BoundNone)-int(C.MFUSIM_BOUND_NONE)]
	_ = [1]int{}[int(C.MFUSIM_BOUND_NONE)-int(BoundNone)]
	_ = [1]int{}[int(BoundCompute)-int(C.MFUSIM_BOUND_COMPUTE)]
	_ = [1]int{}[int(C.MFUSIM_BOUND_COMPUTE)-int(BoundCompute)]
	_ = [1]int{}[int(BoundMemory)-int(C.MFUSIM_BOUND_MEMORY)]
	_ = [1]int{}[int(C.MFUSIM_BOUND_MEMORY)-int(BoundMemory)]
	_ = [1]int{}[int(BoundCommunication)-int(C.MFUSIM_BOUND_COMMUNICATION)]
	_ = [1]int{}[int(C.MFUSIM_BOUND_COMMUNICATION)-int(BoundCommunication)]
	_ = [1]int{}[int(BoundFixed)-int(C.MFUSIM_BOUND_FIXED)]
	_ = [1]int{}[int(C.MFUSIM_BOUND_FIXED)-int(BoundFixed)]
	_ = [1]int{}[int(SourceNone)-int(C.MFUSIM_SOURCE_NONE)]
	_ = [1]int{}[int(C.MFUSIM_SOURCE_NONE)-int(SourceNone)]
	_ = [1]int{}[int(SourceTableExact)-int(C.MFUSIM_SOURCE_TABLE_EXACT)]
	_ = [1]int{}[int(C.MFUSIM_SOURCE_TABLE_EXACT)-int(SourceTableExact)]
	_ = [1]int{}[int(SourceTableInterpolated)-int(C.MFUSIM_SOURCE_TABLE_INTERPOLATED)]
	_ = [1]int{}[int(C.MFUSIM_SOURCE_TABLE_INTERPOLATED)-int(SourceTableInterpolated)]
	_ = [1]int{}[int(SourceTableNearest)-int(C.MFUSIM_SOURCE_TABLE_NEAREST)]
	_ = [1]int{}[int(C.MFUSIM_SOURCE_TABLE_NEAREST)-int(SourceTableNearest)]
	_ = [1]int{}[int(SourceAnalytical)-int(C.MFUSIM_SOURCE_ANALYTICAL)]
	_ = [1]int{}[int(C.MFUSIM_SOURCE_ANALYTICAL)-int(SourceAnalytical)]
	_ = [1]int{}[int(SourceDefault)-int(C.MFUSIM_SOURCE_DEFAULT)]
	_ = [1]int{}[int(C.MFUSIM_SOURCE_DEFAULT)-int(SourceDefault)]
	_ = [1]int{}[int(OpEngine)-int(C.MFUSIM_OP_ENGINE)]
	_ = [1]int{}[int(C.MFUSIM_OP_ENGINE)-int(OpEngine)]
	_ = [1]int{}[int(HeaderVersionNumber)-int(C.MFUSIM_VERSION_NUMBER)]
	_ = [1]int{}[int(C.MFUSIM_VERSION_NUMBER)-int(HeaderVersionNumber)]
	_ = [1]int{}[int(ServingLimitNone)-int(C.MFUSIM_SERVING_LIMIT_NONE)]
	_ = [1]int{}[int(C.MFUSIM_SERVING_LIMIT_NONE)-int(ServingLimitNone)]
	_ = [1]int{}[int(ServingLimitTokenBudget)-int(C.MFUSIM_SERVING_LIMIT_TOKEN_BUDGET)]
	_ = [1]int{}[int(C.MFUSIM_SERVING_LIMIT_TOKEN_BUDGET)-int(ServingLimitTokenBudget)]
	_ = [1]int{}[int(ServingLimitMaxSeqs)-int(C.MFUSIM_SERVING_LIMIT_MAX_SEQS)]
	_ = [1]int{}[int(C.MFUSIM_SERVING_LIMIT_MAX_SEQS)-int(ServingLimitMaxSeqs)]
	_ = [1]int{}[int(ServingLimitKVCapacity)-int(C.MFUSIM_SERVING_LIMIT_KV_CAPACITY)]
	_ = [1]int{}[int(C.MFUSIM_SERVING_LIMIT_KV_CAPACITY)-int(ServingLimitKVCapacity)]
	_ = [1]int{}[OpCount-int(C.MFUSIM_OP_COUNT)]
	_ = [1]int{}[int(C.MFUSIM_OP_COUNT)-OpCount]
	_ = [1]int{}[int(RequestNoOutput)-int(C.MFUSIM_REQUEST_NO_OUTPUT)]
	_ = [1]int{}[int(C.MFUSIM_REQUEST_NO_OUTPUT)-int(RequestNoOutput)]
	_ = [1]int{}[unsafe.Sizeof(ServingResult{})-uintptr(C.mfusim_go_serving_result_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_serving_result_size)-unsafe.Sizeof(ServingResult{})]
	_ = [1]int{}[unsafe.Offsetof(ServingResult{}.LimitedBy)-uintptr(C.mfusim_go_serving_result_limited_by)]
	_ = [1]int{}[uintptr(C.mfusim_go_serving_result_limited_by)-unsafe.Offsetof(ServingResult{}.LimitedBy)]
	_ = [1]int{}[unsafe.Sizeof(DisaggResult{})-uintptr(C.mfusim_go_disagg_result_size)]
	_ = [1]int{}[uintptr(C.mfusim_go_disagg_result_size)-unsafe.Sizeof(DisaggResult{})]
	_ = [1]int{}[unsafe.Offsetof(DisaggResult{}.transferOverNetwork)-uintptr(C.mfusim_go_disagg_result_transfer_over_network)]
	_ = [1]int{}[uintptr(C.mfusim_go_disagg_result_transfer_over_network)-unsafe.Offsetof(DisaggResult{}.transferOverNetwork)]
	_ = [1]int{}[unsafe.Offsetof(DisaggResult{}.DecodeGPUs)-uintptr(C.mfusim_go_disagg_result_decode_gpus)]
	_ = [1]int{}[uintptr(C.mfusim_go_disagg_result_decode_gpus)-unsafe.Offsetof(DisaggResult{}.DecodeGPUs)]
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
	var v ServingResult
	var g DisaggResult
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
		{"sizeof(mfusim_serving_result)", unsafe.Sizeof(v), C.mfusim_go_serving_result_size},
		{"offsetof(mfusim_serving_result, ttft_ms)", unsafe.Offsetof(v.TTFTms), C.mfusim_go_serving_result_ttft_ms},
		{"offsetof(mfusim_serving_result, kv_capacity_tokens)", unsafe.Offsetof(v.KVCapacityTokens),
			C.mfusim_go_serving_result_kv_capacity_tokens},
		{"offsetof(mfusim_serving_result, limited_by)", unsafe.Offsetof(v.LimitedBy),
			C.mfusim_go_serving_result_limited_by},
		{"sizeof(mfusim_disagg_result)", unsafe.Sizeof(g), C.mfusim_go_disagg_result_size},
		{"offsetof(mfusim_disagg_result, ttft_ms)", unsafe.Offsetof(g.TTFTms), C.mfusim_go_disagg_result_ttft_ms},
		{"offsetof(mfusim_disagg_result, tpot_ms)", unsafe.Offsetof(g.TPOTms), C.mfusim_go_disagg_result_tpot_ms},
		{"offsetof(mfusim_disagg_result, e2e_ms)", unsafe.Offsetof(g.E2Ems), C.mfusim_go_disagg_result_e2e_ms},
		{"offsetof(mfusim_disagg_result, output_throughput_tok_s_gpu)", unsafe.Offsetof(g.OutputTokensPerSecPerGPU), C.mfusim_go_disagg_result_output_throughput_tok_s_gpu},
		{"offsetof(mfusim_disagg_result, request_throughput_req_s)", unsafe.Offsetof(g.RequestsPerSec), C.mfusim_go_disagg_result_request_throughput_req_s},
		{"offsetof(mfusim_disagg_result, admission_ms)", unsafe.Offsetof(g.AdmissionMs), C.mfusim_go_disagg_result_admission_ms},
		{"offsetof(mfusim_disagg_result, prefill_queue_ms)", unsafe.Offsetof(g.PrefillQueueMs), C.mfusim_go_disagg_result_prefill_queue_ms},
		{"offsetof(mfusim_disagg_result, prefill_ms)", unsafe.Offsetof(g.PrefillMs), C.mfusim_go_disagg_result_prefill_ms},
		{"offsetof(mfusim_disagg_result, transfer_ms)", unsafe.Offsetof(g.TransferMs), C.mfusim_go_disagg_result_transfer_ms},
		{"offsetof(mfusim_disagg_result, decode_wait_ms)", unsafe.Offsetof(g.DecodeWaitMs), C.mfusim_go_disagg_result_decode_wait_ms},
		{"offsetof(mfusim_disagg_result, prefill_batch_ms)", unsafe.Offsetof(g.PrefillBatchMs), C.mfusim_go_disagg_result_prefill_batch_ms},
		{"offsetof(mfusim_disagg_result, prompts_per_batch)", unsafe.Offsetof(g.PromptsPerBatch), C.mfusim_go_disagg_result_prompts_per_batch},
		{"offsetof(mfusim_disagg_result, prefill_utilization)", unsafe.Offsetof(g.PrefillUtilization), C.mfusim_go_disagg_result_prefill_utilization},
		{"offsetof(mfusim_disagg_result, decode_step_ms)", unsafe.Offsetof(g.DecodeStepMs), C.mfusim_go_disagg_result_decode_step_ms},
		{"offsetof(mfusim_disagg_result, decode_batch)", unsafe.Offsetof(g.DecodeBatch), C.mfusim_go_disagg_result_decode_batch},
		{"offsetof(mfusim_disagg_result, decode_slots)", unsafe.Offsetof(g.DecodeSlots), C.mfusim_go_disagg_result_decode_slots},
		{"offsetof(mfusim_disagg_result, kv_transfer_bytes)", unsafe.Offsetof(g.KVTransferBytes), C.mfusim_go_disagg_result_kv_transfer_bytes},
		{"offsetof(mfusim_disagg_result, transfer_over_network)", unsafe.Offsetof(g.transferOverNetwork), C.mfusim_go_disagg_result_transfer_over_network},
		{"offsetof(mfusim_disagg_result, prefill_gpus)", unsafe.Offsetof(g.PrefillGPUs), C.mfusim_go_disagg_result_prefill_gpus},
		{"offsetof(mfusim_disagg_result, decode_gpus)", unsafe.Offsetof(g.DecodeGPUs), C.mfusim_go_disagg_result_decode_gpus},
	}
}
