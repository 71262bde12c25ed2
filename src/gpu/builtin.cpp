// Built-in GPU profiles.
//
// H20, H800, H200 and GB200 carry exactly the figures InferSim @ f2293dab uses (hardware/gpu.py): compat mode
// derives its derated bandwidths from them (mem x0.8, NVLink x0.8/2, RDMA x0.8), so they must not be "corrected"
// here even where a datasheet differs (InferSim's H20 HBM 4096 GB/s, GB200 13400 GB/s).
// H100 SXM, A100 SXM 80GB, B200 and L40S come from NVIDIA's datasheets (dense tensor throughput).
//
// Roofline constants, the same unless a GPU has a reason to differ:
//  - memory_efficiency 0.82: streaming-read efficiency of HBM3 seen in decode attention and GEMV kernels
//    (BLIS's H100 profile uses 0.82; AIConfigurator's H100 decode rows reach 80-85% of 3.35 TB/s).
//  - nvlink_efficiency 0.8 and allreduce_latency_us: NCCL all-reduce on NVLink reaches ~80% of one direction's
//    bandwidth for large messages; small messages cost a fixed ~8-12 us (AIConfigurator nccl.csv, H100).
//  - step_overhead_us / layer_overhead_us: vLLM's per-step CPU and sampling gap with CUDA graphs (~150-300 us),
//    and per-layer small kernels (norm, rotary, activation, residual) of a few us.
//  - gemm_max_efficiency / attention_max_efficiency / kernel_launch_us: the analytical efficiency model's plateau
//    and floor, set to the plateau of measured tables where one exists (BLIS H100 bf16-equivalent GEMM ~0.65-0.75).
#include <algorithm>
#include <cctype>

#include "common/error.hpp"
#include "common/files.hpp"
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
    p.memory_efficiency = 0.82;
    p.nvlink_efficiency = 0.8;
    p.allreduce_latency_us = 10;
    p.step_overhead_us = 200;
    p.layer_overhead_us = 4;
    p.gemm_max_efficiency = 0.7;
    p.attention_max_efficiency = 0.6;
    p.kernel_launch_us = 4;
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
        if (p.name == "L40S") p.nvlink_bandwidth_gbs = 64;
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

GpuProfile resolve_gpu(const std::string& name_or_path) {
    if (name_or_path.empty())
        throw Error(Status::invalid_argument, "no GPU given: pass a built-in name or a JSON profile path");
    std::string wanted = canonical_name(name_or_path);
    for (const GpuProfile& p : builtin_gpus()) {
        if (p.name == wanted) return p;
    }
    if (is_regular_file(name_or_path)) {
        return apply_overrides(GpuProfile{}, read_file(name_or_path), name_or_path);
    }
    std::string names;
    for (const GpuProfile& p : builtin_gpus()) names += (names.empty() ? "" : ", ") + p.name;
    throw Error(
        Status::unknown_name,
        "GPU '" + name_or_path + "' is neither a built-in GPU nor a readable JSON profile (built-in: " + names + ")");
}

}  // namespace mfusim::gpu
