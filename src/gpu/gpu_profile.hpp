// A GPU as the models see it. Every field has a unit in its name or comment and a source in builtin.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mfusim::gpu {

// GPU generations with their own kernel families and fitted constants (src/gpu/architecture.cpp).
enum class Architecture : uint8_t { ampere, ada, hopper, blackwell };
// The attention kernels serving engines run on each generation: FlashAttention-2 (Ampere, Ada), FlashAttention-3
// (Hopper), FlashInfer / TRT-LLM FMHA (Blackwell).
enum class AttentionKernel : uint8_t { fa2, fa3, trtllm };

struct GpuProfile {
    std::string name;          // "H100"
    std::string table_folder;  // the bench_data GPU folder: "h100"

    Architecture architecture = Architecture::hopper;  // picks the kernel families and the fitted constants
    AttentionKernel attention_kernel = AttentionKernel::fa3;

    // Vendor datasheet figures (dense, no sparsity).
    double peak_bf16_tflops = 0;
    double peak_fp8_tflops = 0;           // 0: no FP8 tensor cores
    double peak_fp4_tflops = 0;           // dense NVFP4/MXFP4 tensor peak; 0: no FP4 tensor cores (before Blackwell)
    double memory_gb = 0;                 // HBM capacity, GB as the vendor states it (GB200: InferSim's figure)
    double gpu_memory_gb = 0;             // one GPU's datasheet HBM capacity where memory_gb differs; 0: same
    double memory_bandwidth_gbs = 0;      // HBM GB/s (H20/H800/H200/GB200: InferSim's figure, which compat reads)
    double gpu_memory_bandwidth_gbs = 0;  // one GPU's datasheet HBM GB/s where InferSim's figure differs; 0: same
    double nvlink_bandwidth_gbs = 0;      // NVLink GB/s per GPU, both directions together (vendor's figure)
    double network_bandwidth_gbs = 0;     // scale-out (RDMA) GB/s per GPU: its NIC, one direction
    double network_latency_us = 0;        // one message across the scale-out fabric (NIC, switch, NIC)
    double pcie_bandwidth_gbs = 0;        // host PCIe GB/s per GPU, both directions (Gen4 x16 64, Gen5 x16 128)
    int32_t nvlink_generation = 0;        // 0: no NVLink; 3 Ampere, 4 Hopper, 5 Blackwell
    int32_t nvlink_domain_gpus = 0;       // GPUs one NVLink fabric joins all-to-all (HGX 8, NVL72 72, bridge 2)
    // 1: beyond NVLink the GPUs reach each other directly over PCIe (peer to peer, through a switch or one root
    // complex), so NCCL's ring moves 2(t-1)/t of a message through each GPU's link; 0: their transfers share the host
    // bridges, the time per byte growing as the t(t-1)/2 pairs of GPUs (the measured L40S host: analytical.cpp).
    int32_t pcie_peer_to_peer = 1;
    int32_t sm_count = 0;
    double l2_cache_mb = 0;           // L2 cache, MB (datasheet or whitepaper); 0: unknown, no L2 reuse is modelled
    double exp_throughput_scale = 1;  // the SFUs' exponentials per second relative to the architecture's (B300: 2)

    // InferSim's default MFU for this GPU (compat; its figure, not a measurement).
    double infersim_default_mfu = 0;

    // Roofline model constants. builtin.cpp says where each value comes from; docs/roofline.md lists them all with
    // units and defaults. Every one can be overridden by a JSON profile under the same name.
    double memory_efficiency = 0;         // achievable fraction of memory_bandwidth_gbs for streaming reads
    double nvlink_efficiency = 0;         // achievable fraction of one direction of NVLink for a NCCL ring all-reduce
    double nvls_efficiency = 0;           // same for NCCL NVLS (in-switch reduction, NVLink 4+ with a switch)
    double pcie_efficiency = 0;           // achievable fraction of one direction of PCIe for a NCCL ring
    double allreduce_latency_us = 0;      // fixed latency of one small NCCL all-reduce (any TP degree)
    double allreduce_hop_latency_us = 0;  // added latency per ring step: an all-reduce over tp GPUs takes 2(tp-1)
    double allreduce_ll_efficiency = 0;   // NCCL LL protocol: fraction of one NVLink direction; 0: one protocol
    double allreduce_simple_latency_us = 0;  // NCCL Simple protocol's fixed latency (used with LL above)
    double custom_allreduce_latency_us = 0;  // vLLM custom all-reduce: fixed latency (graph-captured kernel)
    double custom_allreduce_peer_us = 0;     // added latency per peer GPU (barrier flags over NVLink)
    double custom_allreduce_efficiency = 0;  // achievable fraction of one NVLink direction for its peer reads
    double gemm_max_efficiency = 0;          // analytical model: BF16 MFU of a large, well-shaped GEMM (plateau)
    double gemm_max_efficiency_fp8 = 0;      // analytical model: FP8 MFU plateau (relative to the FP8 peak)
    double gemm_overlap_exponent = 0;        // p of the GEMM soft maximum (compute^p + memory^p)^(1/p): overlap quality
    double attention_max_efficiency = 0;     // analytical model: MFU of long prefill attention at head_dim 128
    double kernel_launch_us = 0;             // analytical model: floor time of one GEMM-like kernel
    double attention_launch_us = 0;          // analytical model: fixed time of one attention call (metadata, KV write)
    double attention_softmax_head_dim = 0;   // head_dim at which softmax work equals half the tile time
    double attention_tile_overhead_blocks = 0;  // per-tile prologue/epilogue, in units of one KV block
    double decode_cta_overhead_us = 0;          // SM-microseconds of fixed work per (sequence, KV head) in decode
    double decode_cta_bandwidth_gbs = 0;     // GB/s one FA2 decode CTA streams its KV slice at alone; 0: no CTA limit
    double attention_block_q = 0;            // query rows of one attention tile (kernel family)
    double attention_block_k = 0;            // key columns of one attention tile (kernel family)
    double linear_attention_efficiency = 0;  // MFU of the chunked Gated-DeltaNet prefill kernels
    double table_blend_octaves = 0;          // shape distance (octaves) at which a nearest table's correction fades out
    // Kernel families of large models (src/roofline/families.cpp, docs/kernel-families.md).
    double moe_overhead_us = 0;            // fused MoE: fixed time of its small kernels (align/sort, activation, sum)
    double moe_gemm_efficiency = 0;        // fused MoE grouped GEMM: fraction of the dense GEMM plateau of its dtype
    double moe_mxfp4_gemm_efficiency = 0;  // its MXFP4-weight experts on TRT-LLM-gen; 0: moe_gemm_efficiency
    // TRT-LLM-gen's MXFP4 x BF16 MoE: E2M1 weights one SM converts to BF16 per second (G weights/s), each tile its
    // own weights whatever its tokens; 0: no such floor (families.cpp grouped_gemm_us)
    double moe_mxfp4_convert_per_sm_gws = 0;
    double warp_mma_tflops_per_sm = 0;    // dense BF16 TFLOP/s per SM of warp-level mma.sync (Marlin); 0: the peak's
    double moe_scale_block_step_us = 0;   // block-FP8 MoE: a tile's round trip per K block of scales (floor per tile)
    double moe_tile_load_per_sm_gbs = 0;  // fused MoE: GB/s per SM a grouped-GEMM tile loads its operands at; 0: none
    double moe_weight_stream_efficiency =
        0;  // fused MoE kernel rows: the HBM share their experts' weights stream at; 0: memory_efficiency
    double moe_cutlass_gemm_efficiency =
        0;                            // its experts on the CUTLASS MoE's SM90 grouped GEMM; 0: moe_gemm_efficiency
    double moe_fallback_tile_us = 0;  // that GEMM's untuned fallback tactic: fixed time of one of its tiles
    // TRT-LLM-gen's MoE: the least time one of its output tiles takes whatever its K (the epilogue's store and the
    // next tile's start); 0: none (families.cpp grouped_gemm_us)
    double moe_tile_min_us = 0;
    double mla_gemm_efficiency = 0;        // MLA/DSA module's BF16 projections: fraction of the BF16 peak
    double mla_quant_gemm_efficiency = 0;  // its block-FP8 / NVFP4 projections: fraction of the FP8 peak
    double mla_module_overhead_us = 0;     // MLA/DSA module: norms, rotary, cache write, launches of its small kernels
    double mla_backend_overhead_us = 0;    // MLA backend's forward outside its kernel (the older vLLM kernel files)
    double mla_backend_host_us = 0;        // MLA backend: eager host time its kernels run under (a floor, not added)
    double flashmla_decode_overhead_us = 0;   // FlashMLA's decode path on top of it (the same files, FP8 cache)
    double dsa_decode_overhead_us = 0;        // DSA module: fixed time of the indexer's kernels (scoring, top-k)
    double dsa_prefill_overhead_us = 0;       // DSA prefill: host floor of the module's prefill path (BF16 projections)
    double dsa_quant_projection_host_us = 0;  // DSA prefill: host time each quantized projection adds to the floor
    double dsa_nvfp4_projection_host_us = 0;  // DSA prefill: the same for an NVFP4 projection (FP4 quant + FP4 GEMM)
    double dsa_fp8_cache_host_us = 0;         // DSA prefill: host time an FP8 latent cache adds to the floor
    double dsa_sparse_prefill_efficiency = 1;  // DSA prefill: the sparse kernels' share of the dense attention's speed
    double dsa_fp8_decode_efficiency = 1;  // DSA prefill on the FP8 sparse decode kernel (< 32 heads): the same share
    double gdn_chunk_efficiency = 0;       // GDN chunked prefill (fla / FlashInfer chunk_gated_delta_rule): MFU
    double recurrent_launch_us = 0;        // GDN/Mamba2: fixed time of one conv or recurrent-update kernel
    double gdn_prefill_program_us = 0;     // fused GDN prefill: fixed time of one (sequence, head) program per wave
    double gdn_pipeline_us = 0;            // fla chunked GDN prefill (Triton): fixed time of its kernels' launches
    double recurrent_memory_efficiency =
        0;                               // fla chunked GDN prefill: fraction of memory bandwidth; 0: memory_efficiency
    double l2_bandwidth_per_sm_gbs = 0;  // GB/s of L2 hits per SM (GDN/Mamba2 states and inputs that fit the L2)
    double l2_stream_bandwidth_per_sm_gbs =
        0;  // GB/s per SM a streaming kernel (the prefill conv) reads and writes warm L2-resident buffers at; 0: never
    double conv_cta_wave_us =
        0;  // Mamba2 CUDA prefill conv (grid(batch, dim)): one wave of its CTAs; 0: recurrent_launch_us
    double conv_unaligned_wave_factor = 1;  // the same conv's wave where seqlen % 8 != 0 (cub's transposing loads)
    double conv_token_latency_us = 0;       // vLLM's Triton prefill conv: each program's time per token it walks (<= 8)
    double deepep_ll_latency_us = 0;        // DeepEP low-latency dispatch + combine: fixed time (both)
    double deepep_ll_efficiency = 0;        // DeepEP low-latency: achievable fraction of one NVLink direction
    double deepep_normal_latency_us = 0;    // DeepEP normal dispatch + combine: fixed time (notify, both)
    double deepep_normal_efficiency = 0;    // DeepEP normal: achievable fraction of one NVLink direction

    // Whether `group` GPUs span more than one NVLink switch domain (HGX 8, NVL72 72), so their collectives cross
    // the scale-out network. Never for GPUs without an NVLink switch (PCIe cards, bridged pairs): their larger
    // groups stay inside one host, over PCIe.
    bool spans_domains(int64_t group) const {
        return nvlink_bandwidth_gbs > 0 && nvlink_domain_gpus >= 4 && group > nvlink_domain_gpus &&
               network_bandwidth_gbs > 0;
    }
    bool has_fp8() const { return peak_fp8_tflops > 0; }
    bool has_fp4() const { return peak_fp4_tflops > 0; }
    // The HBM bandwidth of one GPU the roofline model streams at: the datasheet figure where the profile keeps
    // InferSim's figure for compat (GB200: 8000 per GPU, not InferSim's 13400), else memory_bandwidth_gbs.
    double streaming_bandwidth_gbs() const {
        return gpu_memory_bandwidth_gbs > 0 ? gpu_memory_bandwidth_gbs : memory_bandwidth_gbs;
    }
    // The HBM capacity of one GPU the roofline model and the engines' memory accounting hold weights and KV cache
    // in: the datasheet figure where the profile keeps InferSim's for compat (GB200: 186 per GPU, the NVL72's 13.4 TB
    // over 72 GPUs, not InferSim's 192), else memory_gb.
    double capacity_gb() const { return gpu_memory_gb > 0 ? gpu_memory_gb : memory_gb; }
    // HBM capacity in bytes. The engines' memory accounting (and nvidia-smi) count the vendor's "80 GB" as GiB.
    double memory_bytes() const { return capacity_gb() * kGiB; }
    static constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
};

// The fitted constants of an architecture written into a profile (src/gpu/architecture.cpp says where each comes
// from); the datasheet fields are left as they are.
void apply_architecture(GpuProfile& gpu, Architecture arch);
const char* architecture_name(Architecture arch);
std::optional<Architecture> parse_architecture(std::string_view name);

const std::vector<GpuProfile>& builtin_gpus();
// A built-in profile by name (case-insensitive, aliases such as "H100-SXM"); nullopt if there is none.
std::optional<GpuProfile> find_builtin_gpu(std::string_view name);
std::string builtin_gpu_names();  // "H20, H800, ...", for messages

// Built-in name (case-insensitive; aliases such as "H100-SXM") or a JSON file path. A JSON profile is an object
// whose optional "base" names a built-in profile (never a file: profiles do not chain) and whose other keys override
// GpuProfile fields by name; without a base every datasheet field is required. Error(unknown_name) / Error(parse) /
// Error(config).
GpuProfile resolve_gpu(const std::string& name_or_path);

// Applies a JSON override object to a profile (keys as the field names above). Error(config) naming the key.
GpuProfile apply_overrides(GpuProfile base, const std::string& json_text, const std::string& origin);

}  // namespace mfusim::gpu
