// How a weight format runs on a GPU: FP8 formats on FP8 tensor cores where the GPU has them, NVFP4 on FP4 tensor
// cores where it has them (W4A4), otherwise weight-only (the weights stream at their stored size and are
// dequantised to BF16 for BF16 tensor cores, as Marlin-style kernels do).
#pragma once

#include <string>

#include "config/quantization.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/kernels.hpp"

namespace mfusim::roofline {

struct KernelPrecision {
    GemmDtype dtype = GemmDtype::bf16;
    double weight_bytes = 0;  // > 0: weight-only quantization with BF16 compute, weights of this size
    bool operator==(const KernelPrecision&) const = default;
};

KernelPrecision kernel_precision(config::WeightFormat format, const gpu::GpuProfile& gpu);
// "fp8 on FP8 tensor cores", "mxfp4 as weight-only (0.53 bytes per weight) with BF16 compute": for warnings.
std::string describe(config::WeightFormat format, const KernelPrecision& p);

}  // namespace mfusim::roofline
