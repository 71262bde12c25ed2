// A modality encoder's time for one input (config::EncoderTower: an image, or an audio clip): the encoder vLLM runs
// when a request's multimodal positions are first scheduled (vllm/v1/core/encoder_cache_manager.py and the model
// runner's _execute_mm_encoder: every item of a request whose placeholder tokens fall in the step's scheduled
// tokens; a prompt's first chunk holds them). Kernels: the front end (a patch embedding, or an audio tower's
// convolutions: GEMMs), per block the fused qkv GEMM, bidirectional attention over each group of positions (image,
// window, tile, audio chunk), the output projection and the MLP, TP-sharded as vLLM's vision blocks
// (ColumnParallel qkv / fc1, RowParallel proj / fc2, one all-reduce after each; tp 1 for towers vLLM runs
// replicated), then the merger(s) or projector. Analytical: no MFU table holds encoder shapes.
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
    config::EncoderGrid grid;
    std::array<EncoderOpCost, MFUSIM_OP_COUNT> ops{};
    double total_us = 0;
    double attention_flops = 0;  // of ops[ATTN_PREFILL]: the bidirectional attention's FLOPs (tests pin its scaling)
};

// `allreduce_us(bytes)`: the engine's all-reduce of a message over the TP group (called only when tp > 1).
EncoderCost encoder_cost(const config::EncoderTower& v, const config::EncoderGrid& grid, const KernelModel& kernels,
                         int64_t tp, const std::function<double(double)>& allreduce_us);

}  // namespace mfusim::roofline
