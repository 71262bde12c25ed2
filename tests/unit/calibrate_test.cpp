// The calibration's solver and quantization descriptors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "calibrate/box_least_squares.hpp"
#include "common/error.hpp"
#include "config/quantization.hpp"

namespace mfusim {
namespace {

TEST(BoxLeastSquares, RecoversKnownCoefficientsFromNoisyRows) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0, 1);
    std::normal_distribution<double> noise(0, 0.01);
    const std::vector<double> truth{3.0, 0.0, 250.0, 0.5};
    const std::size_t cols = truth.size(), rows = 400;
    std::vector<double> a, b, w(rows, 1.0);
    for (std::size_t i = 0; i < rows; ++i) {
        double y = 0;
        for (std::size_t j = 0; j < cols; ++j) {
            double x = u(rng) * (j == 2 ? 0.01 : 1.0);  // columns of very different scales
            a.push_back(x);
            y += x * truth[j];
        }
        b.push_back(y * (1 + noise(rng)));
    }
    std::vector<double> x =
        calibrate::box_least_squares(a, b, w, cols, std::vector<double>(cols, 0.0), std::vector<double>(cols, 1e6));
    EXPECT_NEAR(x[0], 3.0, 0.05);
    EXPECT_NEAR(x[1], 0.0, 0.05);  // a true zero stays at the bound, not negative
    EXPECT_NEAR(x[2], 250.0, 10.0);
    EXPECT_NEAR(x[3], 0.5, 0.05);
    // An upper bound holds.
    std::vector<double> capped =
        calibrate::box_least_squares(a, b, w, cols, std::vector<double>(cols, 0.0), {1.0, 1e6, 1e6, 1e6});
    EXPECT_DOUBLE_EQ(capped[0], 1.0);
}

// Issue 23: a measurement of 1e-320 us made every row's ratio infinite and the fit NaN, which reached the C API as
// MFUSIM_OK and a calibration file as null. Every fit now ends in the final check.
TEST(BoxLeastSquares, NonFiniteCoefficientsAreAnError) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> a{1.0, inf, 2.0, 1.0}, b{1.0, inf};
    try {
        calibrate::huber_box_least_squares(a, b, 2, {0.0, 0.0}, {1e6, 1e6}, 0.2, b.size());
        ADD_FAILURE() << "a non-finite fit was returned";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported);
        EXPECT_NE(std::string(e.what()).find("fitted coefficient"), std::string::npos) << e.what();
    }
}

TEST(Quantization, ReadsCheckpointsAndOverrides) {
    using config::WeightFormat;
    auto parse = [](const std::string& text, const std::string& hf = "") {
        nlohmann::json root = nlohmann::json::parse(text);
        nlohmann::json h = hf.empty() ? nlohmann::json() : nlohmann::json::parse(hf);
        return config::parse_quantization(root, hf.empty() ? nullptr : &h, "test");
    };
    auto mx = parse(R"({"quantization_config": {"quant_method": "mxfp4",
                        "modules_to_not_convert": ["model.layers.*.self_attn", "lm_head"]}})");
    EXPECT_EQ(mx.experts, WeightFormat::mxfp4);
    EXPECT_EQ(mx.attention, WeightFormat::bf16);
    auto block = parse(R"({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})");
    EXPECT_EQ(block.mlp, WeightFormat::fp8_block);
    auto nvfp4 = parse("{}", R"({"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["*self_attn*"]}})");
    EXPECT_EQ(nvfp4.experts, WeightFormat::nvfp4);
    EXPECT_EQ(nvfp4.attention, WeightFormat::bf16);
    auto awq = parse(R"({"quantization_config": {"quant_method": "awq", "bits": 4}})");
    EXPECT_EQ(awq.mlp, WeightFormat::int4_wo);
    EXPECT_THROW(parse(R"({"quantization_config": {"quant_method": "hqq"}})"), Error);
    // An override keeps what the checkpoint keeps in 16 bits.
    EXPECT_EQ(mx.overridden(WeightFormat::fp8).attention, WeightFormat::bf16);
    EXPECT_EQ(mx.overridden(WeightFormat::fp8).experts, WeightFormat::fp8);
    EXPECT_EQ(config::Quantization{}.overridden(WeightFormat::nvfp4).attention, WeightFormat::nvfp4);
    EXPECT_EQ(config::parse_weight_format("fp8_block"), WeightFormat::fp8_block);
    EXPECT_EQ(config::parse_weight_format(""), WeightFormat::bf16);
    EXPECT_FALSE(config::parse_weight_format("fp6").has_value());
    EXPECT_LT(config::weight_format_bytes(WeightFormat::mxfp4), config::weight_format_bytes(WeightFormat::nvfp4));
}

// Exclusion lists name modules per layer; each class is judged against the layers that hold it.
TEST(Quantization, ExclusionListsPerClassAndLayer) {
    using config::WeightFormat;
    auto parse = [](const std::string& hf, const config::ClassLayers& layers, std::vector<std::string>* warnings) {
        nlohmann::json h = nlohmann::json::parse(hf);
        return config::parse_quantization(nlohmann::json::object(), &h, "test", layers, warnings);
    };
    // A hybrid checkpoint (Nemotron-H style: every mixer is `mixer`): both attention layers kept in 16 bits, one
    // of four Mamba2 mixers' projections too, and the conv1d of all four (not a GEMM: no bearing).
    const std::string hybrid = R"({"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["lm_head",
        "backbone.layers.1.mixer.q_proj", "backbone.layers.1.mixer.o_proj", "backbone.layers.3.mixer.k_proj",
        "backbone.layers.0.mixer.in_proj", "backbone.layers.0.mixer.out_proj", "backbone.layers.0.mixer.conv1d",
        "backbone.layers.2.mixer.conv1d", "backbone.layers.4.mixer.conv1d", "backbone.layers.5.mixer.conv1d"]}})";
    std::vector<std::string> warnings;
    auto q = parse(hybrid, {2, 4, 0}, &warnings);
    EXPECT_EQ(q.attention, WeightFormat::bf16);
    EXPECT_EQ(q.recurrent, WeightFormat::nvfp4);
    EXPECT_EQ(q.experts, WeightFormat::nvfp4);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("recurrent mixers' projections of 1 of its 4 layers"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("timed in nvfp4"), std::string::npos) << warnings[0];
    // Three of four: the majority is kept in 16 bits, and said so.
    warnings.clear();
    auto most = parse(R"({"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["model.layers.0.linear_attn*",
        "model.layers.1.linear_attn*", "model.layers.2.linear_attn*"]}})",
                      {1, 4, 0}, &warnings);
    EXPECT_EQ(most.recurrent, WeightFormat::bf16);
    EXPECT_EQ(most.attention, WeightFormat::nvfp4);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("timed in bf16"), std::string::npos) << warnings[0];
    // Shared experts (and the dense MLP) are the mlp class; routers, norms and the MTP head name no class.
    auto shared = parse(R"({"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["*.mlp.shared_expert.*",
        "model.layers.3.mlp.gate", "model.layers.3.input_layernorm", "mtp.layers.0*"]}})",
                        {4, 0, 4}, nullptr);
    EXPECT_EQ(shared.mlp, WeightFormat::bf16);
    EXPECT_EQ(shared.attention, WeightFormat::nvfp4);
    EXPECT_EQ(shared.experts, WeightFormat::nvfp4);
    auto routers = parse(R"({"quantization": {"quant_algo": "FP8", "exclude_modules": ["model.layers.0.mlp.gate",
        "model.layers.0.block_sparse_moe.gate", "model.layers.0.mlp.router", "model.layers.0.post_attention_layernorm"]}})",
                         {4, 0, 4}, nullptr);
    EXPECT_FALSE(routers.attention == WeightFormat::bf16 || routers.mlp == WeightFormat::bf16);
    // Whole layers count for every class they hold; a layer past the decoder (an MTP layer) for none.
    warnings.clear();
    auto whole = parse(R"({"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["model.layers.0*",
        "model.layers.1.*", "model.layers.2.self_attn*", "model.layers.3.self_attn*", "model.layers.4*"]}})",
                       {4, 0, 4, 4}, &warnings);
    EXPECT_EQ(whole.attention, WeightFormat::bf16);
    EXPECT_EQ(whole.mlp, WeightFormat::bf16);  // 2 of 4: half
    ASSERT_EQ(warnings.size(), 1u) << (warnings.empty() ? "" : warnings[0]);
    EXPECT_NE(warnings[0].find("dense MLPs and shared experts of 2 of its 4"), std::string::npos) << warnings[0];
    // Layer counts not known: any mention keeps the class in 16 bits (and an override keeps it so).
    auto unknown = parse(hybrid, {}, nullptr);
    EXPECT_EQ(unknown.recurrent, WeightFormat::bf16);
    EXPECT_EQ(unknown.overridden(WeightFormat::fp8).recurrent, WeightFormat::bf16);
    EXPECT_EQ(q.overridden(WeightFormat::fp8).recurrent, WeightFormat::fp8);
}

}  // namespace
}  // namespace mfusim
