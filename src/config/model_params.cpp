#include "config/model_params.hpp"

namespace mfusim::config {

namespace {

double d(int64_t v) {
    return static_cast<double>(v);
}

// DeepSeek Sparse Attention's lightning indexer in one layer: its query up-projection from the q latent (from the
// hidden state without one), its single key head and its per-head weights, both from the hidden state.
double indexer_params(const ModelConfig& m) {
    if (!m.sparse_attention()) return 0;
    const double h = d(m.hidden_size), heads = d(m.index_n_heads), dim = d(m.index_head_dim);
    const double q_in = m.q_lora_rank > 0 ? d(m.q_lora_rank) : h;
    return q_in * heads * dim + h * dim + h * heads;
}

// One softmax-attention layer's projections.
double attention_params(const ModelConfig& m) {
    const double h = d(m.hidden_size), heads = d(m.num_heads);
    if (m.attention == AttentionKind::mla) {
        const double qk = d(m.qk_nope_head_dim + m.qk_rope_head_dim);
        const double q = m.q_lora_rank > 0 ? h * d(m.q_lora_rank) + d(m.q_lora_rank) * heads * qk : h * heads * qk;
        const double kv_a = h * d(m.kv_lora_rank + m.qk_rope_head_dim);
        const double kv_b = d(m.kv_lora_rank) * heads * d(m.qk_nope_head_dim + m.v_head_dim);
        return q + kv_a + kv_b + heads * d(m.v_head_dim) * h + indexer_params(m);
    }
    const double q = heads * d(m.head_dim), kv = d(m.num_kv_heads * m.head_dim);
    return h * (q + 2 * kv) + q * h;
}

// One Gated DeltaNet layer's projections (in_proj_qkvz, in_proj_ba, out_proj).
double linear_attention_params(const ModelConfig& m) {
    const double h = d(m.hidden_size);
    const double keys = d(m.linear_num_key_heads * m.linear_key_head_dim);
    const double values = d(m.linear_num_value_heads * m.linear_value_head_dim);
    return h * (2 * keys + 2 * values + 2 * d(m.linear_num_value_heads)) + values * h;
}

// One Mamba2 mixer's projections: in_proj to x and z (d_inner each), B and C (n_groups x d_state each) and dt (one
// per head), out_proj back to the hidden state.
double mamba_params(const ModelConfig& m) {
    const double h = d(m.hidden_size), inner = d(m.mamba_inner());
    return h * (2 * inner + 2 * d(m.mamba_groups * m.mamba_state_size) + d(m.mamba_num_heads)) + inner * h;
}

}  // namespace

ModelParams model_params(const ModelConfig& m) {
    const double h = d(m.hidden_size);
    const double matrices = m.gated_mlp ? 3.0 : 2.0;
    ModelParams p;
    const double embedding = d(m.vocab_size) * h * (m.tied_embeddings ? 1.0 : 2.0);
    const double attention = d(m.full_attention_layers()) * attention_params(m) +
                             d(m.linear_layer_count) * linear_attention_params(m) +
                             d(m.mamba_layer_count) * mamba_params(m);
    double dense = 0;  // dense MLPs, by width (heterogeneous blocks have several)
    for (const DenseFfnGroup& g : m.dense_ffn_groups()) dense += d(g.layers) * matrices * h * d(g.intermediate_size);
    p.total = p.active = embedding + attention + dense;
    if (m.is_moe()) {
        const double layers = d(m.moe_layers());
        const double expert = matrices * d(m.expert_width()) * d(m.moe_intermediate_size);
        const double shared = d(m.num_shared_experts) * matrices * h * d(m.shared_expert_intermediate_size);
        // The router reads the hidden state; a latent MoE adds its down- and up-projection around the experts.
        const double router = h * d(m.num_experts) + (m.moe_latent_size > 0 ? 2 * h * d(m.moe_latent_size) : 0.0);
        p.total += layers * (d(m.num_experts) * expert + shared + router);
        p.active += layers * (d(m.experts_per_token) * expert + shared + router);
    }
    return p;
}

}  // namespace mfusim::config
