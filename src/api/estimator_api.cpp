// mfusim_options, mfusim_estimator and the step functions.
#include <mfusim.h>

#include <memory>

#include "api/boundary.hpp"
#include "api/handles.hpp"
#include "api/layouts.hpp"
#include "api/options.hpp"
#include "config/catalogue.hpp"
#include "engine/estimator.hpp"
#include "gpu/gpu_profile.hpp"

using mfusim::api::guarded;
using mfusim::api::require;

namespace mfusim::api {

mfusim_options default_options() {
    mfusim_options o{};
    o.struct_size = sizeof o;
    o.mode = MFUSIM_MODE_ROOFLINE;
    o.tensor_parallel = 1;
    o.world_size = 1;
    o.num_nodes = 1;
    o.sm_ratio = 108.0 / 132.0;
    o.expert_parallel = 1;
    o.attention_data_parallel = 1;
    return o;
}

mfusim::engine::Options to_engine_options(const mfusim_options& o, bool names_required) {
    using mfusim::Error;
    using mfusim::Status;
    if (names_required) {
        require(o.model != nullptr, "options.model is NULL: pass a catalogue name, a config.json path or JSON text");
        require(o.gpu != nullptr, "options.gpu is NULL: pass a built-in GPU name or a JSON profile path");
    }
    mfusim::engine::Options e;
    e.model = o.model ? o.model : "";
    e.gpu = o.gpu ? o.gpu : "";
    e.bench_data_dir = o.bench_data_dir ? o.bench_data_dir : "";
    if (o.mode != MFUSIM_MODE_ROOFLINE && o.mode != MFUSIM_MODE_INFERSIM) {
        throw Error(
            Status::invalid_argument,
            "options.mode must be MFUSIM_MODE_ROOFLINE (0) or MFUSIM_MODE_INFERSIM (1), got " + std::to_string(o.mode));
    }
    e.mode = o.mode == MFUSIM_MODE_INFERSIM ? mfusim::engine::Mode::infersim : mfusim::engine::Mode::roofline;
    e.deployment.tensor_parallel = o.tensor_parallel;
    e.deployment.world_size = o.world_size;
    e.deployment.num_nodes = o.num_nodes;
    e.deployment.fp8_gemm = o.fp8_gemm != 0;
    e.deployment.fp8_kv = o.fp8_kv != 0;
    e.deployment.deepep = o.deepep != 0;
    e.deployment.two_batch_overlap = o.two_batch_overlap != 0;
    e.deployment.sm_ratio = o.sm_ratio;
    e.deployment.expert_parallel = o.expert_parallel;
    e.deployment.attention_data_parallel = o.attention_data_parallel;
    e.engine = o.engine ? o.engine : "";
    e.quant = o.quant ? o.quant : "";
    e.calibration = o.calibration ? o.calibration : "";
    if (o.speculative && *o.speculative) {
        auto drafter = mfusim::query::parse_drafter(o.speculative);
        if (!drafter) {
            throw Error(Status::unknown_name, std::string("options.speculative '") + o.speculative +
                                                  "' is not a drafter (known: " + mfusim::query::drafter_names() + ")");
        }
        e.deployment.speculation.drafter = *drafter;
    }
    e.deployment.speculation.tokens = o.num_speculative_tokens;
    e.deployment.speculation.acceptance_rate = o.acceptance_rate;
    e.deployment.speculation.mean_accepted_length = o.mean_accepted_length;
    e.deployment.images = {o.images_per_request, o.image_width, o.image_height};
    e.deployment.moe_routing_alpha = o.moe_routing_alpha;
    e.deployment.audio.seconds_per_request = o.audio_seconds_per_request;
    e.deployment.speculation.draft_model = o.draft_model ? o.draft_model : "";
    return e;
}

}  // namespace mfusim::api

using mfusim::api::default_options;
using mfusim::api::to_engine_options;

extern "C" {

void mfusim_error_clear(mfusim_error* error) {
    if (!error) return;
    error->status = MFUSIM_OK;
    error->message[0] = '\0';
}

mfusim_status mfusim_options_init(mfusim_options* options, size_t struct_size, mfusim_error* error) {
    return guarded(error, [&] { mfusim::api::init_versioned(options, struct_size, default_options(), "options"); });
}

mfusim_status mfusim_estimator_create(const mfusim_options* options, mfusim_estimator** out, mfusim_error* error) {
    return guarded(error, [&] {
        require(out != nullptr, "out is NULL");
        const mfusim_options o = mfusim::api::read_versioned(options, default_options(), "options");
        mfusim::engine::Options engine_options = to_engine_options(o);
        // In place (the handle holds a once_flag, which does not move); braced members are built left to right.
        std::unique_ptr<mfusim_estimator> created(
            new mfusim_estimator{mfusim::engine::Estimator(engine_options), std::move(engine_options), {}, {}});
        *out = created.release();
    });
}

void mfusim_estimator_free(mfusim_estimator* estimator) {
    delete estimator;
}

const char* mfusim_estimator_load_warnings(const mfusim_estimator* estimator) {
    return estimator ? estimator->engine.load_warnings().c_str() : "";
}

mfusim_status mfusim_step_time(const mfusim_estimator* estimator, const mfusim_request* requests, size_t n_requests,
                               double* out_us, mfusim_error* error) {
    return guarded(error, [&] {
        require(estimator != nullptr, "estimator is NULL");
        require(out_us != nullptr, "out_us is NULL");
        *out_us = estimator->engine.step_time_us(requests, n_requests);
    });
}

mfusim_status mfusim_step_time_batch(const mfusim_estimator* estimator, const mfusim_request* requests,
                                     size_t n_requests, const int64_t* step_sizes, size_t n_steps, double* out_us,
                                     mfusim_error* error) {
    return guarded(error, [&] {
        require(estimator != nullptr, "estimator is NULL");
        require(requests != nullptr || n_requests == 0, "requests is NULL but n_requests > 0");
        estimator->engine.step_time_batch(requests, n_requests, step_sizes, n_steps, out_us);
    });
}

mfusim_status mfusim_step_result_init(mfusim_step_result* result, size_t struct_size, mfusim_error* error) {
    return guarded(error, [&] {
        mfusim_step_result empty{};  // n_ops 0: nothing filled yet
        mfusim::api::init_versioned(result, struct_size, empty, "step_result");
    });
}

mfusim_status mfusim_step_detail(const mfusim_estimator* estimator, const mfusim_request* requests, size_t n_requests,
                                 mfusim_step_result* out, mfusim_error* error) {
    return guarded(error, [&] {
        require(estimator != nullptr, "estimator is NULL");
        require(out != nullptr, "out is NULL");
        mfusim::api::require_released_size<mfusim_step_result>(out->struct_size, "step_result");
        mfusim_step_result result{};
        result.struct_size = sizeof result;
        estimator->engine.step_detail(requests, n_requests, result);
        mfusim::api::write_versioned(out, result);
    });
}

size_t mfusim_catalogue_model_count(void) {
    return mfusim::config::catalogue_model_count();
}
const char* mfusim_catalogue_model_name(size_t index) {
    return index < mfusim::config::catalogue_model_count() ? mfusim::config::catalogue_model(index).name : nullptr;
}
size_t mfusim_catalogue_gpu_count(void) {
    return mfusim::gpu::builtin_gpus().size();
}
const char* mfusim_catalogue_gpu_name(size_t index) {
    const auto& gpus = mfusim::gpu::builtin_gpus();
    return index < gpus.size() ? gpus[index].name.c_str() : nullptr;
}

}  // extern "C"
