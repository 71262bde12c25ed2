//! The Rust declarations against the C compiler's layout of mfusim.h (csrc/layout.c, compiled by build.rs).
extern crate std;

use super::*;
use core::mem::{align_of, offset_of, size_of};
use std::collections::HashMap;
use std::ffi::CStr;
use std::string::{String, ToString};

extern "C" {
    fn mfusim_sys_layout(names: *mut *const c_char, values: *mut usize, capacity: usize) -> usize;
}

fn c_layout() -> HashMap<String, usize> {
    let mut names = [core::ptr::null::<c_char>(); 128];
    let mut values = [0usize; 128];
    let n = unsafe { mfusim_sys_layout(names.as_mut_ptr(), values.as_mut_ptr(), names.len()) };
    assert!(n <= names.len());
    (0..n).map(|i| (unsafe { CStr::from_ptr(names[i]) }.to_str().unwrap().to_string(), values[i])).collect()
}

/// The length of `mfusim_step_result.ops` as declared here.
fn op_slots() -> usize {
    let r = core::mem::MaybeUninit::<mfusim_step_result>::zeroed();
    let r = unsafe { r.assume_init() };
    r.ops.len()
}

#[test]
fn rust_layouts_equal_c_layouts() {
    let rust: [(&str, usize); 110] = [
        ("mfusim_request.size", size_of::<mfusim_request>()),
        ("mfusim_request.align", align_of::<mfusim_request>()),
        ("mfusim_request.new_tokens", offset_of!(mfusim_request, new_tokens)),
        ("mfusim_request.context", offset_of!(mfusim_request, context)),
        ("mfusim_request.flags", offset_of!(mfusim_request, flags)),
        ("mfusim_request.reserved", offset_of!(mfusim_request, reserved)),
        ("mfusim_error.size", size_of::<mfusim_error>()),
        ("mfusim_error.message", offset_of!(mfusim_error, message)),
        ("mfusim_options.size", size_of::<mfusim_options>()),
        ("mfusim_options.model", offset_of!(mfusim_options, model)),
        ("mfusim_options.gpu", offset_of!(mfusim_options, gpu)),
        ("mfusim_options.bench_data_dir", offset_of!(mfusim_options, bench_data_dir)),
        ("mfusim_options.mode", offset_of!(mfusim_options, mode)),
        ("mfusim_options.tensor_parallel", offset_of!(mfusim_options, tensor_parallel)),
        ("mfusim_options.two_batch_overlap", offset_of!(mfusim_options, two_batch_overlap)),
        ("mfusim_options.sm_ratio", offset_of!(mfusim_options, sm_ratio)),
        ("mfusim_op_detail.size", size_of::<mfusim_op_detail>()),
        ("mfusim_op_detail.bound", offset_of!(mfusim_op_detail, bound)),
        ("mfusim_op_detail.source", offset_of!(mfusim_op_detail, source)),
        ("mfusim_op_detail.table", offset_of!(mfusim_op_detail, table)),
        ("mfusim_step_result.size", size_of::<mfusim_step_result>()),
        ("mfusim_step_result.total_us", offset_of!(mfusim_step_result, total_us)),
        ("mfusim_step_result.bound", offset_of!(mfusim_step_result, bound)),
        ("mfusim_step_result.n_ops", offset_of!(mfusim_step_result, n_ops)),
        ("mfusim_step_result.ops", offset_of!(mfusim_step_result, ops)),
        ("mfusim_step_result.ops_slots", op_slots()),
        ("MFUSIM_OP_COUNT", MFUSIM_OP_COUNT),
        ("MFUSIM_OP_CAPACITY", MFUSIM_OP_CAPACITY),
        ("mfusim_scenario.size", size_of::<mfusim_scenario>()),
        ("mfusim_scenario.decode_batch", offset_of!(mfusim_scenario, decode_batch)),
        ("mfusim_scenario.target_tpot_ms", offset_of!(mfusim_scenario, target_tpot_ms)),
        ("mfusim_scenario.phases", offset_of!(mfusim_scenario, phases)),
        ("mfusim_options.engine", offset_of!(mfusim_options, engine)),
        ("mfusim_options.quant", offset_of!(mfusim_options, quant)),
        ("mfusim_options.speculative", offset_of!(mfusim_options, speculative)),
        ("mfusim_options.num_speculative_tokens", offset_of!(mfusim_options, num_speculative_tokens)),
        ("mfusim_options.acceptance_rate", offset_of!(mfusim_options, acceptance_rate)),
        ("mfusim_options.mean_accepted_length", offset_of!(mfusim_options, mean_accepted_length)),
        ("mfusim_options.images_per_request", offset_of!(mfusim_options, images_per_request)),
        ("mfusim_options.image_height", offset_of!(mfusim_options, image_height)),
        ("mfusim_options.moe_routing_alpha", offset_of!(mfusim_options, moe_routing_alpha)),
        ("mfusim_options.audio_seconds_per_request", offset_of!(mfusim_options, audio_seconds_per_request)),
        ("mfusim_options.draft_model", offset_of!(mfusim_options, draft_model)),
        ("mfusim_options.expert_parallel", offset_of!(mfusim_options, expert_parallel)),
        ("mfusim_options.attention_data_parallel", offset_of!(mfusim_options, attention_data_parallel)),
        ("MFUSIM_OP_ENGINE", MFUSIM_OP_ENGINE as usize),
        ("mfusim_serving.size", size_of::<mfusim_serving>()),
        ("mfusim_serving.input_len", offset_of!(mfusim_serving, input_len)),
        ("mfusim_serving.max_seqs", offset_of!(mfusim_serving, max_seqs)),
        ("mfusim_serving.gpu_memory_utilization", offset_of!(mfusim_serving, gpu_memory_utilization)),
        ("mfusim_serving.requests_per_client", offset_of!(mfusim_serving, requests_per_client)),
        ("mfusim_serving_result.size", size_of::<mfusim_serving_result>()),
        ("mfusim_serving_result.ttft_ms", offset_of!(mfusim_serving_result, ttft_ms)),
        ("mfusim_serving_result.queue_ms", offset_of!(mfusim_serving_result, queue_ms)),
        ("mfusim_serving_result.kv_capacity_tokens", offset_of!(mfusim_serving_result, kv_capacity_tokens)),
        ("mfusim_serving_result.limited_by", offset_of!(mfusim_serving_result, limited_by)),
        ("mfusim_disagg_serving.size", size_of::<mfusim_disagg_serving>()),
        ("mfusim_disagg_serving.prefill_workers", offset_of!(mfusim_disagg_serving, prefill_workers)),
        ("mfusim_disagg_serving.gpu_memory_utilization", offset_of!(mfusim_disagg_serving, gpu_memory_utilization)),
        ("mfusim_disagg_result.size", size_of::<mfusim_disagg_result>()),
        ("mfusim_disagg_result.ttft_ms", offset_of!(mfusim_disagg_result, ttft_ms)),
        ("mfusim_disagg_result.kv_transfer_bytes", offset_of!(mfusim_disagg_result, kv_transfer_bytes)),
        ("mfusim_disagg_result.transfer_over_network", offset_of!(mfusim_disagg_result, transfer_over_network)),
        ("mfusim_disagg_result.decode_gpus", offset_of!(mfusim_disagg_result, decode_gpus)),
        ("mfusim_trace_request.size", size_of::<mfusim_trace_request>()),
        ("mfusim_trace_request.prefix_len", offset_of!(mfusim_trace_request, prefix_len)),
        ("mfusim_simulation.size", size_of::<mfusim_simulation>()),
        ("mfusim_simulation.seed", offset_of!(mfusim_simulation, seed)),
        ("mfusim_simulation.trace", offset_of!(mfusim_simulation, trace)),
        ("mfusim_simulation.record_timeline", offset_of!(mfusim_simulation, record_timeline)),
        ("mfusim_simulation.ramp_up_s", offset_of!(mfusim_simulation, ramp_up_s)),
        ("mfusim_simulation_summary.size", size_of::<mfusim_simulation_summary>()),
        ("mfusim_simulation_summary.ttft_ms", offset_of!(mfusim_simulation_summary, ttft_ms)),
        ("mfusim_simulation_summary.queue_ms", offset_of!(mfusim_simulation_summary, queue_ms)),
        ("mfusim_simulated_request.size", size_of::<mfusim_simulated_request>()),
        ("mfusim_simulated_request.warmup", offset_of!(mfusim_simulated_request, warmup)),
        ("mfusim_simulated_step.size", size_of::<mfusim_simulated_step>()),
        ("mfusim_simulated_step.kv_used", offset_of!(mfusim_simulated_step, kv_used)),
        ("mfusim_plan_request.size", size_of::<mfusim_plan_request>()),
        ("mfusim_plan_request.gpus", offset_of!(mfusim_plan_request, gpus)),
        ("mfusim_plan_request.tp_count", offset_of!(mfusim_plan_request, tp_count)),
        ("mfusim_plan_request.max_concurrency", offset_of!(mfusim_plan_request, max_concurrency)),
        ("mfusim_plan_request.gpu_budget", offset_of!(mfusim_plan_request, gpu_budget)),
        ("mfusim_plan_request.disagg", offset_of!(mfusim_plan_request, disagg)),
        ("mfusim_plan_request.decode_batches", offset_of!(mfusim_plan_request, decode_batches)),
        ("mfusim_plan_request.least_loaded_router", offset_of!(mfusim_plan_request, least_loaded_router)),
        ("mfusim_plan_request.reserved", offset_of!(mfusim_plan_request, reserved)),
        ("mfusim_plan_row.size", size_of::<mfusim_plan_row>()),
        ("mfusim_plan_row.best", offset_of!(mfusim_plan_row, best)),
        ("mfusim_plan_row.tp", offset_of!(mfusim_plan_row, tp)),
        ("mfusim_plan_row.decode_batch", offset_of!(mfusim_plan_row, decode_batch)),
        ("mfusim_plan_row.ttft_ms", offset_of!(mfusim_plan_row, ttft_ms)),
        ("mfusim_plan_row.output_tok_s_user", offset_of!(mfusim_plan_row, output_tok_s_user)),
        ("mfusim_plan_gpu.size", size_of::<mfusim_plan_gpu>()),
        ("mfusim_plan_gpu.best_row", offset_of!(mfusim_plan_gpu, best_row)),
        ("mfusim_plan_gpu.skipped_invalid", offset_of!(mfusim_plan_gpu, skipped_invalid)),
        ("mfusim_sweep_request.size", size_of::<mfusim_sweep_request>()),
        ("mfusim_sweep_request.serving", offset_of!(mfusim_sweep_request, serving)),
        ("mfusim_sweep_request.series", offset_of!(mfusim_sweep_request, series)),
        ("mfusim_sweep_request.vary_values", offset_of!(mfusim_sweep_request, vary_values)),
        ("mfusim_sweep_request.series_count", offset_of!(mfusim_sweep_request, series_count)),
        ("mfusim_sweep_request.decode_batch", offset_of!(mfusim_sweep_request, decode_batch)),
        ("mfusim_sweep_request.chunk", offset_of!(mfusim_sweep_request, chunk)),
        ("mfusim_sweep_row.size", size_of::<mfusim_sweep_row>()),
        ("mfusim_sweep_row.ok", offset_of!(mfusim_sweep_row, ok)),
        ("mfusim_sweep_row.step_ms", offset_of!(mfusim_sweep_row, step_ms)),
        ("mfusim_sweep_row.ttft_ms", offset_of!(mfusim_sweep_row, ttft_ms)),
        ("mfusim_sweep_row.request_throughput_req_s", offset_of!(mfusim_sweep_row, request_throughput_req_s)),
        ("MFUSIM_SWEEP_NONE", (MFUSIM_SWEEP_NONE + 1) as usize),
        ("MFUSIM_SWEEP_MODEL", MFUSIM_SWEEP_MODEL as usize),
    ];
    let c = c_layout();
    assert_eq!(c.len(), rust.len(), "facts from C: {c:?}");
    for (name, value) in rust {
        assert_eq!(Some(&value), c.get(name), "{name}: Rust {value}, C {:?}", c.get(name));
    }
    assert_eq!(size_of::<mfusim_request>(), 24);
    // Arrays of these cross the boundary: their sizes are fixed forever (mfusim.h).
    assert_eq!(size_of::<mfusim_plan_row>(), 152);
    assert_eq!(size_of::<mfusim_plan_gpu>(), 40);
    assert_eq!(size_of::<mfusim_sweep_row>(), 64);
}

#[test]
fn linked_library_matches_these_declarations() {
    assert_eq!(unsafe { mfusim_version_number() }, MFUSIM_VERSION_NUMBER);
    let name = unsafe { CStr::from_ptr(mfusim_status_string(MFUSIM_ERR_UNKNOWN_NAME)) };
    assert!(!name.to_bytes().is_empty());
    let mut options = core::mem::MaybeUninit::<mfusim_options>::uninit();
    let options = unsafe {
        let st = mfusim_options_init(options.as_mut_ptr(), size_of::<mfusim_options>(), core::ptr::null_mut());
        assert_eq!(st, MFUSIM_OK);
        options.assume_init()
    };
    assert_eq!(options.struct_size, size_of::<mfusim_options>());
    assert_eq!(options.tensor_parallel, 1);
    assert_eq!(options.expert_parallel, 1);
    // A size that is no released layout is refused and nothing is written.
    let mut small = core::mem::MaybeUninit::<mfusim_options>::zeroed();
    let st = unsafe { mfusim_options_init(small.as_mut_ptr(), 3, core::ptr::null_mut()) };
    assert_eq!(st, MFUSIM_ERR_STRUCT_SIZE);
    assert_eq!(unsafe { small.assume_init() }.struct_size, 0);
}
