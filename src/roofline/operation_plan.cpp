// One builder per layer kind appends its entries; the order of the entries is the evaluation order (the step's
// total is summed in it). Shapes follow the engines' kernels: docs/roofline.md cites each.
#include "roofline/operation_plan.hpp"

#include <algorithm>
#include <cmath>

#include "roofline/kernels.hpp"

namespace mfusim::roofline {

namespace {

// Kernels of one decoder layer whose gaps the engines' per-layer term (EngineProfile::layer_us, "about ten") was
// fitted on: norm, QKV (with its activation quantization), rotary and cache write, attention, o_proj, norm, the FFN's
// up, activation and down.
constexpr double kLayerKernels = 10;
// Kernels DeepSeek Sparse Attention's lightning indexer adds to its layer on the critical stream, counted from
// SGLang's Indexer.forward_cuda and _get_q_k_bf16 (python/sglang/srt/layers/attention/nsa/nsa_indexer.py; the key
// branch, wk and k_norm and its Hadamard rotation, runs on the alternate stream at decode batches, NSA_DUAL_STREAM):
// wq_b's activation quantization and GEMM (2), rotary (1), the two copies of the roped parts back into q and k (2),
// rotate_activation (1), act_quant of q and of k (2), weights_proj and its head-gate scaling (2),
// set_index_k_scale_buffer (1), deep_gemm.fp8_paged_mqa_logits (1) and the top-k transform (1): 13.
constexpr double kIndexerKernels = 13;
// Kernels block-sparse attention's indexer adds to its layer: its scoring (the per-block maximum of the index
// dot products) and the top-k block selection (vLLM's MiniMaxM3Indexer.forward, called before the sparse attention in
// MiniMaxM3SparseAttention._run_attention). Its projections are columns of the layer's QKV GEMM
// (MinimaxM3QKVParallelLinearWithIndexer) and its norm, rotary and key store are in the layer's fused q/k norm, rotary
// and cache-write kernel (fused_minimax_m3_qknorm_rope_kv_insert): no kernels of their own.
constexpr double kBlockSparseIndexerKernels = 2;
// Kernels a Gated DeltaNet mixer runs at decode beyond a softmax layer's rotary/cache write and attention (2), counted
// from SGLang's Qwen3GatedDeltaNet.forward (python/sglang/srt/models/qwen3_next.py) under CUDA graph:
// fused_qkvzba_split_reshape_cat (1), the backend's causal_conv1d_update and fused_sigmoid_gating_delta_rule_update
// (2, layers/attention/hybrid_linear_attn_backend.py), the gated RMSNorm before out_proj (1, fla/layernorm_gated.py):
// 4 in place of 2. in_proj_ba runs on the alternate stream beside in_proj_qkvz (_forward_input_proj) and adds none.
// vLLM's Qwen3NextGatedDeltaNet runs the same four (its gdn_attention_core custom op and RMSNormGated).
constexpr double kGatedDeltaNetExtraKernels = 2;

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}
double d(int64_t v) {
    return static_cast<double>(v);
}

struct OpInfo {
    const char* name;
    mfusim_op abi;
};
constexpr OpInfo kOps[] = {
    {"qkv_proj", MFUSIM_OP_QKV_PROJ},
    {"indexer_proj", MFUSIM_OP_QKV_PROJ},
    {"o_proj", MFUSIM_OP_O_PROJ},
    {"attn_prefill", MFUSIM_OP_ATTN_PREFILL},
    {"attn_decode", MFUSIM_OP_ATTN_DECODE},
    {"indexer_prefill", MFUSIM_OP_ATTN_PREFILL},
    {"indexer_decode", MFUSIM_OP_ATTN_DECODE},
    {"ffn", MFUSIM_OP_FFN},
    {"moe_router", MFUSIM_OP_MOE_EXPERTS},
    {"moe_latent", MFUSIM_OP_MOE_EXPERTS},
    {"moe_experts", MFUSIM_OP_MOE_EXPERTS},
    {"moe_shared", MFUSIM_OP_MOE_SHARED},
    {"linear_attn", MFUSIM_OP_LINEAR_ATTN},
    {"mamba", MFUSIM_OP_LINEAR_ATTN},
    {"lm_head", MFUSIM_OP_LM_HEAD},
    {"embedding", MFUSIM_OP_LM_HEAD},
    {"tp_allreduce", MFUSIM_OP_TP_ALLREDUCE},
    {"ep_comm", MFUSIM_OP_EP_COMM},
    {"elementwise", MFUSIM_OP_OVERHEAD},
};
static_assert(sizeof kOps / sizeof kOps[0] == kOpIds, "one row per OpId");

// Appends entries with the plan's sharding at hand.
class Planner {
  public:
    Planner(const config::ModelConfig& model, const Sharding& s, const config::Quantization& q)
        : m_(model), q_(q), tp_(s.tensor_parallel), ep_(s.expert_parallel), dp_(s.attention_data_parallel) {
        p_.kv_element_bytes = s.fp8_kv ? 1.0 : 2.0;
    }

    OperationPlan build() {
        layer_counts();
        if (m_.compressed.present) {
            compressed_attention();
        } else if (m_.attention == config::AttentionKind::mla) {
            mla();
        } else {
            gqa();
        }
        dense_mlps();
        if (m_.is_moe()) moe();
        if (m_.linear_layer_count > 0) {
            if (m_.linear_kind == config::LinearAttentionKind::kimi_delta) {
                kimi_delta_attention();
            } else {
                gated_deltanet();
            }
        }
        if (m_.mamba_layer_count > 0) mamba2();
        closing();
        return std::move(p_);
    }

  private:
    // A dense GEMM of k x n on this GPU whose weights are all held and all read. The reference is valid until the
    // next entry is appended.
    PlanEntry& gemm(const char* name, OpId op, WeightGroup group, config::WeightFormat format, int64_t k, int64_t n,
                    double layers, Rows rows = Rows::tokens) {
        PlanEntry e;
        e.name = name;
        e.op = op;
        e.site = KernelSite::gemm;
        e.rows = rows;
        e.layers = layers;
        e.precision = group;
        e.format = format;
        e.k = k;
        e.n = n;
        e.weight_elements = e.active_elements = d(k) * d(n);
        p_.entries.push_back(e);
        return p_.entries.back();
    }
    PlanEntry& core(const char* name, OpId op, KernelSite site, Rows rows, double layers) {
        PlanEntry e;
        e.name = name;
        e.op = op;
        e.site = site;
        e.rows = rows;
        e.layers = layers;
        p_.entries.push_back(e);
        return p_.entries.back();
    }

    void layer_counts() {
        p_.layers = d(m_.num_layers);
        p_.full_layers = d(m_.full_attention_layers());
        p_.moe_layers = d(m_.moe_layers());
        p_.window = m_.attention_window > 0 ? m_.attention_window : 0;
        p_.windowed_layers = p_.window > 0 ? d(m_.windowed_layers) : 0.0;
        if (m_.sparse_attention()) {
            // DSA: every MLA layer's attention reads min(keys, index_topk) per query, in decode and in prefill
            // (each query its own top-k): the cost of a window of index_topk keys. The layer_pattern reader
            // refuses DSA together with other windows, so the window is free for it.
            p_.sparse_layers = p_.full_layers;
            p_.window = m_.index_topk;
            p_.windowed_layers = p_.full_layers;
            p_.warnings.push_back("DeepSeek Sparse Attention: MLA attention reads index_topk " +
                                  std::to_string(m_.index_topk) + " keys per query; the lightning indexer (" +
                                  std::to_string(m_.index_n_heads) + " heads of " + std::to_string(m_.index_head_dim) +
                                  ", replicated on every TP rank) is timed by the analytical model");
        }
        if (m_.block_sparse.layers > 0) {
            // Block-sparse attention: a sparse layer's query reads at most its top-k blocks, in decode and in prefill
            // (each query its own blocks), the cost of a window of topk_blocks x block_size keys (exact once the
            // context passes it: the query's own partial block is one of them). The reader refuses it together with
            // other windows and DSA, so the window is free for it.
            const config::BlockSparseAttention& b = m_.block_sparse;
            p_.sparse_layers = d(b.layers);
            p_.window = b.keys();
            p_.windowed_layers = d(b.layers);
        }
        p_.unbounded_layers = p_.full_layers - p_.windowed_layers;
        p_.attention = p_.full_layers > 0;
    }

    // The shapes the attention tables are looked up by (the model's, unsharded; kernels.hpp).
    void table_shapes() {
        p_.prefill_shape = attention_table_shape(m_, tables::Phase::prefill, m_.num_heads, m_.num_kv_heads);
        p_.decode_shape = attention_table_shape(m_, tables::Phase::decode, m_.num_heads, m_.num_kv_heads);
    }

    // The softmax-attention cores of the full layers: whole-context layers, then windowed ones.
    void attention_cores() {
        core("prefill", OpId::attn_prefill, KernelSite::prefill_attention, Rows::all_keys, p_.unbounded_layers);
        core("decode", OpId::attn_decode, KernelSite::decode_attention, Rows::all_keys, p_.unbounded_layers);
        core("prefill.windowed", OpId::attn_prefill, KernelSite::prefill_attention, Rows::window_keys,
             p_.windowed_layers);
        core("decode.windowed", OpId::attn_decode, KernelSite::decode_attention, Rows::window_keys, p_.windowed_layers);
    }

    // The q/k/v and output projections of `layers` GQA layers of geometry g; returns the attention geometry of its
    // kernels on this GPU.
    // index_heads / index_dim: block-sparse layers, whose QKV GEMM also emits the indexer's q (index_heads, sharded
    // like the KV heads) and its one shared key (replicated), normed and roped with q and k.
    AttentionGeometry gqa_projections(const config::HeadGeometry& g, double layers, const char* qkv_name,
                                      const char* o_name, int64_t index_heads = 0, int64_t index_dim = 0) {
        const int64_t h = m_.hidden_size, d_h = g.head_dim, d_v = g.v_head_dim;
        const int64_t hq = g.heads / tp_, hkv = g.kv_heads >= tp_ ? g.kv_heads / tp_ : 1;
        const int64_t index = index_heads > 0 ? ((index_heads >= tp_ ? index_heads / tp_ : 1) + 1) * index_dim : 0;
        // Keys doubling as values (k_eq_v) have no value projection.
        const int64_t n = hq * d_h + hkv * d_h + (g.k_eq_v ? 0 : hkv * d_v) + index;
        PlanEntry& qkv = gemm(qkv_name, OpId::qkv_proj, WeightGroup::attention, q_.attention, h, n, layers);
        qkv.elementwise_bytes = 4.0 * d((hq + hkv) * d_h + index);  // rotary
        if (g.head_gate) {
            // Step-3.x's head-wise gate: g_proj (hidden -> the rank's query heads, column-parallel), then each head's
            // output times sigmoid of its gate (read the output and the gate, write the output, bf16; TensorRT-LLM
            // modeling_step3p7.py Step3p7Attention.forward).
            const std::string o(o_name);
            const char* gate_name = o == "o" ? "o_gate" : o == "o.windowed" ? "o_gate.windowed" : "o_gate.sparse";
            gemm(gate_name, OpId::o_proj, WeightGroup::attention, q_.attention, h, hq, layers).elementwise_bytes =
                2.0 * d(2 * hq * d_v + hq);
        }
        gemm(o_name, OpId::o_proj, WeightGroup::attention, q_.attention, hq * d_v, h, layers).allreduce_after = true;
        return AttentionGeometry{hq, hkv, d_h, d_v, config::ModelConfig::gqa_kv_bytes(g, p_.kv_element_bytes, tp_),
                                 2.0};
    }

    void gqa() {
        p_.family = tables::AttentionFamily::mha;
        const config::HeadGeometry full = m_.full_heads(), window = m_.window_heads();
        if (p_.windowed_layers > 0 && !(window == full)) {
            // Windowed layers of a head geometry of their own: their projections and attention sites apart.
            p_.prefill = p_.decode = gqa_projections(full, p_.unbounded_layers, "qkv", "o");
            p_.windowed_prefill = p_.windowed_decode =
                gqa_projections(window, p_.windowed_layers, "qkv.windowed", "o.windowed");
            p_.windowed_geometry = true;
            p_.windowed_shape = {window.heads, window.kv_heads, window.head_dim};
        } else if (m_.block_sparse.layers > 0) {
            // Block-sparse layers: the same heads, their QKV GEMM widened by the indexer's columns; the dense layers
            // as before.
            const config::BlockSparseAttention& b = m_.block_sparse;
            p_.prefill = p_.decode = gqa_projections(full, p_.full_layers - p_.sparse_layers, "qkv", "o");
            gqa_projections(full, p_.sparse_layers, "qkv+index", "o.sparse", b.index_heads, b.index_dim);
            // The indexer's scoring on this GPU: its KV heads' index heads against the one shared bf16 key per
            // token (vLLM's MiniMaxM3Indexer, num_index_heads = the rank's KV heads), at the BF16 peak.
            const int64_t heads = b.index_heads >= tp_ ? b.index_heads / tp_ : 1;
            p_.indexer = IndexerGeometry{heads, b.index_dim, b.index_key_bytes(), false};
            p_.extra_kernel_layers += p_.sparse_layers * kBlockSparseIndexerKernels / kLayerKernels;
        } else {
            p_.prefill = p_.decode = gqa_projections(full, p_.full_layers, "qkv", "o");
        }
        table_shapes();
        attention_cores();
        if (m_.block_sparse.layers > 0) {
            core("indexer.prefill", OpId::indexer_prefill, KernelSite::indexer, Rows::window_keys, p_.sparse_layers);
            core("indexer.decode", OpId::indexer_decode, KernelSite::indexer, Rows::window_keys, p_.sparse_layers);
        }
    }

    void mla() {
        const int64_t h = m_.hidden_size, hq = m_.num_heads / tp_;
        const int64_t r_q = m_.q_lora_rank, r_kv = m_.kv_lora_rank, d_r = m_.qk_rope_head_dim;
        const int64_t d_n = m_.qk_nope_head_dim, d_v = m_.v_head_dim, d_qk = d_n + d_r;
        const double layers = p_.full_layers;
        const auto f = q_.attention;
        const auto g = WeightGroup::attention;
        // Rotary of q and the shared key, counted with the first projection.
        const double rotary = 4.0 * d(hq * d_r + d_r);
        if (r_q > 0) {
            gemm("q_a+kv_a", OpId::qkv_proj, g, f, h, r_q + r_kv + d_r, layers).elementwise_bytes = rotary;
            gemm("q_b", OpId::qkv_proj, g, f, r_q, hq * d_qk, layers);  // q_a+kv_a is replicated on every rank
        } else {
            gemm("q", OpId::qkv_proj, g, f, h, hq * d_qk, layers).elementwise_bytes = rotary;
            gemm("kv_a", OpId::qkv_proj, g, f, h, r_kv + d_r, layers);
        }
        // DeepSeek Sparse Attention runs absorbed in prefill too (vLLM's FlashMLA-sparse backend: its sparse prefill
        // kernel reads the latent of the selected keys), so kv_b never up-projects keys: every token's query takes
        // W_UK and its output W_UV, as decode does (families.cpp, mla_module_us).
        const bool sparse = p_.sparse_layers > 0;
        PlanEntry& kv_b = gemm("kv_b", OpId::qkv_proj, g, f, r_kv, hq * (d_n + d_v), layers, Rows::prefill_span);
        if (sparse) kv_b.site = KernelSite::weights_only;
        const Rows absorbed = sparse ? Rows::tokens : Rows::decodes;
        // Decode absorbs kv_b into the query and the output (W_UK, W_UV): the same weights, counted once above.
        gemm("absorb_k", OpId::qkv_proj, g, f, d_n, hq * r_kv, layers, absorbed).weight_elements = 0;
        p_.entries.back().active_elements = 0;
        gemm("absorb_v", OpId::qkv_proj, g, f, r_kv, hq * d_v, layers, absorbed).weight_elements = 0;
        p_.entries.back().active_elements = 0;
        if (p_.sparse_layers > 0) {
            // The indexer is replicated on every TP rank (vLLM, SGLang): its projections are not sharded.
            const int64_t ih = m_.index_n_heads, id = m_.index_head_dim, q_in = r_q > 0 ? r_q : h;
            const double own = d(m_.indexer_layers);  // layers with an indexer of their own
            PlanEntry& iq = gemm("indexer.q", OpId::indexer_proj, g, f, q_in, ih * id, own);
            // Rotary and FP8 quantisation of the indexer's q and k: bf16 read, FP8 written, per token.
            iq.elementwise_bytes = 3.0 * d((ih + 1) * id);
            gemm("indexer.k+weights", OpId::indexer_proj, g, f, h, id + ih, own);
            // A scoring layer reads its own key cache: an FP8 key and its fp32 scale per token.
            p_.indexer = IndexerGeometry{ih, id, d(id) + 4.0};
            // Its kernels run in the layer beside the MLA's, each with its gap: the engine's per-layer term grows by
            // their share of a layer's kernels.
            p_.extra_kernel_layers += own * kIndexerKernels / kLayerKernels;
        }
        if (m_.mla_output_gate) {
            // Kimi-K3's sigmoid output gate: g_proj (hidden -> heads x v_head_dim, column-parallel), its sigmoid
            // and product with the attention output (read both, write one, bf16).
            gemm("o_gate", OpId::o_proj, g, f, h, hq * d_v, layers).elementwise_bytes = 6.0 * d(hq * d_v);
        }
        gemm("o", OpId::o_proj, g, f, hq * d_v, h, layers).allreduce_after = true;
        const double latent = d(r_kv + d_r) * p_.kv_element_bytes;
        p_.family = tables::AttentionFamily::mla;
        p_.prefill = AttentionGeometry{hq, hq, d_qk, d_v, latent, 2.0};
        p_.decode = AttentionGeometry{hq, 1, r_kv + d_r, r_kv, latent, 2.0};
        table_shapes();
        if (sparse) {
            // Every DSA layer is windowed (index_topk keys per query), prefill as decode over the latent. The binding
            // pads the heads to FlashMLA's sparse head blocks of its GPU (families.hpp, sparse_mla_heads).
            p_.windowed_geometry = true;
            p_.windowed_prefill = p_.windowed_decode = p_.decode;
            p_.windowed_shape = p_.decode_shape;
        }
        attention_cores();
        if (p_.sparse_layers > 0) {
            const double own = d(m_.indexer_layers);
            core("indexer.prefill", OpId::indexer_prefill, KernelSite::indexer, Rows::window_keys, own);
            core("indexer.decode", OpId::indexer_decode, KernelSite::indexer, Rows::window_keys, own);
        }
    }

    // Compressed attention (config::CompressedAttention; transformers' modeling_deepseek_v4.py DeepseekV4Attention,
    // DeepseekV4CSACompressor, DeepseekV4HCACompressor, DeepseekV4Indexer; vLLM's deepseek_v4.py). Every layer:
    // q_a -> q_b, one shared K=V head, one attention kernel over the window's keys and the layer's pooled entries,
    // the grouped output projection. On the existing sites, each part of that kernel is work linear in the keys it
    // reads, with one kernel per layer:
    //  - the window branch and the sparse layers' selected entries: the windowed site, one entry per layer, its
    //    geometry widened (K=V bytes and head widths) by the mean keys a layer reads past the window's
    //    (layers x window + sparse layers x top-k) / (layers x window): exact once the context passes top-k x r;
    //    below it the top-k is counted in proportion to the window's keys (an upper bound);
    //  - a dense layer of ratio r: context / r pooled keys = 1/r of a whole-context layer (Rows::all_keys, no
    //    kernel of its own: the same kernel reads them);
    //  - a sparse layer's indexer scores context / r pooled keys: a DSA indexer kernel per sparse layer whose
    //    head width and key bytes are 1/r of its own (KernelSite::indexer).
    void compressed_attention() {
        const config::CompressedAttention& c = m_.compressed;
        const int64_t h = m_.hidden_size, d_h = m_.head_dim, hq = m_.num_heads / tp_, d_r = m_.qk_rope_head_dim;
        const double layers = p_.full_layers;
        const auto f = q_.attention;
        const auto g = WeightGroup::attention;
        const double sparse = d(c.sparse_layers), dense = d(c.dense_layers);
        // q_a and the shared K=V head are replicated on every rank (one KV head); rotary of q and the key.
        gemm("q_a+kv", OpId::qkv_proj, g, f, h, m_.q_lora_rank + d_h, layers).elementwise_bytes =
            4.0 * d(hq * d_r + d_r);
        gemm("q_b", OpId::qkv_proj, g, f, m_.q_lora_rank, hq * d_h, layers);
        // Compressors: a KV and a gate projection of the hidden state per pooled series; the sparse kind keeps two
        // overlapping series (2 x head_dim each: Ca, Cb), the dense kind one. The gated softmax pooling reads them.
        if (sparse > 0) {
            gemm("compressor.sparse", OpId::qkv_proj, g, f, h, 2 * 2 * d_h, sparse).elementwise_bytes =
                2.0 * d(2 * 2 * d_h);
            const int64_t ih = m_.index_n_heads, id = m_.index_head_dim;
            // The indexer: its queries from q_a's output, its own overlapping compressor at index_head_dim, and the
            // per-head weights; replicated on every rank as DSA's indexer.
            gemm("indexer.q", OpId::indexer_proj, g, f, m_.q_lora_rank, ih * id, sparse).elementwise_bytes =
                3.0 * d((ih + 1) * id);
            gemm("indexer.k+weights", OpId::indexer_proj, g, f, h, 2 * 2 * id + ih, sparse);
            p_.indexer = IndexerGeometry{ih, id, d(id) + 4.0};
        }
        if (dense > 0) {
            gemm("compressor.dense", OpId::qkv_proj, g, f, h, 2 * d_h, dense).elementwise_bytes = 2.0 * d(2 * d_h);
        }
        // Grouped low-rank output: o_groups blocks of (heads x head_dim / o_groups) -> o_lora_rank, sharded by
        // group over TP, then one (o_groups x o_lora_rank) -> hidden mix, sharded on its input.
        if (c.o_lora_rank > 0) {
            const int64_t groups = std::max<int64_t>(1, c.o_groups / tp_);
            gemm("o_a.grouped", OpId::o_proj, g, f, m_.num_heads * d_h / c.o_groups, groups * c.o_lora_rank, layers);
            gemm("o_b", OpId::o_proj, g, f, groups * c.o_lora_rank, h, layers).allreduce_after = true;
        } else {
            gemm("o", OpId::o_proj, g, f, hq * d_h, h, layers).allreduce_after = true;
        }
        // Hyper-connections: per block (attention, FFN) a projection of the hc_mult streams to the pre, post and
        // mixing weights, and the mixing itself: read the streams to collapse them, read them and the block's output
        // to write them back (3 x hc_mult + 2 hidden-sized vectors, bf16).
        if (c.hc_mult > 1) {
            const int64_t n = c.hc_mult;
            PlanEntry& fn =
                gemm("hc.fn", OpId::elementwise, g, config::WeightFormat::bf16, n * h, (2 + n) * n, 2.0 * p_.layers);
            fn.split_weights = false;
            fn.elementwise_bytes = 2.0 * d((3 * n + 2) * h);
        }
        // One MQA geometry: K and V are the same cached vector, read once. An FP8 cache holds vLLM's layout
        // (deepseek_v4_attention.py, head_bytes): the no-rope part in FP8 with a scale per 64, the rope part in
        // bf16, one pad byte; a bf16 cache the whole vector.
        const double kv =
            p_.kv_element_bytes < 2.0 ? d(d_h - d_r) + 2.0 * d(d_r) + d((d_h - d_r) / 64) + 1.0 : 2.0 * d(d_h);
        // FlashMLA's sparse kernels, which run every layer here, take 64 or 128 query heads: the rank's heads are
        // padded up to them (DeepseekV4MultiHeadLatentAttentionWrapper.padded_heads).
        const int64_t padded = hq <= 64 ? 64 : ceil_div(hq, 128) * 128;
        p_.family = tables::AttentionFamily::mha;
        p_.prefill = p_.decode = AttentionGeometry{padded, 1, d_h, d_h, kv, 2.0};
        table_shapes();
        const double window = d(m_.attention_window);
        p_.window = m_.attention_window;
        p_.windowed_layers = layers;
        p_.unbounded_layers = dense > 0 ? dense / d(c.dense_ratio) : 0.0;
        p_.sparse_layers = sparse;
        const double widen = 1.0 + sparse * d(c.index_topk) / (layers * window);
        if (sparse > 0) {
            AttentionGeometry w = p_.decode;
            w.qk_dim = w.v_dim = std::max<int64_t>(1, std::llround(d(d_h) * widen));
            w.kv_bytes_per_token = kv * widen;
            p_.windowed_geometry = true;
            p_.windowed_prefill = p_.windowed_decode = w;
            p_.windowed_shape = p_.decode_shape;
        }
        attention_cores();
        if (sparse > 0) {
            const double r = d(c.sparse_ratio);
            p_.indexer.head_dim = std::max<int64_t>(1, std::llround(d(m_.index_head_dim) / r));
            p_.indexer.key_bytes /= r;
            core("indexer.prefill", OpId::indexer_prefill, KernelSite::indexer, Rows::window_keys, sparse);
            core("indexer.decode", OpId::indexer_decode, KernelSite::indexer, Rows::window_keys, sparse);
        }
        p_.compressed_kv = true;
        p_.window_kv_bytes_per_token = layers * kv;
        p_.compressed_kv_bytes_per_token =
            (sparse > 0 ? sparse / d(c.sparse_ratio) * (kv + d(m_.index_head_dim) + 4.0) : 0.0) +
            (dense > 0 ? dense / d(c.dense_ratio) * kv : 0.0);
        p_.warnings.push_back(
            "compressed attention: " + std::to_string(c.window_only_layers) + " window-only, " +
            std::to_string(c.sparse_layers) + " sparse (1 in " + std::to_string(c.sparse_ratio) + ", top " +
            std::to_string(c.index_topk) + ") and " + std::to_string(c.dense_layers) + " dense (1 in " +
            std::to_string(c.dense_ratio) + ") layers over a window of " + std::to_string(m_.attention_window) +
            " keys; analytical MQA kernels, the sparse layers' top-k counted in proportion to the window's keys (an "
            "upper bound below top-k x ratio tokens of context)");
    }

    // A gated MLP's up projection computes gate and up together (three matrices); a squared-ReLU MLP has two.
    int64_t up_width() const { return m_.gated_mlp ? 2 : 1; }

    void dense_mlps() {
        const int64_t h = m_.hidden_size;
        for (const config::DenseFfnGroup& group : m_.dense_ffn_groups()) {
            const double layers = d(group.layers);
            const int64_t inter = ceil_div(group.intermediate_size, tp_);
            if (group.intermediate_size % tp_ != 0) {
                p_.warnings.push_back("intermediate_size " + std::to_string(group.intermediate_size) +
                                      " is not a multiple of tensor_parallel " + std::to_string(tp_) +
                                      ": rounded up per GPU");
            }
            PlanEntry& up = gemm("mlp.up", OpId::ffn, WeightGroup::mlp, q_.mlp, h, up_width() * inter, layers);
            up.elementwise_bytes = 6.0 * d(inter);  // activation
            gemm("mlp.down", OpId::ffn, WeightGroup::mlp, q_.mlp, inter, h, layers).allreduce_after = true;
        }
    }

    void moe() {
        // EP: this GPU holds experts / ep experts (its slots, physical_experts, where ep does not divide them), each
        // split over moe_tp GPUs, and sees the tokens of the attention replicas feeding them (docs/roofline.md,
        // "Expert parallelism").
        const int64_t h = m_.hidden_size, moe_tp = tp_ * dp_ / ep_;
        const double layers = p_.moe_layers;
        const double experts = d(physical_experts(m_.num_experts, ep_) / ep_);
        const double topk = d(m_.experts_per_token) / d(ep_);
        const int64_t inter = ceil_div(m_.moe_intermediate_size, moe_tp);
        p_.moe_token_factor = d(dp_);
        // A latent MoE's experts read and write the latent, not the hidden state (so do its all-to-alls).
        const int64_t width = m_.expert_width();
        const double wd = d(width), topk_all = d(m_.experts_per_token);
        const std::array<int64_t, 6> key{m_.num_experts, 1, m_.num_experts, m_.experts_per_token, width, inter};
        // The router: replicated, kept in bf16 by every checkpoint format.
        PlanEntry& router =
            gemm("router", OpId::moe_router, WeightGroup::mlp, config::WeightFormat::bf16, h, m_.num_experts, layers);
        router.split_weights = false;
        // The activation and the top-k sum of the routed tokens are timed with the experts' grouped GEMMs (the
        // fused-MoE kernel model, families.hpp); vLLM's and SGLang's fused MoE kernels gather the rows through
        // sorted token ids instead of permuting them.
        if (m_.moe_latent_size > 0) {
            // The latent projections are small and replicated on every rank (not sharded by TP or EP).
            gemm("latent.down", OpId::moe_latent, WeightGroup::mlp, q_.mlp, h, width, layers);
            gemm("latent.up", OpId::moe_latent, WeightGroup::mlp, q_.mlp, width, h, layers);
        }
        auto grouped = [&](const char* name, int64_t k, int64_t n, bool down) {
            PlanEntry& e =
                gemm(name, OpId::moe_experts, WeightGroup::experts, q_.experts, k, n, layers, Rows::expert_rows);
            e.site = KernelSite::grouped_gemm;
            e.experts = experts;
            e.topk = topk;
            e.table_key = key;
            e.down_projection = down;
            e.split_weights = false;
            e.weight_elements = d(k) * d(n) * experts;
            e.active_elements = d(k) * d(n) * topk_all;
            return &e;
        };
        grouped("experts.up", width, up_width() * inter, false);
        // Tokens move between GPUs only where the attention replicas hold different tokens. Without attention data
        // parallelism every TP rank holds the whole batch: each EP rank runs its experts on the tokens it already
        // has and the routed (and shared) partial outputs are summed by the layer's TP all-reduce, as without EP.
        // TensorRT-LLM: the fused MoE is built with reduce_results=False and Deepseekv3MoE.forward all-reduces its
        // output; its all-to-all is enabled only under attention DP (should_enable_alltoall,
        // tensorrt_llm/_torch/models/modeling_deepseekv3.py). vLLM: use_all2all_kernels = dp_size > 1 and use_ep
        // (FusedMoEParallelConfig, vllm/model_executor/layers/fused_moe/config.py).
        const bool dispatch = ep_ > 1 && dp_ > 1;
        // Attention replicas feeding MoE tensor parallelism (attention DP, no EP): every GPU of the group runs its
        // 1/moe_tp of every expert on the whole group's tokens, gathered from the replicas before the experts and
        // reduce-scattered back after them, in place of the TP all-reduce (TensorRT-LLM's Deepseekv3MoE under
        // enable_attention_dp without all-to-all: allgather, then reducescatter; SGLang's dp-attention
        // dp_gather / dp_scatter; vLLM's allgather_reducescatter).
        const bool gathered = dp_ > 1 && ep_ == 1;
        grouped("experts.down", inter, width, true)->allreduce_after = !dispatch && !gathered;
        if (m_.num_shared_experts > 0 && m_.shared_expert_intermediate_size > 0) {
            const int64_t shared = ceil_div(m_.num_shared_experts * m_.shared_expert_intermediate_size, tp_);
            PlanEntry& up =
                gemm("shared.up", OpId::moe_shared, WeightGroup::mlp, q_.mlp, h, up_width() * shared, layers);
            up.elementwise_bytes = 6.0 * d(shared);
            gemm("shared.down", OpId::moe_shared, WeightGroup::mlp, q_.mlp, shared, h, layers);
        }
        if (gathered) {
            // An all-gather and a reduce-scatter of the group's tokens over its tp x dp GPUs move what a ring
            // all-reduce of them moves (its two halves), the hidden state in BF16.
            core("experts.gather+scatter", OpId::ep_comm, KernelSite::allreduce, Rows::expert_rows, layers).group_gpus =
                tp_ * dp_;
        }
        if (dispatch) {
            // Dispatch: each token's hidden state to the GPUs of its top-k experts; a TP rank sends its 1/tp share
            // of the replica's tokens; (ep - 1) / ep of the destinations are remote. Combine returns as much.
            p_.all_to_all_bytes_per_token = topk_all * wd * 2.0 / d(tp_) * d(ep_ - 1) / d(ep_);
            core("dispatch+combine", OpId::ep_comm, KernelSite::all_to_all, Rows::tokens, layers);
        }
    }

    // A recurrent mixer: input and output projections, then its core.
    void recurrent(const char* in_name, const char* out_name, const char* core_name, OpId op, int64_t in_n,
                   int64_t out_k, double layers, const RecurrentCore& c) {
        const int64_t h = m_.hidden_size;
        gemm(in_name, op, WeightGroup::recurrent, q_.recurrent, h, in_n, layers).split_weights = false;
        PlanEntry& out = gemm(out_name, op, WeightGroup::recurrent, q_.recurrent, out_k, h, layers);
        out.split_weights = false;
        out.allreduce_after = true;
        core(core_name, op, KernelSite::recurrent, Rows::tokens, layers).core = p_.recurrent.size();
        p_.recurrent.push_back(c);
        p_.recurrent_layers += layers;
        p_.state_bytes_per_request += layers * recurrent_state_bytes(c.geometry);
    }

    void gated_deltanet() {
        const int64_t hk = std::max<int64_t>(1, m_.linear_num_key_heads / tp_);
        const int64_t hv = std::max<int64_t>(1, m_.linear_num_value_heads / tp_);
        const int64_t dk = m_.linear_key_head_dim, dv = m_.linear_value_head_dim;
        RecurrentCore c;
        c.geometry = LinearAttentionGeometry{hk, hv, dk, dv, m_.linear_conv_kernel};
        c.geometry.flashinfer_prefill = true;
        c.tabled = true;
        c.table_shape = {m_.linear_conv_kernel, m_.linear_num_key_heads, dk, m_.linear_num_value_heads, dv};
        // in_proj_qkvz and in_proj_ba; out_proj.
        recurrent("gdn.in", "gdn.out", "gdn.core", OpId::linear_attn, 2 * hk * dk + 2 * hv * dv + 2 * hv, hv * dv,
                  d(m_.linear_layer_count), c);
        // Its split, convolution, recurrent update and gated norm each wait their gap in the engine's per-layer term.
        p_.extra_kernel_layers += d(m_.linear_layer_count) * kGatedDeltaNetExtraKernels / kLayerKernels;
    }

    // Kimi Delta Attention (vLLM vllm/model_executor/layers/kda.py, KimiDeltaAttention): q, k, v and the beta gate
    // b are column-parallel projections of the hidden state; the per-channel decay g1 = f_b(f_a(x)) and the output
    // gate g2 = g_b(g_a(x)) are low-rank, f_a and g_a (hidden -> head_dim) replicated on every rank, f_b and g_b
    // (head_dim -> heads x head_dim) column-parallel; o_proj is row-parallel. The core is the gated delta rule on a
    // heads x head_dim x head_dim fp32 state with short causal convolutions on q, k and v (chunk_kda in prefill,
    // fused_recurrent_kda in decode): the same kernel structure, state and conv channels as Gated DeltaNet's with
    // key heads = value heads, so the same analytical core times it. It has no table: InferSim's GDN tables time
    // chunk_gated_delta_rule, not chunk_kda. What the per-channel decay adds over GDN's per-head one is
    // element-wise: fused_kda_gate reads the bf16 f_b output and writes an fp32 gate per channel (6 B), the core
    // reads that gate (4 B per channel, where GDN reads one scalar per head) and the gated RMSNorm reads the output
    // and g2 and writes its result (6 B): 16 bytes per channel per token, at streaming bandwidth.
    void kimi_delta_attention() {
        const int64_t h = m_.hidden_size;
        const int64_t heads = std::max<int64_t>(1, m_.linear_num_value_heads / tp_);
        const int64_t dk = m_.linear_key_head_dim, dv = m_.linear_value_head_dim;
        const double layers = d(m_.linear_layer_count);
        RecurrentCore c;
        c.geometry = LinearAttentionGeometry{heads, heads, dk, dv, m_.linear_conv_kernel};
        // q_proj, k_proj, v_proj and b_proj; o_proj.
        recurrent("kda.in", "kda.out", "kda.core", OpId::linear_attn, 2 * heads * dk + heads * dv + heads, heads * dv,
                  layers, c);
        // With use_full_rank_gate (Kimi-K3) the output gate is one g_proj of hidden -> heads x head_dim instead.
        const int64_t low_rank = m_.kda_full_rank_gate ? 1 : 2;
        gemm("kda.gate_a", OpId::linear_attn, WeightGroup::recurrent, q_.recurrent, h, low_rank * dk, layers)
            .split_weights = false;
        PlanEntry& gate_b = gemm("kda.gate_b", OpId::linear_attn, WeightGroup::recurrent, q_.recurrent, dk,
                                 low_rank * heads * dk, layers);
        gate_b.split_weights = false;
        gate_b.elementwise_bytes = 16.0 * d(heads * dk);
        if (m_.kda_full_rank_gate) {
            gemm("kda.gate", OpId::linear_attn, WeightGroup::recurrent, q_.recurrent, h, heads * dv, layers)
                .split_weights = false;
        }
        p_.warnings.push_back("Kimi Delta Attention (" + std::to_string(m_.linear_layer_count) +
                              " layers): the Gated DeltaNet analytical core with per-channel gate traffic, no table");
    }

    void mamba2() {
        // TP shards the heads (x, z, dt and the state); B and C are per group, sharded while the groups divide
        // among the ranks and replicated beyond (vLLM's MambaMixer2).
        const int64_t heads = m_.mamba_num_heads / tp_, head_dim = m_.mamba_head_dim;
        const int64_t state = m_.mamba_state_size, groups = std::max<int64_t>(1, m_.mamba_groups / tp_);
        const int64_t inner = heads * head_dim;
        // SSD (docs/roofline.md 1.1): per token 2 state-sized products per head (B x^T into the chunk state, the
        // C readout), and per chunk position C B^T once per group then applied to x per head.
        RecurrentCore c;
        c.geometry = LinearAttentionGeometry{
            groups, heads, state, head_dim, m_.mamba_conv_kernel, 2.0, 1.0, m_.mamba_chunk_size, groups};
        const double layers = d(m_.mamba_layer_count);
        // in_proj: x, z, B, C, dt; out_proj.
        recurrent("mamba.in", "mamba.out", "mamba.core", OpId::mamba, 2 * inner + 2 * groups * state + heads, inner,
                  layers, c);
        // The gated RMSNorm before out_proj reads y and z and writes its output, bf16.
        p_.entries.back().elementwise_bytes = 6.0 * d(inner);
        p_.warnings.push_back("Mamba2 mixers (" + std::to_string(m_.mamba_layer_count) +
                              " layers): analytical conv + SSD scan model, no table");
    }

    void closing() {
        const int64_t h = m_.hidden_size;
        if (m_.vocab_size > 0) {
            const int64_t vocab = ceil_div(m_.vocab_size, tp_);
            // The LM head times with the attention projections' precision; LM head and embedding stay bf16.
            gemm("lm_head", OpId::lm_head, WeightGroup::attention, config::WeightFormat::bf16, h, vocab, 1.0,
                 Rows::outputs);
            if (!m_.tied_embeddings) {
                PlanEntry& e = core("embedding", OpId::embedding, KernelSite::weights_only, Rows::tokens, 1.0);
                e.weight_elements = e.active_elements = d(vocab) * d(h);
            }
        }
        p_.allreduce_bytes_per_token = 2.0 * d(h);  // bf16 activations
        if (tp_ > 1) {
            // One after attention (or the recurrent mixer) in every layer, one after every TP-sharded MLP (MoE
            // layers under EP combine by all-to-all instead); blocks without a mixer have no attention all-reduce.
            for (const PlanEntry& e : p_.entries) {
                if (e.allreduce_after) p_.allreduces += e.layers;
            }
            core("allreduce", OpId::tp_allreduce, KernelSite::allreduce, Rows::tokens, p_.allreduces);
            // A q/k RMSNorm over all heads (config::ModelConfig::qk_norm_across_heads) sums each token's two
            // partial variances (q's and k's, FP32) over the ranks: one more, tiny, all-reduce in every attention
            // layer (vLLM's MiniMaxText01RMSNormTP.forward_qk, vllm/model_executor/layers/mamba/linear_attn.py:
            // torch.cat([q_var, k_var]) then tensor_model_parallel_all_reduce; newer vLLM fuses it with the norm
            // in one Lamport all-reduce, still one exchange per layer). Latency-bound: its time is the all-reduce's
            // floor, which the 8-byte message makes visible.
            if (m_.qk_norm_across_heads && p_.full_layers > 0) {
                PlanEntry& e =
                    core("qk_norm.allreduce", OpId::tp_allreduce, KernelSite::allreduce, Rows::tokens, p_.full_layers);
                e.message_bytes_per_token = 2.0 * 4.0;
                p_.allreduces += p_.full_layers;
            }
        }
        // EP's all-to-all is timed after the all-reduces.
        auto a2a = std::find_if(p_.entries.begin(), p_.entries.end(),
                                [](const PlanEntry& e) { return e.site == KernelSite::all_to_all; });
        if (a2a != p_.entries.end()) std::rotate(a2a, a2a + 1, p_.entries.end());
        // Two fused residual-add + RMSNorm per decoder layer; one per block of a block pattern (a mixer or an FFN).
        PlanEntry& norms = core("norms", OpId::elementwise, KernelSite::elementwise, Rows::tokens, 1.0);
        norms.elementwise_bytes = (p_.layers * 16.0 - d(m_.ffn_only_layers + m_.mixer_only_layers) * 8.0) * d(h);
        if (m_.attention_residual_block > 0) attention_residuals();
    }

    // Attention residuals (Kimi-K3's attn_res_block_size; the public ports' _apply_attn_res): layer i snapshots
    // the stream when i % block == 0; before its attention (once a snapshot exists) and before its FFN, and once
    // after the last layer, the snapshots so far and the current stream (n + 1 hidden vectors) are RMS-scored
    // against a learned vector and mixed by a softmax: one pass reading the n + 1 vectors and writing the mix, bf16.
    // Its weights (a hidden-wide vector and a norm per mix) are negligible.
    void attention_residuals() {
        const int64_t block = m_.attention_residual_block, h = m_.hidden_size;
        double vectors = 0;  // hidden vectors read and written per token, all mixes
        int64_t snapshots = 0;
        for (int64_t i = 0; i < m_.num_layers; ++i) {
            if (snapshots > 0) vectors += d(snapshots + 2);  // before the attention
            if (i % block == 0) ++snapshots;
            vectors += d(snapshots + 2);  // before the FFN
        }
        vectors += d(snapshots + 2);  // after the last layer
        PlanEntry& mix = core("attn_res", OpId::elementwise, KernelSite::elementwise, Rows::tokens, 1.0);
        mix.elementwise_bytes = vectors * 2.0 * d(h);
    }

    const config::ModelConfig& m_;
    const config::Quantization& q_;
    int64_t tp_, ep_, dp_;
    OperationPlan p_;
};

}  // namespace

mfusim_op abi_op(OpId op) {
    return kOps[static_cast<int>(op)].abi;
}
const char* op_id_name(OpId op) {
    return kOps[static_cast<int>(op)].name;
}

double OperationPlan::weight_bytes() const {
    double sum = 0;
    for (const PlanEntry& e : entries) sum += e.weight_bytes();
    return sum;
}
double OperationPlan::elementwise_bytes_per_token() const {
    double sum = 0;
    for (const PlanEntry& e : entries) sum += e.elementwise_bytes * e.layers;
    return sum;
}
int64_t physical_experts(int64_t experts, int64_t ep) {
    return ep > 1 ? ceil_div(experts, ep) * ep : experts;
}

double OperationPlan::weight_elements() const {
    double sum = 0;
    for (const PlanEntry& e : entries) sum += e.weight_elements * e.layers;
    return sum;
}
double OperationPlan::active_elements() const {
    double sum = 0;
    for (const PlanEntry& e : entries) sum += e.active_elements * e.layers;
    return sum;
}

OperationPlan plan_operations(const config::ModelConfig& model, const Sharding& sharding,
                              const config::Quantization& quant) {
    return Planner(model, sharding, quant).build();
}

}  // namespace mfusim::roofline
