/* Sizes and offsets of the structs of mfusim.h as the C compiler lays them out, and the constants that size them,
 * for the Rust layout test. */
#include <mfusim.h>
#include <stddef.h>

size_t mfusim_sys_layout(const char** names, size_t* values, size_t capacity);

#define FACT(name, value)        \
    do {                         \
        if (n < capacity) {      \
            names[n] = name;     \
            values[n] = (value); \
        }                        \
        ++n;                     \
    } while (0)

size_t mfusim_sys_layout(const char** names, size_t* values, size_t capacity) {
    size_t n = 0;
    FACT("mfusim_request.size", sizeof(mfusim_request));
    FACT("mfusim_request.align", _Alignof(mfusim_request));
    FACT("mfusim_request.new_tokens", offsetof(mfusim_request, new_tokens));
    FACT("mfusim_request.context", offsetof(mfusim_request, context));
    FACT("mfusim_request.flags", offsetof(mfusim_request, flags));
    FACT("mfusim_request.reserved", offsetof(mfusim_request, reserved));
    FACT("mfusim_error.size", sizeof(mfusim_error));
    FACT("mfusim_error.message", offsetof(mfusim_error, message));
    FACT("mfusim_options.size", sizeof(mfusim_options));
    FACT("mfusim_options.model", offsetof(mfusim_options, model));
    FACT("mfusim_options.gpu", offsetof(mfusim_options, gpu));
    FACT("mfusim_options.bench_data_dir", offsetof(mfusim_options, bench_data_dir));
    FACT("mfusim_options.mode", offsetof(mfusim_options, mode));
    FACT("mfusim_options.tensor_parallel", offsetof(mfusim_options, tensor_parallel));
    FACT("mfusim_options.two_batch_overlap", offsetof(mfusim_options, two_batch_overlap));
    FACT("mfusim_options.sm_ratio", offsetof(mfusim_options, sm_ratio));
    FACT("mfusim_op_detail.size", sizeof(mfusim_op_detail));
    FACT("mfusim_op_detail.bound", offsetof(mfusim_op_detail, bound));
    FACT("mfusim_op_detail.source", offsetof(mfusim_op_detail, source));
    FACT("mfusim_op_detail.table", offsetof(mfusim_op_detail, table));
    FACT("mfusim_step_result.size", sizeof(mfusim_step_result));
    FACT("mfusim_step_result.total_us", offsetof(mfusim_step_result, total_us));
    FACT("mfusim_step_result.bound", offsetof(mfusim_step_result, bound));
    FACT("mfusim_step_result.n_ops", offsetof(mfusim_step_result, n_ops));
    FACT("mfusim_step_result.ops", offsetof(mfusim_step_result, ops));
    FACT("mfusim_step_result.ops_slots", sizeof(((mfusim_step_result*)0)->ops) / sizeof(mfusim_op_detail));
    FACT("MFUSIM_OP_COUNT", MFUSIM_OP_COUNT);
    FACT("MFUSIM_OP_CAPACITY", MFUSIM_OP_CAPACITY);
    FACT("mfusim_scenario.size", sizeof(mfusim_scenario));
    FACT("mfusim_scenario.decode_batch", offsetof(mfusim_scenario, decode_batch));
    FACT("mfusim_scenario.target_tpot_ms", offsetof(mfusim_scenario, target_tpot_ms));
    FACT("mfusim_scenario.phases", offsetof(mfusim_scenario, phases));
    FACT("mfusim_options.engine", offsetof(mfusim_options, engine));
    FACT("mfusim_options.quant", offsetof(mfusim_options, quant));
    FACT("mfusim_options.speculative", offsetof(mfusim_options, speculative));
    FACT("mfusim_options.num_speculative_tokens", offsetof(mfusim_options, num_speculative_tokens));
    FACT("mfusim_options.acceptance_rate", offsetof(mfusim_options, acceptance_rate));
    FACT("mfusim_options.mean_accepted_length", offsetof(mfusim_options, mean_accepted_length));
    FACT("mfusim_options.images_per_request", offsetof(mfusim_options, images_per_request));
    FACT("mfusim_options.image_height", offsetof(mfusim_options, image_height));
    FACT("mfusim_options.moe_routing_alpha", offsetof(mfusim_options, moe_routing_alpha));
    FACT("mfusim_options.audio_seconds_per_request", offsetof(mfusim_options, audio_seconds_per_request));
    FACT("mfusim_options.draft_model", offsetof(mfusim_options, draft_model));
    FACT("mfusim_options.expert_parallel", offsetof(mfusim_options, expert_parallel));
    FACT("mfusim_options.attention_data_parallel", offsetof(mfusim_options, attention_data_parallel));
    FACT("MFUSIM_OP_ENGINE", MFUSIM_OP_ENGINE);
    FACT("mfusim_serving.size", sizeof(mfusim_serving));
    FACT("mfusim_serving.input_len", offsetof(mfusim_serving, input_len));
    FACT("mfusim_serving.max_seqs", offsetof(mfusim_serving, max_seqs));
    FACT("mfusim_serving.gpu_memory_utilization", offsetof(mfusim_serving, gpu_memory_utilization));
    FACT("mfusim_serving.requests_per_client", offsetof(mfusim_serving, requests_per_client));
    FACT("mfusim_serving_result.size", sizeof(mfusim_serving_result));
    FACT("mfusim_serving_result.ttft_ms", offsetof(mfusim_serving_result, ttft_ms));
    FACT("mfusim_serving_result.queue_ms", offsetof(mfusim_serving_result, queue_ms));
    FACT("mfusim_serving_result.kv_capacity_tokens", offsetof(mfusim_serving_result, kv_capacity_tokens));
    FACT("mfusim_serving_result.limited_by", offsetof(mfusim_serving_result, limited_by));
    FACT("mfusim_disagg_serving.size", sizeof(mfusim_disagg_serving));
    FACT("mfusim_disagg_serving.prefill_workers", offsetof(mfusim_disagg_serving, prefill_workers));
    FACT("mfusim_disagg_serving.gpu_memory_utilization", offsetof(mfusim_disagg_serving, gpu_memory_utilization));
    FACT("mfusim_disagg_result.size", sizeof(mfusim_disagg_result));
    FACT("mfusim_disagg_result.ttft_ms", offsetof(mfusim_disagg_result, ttft_ms));
    FACT("mfusim_disagg_result.kv_transfer_bytes", offsetof(mfusim_disagg_result, kv_transfer_bytes));
    FACT("mfusim_disagg_result.transfer_over_network", offsetof(mfusim_disagg_result, transfer_over_network));
    FACT("mfusim_disagg_result.decode_gpus", offsetof(mfusim_disagg_result, decode_gpus));
    FACT("mfusim_plan_request.size", sizeof(mfusim_plan_request));
    FACT("mfusim_plan_request.gpus", offsetof(mfusim_plan_request, gpus));
    FACT("mfusim_plan_request.tp_count", offsetof(mfusim_plan_request, tp_count));
    FACT("mfusim_plan_request.max_concurrency", offsetof(mfusim_plan_request, max_concurrency));
    FACT("mfusim_plan_request.gpu_budget", offsetof(mfusim_plan_request, gpu_budget));
    FACT("mfusim_plan_request.disagg", offsetof(mfusim_plan_request, disagg));
    FACT("mfusim_plan_request.decode_batches", offsetof(mfusim_plan_request, decode_batches));
    FACT("mfusim_plan_request.least_loaded_router", offsetof(mfusim_plan_request, least_loaded_router));
    FACT("mfusim_plan_request.reserved", offsetof(mfusim_plan_request, reserved));
    FACT("mfusim_plan_row.size", sizeof(mfusim_plan_row));
    FACT("mfusim_plan_row.best", offsetof(mfusim_plan_row, best));
    FACT("mfusim_plan_row.tp", offsetof(mfusim_plan_row, tp));
    FACT("mfusim_plan_row.decode_batch", offsetof(mfusim_plan_row, decode_batch));
    FACT("mfusim_plan_row.ttft_ms", offsetof(mfusim_plan_row, ttft_ms));
    FACT("mfusim_plan_row.output_tok_s_user", offsetof(mfusim_plan_row, output_tok_s_user));
    FACT("mfusim_plan_gpu.size", sizeof(mfusim_plan_gpu));
    FACT("mfusim_plan_gpu.best_row", offsetof(mfusim_plan_gpu, best_row));
    FACT("mfusim_plan_gpu.skipped_invalid", offsetof(mfusim_plan_gpu, skipped_invalid));
    FACT("mfusim_sweep_request.size", sizeof(mfusim_sweep_request));
    FACT("mfusim_sweep_request.serving", offsetof(mfusim_sweep_request, serving));
    FACT("mfusim_sweep_request.series", offsetof(mfusim_sweep_request, series));
    FACT("mfusim_sweep_request.vary_values", offsetof(mfusim_sweep_request, vary_values));
    FACT("mfusim_sweep_request.series_count", offsetof(mfusim_sweep_request, series_count));
    FACT("mfusim_sweep_request.decode_batch", offsetof(mfusim_sweep_request, decode_batch));
    FACT("mfusim_sweep_request.chunk", offsetof(mfusim_sweep_request, chunk));
    FACT("mfusim_sweep_row.size", sizeof(mfusim_sweep_row));
    FACT("mfusim_sweep_row.ok", offsetof(mfusim_sweep_row, ok));
    FACT("mfusim_sweep_row.step_ms", offsetof(mfusim_sweep_row, step_ms));
    FACT("mfusim_sweep_row.ttft_ms", offsetof(mfusim_sweep_row, ttft_ms));
    FACT("mfusim_sweep_row.request_throughput_req_s", offsetof(mfusim_sweep_row, request_throughput_req_s));
    FACT("MFUSIM_SWEEP_NONE", (size_t)(MFUSIM_SWEEP_NONE + 1));
    FACT("MFUSIM_SWEEP_MODEL", MFUSIM_SWEEP_MODEL);
    FACT("mfusim_trace_request.size", sizeof(mfusim_trace_request));
    FACT("mfusim_trace_request.prefix_len", offsetof(mfusim_trace_request, prefix_len));
    FACT("mfusim_simulation.size", sizeof(mfusim_simulation));
    FACT("mfusim_simulation.seed", offsetof(mfusim_simulation, seed));
    FACT("mfusim_simulation.trace", offsetof(mfusim_simulation, trace));
    FACT("mfusim_simulation.record_timeline", offsetof(mfusim_simulation, record_timeline));
    FACT("mfusim_simulation.ramp_up_s", offsetof(mfusim_simulation, ramp_up_s));
    FACT("mfusim_simulation_summary.size", sizeof(mfusim_simulation_summary));
    FACT("mfusim_simulation_summary.ttft_ms", offsetof(mfusim_simulation_summary, ttft_ms));
    FACT("mfusim_simulation_summary.queue_ms", offsetof(mfusim_simulation_summary, queue_ms));
    FACT("mfusim_simulated_request.size", sizeof(mfusim_simulated_request));
    FACT("mfusim_simulated_request.warmup", offsetof(mfusim_simulated_request, warmup));
    FACT("mfusim_simulated_step.size", sizeof(mfusim_simulated_step));
    FACT("mfusim_simulated_step.kv_used", offsetof(mfusim_simulated_step, kv_used));
    return n;
}
