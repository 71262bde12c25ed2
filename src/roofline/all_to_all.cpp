#include "roofline/all_to_all.hpp"

#include <algorithm>

namespace mfusim::roofline {

double all_to_all_us(const gpu::GpuProfile& gpu, double bytes, int64_t ep) {
    if (ep <= 1) return 0;
    const bool nvlink = ep <= gpu.nvlink_domain_gpus && gpu.nvlink_bandwidth_gbs > 0;
    // nvlink_bandwidth_gbs counts both directions; a dispatch uses one.
    const double nvlink_gbs = gpu.nvlink_bandwidth_gbs / 2 * gpu.nvlink_efficiency;
    if (nvlink) return gpu.allreduce_latency_us + bytes / (nvlink_gbs * 1e3);
    return gpu.allreduce_latency_us + bytes / (gpu.network_bandwidth_gbs * 1e3);
}

double split_over_fabric_us(const gpu::GpuProfile& gpu, double bytes, int64_t group, double nvlink_bytes_per_us) {
    if (!gpu.spans_domains(group)) return bytes / nvlink_bytes_per_us;
    const double local = static_cast<double>(gpu.nvlink_domain_gpus - 1) / static_cast<double>(group - 1);
    const double over_nvlink = bytes * local / nvlink_bytes_per_us;
    const double over_network = bytes * (1 - local) / (gpu.network_bandwidth_gbs * 1e3);
    return std::max(over_nvlink, over_network);
}

}  // namespace mfusim::roofline
