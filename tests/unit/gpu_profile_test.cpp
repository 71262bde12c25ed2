#include <gtest/gtest.h>

#include <utility>

#include "common/error.hpp"
#include "gpu/gpu_profile.hpp"
#include "support/reference.hpp"

namespace mfusim::gpu {
namespace {

TEST(GpuProfile, BuiltinsCarryInferSimFiguresExactly) {
    GpuProfile h20 = resolve_gpu("h20");
    EXPECT_EQ(h20.peak_bf16_tflops, 148);
    EXPECT_EQ(h20.peak_fp8_tflops, 296);
    EXPECT_EQ(h20.memory_bandwidth_gbs, 4096);
    EXPECT_EQ(h20.infersim_default_mfu, 0.6);
    EXPECT_EQ(h20.table_folder, "h20");
    EXPECT_EQ(resolve_gpu("H800").infersim_default_mfu, 0.35);
    EXPECT_EQ(resolve_gpu("GB200").memory_bandwidth_gbs, 13400);
}

TEST(GpuProfile, RooflineStreamsAtOneGpusDatasheetBandwidth) {
    // Compat keeps InferSim's figure (13.4 TB/s is the NVL72 rack's HBM capacity, not a bandwidth); the roofline
    // streams at one GB200 GPU's 8 TB/s.
    GpuProfile gb200 = resolve_gpu("GB200");
    EXPECT_EQ(gb200.memory_bandwidth_gbs, 13400);
    EXPECT_EQ(gb200.streaming_bandwidth_gbs(), 8000);
    EXPECT_EQ(resolve_gpu("H20").streaming_bandwidth_gbs(), 4000);
    EXPECT_EQ(resolve_gpu("H100").streaming_bandwidth_gbs(), 3350);
    // A JSON profile that sets the HBM figure sets it for both models.
    GpuProfile p = apply_overrides(gb200, R"({"memory_bandwidth_gbs": 7000})", "p.json");
    EXPECT_EQ(p.streaming_bandwidth_gbs(), 7000);
}

TEST(GpuProfile, RooflineHoldsWeightsAndKvInOneGpusDatasheetCapacity) {
    // Compat keeps InferSim's 192 GB (the B200 die's eight full stacks); one GB200 GPU exposes 186 GB (GB200 NVL72
    // datasheet: 13.4 TB over 72 GPUs), where the roofline model and the engines' memory accounting hold weights and
    // KV cache. The other GPUs' figure is the same for both.
    GpuProfile gb200 = resolve_gpu("GB200");
    EXPECT_EQ(gb200.memory_gb, 192);
    EXPECT_EQ(gb200.capacity_gb(), 186);
    EXPECT_EQ(gb200.memory_bytes(), 186 * GpuProfile::kGiB);
    EXPECT_EQ(resolve_gpu("B200").memory_bytes(), 180 * GpuProfile::kGiB);
    // A JSON profile that sets the capacity sets it for both models.
    GpuProfile p = apply_overrides(gb200, R"({"memory_gb": 150})", "p.json");
    EXPECT_EQ(p.capacity_gb(), 150);
    EXPECT_EQ(apply_overrides(gb200, R"({"gpu_memory_gb": 180})", "p.json").memory_bytes(), 180 * GpuProfile::kGiB);
}

TEST(GpuProfile, EverySkuHasItsArchitectureAndDatasheet) {
    struct Sku {
        const char* name;
        Architecture arch;
        AttentionKernel kernel;
        double bf16, fp8, fp4, bandwidth;
        int32_t nvlink_generation;
    };
    const Sku skus[] = {
        {"A100", Architecture::ampere, AttentionKernel::fa2, 312, 0, 0, 2039, 3},
        {"A100-40", Architecture::ampere, AttentionKernel::fa2, 312, 0, 0, 1555, 3},
        {"H100", Architecture::hopper, AttentionKernel::fa3, 989.4, 1978.9, 0, 3350, 4},
        {"H100-PCIe", Architecture::hopper, AttentionKernel::fa3, 756, 1513, 0, 2000, 4},
        {"H100-NVL", Architecture::hopper, AttentionKernel::fa3, 835, 1671, 0, 3900, 4},
        {"H200", Architecture::hopper, AttentionKernel::fa3, 989, 1979, 0, 4800, 4},
        {"H20", Architecture::hopper, AttentionKernel::fa3, 148, 296, 0, 4000, 4},
        {"H800", Architecture::hopper, AttentionKernel::fa3, 989, 1979, 0, 3350, 4},
        {"B200", Architecture::blackwell, AttentionKernel::trtllm, 2250, 4500, 9000, 8000, 5},
        {"B300", Architecture::blackwell, AttentionKernel::trtllm, 2250, 4500, 13500, 8000, 5},
        {"GB200", Architecture::blackwell, AttentionKernel::trtllm, 2500, 5000, 10000, 8000, 5},
        {"L40S", Architecture::ada, AttentionKernel::fa2, 362.05, 733, 0, 864, 0},
        {"L4", Architecture::ada, AttentionKernel::fa2, 121, 242.5, 0, 300, 0},
        {"GB300", Architecture::blackwell, AttentionKernel::trtllm, 2500, 5000, 15000, 8000, 5},
        {"RTX PRO 6000", Architecture::ada, AttentionKernel::fa2, 500, 1000, 2000, 1597, 0},
        {"A10", Architecture::ada, AttentionKernel::fa2, 125, 0, 0, 600, 0},
        {"A40", Architecture::ada, AttentionKernel::fa2, 149.7, 0, 0, 696, 3},
    };
    for (const Sku& s : skus) {
        GpuProfile p = resolve_gpu(s.name);
        EXPECT_EQ(p.architecture, s.arch) << s.name;
        EXPECT_EQ(p.attention_kernel, s.kernel) << s.name;
        EXPECT_EQ(p.peak_bf16_tflops, s.bf16) << s.name;
        EXPECT_EQ(p.peak_fp8_tflops, s.fp8) << s.name;
        EXPECT_EQ(p.peak_fp4_tflops, s.fp4) << s.name;
        EXPECT_EQ(p.has_fp4(), s.fp4 > 0) << s.name;
        EXPECT_EQ(p.streaming_bandwidth_gbs(), s.bandwidth) << s.name;
        EXPECT_EQ(p.nvlink_generation, s.nvlink_generation) << s.name;
        EXPECT_EQ(p.nvlink_bandwidth_gbs > 0, s.nvlink_generation > 0) << s.name;
        EXPECT_GT(p.pcie_bandwidth_gbs, 0) << s.name;
    }
}

TEST(GpuProfile, SkusOfOneArchitectureShareItsConstants) {
    // Per-SKU behaviour comes from datasheet facts; the fitted constants are the architecture's.
    for (auto [a, b] :
         {std::pair{"H100", "H20"}, {"H100", "H100-PCIe"}, {"A100", "A100-40"}, {"B200", "GB200"}, {"B200", "B300"}}) {
        GpuProfile x = resolve_gpu(a), y = resolve_gpu(b);
        EXPECT_EQ(x.memory_efficiency, y.memory_efficiency) << a << " " << b;
        EXPECT_EQ(x.gemm_max_efficiency, y.gemm_max_efficiency) << a << " " << b;
        EXPECT_EQ(x.attention_max_efficiency, y.attention_max_efficiency) << a << " " << b;
        EXPECT_EQ(x.decode_cta_overhead_us, y.decode_cta_overhead_us) << a << " " << b;
        EXPECT_EQ(x.custom_allreduce_latency_us, y.custom_allreduce_latency_us) << a << " " << b;
    }
}

TEST(GpuProfile, JsonArchitectureBringsItsConstantsThenKeysOverrideThem) {
    GpuProfile p = apply_overrides(resolve_gpu("H100"), R"({"architecture": "ampere", "attention_block_k": 96,
        "peak_fp4_tflops": 1, "nvlink_domain_gpus": 4})",
                                   "p.json");
    GpuProfile a100 = resolve_gpu("A100");
    EXPECT_EQ(p.architecture, Architecture::ampere);
    EXPECT_EQ(p.attention_kernel, AttentionKernel::fa2);
    EXPECT_EQ(p.memory_efficiency, a100.memory_efficiency);
    EXPECT_EQ(p.attention_block_k, 96);
    EXPECT_EQ(p.peak_fp4_tflops, 1);
    EXPECT_EQ(p.nvlink_domain_gpus, 4);
    EXPECT_EQ(p.peak_bf16_tflops, 989.4);  // datasheet untouched
    EXPECT_THROW(apply_overrides(p, R"({"architecture": "volta"})", "p.json"), Error);
    EXPECT_THROW(apply_overrides(p, R"({"attention_kernel": "fa9"})", "p.json"), Error);
}

TEST(GpuProfile, AliasesResolve) {
    EXPECT_EQ(resolve_gpu("H100-SXM").name, "H100");
    EXPECT_EQ(resolve_gpu("h100_sxm").name, "H100");
    EXPECT_EQ(resolve_gpu("A100-80").name, "A100");
    EXPECT_EQ(resolve_gpu("a100-sxm4-80gb").name, "A100");
    EXPECT_FALSE(resolve_gpu("A100").has_fp8());
    EXPECT_EQ(resolve_gpu("A100-SXM4-40GB").name, "A100-40");
    EXPECT_EQ(resolve_gpu("h100-pcie").name, "H100-PCIE");
}

TEST(GpuProfile, JsonOverridesAFieldOfABase) {
    GpuProfile p = resolve_gpu(testing::fixtures_dir() + "/gpus/h100_slower.json");
    EXPECT_EQ(p.name, "H100");
    EXPECT_EQ(p.memory_bandwidth_gbs, 3000);
    EXPECT_EQ(p.peak_bf16_tflops, 989.4);
}

TEST(GpuProfile, JsonWithoutBaseNeedsTheDatasheet) {
    GpuProfile p = resolve_gpu(testing::fixtures_dir() + "/gpus/custom_full.json");
    EXPECT_EQ(p.name, "MyAccel");
    EXPECT_EQ(p.table_folder, "myaccel");
    EXPECT_EQ(p.sm_count, 100);
    EXPECT_GT(p.memory_efficiency, 0);
    try {
        apply_overrides(GpuProfile{}, R"({"name": "X", "peak_bf16_tflops": 100})", "x.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::config);
        EXPECT_NE(std::string(e.what()).find("memory_gb"), std::string::npos);
    }
}

TEST(GpuProfile, BadOverridesNameTheField) {
    auto message = [](const std::string& json) {
        try {
            apply_overrides(resolve_gpu("H100"), json, "p.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(message(R"({"memory_bandwith_gbs": 1})").find("memory_bandwith_gbs"), std::string::npos);
    EXPECT_NE(message(R"({"peak_bf16_tflops": -5})").find("outside"), std::string::npos);
    EXPECT_NE(message(R"({"peak_bf16_tflops": "fast"})").find("expected a number"), std::string::npos);
    EXPECT_NE(message(R"({"base": "Z9000"})").find("Z9000"), std::string::npos);
}

TEST(GpuProfile, UnknownNameListsBuiltins) {
    try {
        resolve_gpu("Z9000");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unknown_name);
        EXPECT_NE(std::string(e.what()).find("H100"), std::string::npos);
    }
}

}  // namespace
}  // namespace mfusim::gpu
