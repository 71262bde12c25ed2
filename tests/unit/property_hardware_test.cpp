// Property: a faster GPU never makes a step slower. Each built-in GPU is paired with a twin whose every rate is
// twice its own (tensor peaks, HBM, NVLink, PCIe and network bandwidth, the per-SM rates of the kernel families)
// while its latencies, efficiencies, SM count, caches and capacity stay; every step of a grid of models,
// deployments and engines must take no longer on the twin. The library is judged on GPUs it has not been fitted
// on, whose profiles differ from the fitted ones in exactly these figures: a branch that lets a faster figure slow a
// step (a threshold that flips a kernel choice the wrong way, a rate used as a time) is caught here on every GPU,
// not only where a measured run happens to show it. Analytical model only: measured tables are per GPU and do not
// move with the rates.

#include <gtest/gtest.h>

#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"

namespace mfusim::roofline {
namespace {

// Every throughput figure of the profile (gpu_profile.hpp) doubled; the rest as it is. A figure of 0 ("none",
// "not modelled") stays 0.
gpu::GpuProfile twice_as_fast(gpu::GpuProfile g) {
    for (double* rate :
         {&g.peak_bf16_tflops, &g.peak_fp8_tflops, &g.peak_fp4_tflops, &g.memory_bandwidth_gbs,
          &g.gpu_memory_bandwidth_gbs, &g.nvlink_bandwidth_gbs, &g.network_bandwidth_gbs, &g.pcie_bandwidth_gbs,
          &g.decode_cta_bandwidth_gbs, &g.moe_mxfp4_convert_per_sm_gws, &g.warp_mma_tflops_per_sm,
          &g.moe_tile_load_per_sm_gbs, &g.l2_bandwidth_per_sm_gbs, &g.l2_stream_bandwidth_per_sm_gbs}) {
        *rate *= 2;
    }
    return g;
}

struct Deploy {
    const char* model;
    int64_t tp;
    int64_t ep;
};

// Dense GQA (small and large), MoE under TP and EP (BF16, per-tensor FP8), MLA with MoE, sparse MLA (DSA, BF16 and
// block FP8), hybrid linear attention (Qwen3-Next, Qwen3.5).
constexpr Deploy kDeployments[] = {
    {"llama-3.1-8b-instruct", 1, 1},
    {"llama-3.1-70b-instruct", 8, 1},
    {"qwen3-30b-a3b", 2, 1},
    {"qwen3-235b-a22b", 8, 8},
    {"llama-4-scout-17b-16e-instruct-fp8-dynamic", 4, 1},
    {"deepseek-v3", 8, 8},
    {"deepseek-v3.2", 8, 8},
    {"glm-5.2-fp8", 8, 8},
    {"qwen3-next-80b-a3b", 4, 1},
    {"qwen3.5-122b-a10b", 4, 4},
};

mfusim_request req(int64_t new_tokens, int64_t context) {
    return mfusim_request{new_tokens, context, 0u, 0u};
}

// A long prefill, a short one, small and large decode batches, and a chunk among decodes.
std::vector<std::vector<mfusim_request>> steps() {
    std::vector<std::vector<mfusim_request>> out;
    out.push_back({req(8192, 0)});
    out.push_back({req(1024, 0)});
    out.push_back(std::vector<mfusim_request>(4, req(1, 1000)));
    out.push_back(std::vector<mfusim_request>(128, req(1, 4096)));
    std::vector<mfusim_request> mixed(32, req(1, 3000));
    mixed.push_back(req(512, 1024));
    out.push_back(mixed);
    return out;
}

TEST(HardwareProperty, ATwiceAsFastGpuNeverMakesAStepSlower) {
    const auto grid = steps();
    int compared = 0;
    std::ostringstream slower;
    for (const gpu::GpuProfile& gpu : gpu::builtin_gpus()) {
        const gpu::GpuProfile fast = twice_as_fast(gpu);
        for (const Deploy& d : kDeployments) {
            const config::ModelConfig model = config::parse_model_config(config::resolve_model_source(d.model));
            query::Deployment deployment;
            deployment.tensor_parallel = d.tp;
            deployment.world_size = d.tp;
            deployment.expert_parallel = d.ep;
            for (const char* engine_name : {"vllm", "sglang", "trtllm"}) {
                const engines::EngineProfile engine = engines::resolve_engine(engine_name);
                std::optional<RooflineModel> base, twin;
                try {
                    base.emplace(model, gpu, nullptr, deployment, engine);
                    twin.emplace(model, fast, nullptr, deployment, engine);
                } catch (const Error&) {
                    continue;  // a deployment this GPU or engine cannot hold (no FP8 cores, a shard the engine refuses)
                }
                for (std::size_t s = 0; s < grid.size(); ++s) {
                    const double t0 = base->step_time_us(grid[s].data(), grid[s].size());
                    const double t1 = twin->step_time_us(grid[s].data(), grid[s].size());
                    ++compared;
                    if (t1 > t0 * (1 + 1e-12)) {
                        slower << gpu.name << " " << d.model << " tp " << d.tp << " ep " << d.ep << " " << engine_name
                               << " step " << s << ": " << t0 << " us -> " << t1 << " us\n";
                    }
                }
            }
        }
    }
    // Every GPU answers most of the grid (a deployment a GPU cannot hold is skipped above).
    EXPECT_GT(compared, static_cast<int>(gpu::builtin_gpus().size() * grid.size() * 3 * std::size(kDeployments) / 2));
    EXPECT_TRUE(slower.str().empty()) << slower.str();
}

}  // namespace
}  // namespace mfusim::roofline
