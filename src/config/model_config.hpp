// The library's own reading of a Hugging Face config: what a real serving engine would instantiate. (Compat mode
// has its own reader, src/compat/infersim_config, that reproduces InferSim's blind spots.)
#pragma once

#include <cstdint>
#include <string>

#include "config/model_source.hpp"
#include "config/quantization.hpp"

namespace mfusim::config {

enum class AttentionKind : uint8_t { gqa, mla };

struct ModelConfig {
    std::string model_type;
    int64_t hidden_size = 0;
    int64_t num_layers = 0;
    int64_t vocab_size = 0;

    AttentionKind attention = AttentionKind::gqa;
    int64_t num_heads = 0;
    int64_t num_kv_heads = 0;  // GQA; MLA: num_heads
    int64_t head_dim = 0;      // GQA: per head; MLA: qk_nope + qk_rope

    // MLA (DeepSeek-V2/V3): q_lora_rank 0 means q is projected directly from the hidden state.
    int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;

    int64_t intermediate_size = 0;  // dense MLP (also the dense layers of an MoE model)

    // MoE: routed experts of moe_intermediate_size each, top-k per token, plus shared experts; the first
    // first_dense_layers layers are dense (DeepSeek's first_k_dense_replace).
    int64_t num_experts = 0;  // 0: dense model
    int64_t experts_per_token = 0;
    int64_t moe_intermediate_size = 0;
    int64_t num_shared_experts = 0;
    int64_t shared_expert_intermediate_size = 0;  // per shared expert
    int64_t first_dense_layers = 0;

    // Hybrid linear attention (Qwen3-Next, Qwen3.5): every full_attention_interval-th layer is full attention,
    // the others Gated DeltaNet. 0: no linear layers.
    int64_t full_attention_interval = 0;
    int64_t linear_conv_kernel = 0, linear_key_head_dim = 0, linear_num_key_heads = 0, linear_value_head_dim = 0,
            linear_num_value_heads = 0;

    Quantization quant;  // weight formats of the linear layers (quantization_config / hf_quant_config.json)
    bool tied_embeddings = false;

    bool is_moe() const { return num_experts > 0; }
    int64_t moe_layers() const { return is_moe() ? num_layers - first_dense_layers : 0; }
    int64_t full_attention_layers() const {
        return full_attention_interval > 0 ? num_layers / full_attention_interval : num_layers;
    }
    // KV-cache bytes one token occupies in one full-attention layer, at `kv_bytes` per element, on one GPU of tp.
    double kv_bytes_per_token_per_layer(double kv_bytes, int64_t tp) const;
};

// Error(parse) for malformed JSON (with line/column); Error(config) naming the key for missing, mistyped or
// impossible values (zero heads, heads not a multiple of kv heads, absurd sizes).
ModelConfig parse_model_config(const ModelSource& source);

}  // namespace mfusim::config
