#include "compat/compat_gpu.hpp"

#include "common/error.hpp"

namespace mfusim::compat {

CompatGpu make_compat_gpu(const gpu::GpuProfile& gpu) {
    if (gpu.name != "H20" && gpu.name != "H800" && gpu.name != "H200" && gpu.name != "GB200") {
        throw Error(Status::unsupported, "compat (InferSim) mode knows only the GPUs H20, H800, H200 and GB200; '" +
                                             gpu.name + "' is not one of them (use the roofline mode for it)");
    }
    CompatGpu g;
    g.name = gpu.name;
    for (char ch : gpu.name) g.folder += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    g.P16 = gpu.peak_bf16_tflops;
    g.P8 = gpu.peak_fp8_tflops;
    g.mu0 = gpu.infersim_default_mfu;
    g.mem_gb = gpu.memory_gb;
    // Evaluated as InferSim does: mem_bw * 0.8, nvlink * 0.8 / 2, rdma * 0.8 (Q3).
    g.BW = gpu.memory_bandwidth_gbs * 0.8;
    g.NV = gpu.nvlink_bandwidth_gbs * 0.8 / 2;
    g.RD = gpu.network_bandwidth_gbs * 0.8;
    return g;
}

}  // namespace mfusim::compat
