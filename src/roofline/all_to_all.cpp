#include "roofline/all_to_all.hpp"

namespace mfusim::roofline {

double all_to_all_us(const gpu::GpuProfile& gpu, double bytes, int64_t ep) {
    if (ep <= 1) return 0;
    const bool nvlink = ep <= gpu.nvlink_domain_gpus && gpu.nvlink_bandwidth_gbs > 0;
    // nvlink_bandwidth_gbs counts both directions; a dispatch uses one.
    const double nvlink_gbs = gpu.nvlink_bandwidth_gbs / 2 * gpu.nvlink_efficiency;
    if (nvlink) return gpu.allreduce_latency_us + bytes / (nvlink_gbs * 1e3);
    return gpu.allreduce_latency_us + bytes / (gpu.network_bandwidth_gbs * 1e3);
}

}  // namespace mfusim::roofline
