// The calibration's solver and quantization descriptors.
#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace
}  // namespace mfusim
