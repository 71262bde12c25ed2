// SPEC section 3: the GPU figures InferSim computes with, derived from a GpuProfile.
#pragma once

#include <string>

#include "gpu/gpu_profile.hpp"

namespace mfusim::compat {

struct CompatGpu {
    std::string name;    // "H20"
    std::string folder;  // bench_data folder: lower-case name ("h20")
    double P16 = 0;      // fp16_tflops
    double P8 = 0;       // fp8_tflops
    double mu0 = 0;      // InferSim's default MFU
    double mem_gb = 0;   // "GB" (mixed with GiB, Q2)
    double BW = 0;       // mem_bw * 0.8       ("GB/s", used as GiB/s)
    double NV = 0;       // nvlink * 0.8 / 2
    double RD = 0;       // rdma * 0.8
};

// Error(unsupported) unless gpu.name is one of InferSim's H20, H800, H200, GB200.
CompatGpu make_compat_gpu(const gpu::GpuProfile& gpu);

}  // namespace mfusim::compat
