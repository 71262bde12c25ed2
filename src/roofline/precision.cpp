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
        default:
            break;
    }
    // FP4 tensor cores are not modelled yet on any GPU profile: FP4 formats run weight-only, which is what
    // Hopper and Ampere do (and an upper bound on Blackwell).
    return {GemmDtype::bf16, config::weight_format_bytes(format)};
}

std::string describe(config::WeightFormat format, const KernelPrecision& p) {
    std::string name(config::weight_format_name(format));
    if (p.dtype == GemmDtype::fp8) return name + " on FP8 tensor cores";
    if (p.weight_bytes <= 0) return name;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s as weight-only quantization (%.3g bytes per weight) with BF16 compute",
                  name.c_str(), p.weight_bytes);
    return buf;
}

}  // namespace mfusim::roofline
