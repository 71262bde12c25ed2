// The vision tower's time for one request's images (config::VisionEncoder): the encoder vLLM runs when a request's
// multimodal positions are first scheduled (vllm/v1/core/encoder_cache_manager.py and the model runner's
// _execute_mm_encoder: every image of a request whose placeholder tokens fall in the step's scheduled tokens;
// a prompt's first chunk holds them). Kernels: the patch embedding (a Conv3d over whole patches, a GEMM), per
// block the fused qkv GEMM, bidirectional attention over the image (or each window / tile), the output projection
// and the MLP, TP-sharded as vLLM's vision blocks (ColumnParallel qkv / fc1, RowParallel proj / fc2, one all-reduce
// after each), then the patch merger(s). Analytical: no MFU table holds encoder shapes.
#pragma once

#include <mfusim.h>

#include <array>
#include <cstdint>
#include <functional>

#include "config/vision_config.hpp"
#include "roofline/kernels.hpp"

namespace mfusim::roofline {

struct EncoderOpCost {
    double time_us = 0, flops = 0, bytes = 0;
    mfusim_bound bound = MFUSIM_BOUND_COMPUTE;
};

// The encoder's time for one image, split over the ABI operations its kernels are (qkv_proj, attn_prefill,
// o_proj, ffn for the MLP, patch embedding and mergers, tp_allreduce, overhead for norms and activations).
struct EncoderCost {
    config::ImageGrid grid;
    std::array<EncoderOpCost, MFUSIM_OP_COUNT> ops{};
    double total_us = 0;
    double attention_flops = 0;  // of ops[ATTN_PREFILL]: the bidirectional attention's FLOPs (tests pin its scaling)
};

// `allreduce_us(bytes)`: the engine's all-reduce of a message over the TP group (called only when tp > 1).
EncoderCost vision_encoder_cost(const config::VisionEncoder& v, const config::ImageGrid& grid,
                                const KernelModel& kernels, int64_t tp,
                                const std::function<double(double)>& allreduce_us);

}  // namespace mfusim::roofline
