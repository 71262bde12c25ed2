// Fuzz target: a Hugging Face config.json as text, read by both model readers (the library's own and compat's
// InferSim reading). A config that parses is then built into each model (roofline at TP 1 and 8 on the H100, compat
// on the H20) and asked for a few steps and a scenario: hostile sizes must give an error or finite, positive
// times, never overflow.
#include <cmath>

#include "compat/compat_model.hpp"
#include "compat/infersim_config.hpp"
#include "config/model_config.hpp"
#include "fuzz_support.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"

namespace {

const mfusim_request kSteps[][3] = {
    {{512, 0, 0, 0}, {1, 4096, 0, 0}, {1, 100, 0, 0}},
    {{1, 1, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}},
    {{4096, 8192, MFUSIM_REQUEST_NO_OUTPUT, 0}, {4096, 0, 0, 0}, {7, 3, 0, 0}},
};

template <class Model>
void ask(const Model& model) {
    using mfusim::fuzz::require;
    for (const auto& step : kSteps) {
        for (std::size_t n = 0; n <= 3; ++n) {
            mfusim::fuzz::handled([&] {
                double us = model.step_time_us(step, n);
                // An empty step costs the fixed overheads (roofline) or nothing (compat: InferSim has no such step).
                require(std::isfinite(us) && (n == 0 ? us >= 0 : us > 0), "a step time is finite and positive");
            });
        }
    }
    mfusim::fuzz::handled([&] {
        mfusim::query::Scenario scenario;
        scenario.input_len = 1024;
        scenario.output_len = 64;
        scenario.max_prefill_tokens = 1024;
        scenario.decode_batch = 8;
        model.estimate(scenario);
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const mfusim::gpu::GpuProfile h20 = *mfusim::gpu::find_builtin_gpu("H20");
    static const mfusim::gpu::GpuProfile h100 = *mfusim::gpu::find_builtin_gpu("H100");
    const mfusim::config::ModelSource source{"fuzz config.json", mfusim::fuzz::as_text(data, size)};
    mfusim::fuzz::handled([&] {
        const mfusim::config::ModelConfig model = mfusim::config::parse_model_config(source);
        mfusim::query::Deployment tp8;
        tp8.tensor_parallel = 8;
        tp8.world_size = 8;
        for (const mfusim::query::Deployment& deployment : {mfusim::query::Deployment{}, tp8}) {
            mfusim::fuzz::handled([&] { ask(mfusim::roofline::RooflineModel(model, h100, nullptr, deployment)); });
        }
    });
    mfusim::fuzz::handled([&] {
        mfusim::compat::parse_infersim_config(source);
        ask(mfusim::compat::CompatModel(source, h20, nullptr, mfusim::query::Deployment{}));
    });
    return 0;
}
