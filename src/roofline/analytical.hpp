// The analytical efficiency model: kernel times from the GPU's datasheet figures and a few fitted constants of
// its profile, used where no table covers a GPU or shape, and as the shape model that carries a nearest table's
// measurement to a neighbouring shape (src/roofline/kernels.hpp, "Calibration"). Pure functions of their arguments.
// All times are microseconds, per GPU. docs/roofline.md derives each formula.
#pragma once

#include <cstdint>

#include "gpu/gpu_profile.hpp"

namespace mfusim::roofline {

// Tile shapes (rows x columns of C) the GEMM model lets a cuBLAS/CUTLASS-like heuristic choose from, both
// orientations: the SM80/SM90 kernels' common CTA tiles.
inline constexpr int kGemmTiles[][2] = {{128, 256}, {128, 128}, {64, 128}, {64, 64}};
// Split-K factors a non-grouped GEMM may use when its tiles do not fill the GPU (each split keeps >= 128 of k).
inline constexpr int kSplitK[] = {1, 2, 3, 4, 6, 8, 12, 16};
inline constexpr int64_t kSplitKMinK = 128;

// FlashAttention tile (query rows x key columns) of a profile without its own (attention_block_q/k): FA3's tile
// for head_dim <= 128.
inline constexpr int64_t kAttentionBlockQ = 128;
inline constexpr int64_t kAttentionBlockK = 128;
// Chunk length of the chunked Gated-DeltaNet prefill kernels (flash-linear-attention).
inline constexpr int64_t kGdnChunk = 64;

// The HBM bytes per microsecond streaming reads achieve (datasheet bandwidth x memory_efficiency).
double bandwidth_bytes_per_us(const gpu::GpuProfile& gpu);
// (c^p + m^p)^(1/p): how far a kernel near its ridge point is held back by both compute and memory.
double soft_max(double c, double m, double p);

// Element sizes and peak of one GEMM precision.
struct GemmPrecision {
    double a_bytes = 2;  // activations in
    double b_bytes = 2;  // weights
    double c_bytes = 2;  // output
    double peak_flops = 0;
    double plateau = 0;  // MFU of a large well-shaped GEMM (gemm_max_efficiency[_fp8])
    // Fused MoE only: the experts run vLLM's Marlin kernels (warp-level mma.sync; families.hpp, moe_runs_marlin).
    bool marlin = false;
    // Fused MoE only: its passes cover every pair of the layer under expert parallelism, the other ranks' too
    // (vLLM's Triton fused_moe; families.hpp, moe_passes_all_pairs).
    bool all_pairs = false;
    // Fused MoE only: the experts run FlashInfer's TRT-LLM-gen grouped GEMMs (families.hpp, moe_runs_trtllm_gen),
    // whose tcgen05 MMA takes an expert's weight rows on M and its tokens on N: token tiles from 8 rows, not 16, up
    // to this many (the launcher's tile ladder for the format; families.hpp, moe_token_tile_max). 0: tokens on M.
    int tokens_on_mma_n = 0;
    // Fused MoE only: MXFP4 weights on TRT-LLM-gen, at moe_mxfp4_gemm_efficiency where the GPU states one.
    bool mxfp4_weights = false;
    // Fused MoE only: a separate pass gathers every routed pair's hidden row into expert order before the first GEMM,
    // reading the BF16 hidden states and writing the GEMM's activation type (FlashInfer's CUTLASS MoE,
    // `expandInputRowsKernel`; families.cpp, projection_us). TRT-LLM-gen gathers inside its first GEMM instead.
    bool expands_rows = false;
    // Fused MoE only: vLLM's Marlin MoE under expert parallelism: its activation, its down output's zeroing and its
    // top-k sum pass over every pair of the layer (families.cpp, projection_us). Set from a kernel file's
    // kernel_source only (MoeShape::marlin); the step's Marlin experts do not take it.
    bool marlin_all_pairs = false;
    // Fused MoE only: the experts run the CUTLASS MoE's SM90 grouped GEMM (families.hpp, moe_runs_cutlass_sm90):
    // wgmma at every token tile (the tokens on its N, tokens_on_mma_n), tiles from 16 tokens, at
    // moe_cutlass_gemm_efficiency where the GPU states one.
    bool cutlass_sm90 = false;
    // Fused MoE only: the CUTLASS MoE on its untuned fallback tactic (families.hpp, use_cutlass_fallback_tile): one
    // tile shape, 128 tokens on the MMA's M by this many weight columns (Hopper 16, Blackwell 128, NVFP4 64), each
    // paying moe_fallback_tile_us. 0: the tiles are minimised over shapes.
    int fallback_tile = 0;
    // Fused MoE only: the un-permute after the down GEMM costs what reading every pair's BF16 row of the layer costs,
    // the other EP ranks' pairs too: a measured floor of FlashInfer's MoE on Blackwell whose kernel is not found
    // (families.cpp, fused_moe_us). Set for a kernel file's row only; the step's experts do not take it.
    bool finalize_all_pairs = false;
    // K elements per block of weight scales (block FP8: 128; 0: none). The fused MoE applies them to every tile's
    // partial accumulator outside the MMA, a round trip each at moe_scale_block_step_us; on Ada a block-FP8 GEMM runs
    // vLLM's Triton block-scaled kernel (families.cpp, gemm_us).
    int scale_block_k = 0;
};
GemmPrecision bf16_gemm(const gpu::GpuProfile& gpu);
GemmPrecision fp8_gemm(const gpu::GpuProfile& gpu);  // FP8 in, bf16 out
// NVFP4 weights and activations (W4A4: the activations quantized to NVFP4 on the fly), bf16 out, on FP4 tensor
// cores at the FP8 plateau (no FP4 kernel is measured here: gemm_max_efficiency_fp8 stands in).
GemmPrecision fp4_gemm(const gpu::GpuProfile& gpu);

struct GemmCost {
    double time_us = 0;     // launch + soft maximum of compute and memory
    double compute_us = 0;  // wave-quantized tile time at the plateau
    double memory_us = 0;   // bytes of A, B and C at the achievable bandwidth
    double bytes = 0;
    double flops = 0;
};

// `groups` independent GEMMs of m x k by k x n (a grouped MoE GEMM: groups = active experts, m = tokens per
// expert; both may be fractional expectations). Time = kernel_launch_us + (compute^4 + memory^4)^(1/4): a soft
// maximum, because a kernel near the ridge point is held back by both. Compute: waves = ceil(tiles / SMs) of
// one tile's k-loop at the plateau, minimised over the tile shapes (and split-K for a single GEMM).
GemmCost gemm_analytical(const gpu::GpuProfile& gpu, const GemmPrecision& precision, double groups, double m, int64_t k,
                         int64_t n);

// The attention kernel one GPU runs for one layer.
struct AttentionGeometry {
    int64_t q_heads = 0;            // per GPU
    int64_t kv_heads = 0;           // per GPU (MLA: 1, the shared latent)
    int64_t qk_dim = 0;             // per head (MLA decode: kv_lora_rank + rope dim)
    int64_t v_dim = 0;              // per head (MLA decode: kv_lora_rank)
    double kv_bytes_per_token = 0;  // KV-cache bytes one token holds in this layer on this GPU
    double activation_bytes = 2;    // q/o element size
};

// Work of the prefill chunks of one step, accumulated request by request (add_prefill_chunk), then timed once:
// every chunk runs in the same varlen kernel. The new tokens' memory traffic adds to the compute (the cache write
// is its own kernel; query loads and output stores are each tile's prologue and epilogue): measured, overlapping
// it made MHA batches 30-40% too fast on H100, A100 and B200 alike (docs/roofline.md section 3). The cached
// prefix's K/V streams under the compute; a chunk whose prefix reads outweigh its compute (a few new tokens over a
// long context) keeps that excess on the critical path.
struct PrefillWork {
    double tile_blocks = 0;       // sum over (query tile, head) of the KV blocks it visits plus its overhead
    double max_tile_blocks = 0;   // the longest single tile (the tail a wave cannot hide)
    double flops = 0;             // causal: 2 * heads * (qk + v) * sum over chunk rows of their keys
    double flops_span = 0;        // sum of flops * (context + new) : for the FLOP-weighted mean span
    double bytes = 0;             // q, o, new K/V (read and cache write), cached K/V read once
    double serial_memory_us = 0;  // memory time of the new tokens' traffic (q, o, new K/V, cache write)
    double hidden_memory_us = 0;  // sum over chunks of min(prefix read time, compute share)
    double excess_memory_us = 0;  // sum over chunks of max(0, prefix read time - compute share)
    double chunks = 0;

    // Adds `count` copies of `one` (identical chunks): every field is a sum over chunks but the longest tile.
    void add_copies(const PrefillWork& one, double count);
};
// Per-geometry constants of the prefill model (computed once per site).
struct PrefillConstants {
    double block_us = 0;      // one (BQ x BK) tile block at the head-size efficiency, on one SM
    double bytes_per_us = 0;  // achievable HBM bandwidth
    double overhead_blocks = 0;
    double sms = 1;
    double block_q = static_cast<double>(kAttentionBlockQ), block_k = static_cast<double>(kAttentionBlockK);
    bool pack_gqa = true;  // short chunks share a tile among a KV group's query heads (not TRT-LLM FMHA)
};
PrefillConstants prefill_constants(const gpu::GpuProfile& gpu, const AttentionGeometry& g, double peak_flops);
void add_prefill_chunk(const PrefillConstants& k, const AttentionGeometry& g, PrefillWork& work, int64_t new_tokens,
                       int64_t context);
// A bidirectional (non-causal) sequence of `tokens` queries over the same `tokens` keys, none cached: a vision
// encoder's attention over one image or window (flash-attention varlen with causal off). Every query tile visits
// every key block; q, o and K/V are read or written once.
void add_bidirectional_chunk(const PrefillConstants& k, const AttentionGeometry& g, PrefillWork& work, int64_t tokens);
// Convenience: constants at the BF16 peak (attention always runs in BF16).
void add_prefill_chunk(const gpu::GpuProfile& gpu, const AttentionGeometry& g, PrefillWork& work, int64_t new_tokens,
                       int64_t context);
// Effective MFU of a tile at this head size: attention_max_efficiency scaled by d/(d + d0) relative to d = 128, the
// softmax part (d0) divided by exp_throughput_scale.
double attention_tile_efficiency(const gpu::GpuProfile& gpu, const AttentionGeometry& g);
// attention_launch_us + body + excess memory; body = max(compute, hidden prefix reads) + the new tokens' memory
// time, compute = max(tile_blocks / SMs, max_tile_blocks) * block time.
double prefill_attention_us(const gpu::GpuProfile& gpu, const AttentionGeometry& g, double peak_flops,
                            const PrefillWork& work);
double prefill_attention_us(const gpu::GpuProfile& gpu, const PrefillConstants& k, const PrefillWork& work);
// The same time in its three parts: launch + body + excess. Tables calibrate
// the body (what a benchmark of the kernel measures beyond its launch); memory excess stays analytical.
struct PrefillParts {
    double launch_us = 0, body_us = 0, excess_us = 0;
};
PrefillParts prefill_attention_parts(const gpu::GpuProfile& gpu, const PrefillConstants& k, const PrefillWork& work);

// Decode tokens of one step: one query each over its context, or under speculative decoding `queries` each (the
// verify of k drafts: k + 1 queries over the same keys, which the kernel reads once per request).
struct DecodeWork {
    double requests = 0;
    double kv_tokens = 0;  // sum over requests of (context + 1): the keys each one reads, its own included
    double queries = 1;    // query tokens per request
};
double decode_attention_flops(const AttentionGeometry& g, const DecodeWork& work);
double decode_attention_bytes(const AttentionGeometry& g, const DecodeWork& work);
// attention_launch_us + per-(sequence, KV head) fixed work / SMs + max(KV bytes / bandwidth, FLOPs / plateau).
double decode_attention_us(const gpu::GpuProfile& gpu, const AttentionGeometry& g, double peak_flops,
                           const DecodeWork& work);

// The core of one recurrent-state layer on one GPU: Gated DeltaNet (linear attention) or a Mamba2 mixer. Both keep
// per request a fixed state of value_heads x key_dim x value_dim in fp32 plus a short causal-conv state, read and
// written once per decode step and once per prefill chunk, and run prefill as a chunked scan; they differ only in
// the multiply-adds per token, so one cost model with these parameters times both. Mamba2 maps onto it as
// key_heads = n_groups (B and C play k and q), key_dim = ssm_state_size, value_heads = mamba_num_heads,
// value_dim = mamba_head_dim: its conv channels (d_inner + 2 n_groups d_state) and state are then the same sums.
struct LinearAttentionGeometry {
    int64_t key_heads = 0, value_heads = 0;  // per GPU
    int64_t key_dim = 0, value_dim = 0, conv_kernel = 0;
    // Per token and value head, state-sized (key_dim x value_dim) multiply-adds: Gated DeltaNet 3 (k^T S for the
    // delta, the rank-1 update, the q S readout), Mamba2 2 (B x^T into the state, the C readout).
    double state_products = 3;
    // Chunk-local multiply-adds per token: chunk_products * chunk * (score_heads * key_dim + value_heads *
    // value_dim), the scores against the chunk's keys and their product with its values. Gated DeltaNet: 2 (QK^T
    // and KK^T, then the WY products), scores per value head (score_heads 0 means value_heads); Mamba2's SSD: 1,
    // C B^T computed once per group (score_heads = n_groups), then applied to x per head.
    double chunk_products = 2;
    int64_t chunk = kGdnChunk;
    int64_t score_heads = 0;
    // Gated DeltaNet's prefill: vLLM runs FlashInfer's fused chunk_gated_delta_rule where it is built (Hopper,
    // Blackwell; src/roofline/families.cpp). Mamba2's SSD and Kimi Delta Attention's chunk_kda are Triton kernels.
    bool flashinfer_prefill = false;
};
// Bytes of the per-request state one such layer holds on one GPU: the fp32 recurrent state and the bf16 conv state
// of the last conv_kernel - 1 inputs of every conv channel.
double recurrent_state_bytes(const LinearAttentionGeometry& g);
struct LinearAttentionWork {
    double prefill_tokens = 0, prefill_sequences = 0, decode_requests = 0;
};
double linear_attention_flops(const LinearAttentionGeometry& g, const LinearAttentionWork& w);
double linear_attention_bytes(const LinearAttentionGeometry& g, const LinearAttentionWork& w);

// DeepSeek Sparse Attention's lightning indexer in one layer on one GPU: every query's index_n_heads FP8 heads
// scored against all its keys (one FP8 head of index_head_dim each), summed with per-head weights, and the top-k
// keys selected. vLLM and SGLang replicate the indexer on every TP rank, so the geometry is not sharded.
// Block-sparse attention's indexer (config::BlockSparseAttention) is the same scoring with bf16 keys and BF16 math.
struct IndexerGeometry {
    int64_t heads = 0, head_dim = 0;
    double key_bytes = 0;  // indexer-cache bytes of one key: FP8 key and fp32 scale (DSA), bf16 key (block-sparse)
    bool fp8 = true;       // scored at the FP8 peak where the GPU has one (DSA's DeepGEMM kernels); else BF16
};
// The scoring of one kind of query (prefill chunks or decode tokens: separate kernels in vLLM).
struct IndexerWork {
    double queries = 0;
    double pairs = 0;      // query-key pairs scored: causal within a chunk
    double keys_read = 0;  // keys streamed from the indexer cache: once per decode request, once per prefill chunk
};
double indexer_flops(const IndexerGeometry& g, const IndexerWork& w);
double indexer_bytes(const IndexerGeometry& g, const IndexerWork& w);
// Two launches (scoring, top-k) + max(bytes / bandwidth, FLOPs / (FP8 peak x attention_max_efficiency)). The top-k
// selection's own pass over the logits is folded into the scoring pass; 0 without queries.
double indexer_us(const gpu::GpuProfile& gpu, const IndexerGeometry& g, double peak_flops, const IndexerWork& w);

// One NCCL all-reduce of `bytes` over `tp` GPUs: allreduce_latency_us + 2(tp-1) allreduce_hop_latency_us plus
// the transfer: over NVLink (tp within the NVLink domain) the faster of a ring (2(tp-1)/tp of the message per GPU at
// nvlink_efficiency of one direction) and, with NVLink 4+ behind a switch, NVLS (the message once at
// nvls_efficiency); across NVLink domains (GpuProfile::spans_domains) a ring whose channels leave each domain
// through its GPUs' NICs in parallel (the group's GPUs in a domain x network_bandwidth_gbs, or NVLink's ring where
// slower; network_latency_us per domain crossing); otherwise a ring over PCIe at pcie_efficiency.
// 0 for tp <= 1.
double nccl_allreduce_us(const gpu::GpuProfile& gpu, double bytes, int64_t tp);
// vLLM's custom all-reduce (CUDA-graph captured; what vLLM runs below its max_size, 8 MiB by default, where all
// GPUs are NVLink peers): custom_allreduce_latency_us + (tp-1) custom_allreduce_peer_us + the bytes it moves
// (one-shot: (tp-1) x message; two-shot: 2(tp-1)/tp x message) at custom_allreduce_efficiency of one NVLink
// direction. Where vLLM cannot run it (more than two GPUs without NVLink) it is the NCCL time. 0 for tp <= 1.
// The size switch between the two belongs to the engine model.
double custom_allreduce_us(const gpu::GpuProfile& gpu, double bytes, int64_t tp);
// The TP all-reduce of the roofline step model: NCCL alone (nccl_allreduce_us), until an engine model chooses.
double allreduce_us(const gpu::GpuProfile& gpu, double bytes, int64_t tp);

// Expected distinct experts hit by `tokens` tokens routing to `topk` of `experts` each (uniform routing):
// E * (1 - (1 - k/E)^T).
double expected_active_experts(double experts, double topk, double tokens);

}  // namespace mfusim::roofline
