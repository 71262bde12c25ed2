// Fuzz target: a GPU profile JSON, applied to an empty profile (every datasheet field required) and over a
// built-in one, as resolve_gpu and the CLI do; the roofline model then times steps on every profile that applies,
// and compat (InferSim) mode on those over the H20 at TP 2, whose communication divides by the link bandwidths: a
// step is a finite time or an error, never NaN or infinity.
#include <cmath>

#include "compat/compat_model.hpp"
#include "config/model_config.hpp"
#include "fuzz_support.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"

namespace {

// A profile that applies holds values inside the documented ranges, and the roofline model times steps on it.
void check(const mfusim::gpu::GpuProfile& g) {
    using mfusim::fuzz::require;
    require(std::isfinite(g.peak_bf16_tflops) && g.peak_bf16_tflops > 0, "peak_bf16_tflops positive");
    require(std::isfinite(g.memory_bandwidth_gbs) && g.memory_bandwidth_gbs > 0, "memory bandwidth positive");
    require(g.memory_efficiency > 0 && g.memory_efficiency <= 1, "memory_efficiency in (0, 1]");
    require(g.sm_count >= 1, "sm_count positive");
    require(!std::signbit(g.nvlink_bandwidth_gbs) && !std::signbit(g.network_bandwidth_gbs), "no negative zero links");
    require(g.peak_fp8_tflops == 0 || g.peak_fp8_tflops >= 1e-3, "peak_fp8_tflops 0 or at least 0.001");
    static const mfusim::config::ModelConfig model =
        mfusim::config::parse_model_config(mfusim::config::resolve_model_source("qwen3-30b-a3b"));
    mfusim::query::Deployment tp2;
    tp2.tensor_parallel = 2;
    tp2.world_size = 2;
    const mfusim::roofline::RooflineModel roofline(model, g, nullptr, tp2);
    const mfusim_request step[] = {{2048, 4096, 0, 0}, {1, 100, 0, 0}, {1, 30000, 0, 0}};
    for (std::size_t n = 0; n <= 3; ++n) {
        double us = roofline.step_time_us(step, n);
        require(std::isfinite(us) && us >= 0, "roofline step time finite and not negative");
    }
}

void check_compat(const mfusim::gpu::GpuProfile& g) {
    static const mfusim::config::ModelSource model = mfusim::config::resolve_model_source("qwen3-8b");
    mfusim::query::Deployment tp2;
    tp2.tensor_parallel = 2;
    tp2.world_size = 2;
    const mfusim::compat::CompatModel compat(model, g, nullptr, tp2);
    const mfusim_request step[] = {{2048, 0, 0, 0}, {1, 100, 0, 0}};
    for (std::size_t n = 1; n <= 2; ++n) {
        mfusim::fuzz::handled([&] {
            double us = compat.step_time_us(step, n);
            mfusim::fuzz::require(std::isfinite(us) && us >= 0, "compat step time finite and not negative");
        });
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const mfusim::gpu::GpuProfile h100 = *mfusim::gpu::find_builtin_gpu("H100");
    const std::string text = mfusim::fuzz::as_text(data, size);
    mfusim::fuzz::handled([&] { check(mfusim::gpu::apply_overrides(mfusim::gpu::GpuProfile{}, text, "fuzz.json")); });
    mfusim::fuzz::handled([&] { check(mfusim::gpu::apply_overrides(h100, text, "fuzz.json")); });
    static const mfusim::gpu::GpuProfile h20 = *mfusim::gpu::find_builtin_gpu("H20");
    mfusim::fuzz::handled([&] { check_compat(mfusim::gpu::apply_overrides(h20, text, "fuzz.json")); });
    return 0;
}
