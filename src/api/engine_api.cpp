// The engine profile behind an estimator, for callers that account for the engine's time outside the steps.
#include <mfusim.h>

#include "api/boundary.hpp"
#include "api/handles.hpp"
#include "api/layouts.hpp"
#include "common/text.hpp"
#include "engine/estimator.hpp"

using mfusim::api::guarded;
using mfusim::api::require;

extern "C" {

mfusim_status mfusim_engine_terms_init(mfusim_engine_terms* terms, size_t struct_size, mfusim_error* error) {
    return guarded(error, [&] {
        mfusim_engine_terms empty{};
        mfusim::api::init_versioned(terms, struct_size, empty, "engine_terms");
    });
}

mfusim_status mfusim_estimator_engine_terms(const mfusim_estimator* estimator, mfusim_engine_terms* out,
                                            mfusim_error* error) {
    return guarded(error, [&] {
        require(estimator != nullptr, "estimator is NULL");
        require(out != nullptr, "out is NULL");
        mfusim::api::require_released_size<mfusim_engine_terms>(out->struct_size, "engine_terms");
        const mfusim::roofline::RooflineModel* roofline = estimator->engine.roofline();
        if (!roofline) {
            throw mfusim::Error(mfusim::Status::unsupported,
                                "engine terms are roofline-mode facts; compat mode (InferSim) has no engine profile");
        }
        const mfusim::engines::EngineProfile& e = roofline->engine();
        mfusim_engine_terms t{};
        t.struct_size = sizeof t;
        mfusim::copy_text(t.name, sizeof t.name, e.name);
        t.step_us = e.step_us;
        t.request_us = e.request_us;
        t.layer_us = e.layer_us;
        t.eager_layer_us = e.eager_layer_us;
        t.tp_sync_us = e.tp_sync_us;
        t.admission_us = e.admission_us;
        t.input_token_us = e.input_token_us;
        t.output_token_us = e.output_token_us;
        t.cuda_graph_max_batch = e.cuda_graph_max_batch;
        t.max_batched_tokens = e.max_batched_tokens;
        t.max_seqs = e.max_seqs;
        t.gpu_memory_utilization = e.gpu_memory_utilization;
        t.mixed_batches = e.mixed_batches ? 1 : 0;
        mfusim::api::write_versioned(out, t);
    });
}

}  // extern "C"
