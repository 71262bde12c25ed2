// Expert-parallel all-to-all (MoE token dispatch or combine) of one layer, per GPU.
#pragma once

#include <cstdint>

#include "gpu/gpu_profile.hpp"

namespace mfusim::roofline {

// `bytes` leave this GPU for the other ep - 1 GPUs of its expert-parallel group (and as many arrive): the NCCL
// all-reduce latency of the group plus the bytes over one direction of NVLink. When the group spans several NVLink
// domains (GpuProfile::spans_domains) the share for peers in other domains goes through the NIC at the same time
// (network_bandwidth_gbs, after network_latency_us) and the slower of the two paths sets the time; without an NVLink
// switch every byte goes at network_bandwidth_gbs. 0 for ep <= 1.
double all_to_all_us(const gpu::GpuProfile& gpu, double bytes, int64_t ep);

}  // namespace mfusim::roofline
