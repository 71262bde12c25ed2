// Expert-parallel all-to-all (MoE token dispatch or combine) of one layer, per GPU.
#pragma once

#include <cstdint>

#include "gpu/gpu_profile.hpp"

namespace mfusim::roofline {

// `bytes` leave this GPU for the other ep - 1 GPUs of its expert-parallel group (and as many arrive): the NCCL
// all-reduce latency of the group plus the bytes over one direction of NVLink, or over the scale-out network when
// the group spans more GPUs than one NVLink domain (the profile's nvlink_domain_gpus). 0 for ep <= 1.
double all_to_all_us(const gpu::GpuProfile& gpu, double bytes, int64_t ep);

}  // namespace mfusim::roofline
