// The roofline model's constants per GPU architecture. Each generation runs its own kernels (cuBLAS/CUTLASS
// generation, FlashAttention-2 / -3 / FlashInfer-TRT-LLM attention, NCCL and vLLM custom all-reduce over its
// NVLink generation), so each has its own set; a SKU takes its architecture's set and its own datasheet figures
// (peaks, bandwidths, SMs, NVLink), never a per-SKU fit.
//
// Fitted sets: by `mfusim calibrate --kernels` (src/calibrate/kernel_fit) on the train half of the shapes (split by
// shape key, see compare::split_of) of ../shared/reference/measured/aic-{h100,a100,b200} and aic-*-custom-allreduce,
// with the analytical model alone, minimising per family the median |pred/meas - 1| plus the |median signed error|,
// then rounded. The test halves are reported in docs/roofline.md section 5.
#include <string>

#include "gpu/gpu_profile.hpp"

namespace mfusim::gpu {

namespace {

struct ArchConstants {
    AttentionKernel attention_kernel;
    double memory_efficiency;
    double nvlink_efficiency, nvls_efficiency, pcie_efficiency;
    double allreduce_latency_us, allreduce_hop_latency_us, allreduce_ll_efficiency, allreduce_simple_latency_us;
    double custom_allreduce_latency_us, custom_allreduce_peer_us, custom_allreduce_efficiency;
    double gemm_max_efficiency, gemm_max_efficiency_fp8, gemm_overlap_exponent, kernel_launch_us;
    double attention_max_efficiency, attention_softmax_head_dim, attention_tile_overhead_blocks;
    double attention_launch_us, decode_cta_overhead_us, decode_cta_bandwidth_gbs;
    double attention_block_q, attention_block_k;
};

// Hopper (H100 SXM, aic-h100: vLLM 0.24 kernels: cuBLAS GEMM, FA3 attention, NCCL with NVLS on 8 GPUs). The
// kernel constants are the earlier H100 fit (docs/roofline.md section 4), unchanged but for prefill attention, refitted
// when the new tokens' memory traffic stopped overlapping its compute (test half 10.9% -> 8.2%).
//  - memory 0.87: GEMV-like GEMMs (m <= 64) stream 0.85-0.89 of HBM3's 3.35 TB/s, decode 0.88-0.93.
//  - NCCL: 6 us + 0.75 us per ring step (6.3/9.9/15.8 us at 2/4/8 GPUs); ring bus bandwidth 0.7 of one NVLink
//    direction (320 GB/s on 2 GPUs); NVLS 0.45 of 450 GB/s (fitted on the train half: 1 GB messages reach 0.56,
//    mid-size ones, where NCCL still runs LL128 rings or NVLS with its setup cost, less).
//  - custom all-reduce: 4.1 us + 0.2 us per peer (4.2-4.7 us measured at 2-8 GPUs); its peer reads at 0.8 of one
//    NVLink direction (4 MB one-shot on 2 GPUs in 20 us); fitted on the train half.
//  - GEMM plateau 0.8 of 989 TFLOP/s (cuBLAS 0.80-0.89), launch 2.5 us (smallest GEMM 2.45 us), soft maximum
//    p = 4: Hopper's TMA / warp-specialised kernels overlap loads with MMAs well.
//  - FA3: 0.7 long-sequence MFU at head_dim 128 (tile 128 x 128), softmax head dim 64 (FA3 paper ratios),
//    2 blocks of tile prologue/epilogue besides the new tokens' memory time, 8.5 us per attention call, 3 SM-us per
//    (request, KV head) in decode.
constexpr ArchConstants kHopper{.attention_kernel = AttentionKernel::fa3,
                                .memory_efficiency = 0.87,
                                .nvlink_efficiency = 0.7,
                                .nvls_efficiency = 0.45,
                                .pcie_efficiency = 0.8,
                                .allreduce_latency_us = 6,
                                .allreduce_hop_latency_us = 0.75,
                                .allreduce_ll_efficiency = 0,  // one protocol: the H100 fit
                                .allreduce_simple_latency_us = 0,
                                .custom_allreduce_latency_us = 4.1,
                                .custom_allreduce_peer_us = 0.2,
                                .custom_allreduce_efficiency = 0.8,
                                .gemm_max_efficiency = 0.8,
                                .gemm_max_efficiency_fp8 = 0.65,
                                .gemm_overlap_exponent = 4,
                                .kernel_launch_us = 2.5,
                                .attention_max_efficiency = 0.7,
                                .attention_softmax_head_dim = 64,
                                .attention_tile_overhead_blocks = 2,
                                .attention_launch_us = 8.5,
                                .decode_cta_overhead_us = 3,
                                .decode_cta_bandwidth_gbs = 0,  // FA3: no per-CTA limit modelled (H100 fit)
                                .attention_block_q = 128,
                                .attention_block_k = 128};

// Ampere (A100 SXM 80GB, aic-a100: vLLM 0.14 kernels: cuBLAS GEMM, FA2, NCCL ring - no NVLS on NVLink 3).
//  - memory 0.7: HBM2e streams at ~0.7 of 2.04 TB/s in memory-bound GEMMs (the "73%"), against HBM3's
//    0.87 on Hopper; FA2 decode follows the same figure.
//  - GEMM: plateau 0.9 (large bf16 cuBLAS GEMMs reach 284 of 312 TFLOP/s), launch 4 us (vLLM 0.14's smallest
//    kernels), soft maximum p = 2: Ampere's cp.async pipelines overlap loads with MMAs less well than Hopper's TMA,
//    so kernels near the ridge point lose more (the mid-size GEMMs were 20% too fast with p = 4).
//  - FA2 prefill: tile 128 x 64 (FA2's sm80 forward tile at head_dim 128), long-sequence MFU 0.6, no tile
//    prologue/epilogue beyond the new tokens' memory time (which adds to the compute), no pack-GQA (FA2 swaps a KV
//    group's query heads into one tile only for 1-token queries, its decode path). 9 us per attention call, prefill and
//    decode alike.
//  - FA2 decode (src/roofline/analytical.cpp): one CTA per (request, KV head), split over the KV only when those
//    CTAs fill less than 0.8 of 2 per SM (FA2's num_splits_heuristic); a CTA streams its KV slice at 32 GB/s at
//    most (a batch-1 MHA decode over 64k keys takes 1.5 ms: 22 GB/s with its fixed work; fitted 28-40 equally
//    good), 3.5 SM-us of fixed work each, overlapped with the HBM stream.
//  - NCCL, two protocols, the faster taken (NCCL's tuner): LL, 8.5 us + 1 us per ring step (10/14/22 us measured
//    at 2/4/8 GPUs) at 0.15 of 300 GB/s (256-512 KB on 2 GPUs: ~50 GB/s); Simple, 40 us + the same steps at 0.65
//    (the 2-GPU time doubles from 19 us at 512 KB to 41 us at 1 MB; 512 MB reach 0.64-0.74).
//  - custom all-reduce: 5 us + 0.1 us per peer (4.9-5.7 us), peer reads at 0.6 of one NVLink 3 direction.
//  All fitted on the train half of aic-a100 and aic-a100-custom-allreduce.
constexpr ArchConstants kAmpere{.attention_kernel = AttentionKernel::fa2,
                                .memory_efficiency = 0.7,
                                .nvlink_efficiency = 0.65,
                                .nvls_efficiency = 0.5,  // unused: NVLS needs NVLink 4
                                .pcie_efficiency = 0.8,
                                .allreduce_latency_us = 8.5,
                                .allreduce_hop_latency_us = 1,
                                .allreduce_ll_efficiency = 0.15,
                                .allreduce_simple_latency_us = 40,
                                .custom_allreduce_latency_us = 5,
                                .custom_allreduce_peer_us = 0.1,
                                .custom_allreduce_efficiency = 0.6,
                                .gemm_max_efficiency = 0.9,
                                .gemm_max_efficiency_fp8 = 0.65,  // unused: no FP8 before Ada
                                .gemm_overlap_exponent = 2,
                                .kernel_launch_us = 4,
                                .attention_max_efficiency = 0.6,
                                .attention_softmax_head_dim = 64,  // unfitted: aic-a100 measures head_dim 128 only
                                .attention_tile_overhead_blocks = 0,
                                .attention_launch_us = 9,
                                .decode_cta_overhead_us = 3.5,
                                .decode_cta_bandwidth_gbs = 32,
                                .attention_block_q = 128,
                                .attention_block_k = 64};

// Ada (L40S, L4; aic-l40s: vLLM 0.24 kernels (cuBLAS GEMM, FA2 attention), NCCL 2.27 over PCIe, no NVLink):
// Ampere's kernel families (FA2's sm80 code, cuBLAS, cp.async pipelines) with their constants fitted on the train
// half of aic-l40s (before: Ampere's constants with a judged GDDR6 efficiency of 0.8; test half GEMM 22.1 -> 12.6%,
// decode 42.3 -> 14.7%, prefill 19.7 -> 17.3%, NCCL 48.7 -> 14.0% median |error|, docs/kernel-families.md):
//  - GDDR6 streams at 0.87 of 864 GB/s (the 96 MB L2 holds small operands); GEMM plateau 0.65 of 362 TFLOP/s
//    (Ada's BF16 tensor rate is reached only by large tiles; clocks fall under load), launch 2 us, soft max p 2.85.
//  - FA2: 0.75 long-sequence MFU, softmax head dim 122 (Ada's exponent units are few for its tensor rate), no tile
//    overhead, 7 us per call, 1.8 SM-us per (request, KV head), CTA streaming limit 32 GB/s as on Ampere.
//  - NCCL over PCIe Gen4 without NVLink: 4 us + 1 us per ring step; the GPUs' traffic shares the host bridges (the
//    time per byte grows as the pairs of GPUs, src/roofline/analytical.cpp) at 0.6 of one PCIe direction.
constexpr ArchConstants kAda = [] {
    ArchConstants a = kAmpere;
    a.memory_efficiency = 0.87;
    a.gemm_max_efficiency = 0.65;
    a.kernel_launch_us = 2;
    a.gemm_overlap_exponent = 2.85;
    a.decode_cta_overhead_us = 1.8;
    a.attention_launch_us = 7;
    a.attention_max_efficiency = 0.75;
    a.attention_tile_overhead_blocks = 0;
    a.attention_softmax_head_dim = 122;
    a.allreduce_latency_us = 4;
    a.allreduce_hop_latency_us = 1;
    a.pcie_efficiency = 0.6;
    return a;
}();

// Blackwell (B200, aic-b200: vLLM 0.24: torch linear (cuBLAS) GEMM, FlashInfer TRT-LLM prefill/decode FMHA,
// NCCL with NVLS over NVLink 5).
//  - memory 0.75 of 8 TB/s HBM3e; GEMM plateau 0.7 of 2250 TFLOP/s, launch 2 us, soft maximum p = 2 (cuBLAS on
//    B200 under torch: mid-size GEMMs near the ridge point lose as on Ampere).
//  - TRT-LLM FMHA: a CTA holds two 128-row query tiles (two softmax warpgroups ping-pong over one 128-key MMA
//    tile, as in CUTLASS's SM100 FMHA: cta_tiler = 2 x mma_tiler), so the tile is 256 x 128 (128 x 128 fitted
//    worse: 11.5% against 9.2% on the test half; on H100, whose FA3 holds 128 rows, 256 is worse: 8.2 -> 9.9%).
//    Long-sequence MFU 0.575, softmax head dim 224 (the tensor cores doubled while the exponent units did not:
//    softmax weighs 3.5 times as much relative to the matmuls as on Hopper; head_dim 64 runs at 0.61 and 256 at
//    1.47 of head_dim 128), 1.5 blocks of tile prologue/epilogue besides the new tokens' memory time, no pack-GQA
//    (every query head has its own tiles: src/roofline/analytical.cpp), 7 us per call; read as the tiles' matmul
//    and softmax times, the constants put the exponentials at 4.0e12/s, the SFUs' rate (B300's datasheet doubles
//    it: exp_throughput_scale),
//    1.5 SM-us per (request, KV head) in decode (the batch-growing +24% bias came from Hopper's 3).
//  - NCCL: 9 us + 1.25 us per ring step (10/15/25 us), ring at 0.5 and NVLS at 0.4 of 900 GB/s.
//  - custom all-reduce: 7 us + 0.1 us per peer (6.6-7.4 us), peer reads at 0.6 of one NVLink 5 direction.
//  All fitted on the train half of aic-b200 and aic-b200-custom-allreduce.
constexpr ArchConstants kBlackwell{.attention_kernel = AttentionKernel::trtllm,
                                   .memory_efficiency = 0.75,
                                   .nvlink_efficiency = 0.5,
                                   .nvls_efficiency = 0.4,
                                   .pcie_efficiency = 0.8,
                                   .allreduce_latency_us = 9,
                                   .allreduce_hop_latency_us = 1.25,
                                   .allreduce_ll_efficiency = 0,  // one protocol (NVLS serves the large messages)
                                   .allreduce_simple_latency_us = 0,
                                   .custom_allreduce_latency_us = 7,
                                   .custom_allreduce_peer_us = 0.1,
                                   .custom_allreduce_efficiency = 0.6,
                                   .gemm_max_efficiency = 0.7,
                                   .gemm_max_efficiency_fp8 = 0.65,  // Hopper's DeepGEMM figure; not measured here
                                   .gemm_overlap_exponent = 2,
                                   .kernel_launch_us = 2,
                                   .attention_max_efficiency = 0.575,
                                   .attention_softmax_head_dim = 224,
                                   .attention_tile_overhead_blocks = 1.5,
                                   .attention_launch_us = 7,
                                   .decode_cta_overhead_us = 1.5,
                                   .decode_cta_bandwidth_gbs = 0,  // TRT-LLM decode: no per-CTA limit modelled
                                   .attention_block_q = 256,
                                   .attention_block_k = 128};

const ArchConstants& constants_of(Architecture arch) {
    switch (arch) {
        case Architecture::ampere:
            return kAmpere;
        case Architecture::ada:
            return kAda;
        case Architecture::blackwell:
            return kBlackwell;
        case Architecture::hopper:
        default:
            return kHopper;
    }
}

// The kernel families of large models (src/roofline/families.cpp, docs/kernel-families.md): fitted by `mfusim
// calibrate --kernels` on the train half of ../shared/reference/measured/aic-<gpu>-families (H100: Hopper, B200:
// Blackwell, A100: Ampere, L40S: Ada), then rounded; a family a GPU does not measure takes Hopper's constant (the
// note says which). The test halves are in docs/kernel-families.md.
struct FamilyConstants {
    double moe_overhead_us, moe_gemm_efficiency, moe_mxfp4_gemm_efficiency, warp_mma_tflops_per_sm,
        moe_scale_block_step_us, moe_tile_load_per_sm_gbs;
    double moe_cutlass_gemm_efficiency = 0;   // Hopper only (below); 0: moe_gemm_efficiency
    double moe_fallback_tile_us = 0;          // Hopper and Blackwell (below)
    double moe_weight_stream_efficiency = 0;  // Blackwell only (below); 0: memory_efficiency
    double moe_mxfp4_convert_per_sm_gws = 0;  // Blackwell only (below); 0: no conversion floor
    double moe_tile_min_us = 0;               // Blackwell only (below); 0: no floor per tile
    double mla_gemm_efficiency, mla_quant_gemm_efficiency;
    double mla_module_overhead_us, mla_backend_overhead_us, mla_backend_host_us, flashmla_decode_overhead_us;
    double dsa_decode_overhead_us, dsa_prefill_overhead_us;
    double dsa_quant_projection_host_us, dsa_nvfp4_projection_host_us, dsa_fp8_cache_host_us;
    double dsa_sparse_prefill_efficiency, dsa_fp8_decode_efficiency;
    double gdn_chunk_efficiency, recurrent_launch_us, gdn_prefill_program_us;
    double gdn_pipeline_us, recurrent_memory_efficiency, l2_stream_bandwidth_per_sm_gbs;
    double conv_cta_wave_us, conv_unaligned_wave_factor, conv_token_latency_us;
    double deepep_ll_latency_us, deepep_ll_efficiency, deepep_normal_latency_us, deepep_normal_efficiency;
};

// H100 (vLLM 0.24 Triton / FlashInfer CUTLASS fused MoE, FlashAttention MLA, FlashMLA sparse, FlashInfer GDN,
// SGLang DeepEP on one 8-GPU NVLink node): every family measured.
// `moe_gemm_efficiency` and `warp_mma_tflops_per_sm` refitted together once a grouped-GEMM tile of fewer than 64
// rows ran warp-level mma.sync and the others wgmma (src/roofline/families.cpp grouped_gemm_us): train half of
// aic-h100-families with --configs, scanned 0.3-0.5 x 2.5-6 TFLOP/s per SM x overhead 30-50 us (tile loads 0-400
// GB/s per SM fitted no better): 0.4 x 3.5 at 40 us, moe median 16.7% -> 13.8% (p90 70.7% -> 48.8%). 3.5 x 132
// SMs is 462 TFLOP/s of BF16 mma.sync, 0.47 of wgmma's peak.
// `moe_cutlass_gemm_efficiency`: the CUTLASS MoE's SM90 grouped GEMM (tokens on wgmma's N; families.cpp,
// use_cutlass_sm90_tiles), fitted on the CUTLASS rows of the train half alone (kernel_source
// ..._flashinfer_cutlass_..., per-tensor and block FP8; --configs): 0.25 / 0.27 / 0.3 / 0.33 give 16.0 / 16.0 / 15.9
// / 16.1% median, large batches (> 8,192 tokens) +5 / -1 / -9 / -15% bias. Below moe_gemm_efficiency: the share
// of wgmma's peak its ping-pong grouped kernel sustains over many small problems (Triton's 0.4 has tl.dot's
// BLOCK_SIZE_M tuned per shape, vLLM's configs).
// `moe_tile_load_per_sm_gbs` and `moe_fallback_tile_us` (issue #26): the kernel benchmark's FlashInfer CUTLASS MoE
// runs its untuned fallback tactic for per-tensor FP8 (128 tokens x 16 weight columns per tile; families.cpp,
// moe_runs_cutlass_fallback), whose loads of the whole 128-token box bind where the MMAs of 16 columns cannot hide
// them, plus a fixed time per tile. Fitted together on the train half of aic-h100-families (--configs; moe median):
// rate x tile 80 / 90 / 100 GB/s x 0.8-1.2 us with the loads added to the MMAs 12.2-12.9%; overlapped with them (the
// larger), which leaves Triton's wide tiles MMA-bound, 45 / 50 / 55 x 1.0 us 12.4 / 12.3 / 12.9%, 50 x 0.7 / 1.3 us
// 13.0 / 12.5% (the per-tensor FP8 widening pass it replaces: 13.1%). 50 GB/s x 132 SMs is 6.6 TB/s, about the L2's
// bandwidth. Ampere and Ada, fitted without the load term, set it to 0.
constexpr FamilyConstants kHopperFamilies{.moe_overhead_us = 40,
                                          .moe_gemm_efficiency = 0.4,
                                          .moe_mxfp4_gemm_efficiency = 0,
                                          .warp_mma_tflops_per_sm = 3.5,
                                          .moe_scale_block_step_us = 0,
                                          .moe_tile_load_per_sm_gbs = 50,
                                          .moe_cutlass_gemm_efficiency = 0.3,
                                          .moe_fallback_tile_us = 1.0,
                                          .mla_gemm_efficiency = 0.6,
                                          .mla_quant_gemm_efficiency = 0.32,
                                          .mla_module_overhead_us = 76,
                                          .mla_backend_overhead_us = 80,
                                          .mla_backend_host_us = 80,
                                          .flashmla_decode_overhead_us = 40,
                                          .dsa_decode_overhead_us = 80,
                                          .dsa_prefill_overhead_us = 1300,
                                          .dsa_quant_projection_host_us = 60,
                                          .dsa_nvfp4_projection_host_us = 180,
                                          .dsa_fp8_cache_host_us = 40,
                                          .dsa_sparse_prefill_efficiency = 0.9,
                                          .dsa_fp8_decode_efficiency = 0.58,
                                          .gdn_chunk_efficiency = 0.44,
                                          .recurrent_launch_us = 2.2,
                                          .gdn_prefill_program_us = 6.6,
                                          .gdn_pipeline_us = 18.5,
                                          .recurrent_memory_efficiency = 0,
                                          .l2_stream_bandwidth_per_sm_gbs = 18,
                                          .conv_cta_wave_us = 1.75,
                                          .conv_unaligned_wave_factor = 1.4,
                                          .conv_token_latency_us = 0,
                                          .deepep_ll_latency_us = 22,
                                          .deepep_ll_efficiency = 0.5,
                                          .deepep_normal_latency_us = 60,
                                          .deepep_normal_efficiency = 0.63};
// B200 (vLLM 0.24 FlashInfer TRT-LLM fused MoE, FlashInfer MLA, FlashMLA sparse, FlashInfer GDN, DeepEP); no MLA
// kernel-alone file: Hopper's backend overheads.
// `moe_scale_block_step_us`: block FP8's round trip per 128-wide K block of a tile (the partial accumulator read back
// and scaled outside tcgen05's MMA, in series with the next block's MMAs; src/roofline/families.cpp
// grouped_gemm_us). Refitted with `moe_gemm_efficiency` once the tiles were TRT-LLM-gen's (tcgen05's 128 weight rows,
// the launchers' token-tile ladders) and the round trips added to the MMAs instead of overlapped: train half of
// aic-b200-families scanned (efficiency 0.45 / 0.5 / 0.55 x step 0.15 / 0.2 / 0.25 us: moe median 16.9-17.3%, bias
// -6.5% to -0.7%; 0.285 / 0.35 overlapped, as before, 17.2% / +1.7%): 0.5 and 0.2. Measured at large batches the
// BF16 and FP8 kernels reach 0.4-0.6 of their peaks, which 0.285 of the 0.7 plateau put at 0.2 (+45-62% there).
// `warp_mma_tflops_per_sm` (Marlin) rescaled with it so that Marlin's rate (its product with the efficiency) stays
// (5.5 x 0.285 / 0.5; train half 2.8 / 3.1 / 3.4: int4 bias +0.6 / -7.6 / -14.7%, -8.4% before).
// Hopper's block FP8 (Triton, FlashInfer CUTLASS) takes no round trip: its rows were fitted into
// moe_gemm_efficiency without it.
// `moe_mxfp4_gemm_efficiency`: TRT-LLM-gen's MXFP4-weight MoE (MXFP4 x BF16, gpt-oss's default, and MXFP4 x MXFP8)
// does not reach the BF16 / FP8 kernels' large-batch rate: measured MXFP4 x BF16 levels off at 0.54 PFLOP/s (0.24
// of the BF16 peak) from 128 rows per expert on, where BF16 reaches 0.85-1.3; its kernels ship as cubins, so what
// holds it there (the E2M1 -> BF16 conversion before tcgen05, the scale-factor loads) was not read. Scanned on the
// MXFP4 rows of the train half of aic-b200-families (TRT-LLM-gen's, w4a16 and w4a8 together; 0.25 / 0.27 / 0.285:
// median 20.3 / 19.9 / 19.9%, p90 56.5 / 54.9 / 53.4%, bias -7.5 / -10.0 / -11.5%; the whole family 16.2% at each):
// 0.25, the least biased within 0.4 points of the best median, as these rows were too fast at every value (gpt-oss
// serving); 0.285 was every format's before the BF16 / FP8 rate was refitted. 0: `moe_gemm_efficiency`.
// `moe_weight_stream_efficiency`: the fraction of HBM bandwidth the fused MoE kernel streams its experts' weights at
// (families.cpp fused_moe_us; 0 elsewhere: `memory_efficiency`). B200's rows whose time is the weights' stream read
// them at 0.87-0.93 of the datasheet's 8 TB/s on every format and kernel (balanced, 32-256 tokens, every expert
// active: `h=4096 i=2048 k=8/256` BF16 12.9 GB in 1,745-1,778 us, NVFP4 3.6 GB in 518-532 us; `t=1 h=2048 i=5120
// k=22/512` BF16 1.38 GB in 186 us), one read-only stream of TMA bulk loads across every SM, where the dense
// kernels' 0.75 (cuBLAS GEMMs, attention, elementwise) was fitted; the model put those rows +20-24% slow. Scanned
// on the train half of aic-b200-families once the power-law rounding followed the benchmark (0.8 / 0.82 / 0.85 /
// 0.86 / 0.88 / 0.9 / 0.95: moe median 13.5 / 12.9 / 12.6 / 12.6 / 12.7 / 12.9 / 13.3%, bias +1.6 / +0.5 / -1.1 /
// -1.6 / -2.6 / -3.6 / -6.1%): 0.85. Kernel benchmark rows only: the step's experts keep memory_efficiency
// (docs/kernel-families.md, "the experts' weight stream").
// `moe_mxfp4_convert_per_sm_gws` (2026-11-28): TRT-LLM-gen's MXFP4 x BF16 MoE (vLLM's gpt-oss default) widens each
// tile's E2M1 weights to BF16 before tcgen05, whatever the tile's tokens (families.cpp grouped_gemm_us). At decode
// sizes it streams gpt-oss-120b's experts (1.69 GB per layer, every expert active from 32 tokens) in 380-394 us, 0.54
// of the 8 TB/s the W4A8 kernel (E2M1 straight into the MMA) reaches on its rows (0.81) and the BF16 / NVFP4 ones
// (0.87-0.93); the model put those rows 20% (TP 1) to 35% (TP 8) fast. Scanned on the MXFP4 x BF16 rows of the train
// half of aic-b200-families (--configs; 60 / 70 / 80 / 90 / 100 G weights/s per SM: median 18.6 / 17.6 / 16.4 / 15.8 /
// 15.8%, bias +7.6 / +2.3 / -1.7 / -3.9 / -5.0%; none 19.0% / -9.6%): 80, the least biased within 0.6 points of the
// best. Test half: those rows 20.9% / -10.2% -> 18.4% / -1.4% (t <= 256: 20.0% / -16.1% -> 14.2% /
// -1.7%; gpt-oss's own shape there 19.8% / -19.0% -> 7.8% / -0.6%); the whole moe family 11.8% -> 11.6%. 80 x 148 SMs
// is 11.8 T weights/s. Not read in the kernel (a cubin); the rate is the rows'.
// Both MXFP4 constants restated on the padded weights (2026-11-28, families.cpp moe_weight_padding): vLLM pads
// gpt-oss's experts to 3,072 x 3,072 on this path, so the rows' kernel converts and multiplies 1.138x the weights and
// FLOPs the two fits above counted. The same rows give the same rates per padded weight: 80 x 1.138 = 91 and
// 0.25 x 1.138 = 0.285, not refitted (train half, MXFP4 x BF16 gpt-oss rows, padded: 80 / 0.25 14.4% / +10.1%,
// 91 / 0.285 11.4% / +3.1%; a free scan's best, 100 / 0.32, 11.2% / -1.4%, was not taken). Test half of those rows
// 16.7% / -1.1% -> 11.9% / +2.7% (t <= 256: 11.2% -> 8.1%).
// `moe_tile_min_us` (2026-11-28): a TRT-LLM-gen MoE tile takes at least this long whatever its K: its epilogue
// (the accumulator from TMEM through shared memory to a TMA store) and the next tile's start do not hide behind a
// short K loop. It binds where the tiles are many and K is short, the down projection under MoE TP (K = the rank's
// shard, 64-256), where B200 measures TP 8 and TP 16 alike (NVFP4 `h=4096 i=1024 k=10/512`, 1,024 tokens: 216 and
// 202 us) and the model halved them. The larger of it and the tile's MMAs, loads and conversion, per wave (families.cpp
// grouped_gemm_us). Scanned on the train half of aic-b200-families (--configs; 0 / 0.3 / 0.4 / 0.5 / 0.6 / 0.7 /
// 0.8 us: moe median 11.3 / 11.2 / 11.1 / 11.1 / 11.1 / 11.2 / 11.3%, bias +0.1 / +0.5 / +0.8 / +1.3 / +1.7 / +2.2 /
// +2.6%; the rows at MoE TP >= 8, NVFP4 21.2 / 17.8 / 16.2 / 14.7 / 14.3 / 14.1 / 14.6%, W4A8 19.4 / 15.2 / 14.2 / 11.6
// / 8.5 / 6.8 / 7.3%, block FP8 12.4 / 12.3 / 12.7 / 13.5 / 14.0 / 14.5 / 15.2%): 0.5, the middle of the best median.
// Added per wave of tiles (not the larger) it made every format worse (0.5 us: moe 12.0%). TRT-LLM-gen only: Hopper's
// and the CUTLASS MoE's tiles keep their own terms.
// `moe_fallback_tile_us` (issue #26): the kernel benchmark's FlashInfer CUTLASS MoE on SM100 runs its untuned tactic 0
// (128 tokens on tcgen05's M x 128 weight columns, NVFP4 64; families.cpp fused_moe_us), each tile paying a fixed time
// besides its MMAs: its prologue, the grouped GEMM's switch to the tile's expert and its epilogue's store. It binds
// where the tiles are many and short (the down GEMM under MoE TP: K = inter / TP of 22-192, 22,528-24,576 tiles at
// 16,384 tokens), the floor that TP did not divide. Scanned on the train half of aic-b200-families (--configs;
// 0.5 / 1 / 1.5 / 2 / 2.5 / 3 us: moe median 11.9 / 11.9 / 11.7 / 11.7 / 11.9 / 12.0%, the CUTLASS rows 19.7 / 17.0 /
// 14.7 / 14.4 / 16.3 / 20.1%, bias -9.7 / -5.7 / -0.4 / +5.9 / +11.5 / +16.5%): 1.5, the least biased of the best
// two. Kernel rows only: the served step's experts are TRT-LLM-gen's, and no engine runs this tactic autotuned.
constexpr FamilyConstants kBlackwellFamilies{.moe_overhead_us = 20,
                                             .moe_gemm_efficiency = 0.5,
                                             .moe_mxfp4_gemm_efficiency = 0.285,
                                             .warp_mma_tflops_per_sm = 3.1,
                                             .moe_scale_block_step_us = 0.2,
                                             .moe_tile_load_per_sm_gbs = 0,
                                             .moe_fallback_tile_us = 1.5,
                                             .moe_weight_stream_efficiency = 0.85,
                                             .moe_mxfp4_convert_per_sm_gws = 91,
                                             .moe_tile_min_us = 0.5,
                                             .mla_gemm_efficiency = 0.84,
                                             .mla_quant_gemm_efficiency = 0.47,
                                             .mla_module_overhead_us = 20,
                                             .mla_backend_overhead_us = 80,
                                             .mla_backend_host_us = 80,
                                             .flashmla_decode_overhead_us = 40,
                                             .dsa_decode_overhead_us = 129,
                                             .dsa_prefill_overhead_us = 1200,
                                             .dsa_quant_projection_host_us = 60,
                                             .dsa_nvfp4_projection_host_us = 180,
                                             .dsa_fp8_cache_host_us = 200,
                                             .dsa_sparse_prefill_efficiency = 0.5,
                                             .dsa_fp8_decode_efficiency = 0.5,
                                             .gdn_chunk_efficiency = 0.285,
                                             .recurrent_launch_us = 3.8,
                                             .gdn_prefill_program_us = 15.8,
                                             .gdn_pipeline_us = 18.5,
                                             .recurrent_memory_efficiency = 0,
                                             .l2_stream_bandwidth_per_sm_gbs = 18,
                                             .conv_cta_wave_us = 1.85,
                                             .conv_unaligned_wave_factor = 1.4,
                                             .conv_token_latency_us = 0.03,
                                             .deepep_ll_latency_us = 36,
                                             .deepep_ll_efficiency = 0.665,
                                             .deepep_normal_latency_us = 84,
                                             .deepep_normal_efficiency = 0.44};
// A100 (vLLM 0.14 fused MoE, MLA kernel alone): the MoE and the MLA backend; the rest Hopper's. The backend's
// overhead was refitted (calibrate --kernels, train half: 299 -> 284 us) once the prefill's V-padding copies were
// modelled (src/roofline/families.cpp padded_v_copies_bytes). The MoE efficiency was refitted once the Triton
// kernel's passes over every pair under EP were modelled (moe_passes_all_pairs; train half of aic-a100-families,
// scanned 0.244 / 0.27 / 0.3 / 0.34: median 18.5 / 16.5 / 15.7 / 16.0%, bias +9.2 / +4.3 / +0.2 / -4.9%). Both MoE
// constants refitted once the file's power-law rows were routed as their collector rounded them
// (MoeShape::power_law_global_fill; train half, efficiency x overhead scanned 0.3-0.6 x 20-66 us: 0.3 / 66 17.2%,
// bias +12.3%; 0.35 / 66 16.1%; 0.35 / 40 15.8%; 0.35 / 30 15.6%, bias -1.6%; 0.35 / 20 15.9%; 0.4 / 40 16.7%).
constexpr FamilyConstants kAmpereFamilies = [] {
    FamilyConstants f = kHopperFamilies;
    f.moe_overhead_us = 30;
    f.moe_gemm_efficiency = 0.35;
    f.warp_mma_tflops_per_sm = 0;       // mma.sync is Ampere's full tensor rate
    f.moe_cutlass_gemm_efficiency = 0;  // no wgmma: Hopper's CUTLASS kernels do not run
    f.moe_fallback_tile_us = 0;
    f.moe_tile_load_per_sm_gbs = 0;  // fitted without the load term (its Triton tiles' MMAs)
    f.mla_backend_overhead_us = 250;
    f.mla_backend_host_us = 60;
    return f;
}();
// L40S (vLLM 0.24 Triton / Marlin fused MoE, Triton MLA, Triton GDN): MoE, MLA and the recurrent kernels; DSA and
// DeepEP (no NVLink) Hopper's. fla's chunked GDN Triton pipeline (src/roofline/families.cpp fla_pipeline_us) streams
// its intermediates at 0.66 of GDDR6 where they miss the 96 MB L2, 18.5 us of launches; its FLOPs bound it at 0.12
// of the BF16 peak where they are L2 hits (train half of aic-l40s-families: gdn_context 9.2% median). Hopper and
// Blackwell run FlashInfer's fused kernel (none of the pipeline's constants apply there); Ampere takes Hopper's.
// `l2_stream_bandwidth_per_sm_gbs`: the benchmark's prefill conv streams warm buffers that fit the L2 at 18 GB/s per
// SM (2.56 TB/s on 142 SMs, the measured plateau; L40S train half 12-36 scanned: causal_conv 16.8% at 18 and 21,
// bias -12.7% at 18). The same 18 on every architecture: on H100 / B200 it is below what HBM streams at, so their
// rows do not change (docs/kernel-families.md, "The warm prefill conv"). `recurrent_launch_us` refitted with it on
// the same train half (1.4 / 1.6 / 1.8 / 2.0 / 2.2 us: causal_conv 16.8 / 15.7 / 15.7 / 18.1 / 21.6%, bias -12.7 /
// -6.8 / -0.3 / +5.1 / +10.3%; gdn_generation 10.4 -> 10.2% at 1.8): once the L2 hides the bytes of mid-sized
// inputs, the short inputs' launch-bound rows set it.
// `conv_cta_wave_us`, `conv_unaligned_wave_factor` (issue #26): TensorRT-LLM's Mamba2 prefill conv (Tri Dao's
// causal_conv1d_fwd_kernel, grid (batch, dim), 128 threads) is one tiny CTA per (sequence, channel); a wave of them
// takes 1.0 us on L40S, 1.75 on H100, 1.85 on B200 (aic-<gpu>-families mamba2_trtllm.csv, train halves, scanned
// 0.8-2.5 us: Mamba2 conv rows 46.9 -> 12.5%, 21.3 -> 7.2%, 55.4 -> 12.1% median), not the Triton kernels'
// `recurrent_launch_us`. Its loads are vectorised only where seqlen % 8 == 0 (kIsVecLoad, causal_conv1d_fwd_launch,
// cpp/tensorrt_llm/kernels/causalConv1d/causalConv1d.cu); otherwise cub's warp-transposing loads and stores through
// shared memory: 1.4x the wave (the same on the three GPUs' train halves, 1.25-1.5 scanned; measured 1.5 / 1.31 /
// 1.30). Ampere takes Hopper's.
// `conv_token_latency_us` (issue #26): vLLM's Triton prefill conv (_causal_conv1d_fwd_kernel,
// vllm/model_executor/layers/mamba/ops/causal_conv1d.py) walks its program's tokens (at most BLOCK_M = 8) one after
// another, `for idx_token in range(segment_len)`, each a dependent load and store: a program of 8 tokens takes longer
// than one of 1 (L40S, one wave: 2.0 us at 1 token per sequence, 2.2 at 4, 2.9-3.3 from 8 on). Its wave is
// `recurrent_launch_us` plus this per token (train halves, 0-0.39 us scanned with the launch held: L40S causal_conv
// 14.9 -> 12.1% at 0.09, B200 5.8 -> 4.9% at 0.03, H100 best at 0: 7.0%). Ampere takes Hopper's.
constexpr FamilyConstants kAdaFamilies = [] {
    FamilyConstants f = kHopperFamilies;
    f.moe_overhead_us = 48.6;
    f.moe_gemm_efficiency = 0.662;
    f.warp_mma_tflops_per_sm = 0;       // mma.sync is Ada's full tensor rate
    f.moe_cutlass_gemm_efficiency = 0;  // no wgmma: Hopper's CUTLASS kernels do not run
    f.moe_fallback_tile_us = 0;
    f.moe_tile_load_per_sm_gbs = 0;  // fitted without the load term (its Triton tiles' MMAs)
    f.mla_gemm_efficiency = 0.45;
    f.mla_quant_gemm_efficiency = 0.25;
    f.mla_module_overhead_us = 66;
    f.mla_backend_overhead_us = 40;
    f.mla_backend_host_us = 280;
    f.recurrent_launch_us = 1.8;
    f.gdn_chunk_efficiency = 0.12;
    f.recurrent_memory_efficiency = 0.66;
    f.l2_stream_bandwidth_per_sm_gbs = 18;
    f.conv_cta_wave_us = 1.0;
    f.conv_token_latency_us = 0.09;
    return f;
}();

const FamilyConstants& family_constants(Architecture arch) {
    switch (arch) {
        case Architecture::ampere:
            return kAmpereFamilies;
        case Architecture::ada:
            return kAdaFamilies;
        case Architecture::blackwell:
            return kBlackwellFamilies;
        case Architecture::hopper:
        default:
            return kHopperFamilies;
    }
}

}  // namespace

void apply_architecture(GpuProfile& p, Architecture arch) {
    const ArchConstants& a = constants_of(arch);
    p.architecture = arch;
    p.attention_kernel = a.attention_kernel;
    p.memory_efficiency = a.memory_efficiency;
    p.nvlink_efficiency = a.nvlink_efficiency;
    p.nvls_efficiency = a.nvls_efficiency;
    p.pcie_efficiency = a.pcie_efficiency;
    p.allreduce_latency_us = a.allreduce_latency_us;
    p.allreduce_hop_latency_us = a.allreduce_hop_latency_us;
    p.allreduce_ll_efficiency = a.allreduce_ll_efficiency;
    p.allreduce_simple_latency_us = a.allreduce_simple_latency_us;
    p.custom_allreduce_latency_us = a.custom_allreduce_latency_us;
    p.custom_allreduce_peer_us = a.custom_allreduce_peer_us;
    p.custom_allreduce_efficiency = a.custom_allreduce_efficiency;
    p.gemm_max_efficiency = a.gemm_max_efficiency;
    p.gemm_max_efficiency_fp8 = a.gemm_max_efficiency_fp8;
    p.gemm_overlap_exponent = a.gemm_overlap_exponent;
    p.kernel_launch_us = a.kernel_launch_us;
    p.attention_max_efficiency = a.attention_max_efficiency;
    p.attention_softmax_head_dim = a.attention_softmax_head_dim;
    p.attention_tile_overhead_blocks = a.attention_tile_overhead_blocks;
    p.attention_launch_us = a.attention_launch_us;
    p.decode_cta_overhead_us = a.decode_cta_overhead_us;
    p.decode_cta_bandwidth_gbs = a.decode_cta_bandwidth_gbs;
    p.attention_block_q = a.attention_block_q;
    p.attention_block_k = a.attention_block_k;
    // Not architecture-specific: the table blending rule (docs/roofline.md section 4). The engine's time around
    // the kernels is the engine profile's (src/engines), not the GPU's.
    p.linear_attention_efficiency = 0.25;
    p.table_blend_octaves = 2;
    // L2 hits per SM (the GDN decode states of a warm kernel benchmark, src/roofline/families.cpp): fitted on the
    // train half of aic-l40s-families' GDN decode rows (20-40 GB/s scanned: train median 17.0 / 15.4 / 10.4 / 10.2
    // / 12.3% at 20 / 28 / 32 / 36 / 40; states that fit its 96 MB L2 are read and written at 4-4.5 TB/s, 142
    // SMs), one value for every architecture; where it is below memory bandwidth (B200: 4.7 TB/s against 0.75 x
    // 8 TB/s) the hits cost what memory does.
    p.l2_bandwidth_per_sm_gbs = 32;
    const FamilyConstants& f = family_constants(arch);
    p.moe_overhead_us = f.moe_overhead_us;
    p.moe_gemm_efficiency = f.moe_gemm_efficiency;
    p.moe_mxfp4_gemm_efficiency = f.moe_mxfp4_gemm_efficiency;
    p.warp_mma_tflops_per_sm = f.warp_mma_tflops_per_sm;
    p.moe_scale_block_step_us = f.moe_scale_block_step_us;
    p.moe_tile_load_per_sm_gbs = f.moe_tile_load_per_sm_gbs;
    p.moe_cutlass_gemm_efficiency = f.moe_cutlass_gemm_efficiency;
    p.moe_fallback_tile_us = f.moe_fallback_tile_us;
    p.moe_weight_stream_efficiency = f.moe_weight_stream_efficiency;
    p.moe_mxfp4_convert_per_sm_gws = f.moe_mxfp4_convert_per_sm_gws;
    p.moe_tile_min_us = f.moe_tile_min_us;
    p.mla_gemm_efficiency = f.mla_gemm_efficiency;
    p.mla_quant_gemm_efficiency = f.mla_quant_gemm_efficiency;
    p.mla_module_overhead_us = f.mla_module_overhead_us;
    p.mla_backend_overhead_us = f.mla_backend_overhead_us;
    p.mla_backend_host_us = f.mla_backend_host_us;
    p.flashmla_decode_overhead_us = f.flashmla_decode_overhead_us;
    p.dsa_decode_overhead_us = f.dsa_decode_overhead_us;
    p.dsa_prefill_overhead_us = f.dsa_prefill_overhead_us;
    p.dsa_quant_projection_host_us = f.dsa_quant_projection_host_us;
    p.dsa_nvfp4_projection_host_us = f.dsa_nvfp4_projection_host_us;
    p.dsa_fp8_cache_host_us = f.dsa_fp8_cache_host_us;
    p.dsa_sparse_prefill_efficiency = f.dsa_sparse_prefill_efficiency;
    p.dsa_fp8_decode_efficiency = f.dsa_fp8_decode_efficiency;
    p.gdn_chunk_efficiency = f.gdn_chunk_efficiency;
    p.recurrent_launch_us = f.recurrent_launch_us;
    p.gdn_prefill_program_us = f.gdn_prefill_program_us;
    p.gdn_pipeline_us = f.gdn_pipeline_us;
    p.recurrent_memory_efficiency = f.recurrent_memory_efficiency;
    p.l2_stream_bandwidth_per_sm_gbs = f.l2_stream_bandwidth_per_sm_gbs;
    p.conv_cta_wave_us = f.conv_cta_wave_us;
    p.conv_unaligned_wave_factor = f.conv_unaligned_wave_factor;
    p.conv_token_latency_us = f.conv_token_latency_us;
    p.deepep_ll_latency_us = f.deepep_ll_latency_us;
    p.deepep_ll_efficiency = f.deepep_ll_efficiency;
    p.deepep_normal_latency_us = f.deepep_normal_latency_us;
    p.deepep_normal_efficiency = f.deepep_normal_efficiency;
}

const char* architecture_name(Architecture arch) {
    switch (arch) {
        case Architecture::ampere:
            return "ampere";
        case Architecture::ada:
            return "ada";
        case Architecture::blackwell:
            return "blackwell";
        case Architecture::hopper:
        default:
            return "hopper";
    }
}

std::optional<Architecture> parse_architecture(std::string_view name) {
    for (Architecture a : {Architecture::ampere, Architecture::ada, Architecture::hopper, Architecture::blackwell}) {
        if (name == architecture_name(a)) return a;
    }
    return std::nullopt;
}

}  // namespace mfusim::gpu
