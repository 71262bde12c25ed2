// Serving estimates: mfusim_serving in, mfusim_serving_result out.
#include <mfusim.h>

#include "api/boundary.hpp"
#include "api/handles.hpp"
#include "api/layouts.hpp"
#include "api/workload.hpp"
#include "engine/estimator.hpp"

using mfusim::api::guarded;
using mfusim::api::require;

namespace mfusim::api {

mfusim_serving default_serving() {
    mfusim::serving::Workload defaults;
    mfusim_serving s{};
    s.struct_size = sizeof s;
    s.input_len = defaults.input_len;
    s.output_len = defaults.output_len;
    s.concurrency = defaults.concurrency;
    s.max_batched_tokens = defaults.max_batched_tokens;
    s.max_seqs = defaults.max_seqs;
    s.gpu_memory_utilization = defaults.gpu_memory_utilization;
    s.requests_per_client = defaults.requests_per_client;
    return s;
}

serving::Workload to_workload(const mfusim_serving& s) {
    serving::Workload w;
    w.input_len = s.input_len;
    w.output_len = s.output_len;
    w.concurrency = s.concurrency;
    w.max_batched_tokens = s.max_batched_tokens;
    w.max_seqs = s.max_seqs;
    w.gpu_memory_utilization = s.gpu_memory_utilization;
    w.requests_per_client = s.requests_per_client;
    return w;
}

}  // namespace mfusim::api

using mfusim::api::default_serving;

extern "C" {

mfusim_status mfusim_serving_init(mfusim_serving* serving, size_t struct_size, mfusim_error* error) {
    return guarded(error, [&] { mfusim::api::init_versioned(serving, struct_size, default_serving(), "serving"); });
}

mfusim_status mfusim_serving_result_init(mfusim_serving_result* result, size_t struct_size, mfusim_error* error) {
    return guarded(error, [&] {
        mfusim_serving_result empty{};
        mfusim::api::init_versioned(result, struct_size, empty, "serving_result");
    });
}

mfusim_status mfusim_serving_estimate(const mfusim_estimator* estimator, const mfusim_serving* serving,
                                      mfusim_serving_result* out, mfusim_error* error) {
    return guarded(error, [&] {
        require(estimator != nullptr, "estimator is NULL");
        require(out != nullptr, "out is NULL");
        const mfusim_serving s = mfusim::api::read_versioned(serving, default_serving(), "serving");
        mfusim::api::require_released_size<mfusim_serving_result>(out->struct_size, "serving_result");
        const mfusim::serving::Workload w = mfusim::api::to_workload(s);
        mfusim_serving_result result{};
        result.struct_size = sizeof result;
        estimator->engine.serve(w, result);
        mfusim::api::write_versioned(out, result);
    });
}

}  // extern "C"
