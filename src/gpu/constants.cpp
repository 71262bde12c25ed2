#include "gpu/constants.hpp"

#include "common/named.hpp"

namespace mfusim::gpu {

namespace {

using G = GpuProfile;

// A datasheet number a profile written from scratch must give.
GpuConstant datasheet(const char* key, double G::*member, const char* unit, double max, const char* doc) {
    return GpuConstant{key, member, nullptr, unit, 1e-3, max, false, true, doc};
}
// A number where 0 means none (no FP8 tensor cores, no NVLink, ...).
GpuConstant optional(const char* key, double G::*member, const char* unit, double max, const char* doc) {
    return GpuConstant{key, member, nullptr, unit, 1e-3, max, true, false, doc};
}
GpuConstant constant(const char* key, double G::*member, const char* unit, double min, double max, const char* doc) {
    return GpuConstant{key, member, nullptr, unit, min, max, false, false, doc};
}
GpuConstant integer(const char* key, int32_t G::*member, double min, double max, bool required, const char* doc) {
    return GpuConstant{key, nullptr, member, "", min, max, false, required, doc};
}
GpuConstant fitted(GpuConstant c, const char* family, double min, double max, std::vector<double> grid) {
    c.fit_family = family;
    c.fit_min = min;
    c.fit_max = max;
    c.fit_grid = std::move(grid);
    return c;
}

}  // namespace

const std::vector<GpuConstant>& gpu_constants() {
    // Fit grids: those the built-in constants were fitted with (docs/roofline.md section 4.1). Fit bounds:
    // physical (an efficiency is a fraction below 1; a latency is positive and within what a kernel launch or a
    // collective's synchronisation can take); JSON ranges: what keeps every time finite.
    static const std::vector<GpuConstant> constants = {
        datasheet("peak_bf16_tflops", &G::peak_bf16_tflops, "TFLOP/s", 1e6, "dense BF16 tensor peak"),
        optional("peak_fp8_tflops", &G::peak_fp8_tflops, "TFLOP/s", 1e6, "dense FP8 tensor peak; 0: no FP8"),
        optional("peak_fp4_tflops", &G::peak_fp4_tflops, "TFLOP/s", 1e6,
                 "dense FP4 (NVFP4/MXFP4) tensor peak; 0: no FP4 (everything before Blackwell)"),
        datasheet("memory_gb", &G::memory_gb, "GB", 1e6,
                  "HBM capacity (for GB200 InferSim's figure, which compat reads)"),
        optional("gpu_memory_gb", &G::gpu_memory_gb, "GB", 1e6,
                 "one GPU's datasheet HBM capacity where `memory_gb` keeps InferSim's differing figure (GB200 186); 0: "
                 "the same. The roofline model and the engines' memory accounting hold weights and KV cache in this "
                 "one. Setting `memory_gb` alone in a JSON profile clears it"),
        datasheet("memory_bandwidth_gbs", &G::memory_bandwidth_gbs, "GB/s", 1e7,
                  "HBM bandwidth (datasheet; for H20/H800/H200/GB200 InferSim's figure, which compat reads)"),
        optional("gpu_memory_bandwidth_gbs", &G::gpu_memory_bandwidth_gbs, "GB/s", 1e7,
                 "one GPU's datasheet HBM bandwidth where `memory_bandwidth_gbs` keeps InferSim's differing figure "
                 "(GB200 8000, H20 4000, H800 3350); 0: the same. The roofline model streams at this one. Setting "
                 "`memory_bandwidth_gbs` alone in a JSON profile clears it"),
        optional("nvlink_bandwidth_gbs", &G::nvlink_bandwidth_gbs, "GB/s", 1e7,
                 "NVLink per GPU, both directions together (datasheet); 0: none"),
        optional("pcie_bandwidth_gbs", &G::pcie_bandwidth_gbs, "GB/s", 1e7,
                 "host PCIe per GPU, both directions (Gen4 x16 64, Gen5 128, Gen6 256)"),
        optional("network_bandwidth_gbs", &G::network_bandwidth_gbs, "GB/s", 1e7,
                 "scale-out network (InfiniBand/RoCE NIC) per GPU, one direction: 50 for 400 Gb/s"),
        constant("network_latency_us", &G::network_latency_us, "us", 0, 1e6,
                 "one message across the scale-out fabric (NIC, switch, NIC); 5 by default, NCCL's charge per "
                 "network step (hwLat[NCCL_HW_NET], NVIDIA/nccl src/graph/tuning.cc)"),
        optional("l2_cache_mb", &G::l2_cache_mb, "MB", 1e6,
                 "L2 cache (whitepaper or CUDA device properties); 0: unknown, no L2 reuse is modelled"),
        optional("infersim_default_mfu", &G::infersim_default_mfu, "fraction", 1, "InferSim's default MFU (compat)"),
        constant("exp_throughput_scale", &G::exp_throughput_scale, "", 0.1, 16,
                 "the SFUs' exponential throughput relative to the architecture's (default 1; B300, Blackwell "
                 "Ultra: 2): divides the softmax part of an attention tile's time (`docs/roofline.md` section 3)"),
        fitted(constant("memory_efficiency", &G::memory_efficiency, "fraction of HBM bandwidth", 1e-3, 1,
                        "achievable share of HBM bandwidth for streaming reads"),
               "gemm", 0.3, 0.98, {0.6, 0.63, 0.66, 0.7, 0.73, 0.76, 0.8, 0.83, 0.87, 0.9}),
        fitted(constant("gemm_max_efficiency", &G::gemm_max_efficiency, "fraction of BF16 peak", 1e-3, 1,
                        "analytical model: BF16 MFU of a large, well-shaped GEMM (plateau)"),
               "gemm", 0.3, 0.98, {0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.93}),
        constant("gemm_max_efficiency_fp8", &G::gemm_max_efficiency_fp8, "fraction of FP8 peak", 1e-3, 1,
                 "analytical model: FP8 GEMM plateau"),
        fitted(constant("kernel_launch_us", &G::kernel_launch_us, "us", 0, 1e6,
                        "analytical model: floor time of one GEMM-like kernel"),
               "gemm", 0.5, 20, {2, 2.5, 3, 3.5, 4, 5, 6}),
        fitted(constant("gemm_overlap_exponent", &G::gemm_overlap_exponent, "p of the soft maximum", 1, 64,
                        "p of the GEMM soft maximum `(compute^p + memory^p)^(1/p)`: how well compute and memory "
                        "overlap"),
               "gemm", 1, 8, {1.5, 2, 2.5, 3, 4, 6}),
        fitted(constant("decode_cta_overhead_us", &G::decode_cta_overhead_us, "SM-us per (request, KV head)", 0, 1e6,
                        "fixed work of one decode CTA (one sequence, one KV head)"),
               "generation_attention", 0, 20, {0.5, 1, 1.5, 2, 3, 4, 5}),
        // 0 means no per-CTA limit (Hopper, Blackwell): the fit may switch the limit on or off.
        fitted(constant("decode_cta_bandwidth_gbs", &G::decode_cta_bandwidth_gbs, "GB/s per decode CTA", 0, 1e7,
                        "FA2 decode: what one CTA streams its KV slice at alone; 0: no per-CTA limit"),
               "generation_attention", 0, 1000, {0, 16, 20, 24, 28, 32, 36, 40}),
        fitted(constant("attention_launch_us", &G::attention_launch_us, "us", 0, 1e6,
                        "analytical model: fixed time of one attention call (metadata, KV write, launch)"),
               "generation_attention", 0.5, 40, {4, 5, 6, 7, 8.5, 10, 12}),
        fitted(constant("attention_max_efficiency", &G::attention_max_efficiency, "fraction of BF16 peak", 1e-3, 1,
                        "analytical model: MFU of long prefill attention at head_dim 128 (plateau)"),
               "context_attention", 0.2, 0.95, {0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.667, 0.75}),
        fitted(constant("attention_tile_overhead_blocks", &G::attention_tile_overhead_blocks, "KV blocks per tile", 0,
                        1e4, "per-tile prologue and epilogue of attention, in units of one KV block"),
               "context_attention", 0, 16, {0, 1, 2, 3, 4, 6}),
        fitted(constant("attention_softmax_head_dim", &G::attention_softmax_head_dim, "elements", 0, 1e5,
                        "head_dim at which an attention tile's softmax work equals half its time"),
               "context_attention", 8, 512, {32, 64, 96, 128}),
        constant("attention_block_q", &G::attention_block_q, "query rows", 16, 1024,
                 "query rows of one attention tile (the kernel family's)"),
        constant("attention_block_k", &G::attention_block_k, "key columns", 16, 1024,
                 "key columns of one attention tile (the kernel family's)"),
        fitted(constant("allreduce_latency_us", &G::allreduce_latency_us, "us", 0, 1e6,
                        "NCCL: fixed latency of one small all-reduce (any TP degree)"),
               "nccl_all_reduce", 0.5, 100, {4, 5, 6, 7, 8, 9}),
        fitted(constant("allreduce_hop_latency_us", &G::allreduce_hop_latency_us, "us per ring step", 0, 1e6,
                        "NCCL: latency added per ring step (2(tp-1) steps)"),
               "nccl_all_reduce", 0, 10, {0.5, 0.75, 1, 1.25, 1.5}),
        // 0 means one protocol (latency + bandwidth); above 0, NCCL's LL and Simple protocols are timed and the
        // faster taken (src/roofline/analytical.cpp).
        fitted(constant("allreduce_ll_efficiency", &G::allreduce_ll_efficiency, "fraction of one NVLink direction (LL)",
                        0, 1, "NCCL's LL protocol: share of one NVLink direction; 0: one protocol"),
               "nccl_all_reduce", 0, 0.98, {0, 0.1, 0.125, 0.15, 0.2, 0.25}),
        fitted(constant("allreduce_simple_latency_us", &G::allreduce_simple_latency_us, "us (Simple protocol)", 0, 1e6,
                        "NCCL's Simple protocol: fixed latency (used with the LL protocol)"),
               "nccl_all_reduce", 0, 200, {10, 20, 25, 30, 35, 40}),
        fitted(constant("nvlink_efficiency", &G::nvlink_efficiency, "fraction of one NVLink direction", 1e-3, 1,
                        "achievable share of one NVLink direction in a NCCL ring all-reduce"),
               "nccl_all_reduce", 0.2, 0.98, {0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8}),
        fitted(constant("nvls_efficiency", &G::nvls_efficiency, "fraction of one NVLink direction", 1e-3, 1,
                        "the same for NCCL NVLS (in-switch reduction)"),
               "nccl_all_reduce", 0.2, 0.98, {0.4, 0.45, 0.5, 0.56, 0.6, 0.7}),
        fitted(constant("pcie_efficiency", &G::pcie_efficiency, "fraction of one PCIe direction", 1e-3, 1,
                        "the same for a ring over PCIe"),
               "nccl_all_reduce", 0.2, 0.98, {0.5, 0.6, 0.7, 0.8, 0.9}),
        fitted(constant("custom_allreduce_latency_us", &G::custom_allreduce_latency_us, "us", 0, 1e6,
                        "vLLM custom all-reduce: fixed latency (graph-captured kernel)"),
               "custom_all_reduce", 0.5, 50, {3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7}),
        fitted(constant("custom_allreduce_peer_us", &G::custom_allreduce_peer_us, "us per peer GPU", 0, 1e6,
                        "vLLM custom all-reduce: latency added per peer GPU"),
               "custom_all_reduce", 0, 5, {0, 0.05, 0.1, 0.2, 0.3}),
        fitted(
            constant("custom_allreduce_efficiency", &G::custom_allreduce_efficiency, "fraction of one NVLink direction",
                     1e-3, 1, "vLLM custom all-reduce: achievable share of one NVLink direction for its peer reads"),
            "custom_all_reduce", 0.2, 0.98, {0.3, 0.4, 0.5, 0.6, 0.7, 0.8}),
        constant("linear_attention_efficiency", &G::linear_attention_efficiency, "fraction of BF16 peak", 1e-3, 1,
                 "MFU of the chunked Gated-DeltaNet (and Mamba2) prefill kernels"),
        constant("table_blend_octaves", &G::table_blend_octaves, "octaves", 0, 64,
                 "shape distance at which a nearest table's correction fades out"),
        // The kernel families of large models (roofline/families.hpp, docs/kernel-families.md).
        fitted(constant("moe_gemm_efficiency", &G::moe_gemm_efficiency, "fraction of the dense plateau", 1e-3, 1,
                        "fused MoE grouped GEMM: fraction of the dense GEMM plateau of its dtype"),
               "moe", 0.1, 0.98, {0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}),
        fitted(
            constant("moe_mxfp4_gemm_efficiency", &G::moe_mxfp4_gemm_efficiency, "fraction of the dense plateau", 0, 1,
                     "fused MoE grouped GEMM with MXFP4 weights on TRT-LLM-gen (Blackwell): fraction of the "
                     "dense plateau of its dtype; 0: moe_gemm_efficiency"),
            "moe", 0, 0.98, {0, 0.2, 0.25, 0.285, 0.3, 0.35, 0.4, 0.5}),
        fitted(constant("moe_mxfp4_convert_per_sm_gws", &G::moe_mxfp4_convert_per_sm_gws, "G weights/s per SM", 0, 1e6,
                        "fused MoE with MXFP4 weights and BF16 activations on TRT-LLM-gen (Blackwell): E2M1 weights "
                        "one SM converts to BF16 per second, every tile its own weights; 0: no such floor"),
               "moe", 0, 1e4, {0, 60, 70, 80, 90, 100}),
        fitted(constant("moe_cutlass_gemm_efficiency", &G::moe_cutlass_gemm_efficiency, "fraction of the dense plateau",
                        0, 1,
                        "fused MoE grouped GEMM on the CUTLASS MoE's SM90 kernels (TensorRT-LLM's and FlashInfer's "
                        "cutlass_fused_moe on Hopper): fraction of the dense plateau of its dtype; 0: "
                        "moe_gemm_efficiency"),
               "moe", 0, 0.98, {0, 0.2, 0.25, 0.3, 0.35, 0.4}),
        fitted(constant("warp_mma_tflops_per_sm", &G::warp_mma_tflops_per_sm, "TFLOP/s per SM", 0, 1e3,
                        "fused MoE on Marlin (weight-only 4-bit) and Hopper's Triton tiles under 64 rows: dense BF16 "
                        "rate per SM of warp-level mma.sync; 0: the BF16 peak's"),
               "moe", 0, 100, {2, 3, 4, 5, 6, 7, 8}),
        fitted(constant("moe_scale_block_step_us", &G::moe_scale_block_step_us, "us per K block", 0, 1e3,
                        "block-FP8 fused MoE: one tile's round trip per 128-wide K block of scales (partial "
                        "accumulator read back, scaled and added outside the MMA); 0: scales inside the MMA"),
               "moe", 0, 5, {0, 0.1, 0.2, 0.3, 0.35, 0.4, 0.5}),
        fitted(constant("moe_tile_load_per_sm_gbs", &G::moe_tile_load_per_sm_gbs, "GB/s per SM", 0, 1e6,
                        "fused MoE grouped GEMM: rate one SM loads a tile's weight and activation operands at, "
                        "overlapped with the tile's MMAs (the larger of the two); 0: the tiles' MMA alone"),
               "moe", 0, 1000, {0, 40, 45, 50, 55, 60, 80}),
        fitted(constant("moe_fallback_tile_us", &G::moe_fallback_tile_us, "us per tile", 0, 1e3,
                        "fused MoE on the CUTLASS MoE's untuned fallback tactic (FlashInfer's cutlass_fused_moe "
                        "outside its autotuner): fixed time of one tile (Hopper 128 tokens x 16 columns, Blackwell "
                        "128 x 128, NVFP4 128 x 64)"),
               "moe", 0, 10, {0, 0.7, 1.0, 1.3}),
        fitted(constant("moe_tile_min_us", &G::moe_tile_min_us, "us per tile", 0, 1e3,
                        "fused MoE on TRT-LLM-gen (Blackwell): the least time one output tile takes whatever its K "
                        "(epilogue store, next tile's start); 0: none"),
               "moe", 0, 10, {0, 0.3, 0.5, 0.7, 1.0}),
        fitted(constant("moe_weight_stream_efficiency", &G::moe_weight_stream_efficiency, "fraction of HBM bandwidth",
                        0, 1,
                        "fused MoE kernel benchmark: fraction of the HBM bandwidth its experts' weights stream at "
                        "(TMA bulk loads, read only); 0: memory_efficiency"),
               "moe", 0, 0.98, {0, 0.8, 0.85, 0.9, 0.92, 0.95}),
        fitted(constant("moe_overhead_us", &G::moe_overhead_us, "us", 0, 1e6,
                        "fused MoE: fixed time of its small kernels (align/sort, activation, sum)"),
               "moe", 0, 500, {5, 10, 15, 20, 30, 40, 60}),
        fitted(constant("mla_gemm_efficiency", &G::mla_gemm_efficiency, "fraction of BF16 peak", 1e-3, 1,
                        "MLA/DSA module: MFU of its BF16 projections (q_a+kv_a, q_b, kv_b, o)"),
               "mla_context", 0.2, 0.98, {0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9}),
        fitted(constant("mla_quant_gemm_efficiency", &G::mla_quant_gemm_efficiency, "fraction of FP8 peak", 1e-3, 1,
                        "MLA/DSA module: MFU of its block-FP8 and NVFP4 projections, of the FP8 peak"),
               "mla_context", 0.1, 0.98, {0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6}),
        fitted(constant("mla_module_overhead_us", &G::mla_module_overhead_us, "us", 0, 1e6,
                        "MLA/DSA module: norms, rotary, cache write, launches of its small kernels"),
               "mla_generation", 0, 1000, {10, 20, 30, 40, 60, 80, 100, 120}),
        fitted(constant("mla_backend_overhead_us", &G::mla_backend_overhead_us, "us", 0, 1e6,
                        "MLA backend's forward outside its kernel (the older vLLM kernel files)"),
               "mla_generation_kernel", 0, 1000, {20, 40, 60, 80, 100, 120, 150}),
        fitted(constant("mla_backend_host_us", &G::mla_backend_host_us, "us", 0, 1e6,
                        "MLA backend: host time of its eager forward, a floor its kernels run under (the older vLLM "
                        "kernel files)"),
               "mla_generation_kernel", 0, 1000, {0, 100, 200, 250, 300, 320, 350}),
        fitted(constant("flashmla_decode_overhead_us", &G::flashmla_decode_overhead_us, "us", 0, 1e6,
                        "FlashMLA backend's decode path beyond mla_backend_overhead_us (the older vLLM kernel files)"),
               "mla_generation_kernel", 0, 1000, {0, 20, 30, 40, 50, 60, 80}),
        fitted(constant("dsa_decode_overhead_us", &G::dsa_decode_overhead_us, "us", 0, 1e6,
                        "DSA module: fixed time of the indexer's kernels (scoring, top-k)"),
               "dsa_generation", 0, 2000, {20, 40, 60, 80, 100, 150, 200}),
        fitted(
            constant(
                "dsa_prefill_overhead_us", &G::dsa_prefill_overhead_us, "us", 0, 1e6,
                "DSA prefill: host floor of the module's prefill path, BF16 projections (the kernels hide behind it)"),
            "dsa_context", 0, 5000, {1000, 1100, 1200, 1250, 1300, 1350, 1400}),
        fitted(constant("dsa_quant_projection_host_us", &G::dsa_quant_projection_host_us, "us", 0, 1e5,
                        "DSA prefill: host time each block-FP8 / NVFP4 projection adds to the floor (its activation "
                        "quantization op)"),
               "dsa_context", 0, 1000, {0, 20, 40, 50, 60, 80, 120}),
        fitted(constant("dsa_nvfp4_projection_host_us", &G::dsa_nvfp4_projection_host_us, "us", 0, 1e5,
                        "DSA prefill: host time each NVFP4 projection adds to the floor (vLLM's scaled_fp4_quant and "
                        "the FP4 GEMM's dispatch)"),
               "dsa_context", 0, 1000, {60, 100, 140, 160, 180, 200, 240}),
        fitted(
            constant("dsa_fp8_cache_host_us", &G::dsa_fp8_cache_host_us, "us", 0, 1e5,
                     "DSA prefill: host time an FP8 latent cache adds to the floor (FlashMLA sparse's FP8 metadata)"),
            "dsa_context", 0, 2000, {0, 40, 80, 120, 160, 200, 240}),
        fitted(constant("dsa_sparse_prefill_efficiency", &G::dsa_sparse_prefill_efficiency, "fraction", 1e-3, 1,
                        "DSA prefill: speed of FlashMLA's sparse prefill kernel against the dense attention model's "
                        "over the same (query, key) pairs"),
               "dsa_context", 0.05, 0.98, {0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}),
        fitted(constant("dsa_fp8_decode_efficiency", &G::dsa_fp8_decode_efficiency, "fraction", 1e-3, 1,
                        "DSA prefill below 32 heads with an FP8 cache (vLLM's mixed batch): speed of FlashMLA's FP8 "
                        "sparse decode kernel against the decode attention model's over the same keys"),
               "dsa_context", 0.05, 0.98, {0.4, 0.5, 0.55, 0.58, 0.6, 0.7, 0.9}),
        fitted(constant("recurrent_launch_us", &G::recurrent_launch_us, "us", 0, 1e6,
                        "GDN/Mamba2: fixed time of one conv or recurrent-update kernel"),
               "causal_conv", 0.5, 50, {2, 3, 4, 5, 6, 8}),
        fitted(constant("l2_bandwidth_per_sm_gbs", &G::l2_bandwidth_per_sm_gbs, "GB/s per SM", 0, 1e5,
                        "GDN decode kernel timed on warm buffers (a benchmark): the bandwidth of L2 hits per SM, taken "
                        "where a batch's recurrent states fit `l2_cache_mb`; 0: never"),
               "gdn_generation", 1, 200, {20, 24, 28, 32, 36, 40}),
        fitted(constant("l2_stream_bandwidth_per_sm_gbs", &G::l2_stream_bandwidth_per_sm_gbs, "GB/s per SM", 0, 1e5,
                        "prefill conv timed on warm buffers (a benchmark): the rate per SM a streaming kernel reads "
                        "and writes its buffers at where they fit `l2_cache_mb`; 0: never (as from memory)"),
               "causal_conv", 0, 100, {0, 12, 15, 18, 21, 24}),
        fitted(constant("conv_cta_wave_us", &G::conv_cta_wave_us, "us", 0, 1e6,
                        "Mamba2 CUDA prefill conv (TensorRT-LLM causal_conv1d_fwd, one CTA per sequence and channel): "
                        "time of one wave of its CTAs; 0: recurrent_launch_us"),
               "causal_conv", 0.2, 10, {0.8, 1, 1.2, 1.5, 1.75, 2}),
        fitted(constant("conv_token_latency_us", &G::conv_token_latency_us, "us", 0, 1e3,
                        "vLLM's Triton prefill conv: the time each program adds per token it walks (at most 8, one "
                        "after another) to its wave's recurrent_launch_us"),
               "causal_conv", 0, 1, {0, 0.03, 0.06, 0.09, 0.12}),
        fitted(constant("conv_unaligned_wave_factor", &G::conv_unaligned_wave_factor, "factor", 1, 10,
                        "Mamba2 CUDA prefill conv: its wave where seqlen % 8 != 0 (no vectorised loads: cub's "
                        "warp-transposing loads and stores) against conv_cta_wave_us"),
               "causal_conv", 1, 3, {1, 1.2, 1.4, 1.6}),
        fitted(constant("gdn_chunk_efficiency", &G::gdn_chunk_efficiency, "fraction of BF16 peak", 1e-3, 1,
                        "GDN chunked prefill (fla / FlashInfer chunk_gated_delta_rule): MFU"),
               "gdn_context", 0.02, 0.9, {0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4}),
        fitted(
            constant("gdn_prefill_program_us", &G::gdn_prefill_program_us, "us", 0, 1e6,
                     "fused GDN prefill (FlashInfer, Hopper and Blackwell): fixed time of one (sequence, value head) "
                     "program per wave of the SMs (its state in and out, the pipeline's fill)"),
            "gdn_context", 0, 100, {4, 6, 8, 10, 12, 15, 18}),
        fitted(
            constant("gdn_pipeline_us", &G::gdn_pipeline_us, "us", 0, 1e6,
                     "fla's chunked GDN prefill (Triton, where FlashInfer's fused kernel is not built: Ampere, Ada): "
                     "fixed time of its kernels' launches"),
            "gdn_context", 0, 100, {10, 14, 16, 18, 20, 24}),
        fitted(constant("recurrent_memory_efficiency", &G::recurrent_memory_efficiency, "fraction of memory bandwidth",
                        0, 1,
                        "fla's chunked GDN prefill (Triton): fraction of memory bandwidth its intermediates stream at "
                        "where they miss the L2; 0: memory_efficiency"),
               "gdn_context", 0, 0.95, {0.5, 0.6, 0.66, 0.7, 0.8}),
        fitted(constant("deepep_ll_latency_us", &G::deepep_ll_latency_us, "us", 0, 1e6,
                        "DeepEP low-latency dispatch + combine: fixed time (both)"),
               "deepep_low_latency", 1, 500, {10, 15, 20, 25, 30, 40}),
        fitted(constant("deepep_ll_efficiency", &G::deepep_ll_efficiency, "fraction of one NVLink direction", 1e-3, 1,
                        "DeepEP low-latency: achievable fraction of one NVLink direction"),
               "deepep_low_latency", 0.05, 0.98, {0.2, 0.3, 0.4, 0.5, 0.6, 0.7}),
        fitted(constant("deepep_normal_latency_us", &G::deepep_normal_latency_us, "us", 0, 1e6,
                        "DeepEP normal dispatch + combine: fixed time (notify, both)"),
               "deepep_normal", 1, 1000, {20, 30, 40, 50, 60, 80}),
        fitted(constant("deepep_normal_efficiency", &G::deepep_normal_efficiency, "fraction of one NVLink direction",
                        1e-3, 1, "DeepEP normal: achievable fraction of one NVLink direction"),
               "deepep_normal", 0.05, 0.98, {0.2, 0.3, 0.4, 0.5, 0.6, 0.7}),
        integer("sm_count", &G::sm_count, 1, 100000, true,
                "streaming multiprocessors (analytical GEMM wave quantization)"),
        integer("nvlink_generation", &G::nvlink_generation, 0, 100, false,
                "0 none, 3 (A100), 4 (Hopper), 5 (Blackwell); NVLS needs 4+"),
        integer("nvlink_domain_gpus", &G::nvlink_domain_gpus, 0, 100000, false,
                "the scale-up domain, GPUs one NVLink fabric joins all-to-all: 8 (HGX), 72 (NVL72), 2 (PCIe cards "
                "with a bridge). With an NVLink switch (4 or more) larger TP and EP groups cross the scale-out "
                "network; without one they go over PCIe inside the host"),
        integer("pcie_peer_to_peer", &G::pcie_peer_to_peer, 0, 1, false,
                "1 (default): beyond NVLink the GPUs reach each other directly over PCIe (peer to peer), and NCCL's "
                "ring moves 2(t-1)/t of a message through each GPU's link at `pcie_efficiency`; 0: their transfers "
                "share the host bridges, the time per byte growing as the t(t-1)/2 pairs of GPUs, as on the measured "
                "L40S host (L40S, L4, A10)"),
    };
    return constants;
}

const GpuConstant* find_gpu_constant(const std::string& key) {
    for (const GpuConstant& c : gpu_constants()) {
        if (key == c.key) return &c;
    }
    return nullptr;
}

// The fitted rows of the GPU constants' table (gpu/constants.cpp), in its order.
const std::vector<KernelConstant>& kernel_constants() {
    static const std::vector<KernelConstant> constants = [] {
        std::vector<KernelConstant> fitted;
        for (const GpuConstant& c : gpu_constants()) {
            if (c.fit_family)
                fitted.push_back({c.key, c.number, c.fit_family, c.unit, c.fit_min, c.fit_max, c.fit_grid});
        }
        return fitted;
    }();
    return constants;
}

const KernelConstant* find_kernel_constant(const std::string& name) {
    return find_named(kernel_constants(), name);
}

std::string kernel_constant_names() {
    return joined_names(kernel_constants());
}

}  // namespace mfusim::gpu
