// Expert-parallel all-to-all (MoE token dispatch or combine) of one layer, per GPU.
#pragma once

#include <cstdint>

#include "gpu/gpu_profile.hpp"

namespace mfusim::roofline {

// `bytes` leave this GPU for the other ep - 1 GPUs of its expert-parallel group (and as many arrive): the NCCL
// all-reduce latency of the group plus the bytes over one direction of NVLink; without an NVLink switch joining the
// group every byte goes at network_bandwidth_gbs. 0 for ep <= 1. A group spanning NVLink domains
// (GpuProfile::spans_domains) never comes here: the engines run DeepEP's internode kernels there (deepep_us) or
// gather the group's tokens (RooflineModel's bind, EngineProfile::deepep_across_domains).
double all_to_all_us(const gpu::GpuProfile& gpu, double bytes, int64_t ep);

}  // namespace mfusim::roofline
