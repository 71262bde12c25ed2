// A GPU as the models see it. Every field has a unit in its name or comment and a source in builtin.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mfusim::gpu {

struct GpuProfile {
    std::string name;          // "H100"
    std::string table_folder;  // the bench_data GPU folder: "h100"

    // Vendor datasheet figures (dense, no sparsity).
    double peak_bf16_tflops = 0;
    double peak_fp8_tflops = 0;        // 0: no FP8 tensor cores
    double memory_gb = 0;              // HBM capacity, GB as the vendor states it
    double memory_bandwidth_gbs = 0;   // HBM GB/s
    double nvlink_bandwidth_gbs = 0;   // NVLink GB/s per GPU, both directions together (vendor's figure)
    double network_bandwidth_gbs = 0;  // scale-out (RDMA) GB/s per GPU
    int32_t sm_count = 0;

    // InferSim's default MFU for this GPU (compat; its figure, not a measurement).
    double infersim_default_mfu = 0;

    // Roofline model constants. builtin.cpp says where each value comes from; docs/roofline.md lists them all with
    // units and defaults. Every one can be overridden by a JSON profile under the same name.
    double memory_efficiency = 0;         // achievable fraction of memory_bandwidth_gbs for streaming reads
    double nvlink_efficiency = 0;         // achievable fraction of one direction of NVLink for all-reduce
    double allreduce_latency_us = 0;      // fixed latency of one small NCCL all-reduce (any TP degree)
    double allreduce_hop_latency_us = 0;  // added latency per ring step: an all-reduce over tp GPUs takes 2(tp-1)
    double gemm_max_efficiency = 0;       // analytical model: BF16 MFU of a large, well-shaped GEMM (plateau)
    double gemm_max_efficiency_fp8 = 0;   // analytical model: FP8 MFU plateau (relative to the FP8 peak)
    double attention_max_efficiency = 0;  // analytical model: MFU of long prefill attention at head_dim 128
    double kernel_launch_us = 0;          // analytical model: floor time of one GEMM-like kernel
    double attention_launch_us = 0;       // analytical model: fixed time of one attention call (metadata, KV write)
    double attention_softmax_head_dim = 0;      // head_dim at which softmax work equals half the tile time
    double attention_tile_overhead_blocks = 0;  // per-tile prologue/epilogue, in units of one KV block
    double decode_cta_overhead_us = 0;          // SM-microseconds of fixed work per (sequence, KV head) in decode
    double linear_attention_efficiency = 0;     // MFU of the chunked Gated-DeltaNet prefill kernels
    double table_blend_octaves = 0;  // shape distance (octaves) at which a nearest table's correction fades out

    bool has_fp8() const { return peak_fp8_tflops > 0; }
};

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
