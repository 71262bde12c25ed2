#include "roofline/precision.hpp"

#include <cstdio>

namespace mfusim::roofline {

KernelPrecision kernel_precision(config::WeightFormat format, const gpu::GpuProfile& gpu) {
    using config::WeightFormat;
    switch (format) {
        case WeightFormat::bf16:
            return {GemmDtype::bf16, 0};
        case WeightFormat::fp8:
        case WeightFormat::fp8_block:
            if (gpu.has_fp8()) return {GemmDtype::fp8, 0};
            break;
        case WeightFormat::nvfp4:
            // vLLM's ModelOpt NVFP4 linear layers on Blackwell quantize the activations to NVFP4 and run
            // CUTLASS / FlashInfer FP4 GEMMs (W4A4).
            if (gpu.has_fp4()) return {GemmDtype::fp4, 0};
            break;
        default:
            break;
    }
    // Everything else runs weight-only: NVFP4 before Blackwell (Marlin), MXFP4 everywhere (vLLM's gpt-oss MoE
    // backends keep 16- or 8-bit activations; weight-only is their upper bound), integer formats, FP8 on Ampere.
    return {GemmDtype::bf16, config::weight_format_bytes(format)};
}

std::string describe(config::WeightFormat format, const KernelPrecision& p) {
    std::string name(config::weight_format_name(format));
    if (p.dtype == GemmDtype::fp8) return name + " on FP8 tensor cores";
    if (p.dtype == GemmDtype::fp4) return name + " on FP4 tensor cores (W4A4)";
    if (p.weight_bytes <= 0) return name;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s as weight-only quantization (%.3g bytes per weight) with BF16 compute",
                  name.c_str(), p.weight_bytes);
    return buf;
}

}  // namespace mfusim::roofline
