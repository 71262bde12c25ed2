// Kernel models of the families large models spend their steps in, one layer on one GPU: the fused MoE (grouped
// GEMM), the MLA attention module (DeepSeek-V3) and its sparse variant (DSA, DeepSeek-V3.2), the recurrent-state
// layers (Gated DeltaNet, Mamba2) and DeepEP's expert-parallel dispatch and combine. `compare --aic` times the
// measured rows of ../shared/reference/measured/aic-<gpu>-families with them (docs/kernel-families.md). Pure
// functions of their arguments; microseconds.
#pragma once

#include <cstdint>
#include <vector>

#include "config/quantization.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/analytical.hpp"

namespace mfusim::roofline {

// One fused MoE layer (gating excluded): `tokens` tokens enter it on this GPU; the experts are split over `ep`
// GPUs (experts / ep each) and every expert's intermediate over `tp`.
struct MoeShape {
    double tokens = 0;
    int64_t hidden = 0, inter = 0, topk = 0, experts = 0, tp = 1, ep = 1;
    config::WeightFormat format = config::WeightFormat::bf16;
    bool gated = true;         // up projection computes gate and up (SwiGLU)
    double routing_alpha = 0;  // 0: balanced routing; > 0: expert popularity ~ rank^-alpha (power law)
    // With routing_alpha 0: false, the kernel benchmarks' balanced routing (balanced_logits' experts, on EP rank 0);
    // true, routing as served: each token's top-k experts drawn independently and
    // uniformly, the step waiting for the busiest rank of the expert-parallel group (moe_rank_load).
    bool random_routing = false;
    // The router's expert groups, for the kernel benchmarks' balanced routing: vLLM's grouped top-k (DeepSeek-V3's
    // n_group 8, topk_group 4) takes a token's top-k experts from its topk_groups best groups only. 1 / 1: plain
    // top-k (every other model's router, and n_group 1 as Kimi-K2 and GLM-5 state it).
    int64_t expert_groups = 1, topk_groups = 1;
    // Power law as AIConfigurator's collector rounded it before its per-rank adjustment (collector/helper.py
    // `_generate_power_law_distribution` up to ai-dynamo/aiconfigurator 13dadba3b, #876; the kernel files of its
    // vLLM 0.14 collector, kernel_source `vllm_fused_moe`): the rounding's shortfall and the clamp's overflow go to
    // the least loaded experts in a stable descending sort, the highest-numbered first, so they crowd into the last
    // EP rank, which then is the busiest and the one timed (moe_rank_load).
    bool power_law_global_fill = false;
    // W4A8: the 4-bit weights multiplied with FP8 activations (vLLM's `w4a8_mxfp4_mxfp8` MoE: FlashInfer's TRT-LLM
    // MXFP4 x MXFP8 kernels), on FP8 tensor cores (Blackwell's MXF8F6F4 MMA) where the GPU has them, not BF16.
    bool fp8_activations = false;
    // The experts run Marlin whatever the format's default (moe_runs_marlin): a kernel file whose kernel_source
    // names Marlin, as vLLM's compressed-tensors MXFP4 method (CompressedTensorsW4A4Mxfp4MoEMethod) does on GPUs
    // without FP4 tensor cores, where gpt-oss's own MXFP4 method runs OpenAI's Triton matmul_ogs.
    bool marlin = false;
    // The experts run FlashInfer's CUTLASS fused MoE where the GPU's default is TRT-LLM-gen's (moe_runs_trtllm_gen):
    // a kernel file whose kernel_source names `flashinfer_cutlass` (B200: the shapes TRT-LLM-gen's launchers do
    // not take). Its separate permute pass is timed (GemmPrecision::expands_rows); its tokens sit on the MMA's M.
    // On Hopper, where the default is vLLM's Triton fused_moe, the same flag selects the CUTLASS MoE's SM90 grouped
    // GEMM (moe_runs_cutlass_sm90): a kernel file's `flashinfer_cutlass` rows, and in the step model an engine
    // whose fused MoE is CUTLASS's (EngineProfile::cutlass_moe: TensorRT-LLM).
    bool cutlass = false;
    // The rank's tokens arrive by an all-to-all dispatch (attention data parallelism feeding expert parallelism):
    // only the tokens with at least one of their top-k experts on this rank, each with its whole top-k, the other
    // ranks' ids masked (DeepEP's Buffer.get_dispatch_layout: num_tokens_per_rank / is_token_in_rank,
    // deepseek-ai/DeepEP deep_ep/buffer.py; TensorRT-LLM's MoE all-to-all under attention DP). A pass of the
    // fused MoE over every pair of its input (moe_passes_all_pairs, finalize_all_pairs) covers those tokens'
    // pairs, not the whole group's: MoeLoad::pairs. false: every rank holds every token (a kernel benchmark's
    // input, TP attention).
    bool dispatched = false;
};
// Tokens per local expert on the GPU measured: `count` experts with `tokens` rows each (a few classes).
struct ExpertClass {
    double count = 0, tokens = 0;
};
struct MoeLoad {
    std::vector<ExpertClass> classes;
    double rows = 0;   // sum of count x tokens: the (token, expert) pairs this GPU computes
    double pairs = 0;  // tokens x topk: every (token, expert) pair of the layer, this GPU's and the other ranks'

    // The experts that receive pairs: whose weights the grouped GEMMs read.
    double active_experts() const {
        double active = 0;
        for (const ExpertClass& c : classes) active += c.count;
        return active;
    }
};
// The expert load of the most loaded GPU of the expert-parallel group. Balanced: the experts AIConfigurator's
// balanced_logits gives each token, through the router's (grouped) top-k, counted on EP rank 0 (experts 0 to
// experts / ep - 1), the rank the benchmark runs. Power law: expert popularity follows the quantiles of a bounded power
// law x^-alpha on [1, 0.8 tokens] (on [0.01, 2] when there are fewer pairs than experts; AIConfigurator's
// sample_power_law, whose benchmark times the EP rank with the largest load), normalised to tokens x topk pairs and
// rounded; the most loaded rank holds the most popular expert and every ep-th one after it
// (MoeShape::power_law_global_fill: the earlier collector's rounding, emulated on placed loads). Random (served): each
// of the rank's experts is hit with p = 1 - (1 - topk/experts)^tokens, so its distinct experts are Binomial(local, p);
// the rank the others wait for holds the expected maximum of ep such counts, each expert with rows / active of its
// pairs.
MoeLoad moe_rank_load(const MoeShape& s);
// The whole fused MoE as a kernel benchmark times it: the active experts' weights, where they fit the L2, are warm
// L2 hits (the benchmark repeats the call with the same routing); the step's experts are cold (below).
double fused_moe_us(const gpu::GpuProfile& gpu, const MoeShape& s, const MoeLoad& load);
double fused_moe_us(const gpu::GpuProfile& gpu, const MoeShape& s);

// One of the fused MoE's two grouped GEMMs, k -> n per expert over the rank's `load` at `precision`, with the
// passes that go with it: the up projection (gated: n = 2 x intermediate) the activation (its n outputs read,
// the intermediate written, bf16), the down projection the weighted sum of the top-k outputs (read per pair, one
// row per token of `tokens`). `overhead` adds moe_overhead_us (align/sort, launches) to the up projection. The two
// with overhead sum to fused_moe_us; the step model times its two expert entries with them (kernels.cpp).
double fused_moe_projection_us(const gpu::GpuProfile& gpu, const GemmPrecision& precision, const MoeLoad& load,
                               double tokens, int64_t k, int64_t n, bool down, bool gated, bool overhead);
// Whether a weight format's fused MoE runs vLLM's Marlin kernels on this GPU: weight-only sub-byte formats (INT4,
// MXFP4 / NVFP4 without FP4 tensor cores), BF16 compute on warp-level mma.sync at warp_mma_tflops_per_sm.
bool moe_runs_marlin(const gpu::GpuProfile& gpu, config::WeightFormat format);
// The multiples an MXFP4 MoE's weights are padded to when the engine loads them: each expert's intermediate shard
// (per MoE TP rank) and the hidden size its GEMMs read and write. The padded rows and columns are multiplied like the
// others. 1 / 1 where the path does not pad (families.cpp, moe_weight_padding).
struct MoeWeightPadding {
    int64_t inter = 1, hidden = 1;
    int64_t padded_inter(int64_t shard) const { return (shard + inter - 1) / inter * inter; }
    int64_t padded_hidden(int64_t width) const { return (width + hidden - 1) / hidden * hidden; }
    // One of the two grouped GEMMs, k -> n per expert: the up projection reads the padded hidden and writes gate and
    // up (gated) of the padded shard, the down projection the reverse.
    int64_t padded_k(int64_t k, bool down) const { return down ? padded_inter(k) : padded_hidden(k); }
    int64_t padded_n(int64_t n, bool down, bool gated) const {
        const int64_t gates = gated ? 2 : 1;
        return down ? padded_hidden(n) : gates * padded_inter(n / gates);
    }
};
MoeWeightPadding moe_weight_padding(const gpu::GpuProfile& gpu, config::WeightFormat format, bool cutlass, bool marlin);
// Whether it runs FlashInfer's TRT-LLM-gen MoE (Blackwell, every format Marlin does not take): token tiles from 8.
bool moe_runs_trtllm_gen(const gpu::GpuProfile& gpu, config::WeightFormat format);
// The largest token tile (tcgen05 N) of TRT-LLM-gen's launcher for the format; 0 where it does not run.
int moe_token_tile_max(const gpu::GpuProfile& gpu, config::WeightFormat format, bool fp8_activations);
// Whether the experts run the CUTLASS MoE's SM90 grouped GEMM: on Hopper, for BF16, per-tensor and block FP8, where
// `cutlass` asks for it (MoeShape::cutlass: the kernel file's backend, or the engine's, EngineProfile::cutlass_moe).
bool moe_runs_cutlass_sm90(const gpu::GpuProfile& gpu, config::WeightFormat format, bool cutlass);
// `precision` (a moe_precision) on that kernel: its tiles, its permute pass, its own rows only (families.cpp).
void use_cutlass_sm90_tiles(GemmPrecision& precision);
// Whether a kernel benchmark's CUTLASS MoE row ran FlashInfer's fallback tactic (no autotuning; BF16 and per-tensor
// FP8: block FP8 has a tile of its own), and `precision` on it: one tile of 128 tokens x 16 weight columns.
bool moe_runs_cutlass_fallback(const gpu::GpuProfile& gpu, config::WeightFormat format, bool cutlass);
void use_cutlass_fallback_tile(GemmPrecision& precision);
// The GEMM precision a weight format's fused MoE runs at on this GPU (roofline/precision.cpp decides the path).
// With fp8_activations (W4A8: MXFP4 weights x MXFP8 activations) the MMAs run at the FP8 rate on the format's
// weight bytes, with the launcher's token tiles for FP8 activations.
GemmPrecision moe_precision(const gpu::GpuProfile& gpu, config::WeightFormat format, bool fp8_activations = false);
// Whether a weight format's fused MoE runs vLLM's Triton `fused_moe` kernels on this GPU (TritonExperts), whose
// grid under expert parallelism covers every pair of the layer: it writes zeros for the other ranks' pairs and its
// activation and top-k sum pass over all of them (docs/kernel-families.md).
bool moe_runs_triton(const gpu::GpuProfile& gpu, config::WeightFormat format);
// Whether its passes cover every pair of the layer under expert parallelism: Triton's, and block FP8 on Blackwell
// (measured so; the kernel responsible not established).
bool moe_passes_all_pairs(const gpu::GpuProfile& gpu, config::WeightFormat format);

// The MLA attention module of one layer: projections, attention and output projection, `heads` per GPU.
// index_heads > 0: DeepSeek Sparse Attention (the lightning indexer and top-index_topk sparse attention).
struct MlaShape {
    int64_t hidden = 0, q_lora = 0, kv_lora = 0, rope = 0, nope = 0, v = 0, heads = 0;
    int64_t index_heads = 0, index_dim = 0, index_topk = 0;
    config::WeightFormat gemm = config::WeightFormat::bf16;
    bool fp8_kv = false;
    // The attention backend's reorder_batch_threshold: requests of at most this many new tokens run its absorbed
    // decode path (vLLM 0.14: FlashAttention MLA 512, FlashMLA 128, Triton MLA 1; docs/kernel-families.md).
    int64_t decode_path_max_tokens = 1;
    // The backend is FlashMLA: its decode path costs flashmla_decode_overhead_us more than FlashAttention MLA's.
    bool flashmla = false;
};
// `batch` identical requests of `new_tokens` tokens each on `cached` cached ones; decode = one token each over
// `cached` + 1 keys.
struct MlaBatch {
    int64_t batch = 0, new_tokens = 0, cached = 0;
    bool decode = false;
};
// The whole MLA module as its benchmark times it (decode: warm weights and latent cache are L2 hits where they
// fit); called by `compare` only, not by the step model.
double mla_module_us(const gpu::GpuProfile& gpu, const MlaShape& s, const MlaBatch& b);
// The query heads FlashMLA's sparse kernels (DSA, prefill and decode) compute for `heads` on a TP rank: whole blocks
// of 64 heads on Hopper and earlier, 128 on Blackwell (vLLM pads a rank's heads up to them). The step model's DSA
// attention sites run the same padded heads.
int64_t sparse_mla_heads(const gpu::GpuProfile& gpu, int64_t heads);
// FlashMLA's sparse prefill gathers every query's own selected keys (their BF16 latent rows, `latent` = kv_lora +
// rope elements: vLLM's flashmla_sparse.py upconverts an FP8 cache to BF16 for the prefill kernel) once per block of
// query heads it runs (sparse_mla_heads): no key is shared between queries as in dense attention, so a 64-head
// block does 2 x 64 x (576 + 512) FLOPs per gathered 1152-byte row, 121 FLOPs per byte, below the ridge of Hopper
// (295) and Blackwell (242 at 128 heads, ridge 281): the gathers bound it. Launch plus the gathered bytes of
// `pairs` (query, selected key) pairs at the streaming bandwidth; the sparse prefill is the larger of this and its
// FLOPs. The step model's DSA prefill site takes the same bound.
double sparse_prefill_gather_us(const gpu::GpuProfile& gpu, int64_t padded_heads, int64_t latent, double pairs);
// The attention kernel alone (absorbed for decode, K/V up-projected for prefill).
double mla_attention_us(const gpu::GpuProfile& gpu, const MlaShape& s, const MlaBatch& b);

// The recurrent-state layers' kernels (Gated DeltaNet, Mamba2): `batch` sequences of `seq_len` new tokens each
// (decode: one token each). The causal depthwise convolution over the conv channels (2 key_heads key_dim +
// value_heads value_dim), and the scan: chunked for prefill, one recurrent update per token for decode.
// How the prefill conv kernel tiles its work (the engine's kernel, docs/kernel-families.md): vLLM's and SGLang's
// Triton causal_conv1d_fn runs one program per 8 tokens x 256 channels of a sequence; TensorRT-LLM's CUDA
// causal_conv1d_fwd (Tri Dao's kernel) one CTA of 128 threads per (sequence, channel), walking the sequence in
// chunks of 1024 tokens. Either way the programs run in waves of the SMs' resident CTAs, each wave with the fixed
// time of one CTA (`recurrent_launch_us`: launch, weights and conv state, the first load's round trip), on top of
// streaming the inputs and outputs.
// The chunked prefill scan on Hopper and Blackwell is FlashInfer's fused kernel: one program per (sequence, value
// head) walks its chunks in order, in waves of the SMs (`gdn_prefill_program_us` per program and wave); elsewhere
// fla's Triton pipeline spread over the SMs. The benchmark's conv update, like the decode states below, re-reads
// warm buffers that fit the L2.
// recurrent_scan_us times the decode kernel as a benchmark does (AIConfigurator's families files): the same
// state buffers every call, so a batch's fp32 states that fit the L2 (`l2_cache_mb`) are read and written as L2
// hits at `l2_bandwidth_per_sm_gbs` x SMs. The step model's recurrent core (below) runs every other layer
// between two calls of one layer, whose weights and states flush the L2: it streams its states from memory. The
// benchmark's prefill conv streams warm inputs and outputs that fit the L2 at `l2_stream_bandwidth_per_sm_gbs` x SMs
// (where that beats memory: GDDR parts); the step model's conv streams from memory (docs/kernel-families.md).
enum class ConvKernel { token_blocks, channel_ctas };
double causal_conv_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, int64_t batch, int64_t seq_len,
                      bool decode, ConvKernel kernel = ConvKernel::token_blocks);
double recurrent_scan_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, int64_t batch, int64_t seq_len,
                         bool decode);
// The recurrent core of one layer as the step model times it (its kernel site): the conv and the chunked scan of
// `tokens` new tokens over `sequences` prefill sequences, or the conv update and recurrent update of `requests`
// decodes (the sums of the two functions above). `longest`: the new tokens of the longest sequence, whose chunks
// are the fused prefill's critical path (0: the mean, tokens / sequences).
double recurrent_core_prefill_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, double tokens,
                                 double sequences, double longest = 0);
double recurrent_core_decode_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, double requests);

// DeepEP dispatch plus combine of one MoE layer: `tokens` per GPU, each to `topk` of `experts` experts over `gpus`
// GPUs (8 per node).
struct DeepEpShape {
    double tokens = 0;
    int64_t hidden = 0, topk = 0, experts = 0, gpus = 0;
    bool low_latency = false;
};
double deepep_us(const gpu::GpuProfile& gpu, const DeepEpShape& s);

}  // namespace mfusim::roofline
