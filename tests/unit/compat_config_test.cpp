// SPEC section 2: the config as InferSim reads it, blind spots included.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "compat/infersim_config.hpp"
#include "unit/compat_fixtures.hpp"

namespace mfusim::compat {
namespace {

using testing::fixture_config;
using testing::json_config;

std::string config_error(const std::string& json) {
    try {
        parse_infersim_config(json_config(json));
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::config) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error for " << json;
    return "";
}

TEST(CompatConfig, DenseGqa) {
    InferSimConfig c = parse_infersim_config(fixture_config("tiny_dense"));
    EXPECT_EQ(c.model_type, "llama");
    EXPECT_EQ(c.h, 256);
    EXPECT_EQ(c.L, 2);
    EXPECT_FALSE(c.hybrid);
    EXPECT_FALSE(c.mla);
    EXPECT_STREQ(c.attn_type(), "MHA/GQA");
    EXPECT_EQ(c.H, 4);
    EXPECT_EQ(c.Hkv, 2);
    EXPECT_EQ(c.d, 64);
    EXPECT_FALSE(c.moe);
    EXPECT_EQ(c.E, 1);
    EXPECT_EQ(c.k_e, 1);
    EXPECT_EQ(c.I, 512);
    EXPECT_EQ(c.E_s, 0);
}

TEST(CompatConfig, HeadDimDefaultsToHiddenOverHeads) {
    InferSimConfig c = parse_infersim_config(
        json_config(R"({"model_type":"x","hidden_size":4096,"num_hidden_layers":2,"num_attention_heads":32,)"
                    R"("num_key_value_heads":8,"intermediate_size":100})"));
    EXPECT_EQ(c.d, 128);
}

TEST(CompatConfig, MoeWithSharedExpert) {
    InferSimConfig c = parse_infersim_config(fixture_config("tiny_moe"));
    EXPECT_TRUE(c.moe);
    EXPECT_EQ(c.E, 8);
    EXPECT_EQ(c.k_e, 2);
    EXPECT_EQ(c.I, 128);  // moe_intermediate_size, not intermediate_size
    EXPECT_EQ(c.E_s, 1);
}

TEST(CompatConfig, NumRoutedExpertsWinsOverNumExperts) {
    InferSimConfig c = parse_infersim_config(json_config(
        R"({"model_type":"x","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,"num_key_value_heads":1,)"
        R"("num_routed_experts":16,"num_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":4})"));
    EXPECT_EQ(c.E, 16);
}

// Q9: n_routed_experts / n_shared_experts are not read, so DeepSeek-style configs run as dense models.
TEST(CompatConfig, MlaWithDeepSeekSpellingsIsDense) {
    InferSimConfig c = parse_infersim_config(fixture_config("tiny_mla"));
    EXPECT_TRUE(c.mla);
    EXPECT_STREQ(c.attn_type(), "MLA");
    EXPECT_EQ(c.r_q, 64);
    EXPECT_EQ(c.r_kv, 32);
    EXPECT_EQ(c.d_n, 16);
    EXPECT_EQ(c.d_r, 8);
    EXPECT_EQ(c.d_qk, 24);
    EXPECT_EQ(c.d_v, 16);
    EXPECT_FALSE(c.moe);
    EXPECT_EQ(c.I, 512);
    EXPECT_EQ(c.k_e, 1);
    EXPECT_EQ(c.E_s, 0);
}

TEST(CompatConfig, KvLoraRankPresentEvenNullMeansMla) {
    std::string what = config_error(
        R"({"model_type":"x","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,"num_key_value_heads":1,)"
        R"("kv_lora_rank":null,"intermediate_size":4})");
    EXPECT_NE(what.find("InferSim raises KeyError: 'q_lora_rank'"), std::string::npos) << what;
}

// qwen3_5*: everything comes from text_config, nothing from the top level; shared_expert_intermediate_size unread.
TEST(CompatConfig, HybridFromTextConfig) {
    InferSimConfig c = parse_infersim_config(fixture_config("tiny_hybrid"));
    EXPECT_EQ(c.model_type, "qwen3_5_moe");
    EXPECT_EQ(c.h, 256);  // not the top-level 999
    EXPECT_TRUE(c.hybrid);
    EXPECT_EQ(c.interval, 2);
    EXPECT_EQ(c.N_f, 2);
    EXPECT_EQ(c.N_l, 2);
    EXPECT_EQ(c.c_k, 4);
    EXPECT_EQ(c.d_k, 32);
    EXPECT_EQ(c.h_k, 2);
    EXPECT_EQ(c.d_lv, 32);
    EXPECT_EQ(c.h_v, 4);
    EXPECT_EQ(c.E_s, 0);
}

TEST(CompatConfig, NullIntervalIsNotHybrid) {
    InferSimConfig c = parse_infersim_config(json_config(
        R"({"model_type":"x","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,"num_key_value_heads":1,)"
        R"("full_attention_interval":null,"intermediate_size":4})"));
    EXPECT_FALSE(c.hybrid);
}

TEST(CompatConfig, MissingKeysAreKeyErrors) {
    EXPECT_NE(
        config_error(R"({"model_type":"x","num_hidden_layers":1})").find("InferSim raises KeyError: 'hidden_size'"),
        std::string::npos);
    EXPECT_NE(config_error(R"({"hidden_size":1})").find("KeyError: 'model_type'"), std::string::npos);
    EXPECT_NE(config_error(R"({"model_type":"qwen3_5","hidden_size":1})").find("KeyError: 'text_config'"),
              std::string::npos);
    EXPECT_NE(config_error(R"({"model_type":"x","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,)"
                           R"("num_key_value_heads":1,"num_experts":4,"moe_intermediate_size":4})")
                  .find("KeyError: 'num_experts_per_tok'"),
              std::string::npos);
    EXPECT_NE(config_error(R"({"model_type":"x","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,)"
                           R"("num_key_value_heads":1})")
                  .find("KeyError: 'intermediate_size'"),
              std::string::npos);
}

TEST(CompatConfig, NullsAndZeroDivisions) {
    EXPECT_NE(config_error(R"({"model_type":"x","hidden_size":null,"num_hidden_layers":1})").find("TypeError"),
              std::string::npos);
    EXPECT_NE(config_error(R"({"model_type":"x","hidden_size":8,"num_hidden_layers":4,"full_attention_interval":0})")
                  .find("ZeroDivisionError"),
              std::string::npos);
    EXPECT_NE(config_error(R"({"model_type":"x","hidden_size":8,"num_hidden_layers":4,"num_attention_heads":0,)"
                           R"("num_key_value_heads":1,"intermediate_size":4})")
                  .find("ZeroDivisionError"),
              std::string::npos);
    EXPECT_NE(config_error(R"({"model_type":"x","hidden_size":-8,"num_hidden_layers":4})").find("negative"),
              std::string::npos);
}

TEST(CompatConfig, MalformedJsonIsAParseError) {
    try {
        parse_infersim_config(json_config("{\"model_type\": "));
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::parse);
    }
}

}  // namespace
}  // namespace mfusim::compat
