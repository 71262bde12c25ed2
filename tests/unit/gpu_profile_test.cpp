#include <gtest/gtest.h>

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

TEST(GpuProfile, AliasesResolve) {
    EXPECT_EQ(resolve_gpu("H100-SXM").name, "H100");
    EXPECT_EQ(resolve_gpu("h100_sxm").name, "H100");
    EXPECT_EQ(resolve_gpu("A100-80").name, "A100");
    EXPECT_EQ(resolve_gpu("a100-sxm4-80gb").name, "A100");
    EXPECT_FALSE(resolve_gpu("A100").has_fp8());
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
