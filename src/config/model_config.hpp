// The library's own reading of a Hugging Face config: what a real serving engine would instantiate. (Compat mode
// has its own reader, src/compat/infersim_config, that reproduces InferSim's blind spots.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/audio_config.hpp"
#include "config/model_source.hpp"
#include "config/quantization.hpp"
#include "config/vision_config.hpp"

namespace mfusim::config {

enum class AttentionKind : uint8_t { gqa, mla };
// The gated delta rule the linear-attention layers run: Gated DeltaNet (Qwen3-Next, Qwen3.5: one decay per head,
// fused in_proj_qkvz / in_proj_ba) or Kimi Delta Attention (Kimi Linear's linear_attn_config: one decay per key
// channel from a low-rank f_a/f_b projection, separate q/k/v projections, a low-rank g_a/g_b output gate).
enum class LinearAttentionKind : uint8_t { gated_deltanet, kimi_delta };

// The head geometry of one kind of softmax-attention layer (GQA). v_head_dim may differ from head_dim (MiMo-V2);
// k_eq_v: the value is the key's projection (Gemma-4 attention_k_eq_v on its global layers: no v_proj).
struct HeadGeometry {
    int64_t heads = 0, kv_heads = 0, head_dim = 0, v_head_dim = 0;
    bool k_eq_v = false;
    // A sigmoid gate per query head on the attention output (Step-3.5 / 3.7's use_head_wise_attn_gate: a g_proj of
    // hidden -> heads, TensorRT-LLM modeling_step3p7.py Step3p7Attention.forward).
    bool head_gate = false;
    bool operator==(const HeadGeometry&) const = default;
};

// Compressed attention (compress_ratios, DeepSeek-V4's CSA / HCA; transformers' configuration_deepseek_v4.py and
// modeling_deepseek_v4.py, vLLM's deepseek_v4.py): every layer is shared-K=V MQA (one KV head of head_dim, q through
// q_lora_rank) over a sliding window of attention_window keys; a layer of ratio r also pools every r keys of its
// context into one entry (a gated-softmax compressor) and attends over those entries. The sparse kind (the smaller
// ratio) has a lightning indexer over its pooled keys and reads only the index_topk best; the dense kind reads them
// all. The output projection is grouped low-rank (o_groups blocks to o_lora_rank, then one mix to the hidden size);
// the residual stream is hc_mult streams wide (hyper-connections).
struct CompressedAttention {
    bool present = false;  // compress_ratios given: the layers are planned as above
    int64_t window_only_layers = 0;
    int64_t sparse_layers = 0, sparse_ratio = 0;  // pooled by sparse_ratio, index_topk of them read
    int64_t dense_layers = 0, dense_ratio = 0;    // pooled by dense_ratio, all read
    int64_t index_topk = 0;                       // entries a sparse layer's query reads (index_n_heads/head_dim)
    int64_t o_groups = 1, o_lora_rank = 0;        // o_lora_rank 0: a plain heads x head_dim -> hidden projection
    int64_t hc_mult = 1;                          // residual streams; 1: a plain residual
    int64_t hash_moe_layers = 0;                  // MoE layers routed by a token-id hash instead of a gate
};

// Block-sparse attention (sparse_attention_config, MiniMax-M3; vLLM's vllm/models/minimax_m3/: MiniMaxM3SparseAttention
// and MiniMaxM3Indexer): on `layers` GQA layers a score-only lightning indexer of index_heads heads of index_dim (one
// per KV head, each selecting for its KV head's query group) scores every query against ONE shared index key per
// cached token, takes each block of block_size keys' maximum, and the attention then reads only the topk_blocks best
// blocks (the newest forced in among them). The index q/k are extra columns of the layer's QKV GEMM
// (MinimaxM3QKVParallelLinearWithIndexer: index q sharded like the KV heads, the index key replicated); the index
// keys are a bf16 side cache of index_dim values per token per sparse layer.
struct BlockSparseAttention {
    int64_t layers = 0;  // 0: none
    int64_t index_heads = 0, index_dim = 0;
    int64_t block_size = 0, topk_blocks = 0;
    // Keys one query of a sparse layer reads at most: its top-k blocks (the forced local block counts among them:
    // the reference indexer scores it +inf and takes min(topk_blocks, blocks) in all).
    int64_t keys() const { return topk_blocks * block_size; }
    // The index key cache per token of one sparse layer: index_dim bf16 values, whatever the KV-cache dtype (vLLM's
    // MiniMaxM3SparseAttention keeps the index cache bf16 on its FP8-KV path), replicated on every TP rank.
    double index_key_bytes() const { return 2.0 * static_cast<double>(index_dim); }
};

// Dense-MLP layers of one width: `layers` of them, each `intermediate_size` wide.
struct DenseFfnGroup {
    int64_t intermediate_size = 0;
    int64_t layers = 0;
};

struct ModelConfig {
    std::string model_type;
    int64_t hidden_size = 0;
    int64_t num_layers = 0;
    int64_t vocab_size = 0;

    AttentionKind attention = AttentionKind::gqa;
    int64_t num_heads = 0;
    int64_t num_kv_heads = 0;  // GQA; MLA: num_heads
    int64_t head_dim = 0;      // GQA: per head; MLA: qk_nope + qk_rope
    // GQA: the value head width (v_head_dim, 0: head_dim) and keys doubling as values on the layers that read their
    // whole context (attention_k_eq_v with a global geometry). MLA reads v_head_dim below.
    bool k_eq_v = false;
    // GQA: every attention layer gates its output per query head (use_head_wise_attn_gate; HeadGeometry::head_gate).
    bool head_wise_gate = false;
    // GQA layers that slide (windowed_layers) with a head geometry of their own: MiMo-V2's swa_* keys, or Gemma-4's
    // global_head_dim / num_global_key_value_heads which give the full layers theirs. heads 0: the same geometry
    // as the full layers.
    HeadGeometry windowed_heads;

    // MLA (DeepSeek-V2/V3): q_lora_rank 0 means q is projected directly from the hidden state.
    int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;

    int64_t intermediate_size = 0;  // dense MLP (also the dense layers of an MoE model)
    // Heterogeneous blocks (DeciLM / Llama-Nemotron NAS block_configs): the dense-MLP layers by width, in the order
    // each width first appears; their layers sum to dense_ffn_layers(). Empty: every dense layer is
    // intermediate_size wide. Read them through dense_ffn_groups().
    std::vector<DenseFfnGroup> dense_ffn_widths;

    // MoE: routed experts of moe_intermediate_size each, top-k per token, plus shared experts; the first
    // first_dense_layers layers are dense (DeepSeek's first_k_dense_replace).
    int64_t num_experts = 0;  // 0: dense model
    int64_t experts_per_token = 0;
    // The router's expert groups (n_group or num_expert_group, topk_group): a token's top-k experts come from its
    // topk_groups best groups (DeepSeek-V3: 8 and 4). 1 and 1: plain top-k. Read by `compare --aic --configs` only
    // (the kernel benchmarks' balanced routing); the step's routing is drawn at random (moe_rank_load).
    int64_t expert_groups = 1, topk_groups = 1;
    int64_t moe_intermediate_size = 0;
    int64_t num_shared_experts = 0;
    int64_t shared_expert_intermediate_size = 0;  // per shared expert
    int64_t first_dense_layers = 0;

    // Hybrid linear attention (Qwen3-Next, Qwen3.5): every full_attention_interval-th layer is full attention,
    // the others Gated DeltaNet. 0: no linear layers.
    int64_t full_attention_interval = 0;
    int64_t linear_conv_kernel = 0, linear_key_head_dim = 0, linear_num_key_heads = 0, linear_value_head_dim = 0,
            linear_num_value_heads = 0;
    // Kimi Delta Attention states its heads (num_heads x head_dim for q, k and v alike) and short_conv_kernel_size
    // in linear_attn_config; they are read into the linear_* fields above.
    LinearAttentionKind linear_kind = LinearAttentionKind::gated_deltanet;
    // KDA's output gate as one full-rank hidden -> heads x head_dim projection (linear_attn_config's
    // use_full_rank_gate) instead of the low-rank g_a / g_b pair.
    bool kda_full_rank_gate = false;
    // MLA with a sigmoid output gate (Kimi-K3's mla_use_output_gate): a g_proj of hidden -> heads x v_head_dim.
    bool mla_output_gate = false;
    // Attention residuals (Kimi-K3's attn_res_block_size): the residual stream is snapshotted every this many
    // layers and, before each attention and each FFN (and after the last layer), a softmax-weighted mix of the
    // snapshots so far and the current stream replaces it. 0: plain residuals.
    int64_t attention_residual_block = 0;

    // Per-layer structure (src/config/layer_pattern): how many layers are linear attention (layer_types or
    // full_attention_interval), how many softmax layers read at most attention_window keys (sliding window,
    // chunked attention), how many FFNs are MoE (first_k_dense_replace, moe_layer_freq, decoder_sparse_step,
    // mlp_only_layers, interleave_moe_layer_step, mlp_layer_types).
    int64_t linear_layer_count = 0;
    // Block patterns (Nemotron-H hybrid_override_pattern), where a block holds a mixer or an FFN but not both:
    // num_layers counts blocks; ffn_only_layers have no mixer (MLP or MoE blocks), mixer_only_layers no FFN
    // (attention or Mamba2 blocks). Both 0 for ordinary decoder layers (a mixer and an FFN each). DeciLM
    // block_configs use the same counts: attention no_op makes a layer FFN-only, ffn no_op mixer-only.
    int64_t ffn_only_layers = 0, mixer_only_layers = 0;
    // Mamba2 mixers: mamba_num_heads heads of mamba_head_dim (d_inner = their product), B and C in mamba_groups
    // groups of mamba_state_size, a causal conv of mamba_conv_kernel taps, SSD prefill in chunks of
    // mamba_chunk_size tokens. 0 layers: none.
    int64_t mamba_layer_count = 0;
    int64_t mamba_num_heads = 0, mamba_head_dim = 0, mamba_state_size = 0, mamba_groups = 0, mamba_conv_kernel = 0,
            mamba_chunk_size = 0;
    // Latent MoE (Nemotron-3 Super's moe_latent_size): routed experts read and write a latent of this width,
    // projected from and back to the hidden state around them. 0: experts on the hidden state.
    int64_t moe_latent_size = 0;
    int64_t windowed_layers = 0;   // among the full_attention_layers()
    int64_t attention_window = 0;  // keys one query reads at most in a windowed layer; 0: none
    int64_t moe_layer_count = 0;
    // DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5), on every MLA layer: a lightning indexer of index_n_heads
    // heads of index_head_dim scores each query against all cached keys, and the MLA attention then reads only the
    // index_topk keys it selects. 0: dense attention.
    int64_t index_topk = 0, index_n_heads = 0, index_head_dim = 0;
    // Layers that run an indexer of their own (index_topk_freq); the others reuse the top-k of the last one.
    int64_t indexer_layers = 0;
    CompressedAttention compressed;
    BlockSparseAttention block_sparse;
    bool gated_mlp = true;  // gate, up, down; false: up, down (squared-ReLU MLPs)
    bool attention_sinks = false;
    // The q and k RMSNorm spans all heads of the layer (use_qk_norm with qk_norm_type "per_layer", MiniMax-M2),
    // not each head: under TP every rank holds a slice of the heads, so the variance is summed across the ranks.
    bool qk_norm_across_heads = false;
    // Multi-token-prediction layers (num_nextn_predict_layers): untimed unless they draft (query::Speculation).
    int64_t mtp_layers = 0;
    // The vision tower (vision_config), timed for a workload's images (query::Images); absent: text only.
    EncoderTower vision;
    // The audio tower (audio_config), timed for a workload's audio (query::Audio); absent: no audio.
    EncoderTower audio;
    std::vector<std::string> warnings;  // keys read but not timed, assumptions taken: one sentence each

    Quantization quant;  // weight formats of the linear layers (quantization_config / hf_quant_config.json)
    bool tied_embeddings = false;

    bool is_moe() const { return num_experts > 0; }
    int64_t moe_layers() const { return is_moe() ? moe_layer_count : 0; }
    // Softmax-attention layers (windowed ones included).
    int64_t full_attention_layers() const {
        return num_layers - linear_layer_count - mamba_layer_count - ffn_only_layers;
    }
    // Layers whose FFN is a dense MLP.
    int64_t dense_ffn_layers() const { return num_layers - moe_layers() - mixer_only_layers; }
    // The dense-MLP layers grouped by width: dense_ffn_widths, or one group of intermediate_size x
    // dense_ffn_layers() (none when there are no dense layers). Everything that counts or times dense MLPs reads
    // this list (parameters, weights, the FFN GEMMs), so a uniform model is the one-group case.
    std::vector<DenseFfnGroup> dense_ffn_groups() const;
    int64_t mamba_inner() const { return mamba_num_heads * mamba_head_dim; }
    // The width routed experts read and write.
    int64_t expert_width() const { return moe_latent_size > 0 ? moe_latent_size : hidden_size; }
    bool sparse_attention() const { return index_topk > 0; }
    // The indexer's key cache per token per MLA layer: an FP8 key and its fp32 scale, whatever the KV-cache dtype
    // (DeepSeek's and vLLM's layout), one head shared by all query heads and so replicated on every TP rank.
    // Block-sparse attention's index keys (BlockSparseAttention::index_key_bytes) are counted here too, for a GQA
    // layer.
    double indexer_bytes_per_token_per_layer() const {
        // Averaged over the sparse layers when indexers are shared (exactly 1 x when every layer has one).
        if (block_sparse.layers > 0) {
            return block_sparse.index_key_bytes() *
                   (static_cast<double>(block_sparse.layers) / static_cast<double>(num_layers));
        }
        return sparse_attention() ? (static_cast<double>(index_head_dim) + 4.0) *
                                        (static_cast<double>(indexer_layers) / static_cast<double>(num_layers))
                                  : 0.0;
    }
    // KV-cache bytes one token occupies in one full-attention layer, at `kv_bytes` per element, on one GPU of tp
    // (the indexer's key cache included).
    double kv_bytes_per_token_per_layer(double kv_bytes, int64_t tp) const;
    // The head geometry of the full (unbounded) GQA layers, and of the windowed ones.
    HeadGeometry full_heads() const {
        return {num_heads, num_kv_heads, head_dim, gqa_v_head_dim(), k_eq_v, head_wise_gate};
    }
    HeadGeometry window_heads() const { return windowed_heads.heads > 0 ? windowed_heads : full_heads(); }
    int64_t gqa_v_head_dim() const { return v_head_dim > 0 ? v_head_dim : head_dim; }
    // KV-cache bytes per token of one GQA layer of geometry g on one GPU of tp.
    static double gqa_kv_bytes(const HeadGeometry& g, double kv_bytes, int64_t tp);
};

// Error(parse) for malformed JSON (with line/column); Error(config) naming the key for missing, mistyped or
// impossible values (zero heads, heads not a multiple of kv heads, absurd sizes); Error(unsupported) naming the
// key for an architecture no model here times (lightning attention, block_configs variants such as attention
// replaced by a linear layer...).
ModelConfig parse_model_config(const ModelSource& source);

}  // namespace mfusim::config
