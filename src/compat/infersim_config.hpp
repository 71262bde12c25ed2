// SPEC section 2: a Hugging Face config.json as InferSim @ f2293dab reads it, blind spots included (Q9).
#pragma once

#include <cstdint>
#include <string>

#include "config/model_source.hpp"

namespace mfusim::compat {

struct InferSimConfig {
    std::string origin;      // where the JSON came from, for messages
    std::string model_type;  // the top-level model_type

    int64_t h = 0;  // hidden_size
    int64_t L = 0;  // num_hidden_layers

    // Hybrid linear attention (full_attention_interval present and not null).
    bool hybrid = false;
    int64_t interval = 0;
    int64_t N_f = 0;  // full-attention layers: L // interval
    int64_t N_l = 0;  // linear-attention layers: L - N_f
    int64_t c_k = 0, d_k = 0, h_k = 0, d_lv = 0, h_v = 0;

    // Attention: MLA iff kv_lora_rank is present (even if null).
    bool mla = false;
    int64_t H = 0;                                                   // num_attention_heads
    int64_t Hkv = 0;                                                 // MHA: num_key_value_heads
    int64_t d = 0;                                                   // MHA: head_dim, else h // H
    int64_t r_q = 0, d_n = 0, d_r = 0, r_kv = 0, d_v = 0, d_qk = 0;  // MLA

    // FFN / MoE: num_routed_experts, else num_experts, else dense (E = 1, k_e = 1, E_s = 0).
    bool moe = false;
    int64_t E = 1;
    int64_t k_e = 1;
    int64_t I = 0;  // moe_intermediate_size (MoE) or intermediate_size (dense)
    int64_t E_s = 0;

    const char* attn_type() const { return mla ? "MLA" : "MHA/GQA"; }
};

// Parses exactly as InferSim does. Error(parse) for malformed JSON; Error(config) where InferSim's own reading
// raises, naming the exception: "<origin>: InferSim raises KeyError: 'hidden_size'" (missing key), TypeError (null
// or non-numeric where a number is needed), ZeroDivisionError (full_attention_interval 0, or num_attention_heads 0
// without head_dim). Negative sizes are refused (InferSim's floor divisions would silently differ from C++).
InferSimConfig parse_infersim_config(const config::ModelSource& source);

}  // namespace mfusim::compat
