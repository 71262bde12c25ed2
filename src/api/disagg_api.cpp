// Disaggregated serving estimates: two estimators (one per pool), mfusim_disagg_serving in, mfusim_disagg_result out.
#include <mfusim.h>

#include "api/boundary.hpp"
#include "api/handles.hpp"
#include "api/layouts.hpp"
#include "engine/disagg_serve.hpp"

using mfusim::api::guarded;
using mfusim::api::require;

namespace {

mfusim_disagg_serving default_disagg() {
    const mfusim::serving::DisaggWorkload d;
    mfusim_disagg_serving s{};
    s.struct_size = sizeof s;
    s.input_len = d.input_len;
    s.output_len = d.output_len;
    s.concurrency = d.concurrency;
    s.prefill_workers = d.prefill_workers;
    s.decode_workers = d.decode_workers;
    s.prefill_batch = d.prefill_batch;
    s.decode_batch = d.decode_batch;
    s.max_batched_tokens = d.max_batched_tokens;
    s.gpu_memory_utilization = d.gpu_memory_utilization;
    return s;
}

// The decode pool's estimator in its role, as `serve --disagg` and `compare` build it (engine::decode_pool_options:
// an SGLang decode server graphs its whole running batch, docs/disagg.md section 12): the caller's estimator where the
// role changes nothing (compat mode, or an engine without disagg_decode_graphs_whole_batch), else one built once
// from the caller's options and kept in the handle. A build that throws is retried on the next call.
const mfusim::engine::Estimator& decode_role(const mfusim_estimator& decode) {
    const mfusim::roofline::RooflineModel* model = decode.engine.roofline();
    if (!model || model->engine().disagg_decode_graphs_whole_batch == 0 || decode.options.disagg_decode) {
        return decode.engine;
    }
    std::call_once(decode.decode_role_once, [&] {
        const mfusim::engine::Options& o = decode.options;
        decode.decode_role.emplace(mfusim::engine::decode_pool_options(
            o, o.deployment.tensor_parallel, o.deployment.expert_parallel, o.deployment.attention_data_parallel));
    });
    return *decode.decode_role;
}

}  // namespace

extern "C" {

mfusim_status mfusim_disagg_serving_init(mfusim_disagg_serving* serving, size_t struct_size, mfusim_error* error) {
    return guarded(error,
                   [&] { mfusim::api::init_versioned(serving, struct_size, default_disagg(), "disagg_serving"); });
}

mfusim_status mfusim_disagg_result_init(mfusim_disagg_result* result, size_t struct_size, mfusim_error* error) {
    return guarded(error, [&] {
        mfusim_disagg_result empty{};
        mfusim::api::init_versioned(result, struct_size, empty, "disagg_result");
    });
}

mfusim_status mfusim_disagg_estimate(const mfusim_estimator* prefill, const mfusim_estimator* decode,
                                     const mfusim_disagg_serving* serving, mfusim_disagg_result* out,
                                     mfusim_error* error) {
    return guarded(error, [&] {
        require(prefill != nullptr, "prefill is NULL");
        require(decode != nullptr, "decode is NULL");
        require(out != nullptr, "out is NULL");
        const mfusim_disagg_serving s = mfusim::api::read_versioned(serving, default_disagg(), "disagg_serving");
        mfusim::api::require_released_size<mfusim_disagg_result>(out->struct_size, "disagg_result");
        mfusim::serving::DisaggWorkload w;
        w.input_len = s.input_len;
        w.output_len = s.output_len;
        w.concurrency = s.concurrency;
        w.prefill_workers = s.prefill_workers;
        w.decode_workers = s.decode_workers;
        w.prefill_batch = s.prefill_batch;
        w.decode_batch = s.decode_batch;
        w.max_batched_tokens = s.max_batched_tokens;
        w.gpu_memory_utilization = s.gpu_memory_utilization;
        mfusim::serving::DisaggResult r;
        mfusim::engine::serve_disagg(prefill->engine, decode_role(*decode), w, r);
        mfusim_disagg_result result{};
        result.struct_size = sizeof result;
        result.ttft_ms = r.ttft_ms;
        result.tpot_ms = r.tpot_ms;
        result.e2e_ms = r.e2e_ms;
        result.output_throughput_tok_s_gpu = r.output_throughput_tok_s_gpu;
        result.request_throughput_req_s = r.request_throughput_req_s;
        result.admission_ms = r.admission_ms;
        result.prefill_queue_ms = r.prefill_queue_ms;
        result.prefill_ms = r.prefill_ms;
        result.transfer_ms = r.transfer_ms;
        result.decode_wait_ms = r.decode_wait_ms;
        result.prefill_batch_ms = r.prefill_batch_ms;
        result.prompts_per_batch = r.prompts_per_batch;
        result.prefill_utilization = r.prefill_utilization;
        result.decode_step_ms = r.decode_step_ms;
        result.decode_batch = r.decode_batch;
        result.decode_slots = r.decode_slots;
        result.kv_transfer_bytes = r.kv_transfer_bytes;
        result.transfer_over_network = r.transfer_over_network ? 1 : 0;
        result.prefill_gpus = r.prefill_gpus;
        result.decode_gpus = r.decode_gpus;
        mfusim::api::write_versioned(out, result);
    });
}

}  // extern "C"
