// Built-in GPU profiles: datasheet facts per SKU plus the constants of its architecture (architecture.cpp).
//
// H20, H800, H200 and GB200 keep exactly the figures InferSim @ f2293dab uses (hardware/gpu.py) in the fields
// compat mode reads (name, peak_bf16/fp8_tflops, memory_gb, memory_bandwidth_gbs, nvlink_bandwidth_gbs,
// network_bandwidth_gbs, infersim_default_mfu: src/compat/compat_gpu.cpp derives mem x0.8, NVLink x0.8/2, RDMA
// x0.8 from them). Where InferSim's HBM figure is not one GPU's datasheet value (H20 4096 vs 4000 GB/s, H800 3430
// vs 3350, GB200 13400 - the NVL72 rack's 13.4 TB capacity - vs 8000 per GPU) the datasheet value goes into
// gpu_memory_bandwidth_gbs, which the roofline model streams at. Likewise GB200's capacity: InferSim's 192 GB is the
// B200 die's eight full stacks; one GB200 GPU exposes 186 GB (GB200 NVL72 datasheet: 13.4 TB HBM3e over 72 GPUs;
// GB200 superchip: 372 GB over two), which goes into gpu_memory_gb, where the roofline model holds weights and KV.
// Everything else is from NVIDIA's datasheets, dense tensor throughput (sparsity figures halved): A100 (SXM4
// 40/80 GB), H100 (SXM5, PCIe, NVL), H200, H20, H800, HGX B200 / B300, GB200 NVL72 (per GPU), L40S, L4, and:
//  - GB300 NVL72 (per GPU, NVIDIA GB300 NVL72 datasheet, rack figures / 72): FP16/BF16 360 PF, FP8 720 PF sparse
//    (dense 2.5 / 5 PF per GPU), FP4 1,080 PF dense (15 PF per GPU); 288 GB HBM3e at 8 TB/s; NVLink 5 at 1.8 TB/s
//    in a 72-GPU domain; 160 SMs (NVIDIA "Inside Blackwell Ultra" blog); the SFUs' doubled exponentials as B300.
//  - RTX PRO 6000 Blackwell Server Edition (NVIDIA datasheet): 4,000 AI TOPS FP4 sparse (2,000 dense; FP8 1,000,
//    BF16 500 dense), 96 GB GDDR7 at 1,597 GB/s, 188 SMs (24,064 CUDA cores), PCIe Gen5 x16, no NVLink.
//  - A10 (NVIDIA A10 datasheet): BF16 125 TFLOPS dense (250 sparse), 24 GB GDDR6 at 600 GB/s, 72 SMs, PCIe Gen4.
//  - A40 (NVIDIA A40 datasheet): BF16 149.7 TFLOPS dense (299.4 sparse), 48 GB GDDR6 at 696 GB/s, 84 SMs, PCIe
//    Gen4, NVLink bridge pairs at 112.5 GB/s.
// L2 cache (l2_mb, MB): NVIDIA's architecture whitepapers: A100 40 MB (Ampere GA100 whitepaper: 40 MB on A100);
// H100 SXM5 / PCIe 50 MB (Hopper H100 whitepaper), the same GH100 configuration in H800, H200 and H100 NVL; Ada
// AD102 96 MB (L40S, Ada Lovelace whitepaper), AD104 48 MB (L4); Ampere GA102 6 MB (A10, A40); RTX Blackwell GB202
// 128 MB (RTX PRO 6000, RTX Blackwell whitepaper). Not stated by NVIDIA, taken from the CUDA device properties
// (cudaDevAttrL2CacheSize) others report: H20 60 MB (a GH100 with its full L2), B200 126 MB (two dies, 63 MB
// each), and the same 126 MB for B300, GB200 and GB300 (the same dies).
// PCIe cards with GDDR memory and no NVLink switch (A10, A40, RTX PRO 6000) take the constants of that class, Ada's
// (fitted on L40S: FA2-style mma.sync kernels, GDDR streaming, PCIe all-reduce through the host bridges), not those
// of their generation's HBM and NVLink parts.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/named.hpp"
#include "common/suggest.hpp"
#include "gpu/gpu_profile.hpp"

namespace mfusim::gpu {

namespace {

struct Datasheet {
    const char* name;
    const char* folder;
    Architecture arch;
    double bf16, fp8, fp4;  // dense TFLOP/s
    double mem_gb, mem_bw;  // GB, GB/s (compat figure for InferSim's four)
    double gpu_mem_bw;      // GB/s of one GPU where mem_bw is InferSim's differing figure; 0: mem_bw
    double nvlink;          // GB/s both directions (0: none)
    int32_t nvlink_gen, nvlink_domain;
    double pcie;  // GB/s both directions
    int32_t sms;
    double l2_mb;  // L2 cache, MB (sources in the header comment)
    double infersim_mfu;
    double exp_scale = 1;   // SFU exponential throughput relative to the architecture's
    double gpu_mem_gb = 0;  // GB of one GPU where mem_gb is InferSim's differing figure; 0: mem_gb
    int32_t pcie_p2p = 1;   // GpuProfile::pcie_peer_to_peer
};

// infersim_default_mfu: InferSim's own value for its four; for the others the value of their closest relative
// (Hopper and Ampere ~ H800/H200: 0.4; Blackwell ~ GB200: 0.5).
constexpr Datasheet kDatasheets[] = {
    // InferSim's four (compat figures in the compat-read fields).
    {"H20", "h20", Architecture::hopper, 148, 296, 0, 96, 4096, 4000, 900, 4, 8, 128, 78, 60, 0.6},
    {"H800", "h800", Architecture::hopper, 989, 1979, 0, 80, 3430, 3350, 400, 4, 8, 128, 132, 50, 0.35},
    {"H200", "h200", Architecture::hopper, 989, 1979, 0, 141, 4800, 0, 900, 4, 8, 128, 132, 50, 0.4},
    {"GB200", "gb200", Architecture::blackwell, 2500, 5000, 10000, 192, 13400, 8000, 1800, 5, 72, 128, 148, 126, 0.5, 1,
     186},
    // Hopper. PCIe and NVL cards pair over an NVLink bridge (600 GB/s); more GPUs talk over PCIe Gen5.
    {"H100", "h100", Architecture::hopper, 989.4, 1978.9, 0, 80, 3350, 0, 900, 4, 8, 128, 132, 50, 0.4},
    {"H100-PCIE", "h100-pcie", Architecture::hopper, 756, 1513, 0, 80, 2000, 0, 600, 4, 2, 128, 114, 50, 0.4},
    {"H100-NVL", "h100-nvl", Architecture::hopper, 835, 1671, 0, 94, 3900, 0, 600, 4, 2, 128, 132, 50, 0.4},
    // Ampere (no FP8): HGX A100, NVLink 3 through NVSwitch.
    {"A100", "a100", Architecture::ampere, 312, 0, 0, 80, 2039, 0, 600, 3, 8, 64, 108, 40, 0.4},
    {"A100-40", "a100-40", Architecture::ampere, 312, 0, 0, 40, 1555, 0, 600, 3, 8, 64, 108, 40, 0.4},
    // Blackwell: HGX (8 GPUs per NVLink 5 switch domain); B300 (Blackwell Ultra) raises dense FP4 to 13.5 PF.
    {"B200", "b200", Architecture::blackwell, 2250, 4500, 9000, 180, 8000, 0, 1800, 5, 8, 128, 148, 126, 0.5},
    // B300 doubles the SFUs' exponential throughput (MUFU.EX2) over B200: the softmax half of attention.
    {"B300", "b300", Architecture::blackwell, 2250, 4500, 13500, 288, 8000, 0, 1800, 5, 8, 256, 148, 126, 0.5, 2},
    // Ada: PCIe Gen4 cards with GDDR6, FP8 without FP4, no NVLink.
    // Their NCCL transfers share the host bridges on the measured L40S host (aic-l40s nccl.csv: the time per byte
    // grows 1 : 5.4 : 24 at 2 / 4 / 8 GPUs); L4 is taken to be the same kind of host.
    {"L40S", "l40s", Architecture::ada, 362.05, 733, 0, 48, 864, 0, 0, 0, 0, 64, 142, 96, 0.4, 1, 0, 0},
    {"L4", "l4", Architecture::ada, 121, 242.5, 0, 24, 300, 0, 0, 0, 0, 64, 58, 48, 0.4, 1, 0, 0},
    // Blackwell Ultra in an NVL72 rack (per GPU).
    {"GB300", "gb300", Architecture::blackwell, 2500, 5000, 15000, 288, 8000, 0, 1800, 5, 72, 128, 160, 126, 0.5, 2},
    // PCIe cards of the Ada class (GDDR, no NVLink switch): Blackwell workstation, Ampere GA102. The RTX PRO 6000's
    // servers join the cards peer to peer over PCIe Gen5 (switches or one host; every pair reads "OK" in
    // `nvidia-smi topo -p2p` and moves 50-56 GB/s one way in CUDA's p2pBandwidthLatencyTest on 8-card hosts:
    // the community notes of voipmonitor/rtx6kpro, hardware/pcie-bandwidth.md), so NCCL runs its ring there; the A10's
    // hosts are not known and keep the L40S host's sharing.
    {"RTX-PRO-6000", "rtx-pro-6000", Architecture::ada, 500, 1000, 2000, 96, 1597, 0, 0, 0, 0, 128, 188, 128, 0.5},
    {"A10", "a10", Architecture::ada, 125, 0, 0, 24, 600, 0, 0, 0, 0, 64, 72, 6, 0.4, 1, 0, 0},
    {"A40", "a40", Architecture::ada, 149.7, 0, 0, 48, 696, 0, 112.5, 3, 2, 64, 84, 6, 0.4},
};

GpuProfile make(const Datasheet& d) {
    GpuProfile p;
    p.name = d.name;
    p.table_folder = d.folder;
    p.peak_bf16_tflops = d.bf16;
    p.peak_fp8_tflops = d.fp8;
    p.peak_fp4_tflops = d.fp4;
    p.memory_gb = d.mem_gb;
    p.memory_bandwidth_gbs = d.mem_bw;
    p.gpu_memory_bandwidth_gbs = d.gpu_mem_bw;
    p.gpu_memory_gb = d.gpu_mem_gb;
    p.nvlink_bandwidth_gbs = d.nvlink;
    p.nvlink_generation = d.nvlink_gen;
    p.nvlink_domain_gpus = d.nvlink_domain;
    p.pcie_bandwidth_gbs = d.pcie;
    p.pcie_peer_to_peer = d.pcie_p2p;
    p.network_bandwidth_gbs = 50;  // 400 Gb/s NIC per GPU; InferSim's rdma_bw for every GPU
    // One RDMA message across an InfiniBand/RoCE fabric: NCCL's tuning model charges 5 us per network step of its
    // low-latency tree (hwLat[NCCL_HW_NET], src/graph/tuning.cc).
    p.network_latency_us = 5;
    p.sm_count = d.sms;
    p.l2_cache_mb = d.l2_mb;
    p.exp_throughput_scale = d.exp_scale;
    p.infersim_default_mfu = d.infersim_mfu;
    apply_architecture(p, d.arch);
    return p;
}

std::vector<GpuProfile> make_builtins() {
    std::vector<GpuProfile> gpus;
    for (const Datasheet& d : kDatasheets) gpus.push_back(make(d));
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
        // A rack's name for its GPU: GB200 NVL72 and GB300 NVL72 are the built-in GB200 and GB300, per GPU.
        for (std::string_view suffix :
             {"-SXM5", "-SXM4", "-SXM", "_SXM", " SXM", "-80GB", "-80G", "_NVL72", "-NVL72", " NVL72"}) {
            if (name.size() > suffix.size() && std::string_view(name).substr(name.size() - suffix.size()) == suffix) {
                name.erase(name.size() - suffix.size());
                stripped = true;
            }
        }
    }
    if (name == "A100-80" || name == "A100-SXM-80GB") return "A100";
    if (name == "A100-40GB" || name == "A100-SXM4-40GB" || name == "A100-SXM-40GB") return "A100-40";
    // AIConfigurator's system names (aic-core/src/aiconfigurator_core/systems/*.yaml), which the silicon CSVs'
    // `system` column carries: h100_pcie, rtx_pro_6000_server and rtxpro6000_blackwell_server (two files name that
    // card) (h200_sxm, b200_sxm, gb200_sxm and the rest lose _SXM above or are built-in names already).
    if (name == "H100-PCIE-80GB" || name == "H100 PCIE" || name == "H100_PCIE") return "H100-PCIE";
    if (name == "H100-NVL-94GB") return "H100-NVL";
    if (name == "RTX PRO 6000" || name == "RTX-PRO-6000-BLACKWELL" || name == "RTX PRO 6000 BLACKWELL SERVER EDITION" ||
        name == "RTXPRO6000" || name == "RTX-PRO-6000-SE" || name == "RTX_PRO_6000_SERVER" || name == "RTX_PRO_6000" ||
        name == "RTXPRO6000_BLACKWELL_SERVER") {
        return "RTX-PRO-6000";
    }
    return name;
}

}  // namespace

const std::vector<GpuProfile>& builtin_gpus() {
    static const std::vector<GpuProfile> gpus = make_builtins();
    return gpus;
}

std::optional<GpuProfile> find_builtin_gpu(std::string_view name) {
    const GpuProfile* p = find_named(builtin_gpus(), canonical_name(name));
    if (!p) return std::nullopt;
    return *p;
}

std::string builtin_gpu_names() {
    return joined_names(builtin_gpus());
}

GpuProfile resolve_gpu(const std::string& name_or_path) {
    if (name_or_path.empty())
        throw Error(Status::invalid_argument, "no GPU given: pass a built-in name or a JSON profile path");
    // JSON text inline, as --model takes it: a profile, or {"base": "H100", ...} overrides, without a file.
    if (is_json_text(name_or_path)) {
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
