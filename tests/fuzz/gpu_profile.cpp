// Fuzz target: a GPU profile JSON, applied to an empty profile (every datasheet field required) and over a
// built-in one, as resolve_gpu and the CLI do. A profile that applies must hold values inside the documented ranges.
#include <cmath>

#include "fuzz_support.hpp"
#include "gpu/gpu_profile.hpp"

namespace {

void check(const mfusim::gpu::GpuProfile& g) {
    using mfusim::fuzz::require;
    require(std::isfinite(g.peak_bf16_tflops) && g.peak_bf16_tflops > 0, "peak_bf16_tflops positive");
    require(std::isfinite(g.memory_bandwidth_gbs) && g.memory_bandwidth_gbs > 0, "memory bandwidth positive");
    require(g.memory_efficiency > 0 && g.memory_efficiency <= 1, "memory_efficiency in (0, 1]");
    require(g.sm_count >= 1, "sm_count positive");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const mfusim::gpu::GpuProfile h100 = *mfusim::gpu::find_builtin_gpu("H100");
    const std::string text = mfusim::fuzz::as_text(data, size);
    mfusim::fuzz::handled([&] { check(mfusim::gpu::apply_overrides(mfusim::gpu::GpuProfile{}, text, "fuzz.json")); });
    mfusim::fuzz::handled([&] { check(mfusim::gpu::apply_overrides(h100, text, "fuzz.json")); });
    return 0;
}
