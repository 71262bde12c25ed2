// The model as data (issue #25, DESIGN.md section 2): a model config under a deployment and a quantization becomes
// an operation plan once. Each entry is one kernel of one layer kind, repeated over its layers: the operation it
// reports under, its kernel site, where its rows come from, its layer count, the weights it holds and their format.
// Everything that counts the model reads the same entries: parameter counts (roofline::model_params), weight memory,
// element-wise traffic and TP all-reduces (here), and the step evaluation (RooflineModel: one loop over the
// entries). A new layer kind is one more builder of entries (docs/extending.md).
//
// The plan is pure shapes: no GPU, no tables. RooflineModel binds each entry to a kernel site of its GPU.
#pragma once

#include <mfusim.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "config/model_config.hpp"
#include "config/quantization.hpp"
#include "roofline/analytical.hpp"
#include "tables/tables.hpp"

namespace mfusim::roofline {

// The operations of the plan. Finer than the C ABI's breakdown (MFUSIM_OP_*): each maps to one ABI operation
// (abi_op), so the plan can name a new kind of kernel without an ABI change. Append only.
enum class OpId : uint8_t {
    qkv_proj,         // attention input projections (GQA fused q/k/v; MLA q, kv latents, K/V up-projections)
    indexer_proj,     // DSA lightning indexer's q and key/weight projections
    o_proj,           // attention output projection
    attn_prefill,     // softmax attention of prefill chunks over their cached prefixes
    attn_decode,      // softmax attention of decode tokens over their KV cache
    indexer_prefill,  // DSA indexer scoring of prefill queries
    indexer_decode,   // DSA indexer scoring of decode queries
    ffn,              // dense MLP
    moe_router,       // MoE gate
    moe_latent,       // latent MoE's projections around the experts
    moe_experts,      // routed experts (grouped GEMM)
    moe_shared,       // shared experts
    linear_attn,      // Gated DeltaNet projections and recurrent core
    mamba,            // Mamba2 projections and conv + SSD core
    lm_head,          // LM head of the tokens that produce output
    embedding,        // input embedding (weights only: a gather, not timed)
    tp_allreduce,     // TP all-reduces of the step
    ep_comm,          // EP dispatch and combine
    elementwise,      // norms, rotary, activations, MoE permutation
    count
};
inline constexpr int kOpIds = static_cast<int>(OpId::count);

// The ABI operation an OpId reports under, and its name ("qkv_proj", "indexer_prefill", ...).
mfusim_op abi_op(OpId op);
const char* op_id_name(OpId op);

// The kind of kernel that times an entry.
enum class KernelSite : uint8_t {
    gemm,               // dense GEMM of the step's rows (GemmSite)
    grouped_gemm,       // MoE grouped GEMM over the expected active experts
    prefill_attention,  // the plan's prefill attention site over prefill work
    decode_attention,   // the plan's decode attention site over decode work
    indexer,            // DSA indexer scoring
    recurrent,          // recurrent-state core (Gated DeltaNet, Mamba2) of plan.recurrent[core]
    allreduce,          // TP all-reduces: allreduces x message of allreduce_bytes_per_token per token
    all_to_all,         // EP dispatch and combine
    elementwise,        // elementwise_bytes per token at streaming bandwidth
    weights_only,       // holds weights, not timed (the embedding)
};

// Where an entry's rows (or work) come from in a step.
enum class Rows : uint8_t {
    tokens,        // every new token of the step
    outputs,       // requests that produce a token
    prefill_span,  // sum over prefill chunks of context + new tokens (MLA K/V up-projection)
    decodes,       // decode tokens (MLA absorbed projections)
    expert_rows,   // tokens of every attention replica feeding this GPU's experts
    all_keys,      // attention work of layers that read their whole context
    window_keys,   // attention work of layers that read at most `window` keys (windows, DSA's top-k)
};

// Which of the quantization's weight groups (config::Quantization) an entry's GEMM precision follows.
enum class WeightGroup : uint8_t { attention, mlp, experts, recurrent };

struct PlanEntry {
    const char* name = "";  // the kernel, in words: "qkv", "q_a+kv_a", "experts.up", ...
    OpId op = OpId::qkv_proj;
    KernelSite site = KernelSite::gemm;
    Rows rows = Rows::tokens;
    double layers = 0;  // layers this entry runs in
    WeightGroup precision = WeightGroup::attention;
    config::WeightFormat format = config::WeightFormat::bf16;  // stored format of its weights
    // GEMM y[m, n] = x[m, k] W^T on this GPU; grouped: per expert, `experts` held, `topk` per token.
    int64_t k = 0, n = 0;
    double experts = 0, topk = 0;
    std::array<int64_t, 6> table_key{};  // grouped-GEMM table key
    bool down_projection = false;
    // A GEMM's time beyond its compute streams weights: reported under weight loading (not for the grouped
    // GEMMs, the router and the recurrent projections, whose breakdown keeps it).
    bool split_weights = true;
    std::size_t core = 0;          // recurrent: index in OperationPlan::recurrent
    double weight_elements = 0;    // per layer, held on this GPU
    double active_elements = 0;    // per layer, the weights one token runs through (experts: top-k of them)
    double elementwise_bytes = 0;  // per token per layer: the small kernels that go with this one
    bool allreduce_after = false;  // TP all-reduce after it, once per layer (when TP > 1)
    // An all-reduce entry's own message per token (bytes); 0: the plan's allreduce_bytes_per_token.
    double message_bytes_per_token = 0;
    // An all-reduce entry's GPUs; 0: the TP group (the MoE's gather and scatter over attention replicas: tp x dp).
    int64_t group_gpus = 0;

    double weight_bytes() const { return weight_elements * layers * config::weight_format_bytes(format); }
};

// A recurrent-state core and its table shape (Gated DeltaNet tables; none for Mamba2).
struct RecurrentCore {
    LinearAttentionGeometry geometry;
    bool tabled = false;
    std::array<int64_t, 5> table_shape{};
};

// How the model is sharded and cached (the parts of a deployment the plan depends on).
struct Sharding {
    int64_t tensor_parallel = 1;
    int64_t expert_parallel = 1;
    int64_t attention_data_parallel = 1;
    bool fp8_kv = false;
};

struct OperationPlan {
    std::vector<PlanEntry> entries;  // in evaluation order
    // Softmax attention: one kernel geometry per phase, shared by the unbounded and the windowed layers.
    bool attention = false;  // full_layers > 0
    tables::AttentionFamily family = tables::AttentionFamily::mha;
    AttentionGeometry prefill, decode;
    std::array<int64_t, 3> prefill_shape{}, decode_shape{};  // attention table shapes
    // Windowed layers with a head geometry of their own (config::ModelConfig::windowed_heads): their kernels' geometry
    // and table shape; otherwise they run the geometry above.
    bool windowed_geometry = false;
    AttentionGeometry windowed_prefill, windowed_decode;
    std::array<int64_t, 3> windowed_shape{};
    IndexerGeometry indexer;
    std::vector<RecurrentCore> recurrent;

    // Layer counts.
    double layers = 0, full_layers = 0, unbounded_layers = 0, windowed_layers = 0, sparse_layers = 0;
    double moe_layers = 0, recurrent_layers = 0;
    // The engine's per-layer term (engines::EngineProfile::layer_us) counts the gaps between a layer's kernels, about
    // kLayerKernels of them; a layer that runs more kernels adds their share: extra_kernel_layers layer-equivalents.
    double extra_kernel_layers = 0;
    int64_t window = 0;  // keys one windowed layer's query reads at most; 0: none
    double moe_token_factor = 1;

    double allreduces = 0;                  // TP all-reduces per step (all layers); 0 without TP
    double allreduce_bytes_per_token = 0;   // one all-reduce's message per token
    double all_to_all_bytes_per_token = 0;  // one EP dispatch (or combine) per token, from this GPU
    double kv_element_bytes = 2;
    double state_bytes_per_request = 0;  // recurrent state one request holds on this GPU
    // Compressed attention (config::CompressedAttention) holds its caches apart: per token on this GPU, the
    // whole-context ones (pooled entries, the indexer's pooled keys: every r-th token's worth, all layers) and the
    // windowed ones (every layer's K=V of its last `window` tokens). compressed_kv: these replace the per-layer
    // derivation of the KV memory.
    bool compressed_kv = false;
    double compressed_kv_bytes_per_token = 0, window_kv_bytes_per_token = 0;

    std::vector<std::string> warnings;  // decisions taken while planning, one sentence each

    // Sums over the entries.
    double weight_bytes() const;
    double elementwise_bytes_per_token() const;
    double weight_elements() const;  // parameters held on this GPU
    double active_elements() const;  // parameters one token runs through
};

// Expert slots an expert-parallel group of `ep` ranks instantiates for `experts` routed experts: `experts` where
// ep divides them, else ceil(experts / ep) per rank, the spare slots holding replicas of experts. The engines
// deploy a wide EP that does not divide the experts (DeepSeek's 256 over EP 48 in an NVL72 domain) only through
// their expert-parallel load balancers' redundant slots, which must fill every rank alike: TensorRT-LLM's
// `moe_config.load_balancer.num_slots` (>= the experts; "288 for DeepSeek R1, 32-way EP", one extra slot per rank:
// NVIDIA/TensorRT-LLM examples/wide_ep/README.md), SGLang's `--ep-num-redundant-experts` and vLLM's EPLB
// `num_redundant_experts` (physical experts = logical + redundant, divisible by the EP size:
// vllm/distributed/eplb/eplb_state.py). The fewest that fill every rank are taken: ceil(experts / ep) x ep.
int64_t physical_experts(int64_t experts, int64_t ep);

// The plan of `model` sharded as `sharding`, weights as `quant`. Validating the deployment is the caller's job
// (RooflineModel); the plan assumes the shards divide.
OperationPlan plan_operations(const config::ModelConfig& model, const Sharding& sharding,
                              const config::Quantization& quant);

}  // namespace mfusim::roofline
