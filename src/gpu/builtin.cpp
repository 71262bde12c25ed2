// Built-in GPU profiles.
//
// H20, H800, H200 and GB200 carry exactly the figures InferSim @ f2293dab uses (hardware/gpu.py): compat mode
// derives its derated bandwidths from them (mem x0.8, NVLink x0.8/2, RDMA x0.8), so they must not be "corrected"
// here even where a datasheet differs (InferSim's H20 HBM 4096 GB/s, GB200 13400 GB/s).
// H100 SXM, A100 SXM 80GB, B200 and L40S come from NVIDIA's datasheets (dense tensor throughput).
//
// Roofline constants (docs/roofline.md has the full table). Most were fitted on H100 SXM measurements
// (../shared/reference/measured/aic-h100: vLLM kernels, bf16, one GPU) by a coarse grid search minimising the
// median |pred/meas - 1| of the analytical model alone, and then rounded to plausible physical values; the other
// GPUs inherit them (Hopper-class kernels: CUTLASS/cuBLAS GEMM, FlashAttention-3) unless noted:
//  - memory_efficiency 0.87: streaming-read efficiency of HBM3 in memory-bound GEMMs (GEMV-like m <= 64 reach
//    0.85-0.89 of 3.35 TB/s) and decode attention (0.88-0.93 at large batches). BLIS's H100 profile uses 0.82.
//  - nvlink_efficiency 0.7, allreduce_latency_us 6, allreduce_hop_latency_us 0.75: NCCL all-reduce over NVLink
//    (aic-h100 nccl.csv): ~6.3/9.9/15.8 us for tiny messages on 2/4/8 GPUs = 6 + 0.75 * 2(tp-1); bus bandwidth
//    320-445 GB/s for large messages = 0.7-1.0 of one NVLink direction (450 GB/s); 0.7 fits the median.
//  - The engine's time around the kernels (per step, per layer, per request) is the engine profile's
//    (src/engines), not the GPU's.
//  - gemm_max_efficiency 0.85: plateau of bf16 cuBLAS GEMMs on H100 (0.80-0.89 of 989 TFLOP/s in aic-h100).
//  - gemm_max_efficiency_fp8 0.65: plateau of FP8 DeepGEMM on H100/H800 (BLIS H100 and InferSim H800 tables
//    reach 0.62-0.66 of the FP8 peak).
//  - kernel_launch_us 2.5: the smallest GEMM latency in aic-h100 is 2.45 us.
//  - attention_max_efficiency 0.667, attention_softmax_head_dim 64, attention_tile_overhead_blocks 3,
//    attention_launch_us 9: FlashAttention-3 prefill in aic-h100 (fitted jointly; 0.667 is the long-sequence MFU
//    at head_dim 128; head_dim 64 reaches 3/4 of it and 256 reaches 6/5, the FA3 paper's ratios).
//  - decode_cta_overhead_us 3: FA3 decode in aic-h100: ~3 SM-us per (sequence, KV head) pair at head_dim 128,
//    visible as the batch-proportional time of 1-token contexts.
//  - linear_attention_efficiency 0.25: InferSim's H20 Gated-DeltaNet tables (4096-token prefill reaches ~25% of
//    the BF16 peak with the FLOP count of docs/roofline.md).
//  - table_blend_octaves 2: a nearest table shape's correction to the analytical model is applied in full at
//    distance 0 and fades linearly to nothing at 2 octaves (sum of |log2| ratios of the shape's dimensions).
#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/suggest.hpp"
#include "gpu/gpu_profile.hpp"

namespace mfusim::gpu {

namespace {

GpuProfile make(const char* name, const char* folder, double bf16, double fp8, double mem_gb, double mem_bw,
                double nvlink, int32_t sms, double infersim_mfu) {
    GpuProfile p;
    p.name = name;
    p.table_folder = folder;
    p.peak_bf16_tflops = bf16;
    p.peak_fp8_tflops = fp8;
    p.memory_gb = mem_gb;
    p.memory_bandwidth_gbs = mem_bw;
    p.nvlink_bandwidth_gbs = nvlink;
    p.network_bandwidth_gbs = 50;  // 400 Gb/s NIC per GPU; InferSim's rdma_bw for every GPU
    p.sm_count = sms;
    p.infersim_default_mfu = infersim_mfu;
    p.memory_efficiency = 0.87;
    p.nvlink_efficiency = 0.7;
    p.allreduce_latency_us = 6;
    p.allreduce_hop_latency_us = 0.75;
    p.gemm_max_efficiency = 0.8;
    p.gemm_max_efficiency_fp8 = 0.65;
    p.attention_max_efficiency = 0.667;
    p.kernel_launch_us = 2.5;
    p.attention_launch_us = 8.5;
    p.attention_softmax_head_dim = 64;
    p.attention_tile_overhead_blocks = 3;
    p.decode_cta_overhead_us = 3;
    p.linear_attention_efficiency = 0.25;
    p.table_blend_octaves = 2;
    return p;
}

std::vector<GpuProfile> make_builtins() {
    std::vector<GpuProfile> gpus;
    // InferSim's four (compat figures).
    gpus.push_back(make("H20", "h20", 148, 296, 96, 4096, 900, 78, 0.6));
    gpus.push_back(make("H800", "h800", 989, 1979, 80, 3430, 400, 132, 0.35));
    gpus.push_back(make("H200", "h200", 989, 1979, 141, 4800, 900, 132, 0.4));
    gpus.push_back(make("GB200", "gb200", 2500, 5000, 192, 13400, 1800, 152, 0.5));
    // Datasheet GPUs. infersim_default_mfu: the value InferSim gives its closest relative (H100 ~ H800/H200).
    gpus.push_back(make("H100", "h100", 989.4, 1978.9, 80, 3350, 900, 132, 0.4));
    gpus.push_back(make("A100", "a100", 312, 0, 80, 2039, 600, 108, 0.4));
    gpus.push_back(make("B200", "b200", 2250, 4500, 180, 8000, 1800, 148, 0.5));
    gpus.push_back(make("L40S", "l40s", 362.05, 733, 48, 864, 0, 142, 0.4));
    for (GpuProfile& p : gpus) {
        // PCIe-only card: tensor parallelism goes over PCIe Gen4 x16 (~64 GB/s both directions).
        if (p.name == "L40S") {
            p.nvlink_bandwidth_gbs = 64;
            p.memory_efficiency = 0.8;  // GDDR6 streams less efficiently than HBM (typical 75-85%)
        }
    }
    return gpus;
}

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

// Spellings people use for the same card.
std::string canonical_name(std::string_view raw) {
    std::string name = upper(raw);
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (std::string_view suffix : {"-SXM5", "-SXM4", "-SXM", "_SXM", " SXM", "-80GB", "-80G"}) {
            if (name.size() > suffix.size() && std::string_view(name).substr(name.size() - suffix.size()) == suffix) {
                name.erase(name.size() - suffix.size());
                stripped = true;
            }
        }
    }
    if (name == "A100-80" || name == "A100-SXM-80GB") return "A100";
    return name;
}

}  // namespace

const std::vector<GpuProfile>& builtin_gpus() {
    static const std::vector<GpuProfile> gpus = make_builtins();
    return gpus;
}

std::optional<GpuProfile> find_builtin_gpu(std::string_view name) {
    std::string wanted = canonical_name(name);
    for (const GpuProfile& p : builtin_gpus()) {
        if (p.name == wanted) return p;
    }
    return std::nullopt;
}

std::string builtin_gpu_names() {
    std::string names;
    for (const GpuProfile& p : builtin_gpus()) names += (names.empty() ? "" : ", ") + p.name;
    return names;
}

GpuProfile resolve_gpu(const std::string& name_or_path) {
    if (name_or_path.empty())
        throw Error(Status::invalid_argument, "no GPU given: pass a built-in name or a JSON profile path");
    // JSON text inline, as --model takes it: a profile, or {"base": "H100", ...} overrides, without a file.
    std::size_t first = name_or_path.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && name_or_path[first] == '{') {
        return apply_overrides(GpuProfile{}, name_or_path, "GPU JSON text");
    }
    if (auto builtin = find_builtin_gpu(name_or_path)) return *builtin;
    if (is_regular_file(name_or_path)) {
        return apply_overrides(GpuProfile{}, read_file(name_or_path), name_or_path);
    }
    std::vector<std::string> names;
    for (const GpuProfile& g : builtin_gpus()) names.push_back(g.name);
    std::string hint = did_you_mean(name_or_path, names);
    throw Error(Status::unknown_name, "GPU '" + name_or_path +
                                          "' is neither a built-in GPU nor a readable JSON profile" +
                                          " (built-in: " + builtin_gpu_names() + ")" + hint);
}

}  // namespace mfusim::gpu
