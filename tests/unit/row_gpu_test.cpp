// The GPU a measured serving row is answered on (compare/row_gpu.hpp): the row's own system, or the caller's --gpu,
// never a GPU the row was not measured on.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "compare/row_gpu.hpp"

namespace mfusim::compare {
namespace {

TEST(RowGpu, EachSystemNameOfTheSiliconLayoutIsItsBuiltInGpu) {
    const RowGpuResolver own("");
    // AIConfigurator's system names (aic-core/src/aiconfigurator_core/systems/*.yaml) and the built-in each means.
    const std::pair<const char*, const char*> names[] = {{"h100_sxm", "H100"},
                                                         {"h200_sxm", "H200"},
                                                         {"b200_sxm", "B200"},
                                                         {"b300_sxm", "B300"},
                                                         {"gb200", "GB200"},
                                                         {"gb300", "GB300"},
                                                         {"a100_sxm", "A100"},
                                                         {"l40s", "L40S"},
                                                         {"l4", "L4"},
                                                         {"h100_pcie", "H100-PCIE"},
                                                         {"rtx_pro_6000_server", "RTX-PRO-6000"},
                                                         {"rtxpro6000_blackwell_server", "RTX-PRO-6000"},
                                                         {"rtx_pro_6000", "RTX-PRO-6000"},
                                                         {"gb200_sxm", "GB200"},
                                                         {"gb200_nvl72", "GB200"},
                                                         {"gb300_nvl72", "GB300"}};
    for (const auto& [system, gpu] : names) {
        const RowGpu r = own.for_system(system);
        EXPECT_TRUE(r.status.empty()) << system << ": " << r.message;
        EXPECT_EQ(r.gpu, gpu) << system;
        EXPECT_EQ(r.name, gpu) << system;
    }
}

// The launch settings that follow the GPU's generation (launch_recipe.hpp) take the RTX PRO 6000 as Blackwell, as
// InferenceX's templates do (qwen3.5_fp4_rtx6000pro_sglang.sh runs the FP8 KV cache of the B200 ones), though its
// kernels are timed in the Ada class; Hopper and Ampere are not.
TEST(RowGpu, TheBlackwellGenerationIsTheGpusWithFp4TensorCores) {
    const RowGpuResolver own("");
    for (const char* system : {"b200_sxm", "b300_sxm", "gb200", "gb300", "rtx_pro_6000_server"}) {
        EXPECT_TRUE(own.for_system(system).blackwell_generation) << system;
    }
    for (const char* system : {"h100_sxm", "h200_sxm", "a100_sxm", "l40s"}) {
        EXPECT_FALSE(own.for_system(system).blackwell_generation) << system;
    }
    EXPECT_TRUE(RowGpuResolver("B200").for_system("").blackwell_generation);
    EXPECT_FALSE(RowGpuResolver("H200").for_system("").blackwell_generation);
}

TEST(RowGpu, ARowIsNeverAnsweredOnAGpuItDoesNotName) {
    const RowGpuResolver own("");
    // The A100 PCIe card is not the built-in A100 (SXM): no silent stand-in.
    EXPECT_EQ(own.for_system("a100_pcie").status, "unknown system");
    EXPECT_EQ(own.for_system("mi355x").status, "unknown system");
    EXPECT_NE(own.for_system("mi355x").message.find("give --gpu"), std::string::npos);
    EXPECT_EQ(own.for_system("").status, "no GPU");

    const RowGpuResolver h200("H200");
    EXPECT_TRUE(h200.for_system("h200_sxm").status.empty());
    EXPECT_TRUE(h200.for_system("").status.empty());        // the file does not say: --gpu answers it
    EXPECT_TRUE(h200.for_system("mi355x").status.empty());  // no built-in of that name to contradict --gpu
    const RowGpu b200 = h200.for_system("b200_sxm");
    EXPECT_EQ(b200.status, "system mismatch");
    EXPECT_NE(b200.message.find("b200_sxm (B200)"), std::string::npos) << b200.message;
}

TEST(RowGpu, AProfileOverABuiltInAnswersThatBuiltInsRows) {
    const std::string json = R"({"base": "H200", "memory_gb": 100})";
    const RowGpuResolver custom(json);
    const RowGpu r = custom.for_system("h200_sxm");
    EXPECT_TRUE(r.status.empty()) << r.message;
    EXPECT_EQ(r.gpu, json);  // the caller's profile, not the built-in
    EXPECT_EQ(custom.for_system("gb300").status, "system mismatch");
    EXPECT_THROW(RowGpuResolver("Z9000"), Error);
}

}  // namespace
}  // namespace mfusim::compare
