//! Raw FFI declarations for libmfusim, hand-written from `include/mfusim.h` (the only public header).
//!
//! Everything here is `unsafe` and mirrors the C API one to one; use the `mfusim` crate for a safe interface.
//! Layouts are checked against the C compiler's by this crate's tests (`csrc/layout.c`).
#![allow(non_camel_case_types)]
#![no_std]

use core::ffi::{c_char, c_double};

pub const MFUSIM_VERSION_MAJOR: u32 = 1;
pub const MFUSIM_VERSION_MINOR: u32 = 0;
pub const MFUSIM_VERSION_PATCH: u32 = 0;
pub const MFUSIM_VERSION_NUMBER: u32 = MFUSIM_VERSION_MAJOR * 10000 + MFUSIM_VERSION_MINOR * 100 + MFUSIM_VERSION_PATCH;

pub type mfusim_status = i32;
pub const MFUSIM_OK: mfusim_status = 0;
pub const MFUSIM_ERR_INVALID_ARGUMENT: mfusim_status = 1;
pub const MFUSIM_ERR_IO: mfusim_status = 2;
pub const MFUSIM_ERR_PARSE: mfusim_status = 3;
pub const MFUSIM_ERR_CONFIG: mfusim_status = 4;
pub const MFUSIM_ERR_UNKNOWN_NAME: mfusim_status = 5;
pub const MFUSIM_ERR_UNSUPPORTED: mfusim_status = 6;
pub const MFUSIM_ERR_COMPAT_CRASH: mfusim_status = 7;
pub const MFUSIM_ERR_STRUCT_SIZE: mfusim_status = 8;
pub const MFUSIM_ERR_OUT_OF_MEMORY: mfusim_status = 9;
pub const MFUSIM_ERR_INTERNAL: mfusim_status = 10;
pub const MFUSIM_ERR_NOT_FOUND: mfusim_status = 11;

pub const MFUSIM_ERROR_MESSAGE_CAPACITY: usize = 1024;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct mfusim_error {
    pub status: mfusim_status,
    pub message: [c_char; MFUSIM_ERROR_MESSAGE_CAPACITY],
}

pub type mfusim_mode = i32;
pub const MFUSIM_MODE_ROOFLINE: mfusim_mode = 0;
pub const MFUSIM_MODE_INFERSIM: mfusim_mode = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_options {
    pub struct_size: usize,
    pub model: *const c_char,
    pub gpu: *const c_char,
    pub bench_data_dir: *const c_char,
    pub mode: mfusim_mode,
    pub tensor_parallel: i32,
    pub world_size: i32,
    pub num_nodes: i32,
    pub fp8_gemm: i32,
    pub fp8_kv: i32,
    pub deepep: i32,
    pub two_batch_overlap: i32,
    pub sm_ratio: c_double,
    pub engine: *const c_char,
    pub quant: *const c_char,
    pub expert_parallel: i32,
    pub attention_data_parallel: i32,
    /// Appended after 1.0: a calibration file's path or JSON text (docs/calibration.md); null for none.
    pub calibration: *const c_char,
    /// Appended after 1.1: speculative decoding (docs/speculative.md): the drafter ("mtp", "eagle", "ngram"; null
    /// for none), drafts per request and step, and the per-token acceptance rate or the mean accepted length.
    pub speculative: *const c_char,
    pub num_speculative_tokens: i32,
    pub acceptance_rate: c_double,
    pub mean_accepted_length: c_double,
    /// Appended after the speculative-decoding fields: images per request for the model's vision tower
    /// (docs/architectures.md, "Vision encoders") and their width and height in pixels; 0 for none.
    pub images_per_request: i64,
    pub image_width: i64,
    pub image_height: i64,
    /// Appended after the images: MoE routing imbalance (docs/kernel-families.md): 0 as served (random, the
    /// busiest expert-parallel rank timed), alpha in (0, 10] AIConfigurator's power law x^-alpha.
    pub moe_routing_alpha: c_double,
    /// Appended after moe_routing_alpha: seconds of audio per request (one clip) for the model's audio tower
    /// (docs/architectures.md, "Audio encoders"); 0 (the default) to 3600.
    pub audio_seconds_per_request: c_double,
    /// Appended after audio_seconds_per_request: the draft model of speculative = "draft_model"
    /// (docs/speculative.md): a catalogue name, a config.json path or JSON text; NULL for none.
    pub draft_model: *const c_char,
}

/// Opaque estimator handle.
#[repr(C)]
pub struct mfusim_estimator {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct mfusim_request {
    pub new_tokens: i64,
    pub context: i64,
    pub flags: u32,
    pub reserved: u32,
}

pub const MFUSIM_REQUEST_NO_OUTPUT: u32 = 1;

pub type mfusim_op = i32;
pub const MFUSIM_OP_QKV_PROJ: mfusim_op = 0;
pub const MFUSIM_OP_ATTN_PREFILL: mfusim_op = 1;
pub const MFUSIM_OP_ATTN_DECODE: mfusim_op = 2;
pub const MFUSIM_OP_O_PROJ: mfusim_op = 3;
pub const MFUSIM_OP_FFN: mfusim_op = 4;
pub const MFUSIM_OP_MOE_EXPERTS: mfusim_op = 5;
pub const MFUSIM_OP_MOE_SHARED: mfusim_op = 6;
pub const MFUSIM_OP_LINEAR_ATTN: mfusim_op = 7;
pub const MFUSIM_OP_LM_HEAD: mfusim_op = 8;
pub const MFUSIM_OP_TP_ALLREDUCE: mfusim_op = 9;
pub const MFUSIM_OP_EP_COMM: mfusim_op = 10;
pub const MFUSIM_OP_WEIGHT_LOAD: mfusim_op = 11;
pub const MFUSIM_OP_OVERHEAD: mfusim_op = 12;
pub const MFUSIM_OP_ENGINE: mfusim_op = 13;
/// Operations this version of the header knows; grows as operations are appended.
pub const MFUSIM_OP_COUNT: usize = 14;
/// `MFUSIM_OP_CAPACITY`: the slots the ABI reserves in `mfusim_step_result.ops`, fixed so that appending
/// operations never changes the struct's layout.
pub const MFUSIM_OP_CAPACITY: usize = 32;

pub type mfusim_bound = i32;
pub const MFUSIM_BOUND_NONE: mfusim_bound = 0;
pub const MFUSIM_BOUND_COMPUTE: mfusim_bound = 1;
pub const MFUSIM_BOUND_MEMORY: mfusim_bound = 2;
pub const MFUSIM_BOUND_COMMUNICATION: mfusim_bound = 3;
pub const MFUSIM_BOUND_FIXED: mfusim_bound = 4;

pub type mfusim_source = i32;
pub const MFUSIM_SOURCE_NONE: mfusim_source = 0;
pub const MFUSIM_SOURCE_TABLE_EXACT: mfusim_source = 1;
pub const MFUSIM_SOURCE_TABLE_INTERPOLATED: mfusim_source = 2;
pub const MFUSIM_SOURCE_TABLE_NEAREST: mfusim_source = 3;
pub const MFUSIM_SOURCE_ANALYTICAL: mfusim_source = 4;
pub const MFUSIM_SOURCE_DEFAULT: mfusim_source = 5;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_op_detail {
    pub time_us: c_double,
    pub flops: c_double,
    pub bytes: c_double,
    pub efficiency: c_double,
    pub distance: c_double,
    pub bound: mfusim_bound,
    pub source: mfusim_source,
    pub table: [c_char; 96],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_step_result {
    pub struct_size: usize,
    pub total_us: c_double,
    pub bound: mfusim_bound,
    /// The valid entries of `ops` (MFUSIM_OP_COUNT as the library knows it).
    pub n_ops: i32,
    // Fixed capacity (MFUSIM_OP_CAPACITY); n_ops of them are valid.
    pub ops: [mfusim_op_detail; MFUSIM_OP_CAPACITY],
}

pub type mfusim_phases = i32;
pub const MFUSIM_PHASES_BOTH: mfusim_phases = 0;
pub const MFUSIM_PHASES_PREFILL_ONLY: mfusim_phases = 1;
pub const MFUSIM_PHASES_DECODE_ONLY: mfusim_phases = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_scenario {
    pub struct_size: usize,
    pub input_len: i64,
    pub output_len: i64,
    pub max_prefill_tokens: i64,
    pub decode_batch: i64,
    pub target_tgs: c_double,
    pub target_tpot_ms: c_double,
    pub phases: mfusim_phases,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_serving {
    pub struct_size: usize,
    pub input_len: i64,
    pub output_len: i64,
    pub concurrency: i64,
    pub max_batched_tokens: i64,
    pub max_seqs: i64,
    pub gpu_memory_utilization: c_double,
    pub requests_per_client: c_double,
}

pub type mfusim_serving_limit = i32;
pub const MFUSIM_SERVING_LIMIT_NONE: mfusim_serving_limit = 0;
pub const MFUSIM_SERVING_LIMIT_TOKEN_BUDGET: mfusim_serving_limit = 1;
pub const MFUSIM_SERVING_LIMIT_MAX_SEQS: mfusim_serving_limit = 2;
pub const MFUSIM_SERVING_LIMIT_KV_CAPACITY: mfusim_serving_limit = 3;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_serving_result {
    pub struct_size: usize,
    pub ttft_ms: c_double,
    pub tpot_ms: c_double,
    pub e2e_ms: c_double,
    pub output_throughput_tok_s_gpu: c_double,
    pub request_throughput_req_s: c_double,
    pub decode_step_ms: c_double,
    pub mixed_step_ms: c_double,
    pub mixed_step_fraction: c_double,
    pub decode_batch: c_double,
    pub prefill_tokens_per_mixed_step: c_double,
    pub prefill_steps_per_request: c_double,
    pub queue_ms: c_double,
    pub running_requests: c_double,
    pub kv_capacity_tokens: c_double,
    pub limited_by: mfusim_serving_limit,
}

/// `mfusim_plan_request` (since 1.3): what `mfusim_plan` searches beyond the model and the workload.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_plan_request {
    pub struct_size: usize,
    pub gpus: *const *const c_char,
    pub gpu_count: usize,
    pub tp_list: *const i64,
    pub tp_count: usize,
    pub max_concurrency: i64,
    pub max_ttft_ms: c_double,
    pub max_tpot_ms: c_double,
    pub gpu_budget: i64,
    pub simulate: i32,
    pub disagg: i32,
    pub decode_batches: *const i64,
    pub decode_batch_count: usize,
    pub least_loaded_router: i32,
    pub reserved: i32,
}

/// `mfusim_plan_row`: one deployment evaluated. Fixed layout: 152 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_plan_row {
    pub gpu_index: i32,
    pub disaggregated: i32,
    pub meets_limits: i32,
    pub best: i32,
    pub tp: i64,
    pub ep: i64,
    pub gpus: i64,
    pub concurrency: i64,
    pub prefill_workers: i64,
    pub prefill_tp: i64,
    pub prefill_ep: i64,
    pub prefill_attention_dp: i64,
    pub decode_workers: i64,
    pub decode_tp: i64,
    pub decode_ep: i64,
    pub decode_attention_dp: i64,
    pub decode_batch: i64,
    pub ttft_ms: c_double,
    pub tpot_ms: c_double,
    pub output_tok_s_gpu: c_double,
    pub output_tok_s_user: c_double,
}

/// `mfusim_plan_gpu`: the search's summary for one GPU. Fixed layout: 40 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_plan_gpu {
    pub evaluated: i64,
    pub meeting_limits: i64,
    pub best_row: i64,
    pub skipped_not_fitting: i64,
    pub skipped_invalid: i64,
}

/// Opaque result of `mfusim_plan`.
#[repr(C)]
pub struct mfusim_plan_result {
    _private: [u8; 0],
}

/// `mfusim_sweep_param` (since 1.3): the parameter a sweep varies. Stable numbers, only appended.
pub type mfusim_sweep_param = i32;
pub const MFUSIM_SWEEP_NONE: mfusim_sweep_param = -1;
pub const MFUSIM_SWEEP_DECODE_BATCH: mfusim_sweep_param = 0;
pub const MFUSIM_SWEEP_CONTEXT: mfusim_sweep_param = 1;
pub const MFUSIM_SWEEP_CHUNK: mfusim_sweep_param = 2;
pub const MFUSIM_SWEEP_CONCURRENCY: mfusim_sweep_param = 3;
pub const MFUSIM_SWEEP_ISL: mfusim_sweep_param = 4;
pub const MFUSIM_SWEEP_OSL: mfusim_sweep_param = 5;
pub const MFUSIM_SWEEP_TP: mfusim_sweep_param = 6;
pub const MFUSIM_SWEEP_GPU: mfusim_sweep_param = 7;
pub const MFUSIM_SWEEP_MODEL: mfusim_sweep_param = 8;

/// `mfusim_sweep_request` (since 1.3): the varied parameter (and series) and the step every point starts from.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_sweep_request {
    pub struct_size: usize,
    pub serving: i32,
    pub simulate: i32,
    pub vary: mfusim_sweep_param,
    pub series: mfusim_sweep_param,
    pub vary_values: *const *const c_char,
    pub vary_count: usize,
    pub series_values: *const *const c_char,
    pub series_count: usize,
    pub decode_batch: i64,
    pub context: i64,
    pub chunk: i64,
}

/// `mfusim_sweep_row`: one point of a sweep. Fixed layout: 64 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct mfusim_sweep_row {
    pub vary_index: i32,
    pub series_index: i32,
    pub ok: i32,
    pub reserved: i32,
    pub step_ms: c_double,
    pub ttft_ms: c_double,
    pub tpot_ms: c_double,
    pub output_tok_s_gpu: c_double,
    pub e2e_ms: c_double,
    pub request_throughput_req_s: c_double,
}

/// Opaque result of `mfusim_sweep`.
#[repr(C)]
pub struct mfusim_sweep_result {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_disagg_serving {
    pub struct_size: usize,
    pub input_len: i64,
    pub output_len: i64,
    pub concurrency: i64,
    pub prefill_workers: i64,
    pub decode_workers: i64,
    pub prefill_batch: i64,
    pub decode_batch: i64,
    pub max_batched_tokens: i64,
    pub gpu_memory_utilization: c_double,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_disagg_result {
    pub struct_size: usize,
    pub ttft_ms: c_double,
    pub tpot_ms: c_double,
    pub e2e_ms: c_double,
    pub output_throughput_tok_s_gpu: c_double,
    pub request_throughput_req_s: c_double,
    pub admission_ms: c_double,
    pub prefill_queue_ms: c_double,
    pub prefill_ms: c_double,
    pub transfer_ms: c_double,
    pub decode_wait_ms: c_double,
    pub prefill_batch_ms: c_double,
    pub prompts_per_batch: c_double,
    pub prefill_utilization: c_double,
    pub decode_step_ms: c_double,
    pub decode_batch: c_double,
    pub decode_slots: c_double,
    pub kv_transfer_bytes: c_double,
    pub transfer_over_network: i64,
    pub prefill_gpus: i64,
    pub decode_gpus: i64,
}

/// Opaque report handle.
#[repr(C)]
pub struct mfusim_report {
    _private: [u8; 0],
}

/// Opaque handle of a fitted calibration (`mfusim_calibrate_steps` / `mfusim_calibrate_kernels`).
#[repr(C)]
pub struct mfusim_calibration {
    _private: [u8; 0],
}

pub type mfusim_length_distribution = i32;
pub const MFUSIM_LENGTH_FIXED: mfusim_length_distribution = 0;
pub const MFUSIM_LENGTH_UNIFORM: mfusim_length_distribution = 1;
pub const MFUSIM_LENGTH_NORMAL: mfusim_length_distribution = 2;
pub const MFUSIM_LENGTH_LOGNORMAL: mfusim_length_distribution = 3;

pub type mfusim_scheduler_policy = i32;
pub const MFUSIM_SCHEDULER_ENGINE: mfusim_scheduler_policy = 0;
pub const MFUSIM_SCHEDULER_VLLM_V1: mfusim_scheduler_policy = 1;
pub const MFUSIM_SCHEDULER_SGLANG: mfusim_scheduler_policy = 2;
pub const MFUSIM_SCHEDULER_TRTLLM: mfusim_scheduler_policy = 3;
pub const MFUSIM_SCHEDULER_TRTLLM_MAX_UTILIZATION: mfusim_scheduler_policy = 4;

pub type mfusim_metric = i32;
pub const MFUSIM_METRIC_TTFT: mfusim_metric = 0;
pub const MFUSIM_METRIC_TPOT: mfusim_metric = 1;
pub const MFUSIM_METRIC_ITL: mfusim_metric = 2;
pub const MFUSIM_METRIC_E2EL: mfusim_metric = 3;
pub const MFUSIM_METRIC_QUEUE: mfusim_metric = 4;

/// One request of a simulation trace. Fixed layout (40 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct mfusim_trace_request {
    pub arrival_s: c_double,
    pub input_len: i64,
    pub output_len: i64,
    pub prefix_id: i64,
    pub prefix_len: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mfusim_simulation {
    pub struct_size: usize,
    pub num_prompts: i64,
    pub warmup: i64,
    pub request_rate: c_double,
    pub burstiness: c_double,
    pub max_concurrency: i64,
    pub input_distribution: mfusim_length_distribution,
    pub output_distribution: mfusim_length_distribution,
    pub input_len: c_double,
    pub input_spread: c_double,
    pub output_len: c_double,
    pub output_spread: c_double,
    pub num_prefix_prompts: i64,
    pub prefix_len: i64,
    pub seed: u64,
    pub constant_rate: i32,
    pub scheduler: mfusim_scheduler_policy,
    pub max_batched_tokens: i64,
    pub max_seqs: i64,
    pub block_tokens: i64,
    pub long_prefill_token_threshold: i64,
    pub gpu_memory_utilization: c_double,
    pub disable_chunked_prefill: i32,
    pub disable_prefix_caching: i32,
    pub slo_ttft_ms: c_double,
    pub slo_tpot_ms: c_double,
    pub slo_e2el_ms: c_double,
    pub trace: *const mfusim_trace_request,
    pub trace_count: usize,
    pub record_timeline: i32,
    pub reserved: i32,
    pub ramp_up_s: c_double,
}

/// A distribution over the measured requests, ms. Fixed layout (64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct mfusim_latency_summary {
    pub mean: c_double,
    pub median: c_double,
    pub std: c_double,
    pub p90: c_double,
    pub p95: c_double,
    pub p99: c_double,
    pub min: c_double,
    pub max: c_double,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct mfusim_simulation_summary {
    pub struct_size: usize,
    pub completed: i64,
    pub total_input_tokens: i64,
    pub total_output_tokens: i64,
    pub duration_s: c_double,
    pub request_throughput: c_double,
    pub request_goodput: c_double,
    pub output_throughput: c_double,
    pub total_token_throughput: c_double,
    pub steps: i64,
    pub preemptions: i64,
    pub prefix_hit_tokens: i64,
    pub mean_batch_tokens: c_double,
    pub mean_running: c_double,
    pub ttft_ms: mfusim_latency_summary,
    pub tpot_ms: mfusim_latency_summary,
    pub itl_ms: mfusim_latency_summary,
    pub e2el_ms: mfusim_latency_summary,
    pub queue_ms: mfusim_latency_summary,
}

/// One simulated request as the client saw it. Fixed layout (80 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct mfusim_simulated_request {
    pub send_ms: c_double,
    pub ttft_ms: c_double,
    pub tpot_ms: c_double,
    pub e2el_ms: c_double,
    pub queue_ms: c_double,
    pub input_len: i64,
    pub output_len: i64,
    pub preemptions: i64,
    pub prefix_hit_tokens: i64,
    pub warmup: i32,
    pub reserved: i32,
}

/// One engine step of a recorded timeline. Fixed layout (40 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct mfusim_simulated_step {
    pub start_ms: c_double,
    pub duration_ms: c_double,
    pub running: i32,
    pub waiting: i32,
    pub prefill_tokens: i32,
    pub decode_tokens: i32,
    pub kv_used: c_double,
}

/// Opaque handle of a simulation's result (`mfusim_simulate`).
#[repr(C)]
pub struct mfusim_simulation_result {
    _private: [u8; 0],
}

extern "C" {
    pub fn mfusim_version_number() -> u32;
    pub fn mfusim_version_string() -> *const c_char;
    pub fn mfusim_status_string(status: mfusim_status) -> *const c_char;
    pub fn mfusim_error_clear(error: *mut mfusim_error);

    pub fn mfusim_options_init(
        options: *mut mfusim_options,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_estimator_create(
        options: *const mfusim_options,
        out: *mut *mut mfusim_estimator,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_estimator_free(estimator: *mut mfusim_estimator);
    pub fn mfusim_estimator_load_warnings(estimator: *const mfusim_estimator) -> *const c_char;

    pub fn mfusim_step_time(
        estimator: *const mfusim_estimator,
        requests: *const mfusim_request,
        n_requests: usize,
        out_us: *mut c_double,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_step_time_batch(
        estimator: *const mfusim_estimator,
        requests: *const mfusim_request,
        n_requests: usize,
        step_sizes: *const i64,
        n_steps: usize,
        out_us: *mut c_double,
        error: *mut mfusim_error,
    ) -> mfusim_status;

    pub fn mfusim_op_name(op: mfusim_op) -> *const c_char;
    pub fn mfusim_bound_name(bound: mfusim_bound) -> *const c_char;
    pub fn mfusim_source_name(source: mfusim_source) -> *const c_char;
    pub fn mfusim_step_result_init(
        result: *mut mfusim_step_result,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_step_detail(
        estimator: *const mfusim_estimator,
        requests: *const mfusim_request,
        n_requests: usize,
        out: *mut mfusim_step_result,
        error: *mut mfusim_error,
    ) -> mfusim_status;

    pub fn mfusim_scenario_init(
        scenario: *mut mfusim_scenario,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_estimate(
        estimator: *const mfusim_estimator,
        scenario: *const mfusim_scenario,
        out: *mut *mut mfusim_report,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_report_free(report: *mut mfusim_report);
    pub fn mfusim_report_count(report: *const mfusim_report) -> usize;
    pub fn mfusim_report_name(report: *const mfusim_report, index: usize) -> *const c_char;
    pub fn mfusim_report_value_at(report: *const mfusim_report, index: usize) -> c_double;
    pub fn mfusim_report_value(
        report: *const mfusim_report,
        name: *const c_char,
        out: *mut c_double,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_report_warnings(report: *const mfusim_report) -> *const c_char;
    pub fn mfusim_report_soft_errors(report: *const mfusim_report) -> *const c_char;

    pub fn mfusim_serving_init(
        serving: *mut mfusim_serving,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_serving_result_init(
        result: *mut mfusim_serving_result,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_serving_estimate(
        estimator: *const mfusim_estimator,
        serving: *const mfusim_serving,
        out: *mut mfusim_serving_result,
        error: *mut mfusim_error,
    ) -> mfusim_status;

    pub fn mfusim_disagg_serving_init(
        serving: *mut mfusim_disagg_serving,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_disagg_result_init(
        result: *mut mfusim_disagg_result,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_disagg_estimate(
        prefill: *const mfusim_estimator,
        decode: *const mfusim_estimator,
        serving: *const mfusim_disagg_serving,
        out: *mut mfusim_disagg_result,
        error: *mut mfusim_error,
    ) -> mfusim_status;

    pub fn mfusim_plan_request_init(
        request: *mut mfusim_plan_request,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_plan(
        options: *const mfusim_options,
        serving: *const mfusim_serving,
        request: *const mfusim_plan_request,
        out: *mut *mut mfusim_plan_result,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_plan_result_free(result: *mut mfusim_plan_result);
    pub fn mfusim_plan_result_rows(result: *const mfusim_plan_result, count: *mut usize) -> *const mfusim_plan_row;
    pub fn mfusim_plan_result_gpus(result: *const mfusim_plan_result, count: *mut usize) -> *const mfusim_plan_gpu;
    pub fn mfusim_plan_result_gpu_name(result: *const mfusim_plan_result, gpu_index: usize) -> *const c_char;
    pub fn mfusim_plan_result_last_skip(result: *const mfusim_plan_result, gpu_index: usize) -> *const c_char;
    pub fn mfusim_plan_result_warnings(result: *const mfusim_plan_result) -> *const c_char;

    pub fn mfusim_sweep_request_init(
        request: *mut mfusim_sweep_request,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_sweep(
        options: *const mfusim_options,
        serving: *const mfusim_serving,
        request: *const mfusim_sweep_request,
        out: *mut *mut mfusim_sweep_result,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_sweep_result_free(result: *mut mfusim_sweep_result);
    pub fn mfusim_sweep_result_rows(result: *const mfusim_sweep_result, count: *mut usize) -> *const mfusim_sweep_row;
    pub fn mfusim_sweep_result_detail(result: *const mfusim_sweep_result, row: usize) -> *const c_char;
    pub fn mfusim_sweep_result_error(result: *const mfusim_sweep_result, row: usize) -> *const c_char;
    pub fn mfusim_sweep_result_warnings(result: *const mfusim_sweep_result) -> *const c_char;

    pub fn mfusim_catalogue_model_count() -> usize;
    pub fn mfusim_catalogue_model_name(index: usize) -> *const c_char;
    pub fn mfusim_catalogue_gpu_count() -> usize;
    pub fn mfusim_catalogue_gpu_name(index: usize) -> *const c_char;

    pub fn mfusim_calibrate_steps(
        options: *const mfusim_options,
        steps_path: *const c_char,
        folds: i32,
        out: *mut *mut mfusim_calibration,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_calibrate_kernels(
        options: *const mfusim_options,
        kernels_dir: *const c_char,
        out: *mut *mut mfusim_calibration,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_calibration_free(calibration: *mut mfusim_calibration);
    pub fn mfusim_calibration_document(calibration: *const mfusim_calibration) -> *const c_char;
    pub fn mfusim_calibration_report(calibration: *const mfusim_calibration) -> *const c_char;
    pub fn mfusim_calibration_improved(calibration: *const mfusim_calibration) -> i32;

    pub fn mfusim_simulation_init(
        simulation: *mut mfusim_simulation,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_simulate(
        estimator: *const mfusim_estimator,
        simulation: *const mfusim_simulation,
        out: *mut *mut mfusim_simulation_result,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_simulation_result_free(result: *mut mfusim_simulation_result);
    pub fn mfusim_simulation_summary_init(
        summary: *mut mfusim_simulation_summary,
        struct_size: usize,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_simulation_result_summary(
        result: *const mfusim_simulation_result,
        out: *mut mfusim_simulation_summary,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_simulation_result_requests(
        result: *const mfusim_simulation_result,
        count: *mut usize,
    ) -> *const mfusim_simulated_request;
    pub fn mfusim_simulation_result_percentile(
        result: *const mfusim_simulation_result,
        metric: mfusim_metric,
        p: c_double,
        out: *mut c_double,
        error: *mut mfusim_error,
    ) -> mfusim_status;
    pub fn mfusim_simulation_result_timeline(
        result: *const mfusim_simulation_result,
        count: *mut usize,
    ) -> *const mfusim_simulated_step;
}

#[cfg(test)]
mod tests;
