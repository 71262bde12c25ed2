#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/files.hpp"
#include "config/catalogue.hpp"
#include "config/model_config.hpp"
#include "support/reference.hpp"

namespace mfusim::config {
namespace {

ModelConfig parse_text(const std::string& json) {
    return parse_model_config({"test", json});
}

std::string error_of(const std::string& json, Status expected) {
    try {
        parse_text(json);
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), expected) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error for " << json;
    return "";
}

TEST(ModelConfig, DenseGqaWithDerivedHeadDim) {
    ModelConfig m = parse_model_config(resolve_model_source("llama-3.1-8b-instruct"));
    EXPECT_EQ(m.num_layers, 32);
    EXPECT_EQ(m.num_heads, 32);
    EXPECT_EQ(m.num_kv_heads, 8);
    EXPECT_EQ(m.head_dim, 128);  // hidden 4096 / 32 heads
    EXPECT_FALSE(m.is_moe());
    EXPECT_EQ(m.intermediate_size, 14336);
    EXPECT_FALSE(m.quant.any());
    EXPECT_EQ(m.kv_bytes_per_token_per_layer(2, 1), 2.0 * 2 * 8 * 128);
    EXPECT_EQ(m.kv_bytes_per_token_per_layer(2, 16), 2.0 * 2 * 1 * 128);  // replicated past the KV head count
}

TEST(ModelConfig, ExplicitHeadDimWins) {
    ModelConfig m = parse_model_config(resolve_model_source("mistral-nemo-instruct-2407"));
    EXPECT_EQ(m.head_dim, 128);  // not 5120 / 32 = 160
}

TEST(ModelConfig, MoeSpellingsSharedExpertsAndDenseLayers) {
    ModelConfig mixtral = parse_model_config(resolve_model_source("mixtral-8x7b-v0.1"));
    EXPECT_EQ(mixtral.num_experts, 8);  // num_local_experts
    EXPECT_EQ(mixtral.experts_per_token, 2);
    EXPECT_EQ(mixtral.moe_intermediate_size, 14336);

    ModelConfig qwen = parse_model_config(resolve_model_source("qwen3-30b-a3b"));
    EXPECT_EQ(qwen.num_experts, 128);  // num_experts
    EXPECT_EQ(qwen.moe_intermediate_size, 768);

    ModelConfig ds = parse_model_config({"tiny", read_file(testing::fixtures_dir() + "/models/tiny_moe_shared.json")});
    EXPECT_EQ(ds.attention, AttentionKind::mla);
    EXPECT_EQ(ds.num_experts, 32);  // n_routed_experts
    EXPECT_EQ(ds.num_shared_experts, 2);
    EXPECT_EQ(ds.first_dense_layers, 1);
    EXPECT_EQ(ds.moe_layers(), 5);
    EXPECT_EQ(ds.q_lora_rank, 0);  // null
    EXPECT_EQ(ds.head_dim, 192);
    EXPECT_EQ(ds.kv_bytes_per_token_per_layer(2, 8), 2.0 * (512 + 64));  // latent replicated on every rank

    // The router's expert groups: DeepSeek-V3's n_group / topk_group; none stated: plain top-k.
    ModelConfig grouped = parse_model_config(
        {"grouped", R"({"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":4,)"
                    R"("moe_intermediate_size":32,"n_routed_experts":32,"num_experts_per_tok":4,"n_group":8,)"
                    R"("topk_group":4,"vocab_size":100})"});
    EXPECT_EQ(grouped.expert_groups, 8);
    EXPECT_EQ(grouped.topk_groups, 4);
    EXPECT_EQ(ds.expert_groups, 1);
    EXPECT_EQ(ds.topk_groups, 1);

    ModelConfig next = parse_model_config(resolve_model_source("qwen3-next-80b-a3b"));
    EXPECT_EQ(next.num_shared_experts, 1);  // from shared_expert_intermediate_size
    EXPECT_EQ(next.shared_expert_intermediate_size, 512);
    EXPECT_EQ(next.full_attention_interval, 4);
    EXPECT_EQ(next.full_attention_layers(), 12);
}

TEST(ModelConfig, TextConfigNestingAndQuantization) {
    ModelConfig m =
        parse_model_config({"nested", read_file(testing::fixtures_dir() + "/models/nested_text_config_fp8.json")});
    EXPECT_EQ(m.hidden_size, 512);
    EXPECT_EQ(m.num_experts, 4);
    EXPECT_EQ(m.intermediate_size, 2048);  // intermediate_size_mlp for the dense layers
    EXPECT_EQ(m.quant.mlp, WeightFormat::fp8);
    ModelConfig scout = parse_model_config(resolve_model_source("llama-4-scout-17b-16e-instruct-fp8-dynamic"));
    EXPECT_EQ(scout.quant.experts, WeightFormat::fp8);  // compressed-tensors, 8-bit float weights
    EXPECT_EQ(scout.num_experts, 16);
}

TEST(ModelConfig, QuantizationInsideTextConfigIsRead) {
    // Kimi-K2.5 states its INT4 experts inside text_config, not at the top: read as BF16 they would weigh 4x.
    ModelConfig m =
        parse_model_config({"nested", read_file(testing::fixtures_dir() + "/models/nested_text_config_int4.json")});
    EXPECT_EQ(m.num_experts, 8);
    EXPECT_EQ(m.quant.experts, WeightFormat::int4_wo);
    EXPECT_EQ(m.quant.attention, WeightFormat::bf16);  // ignore: re:.*self_attn.*
    EXPECT_EQ(m.quant.mlp, WeightFormat::bf16);        // ignore: re:.*shared_experts.*
    EXPECT_EQ(m.quant.method, "compressed-tensors");
}

TEST(ModelConfig, ErrorsNameTheField) {
    EXPECT_NE(error_of(R"({"hidden_size": 64})", Status::config).find("num_hidden_layers"), std::string::npos);
    EXPECT_NE(error_of(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 0,
                           "intermediate_size": 8})",
                       Status::config)
                  .find("num_attention_heads"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 6,
                           "num_key_value_heads": 4, "intermediate_size": 8})",
                       Status::config)
                  .find("multiple"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"hidden_size": "big", "num_hidden_layers": 2})", Status::config).find("hidden_size"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"hidden_size": 99999999999, "num_hidden_layers": 2})", Status::config).find("outside"),
              std::string::npos);
    std::string parse = error_of("{\n  \"hidden_size\": 64,\n  oops\n}", Status::parse);
    EXPECT_NE(parse.find("test:3:"), std::string::npos) << parse;
}

TEST(ModelConfig, DeepNestingIsRefusedNotCrashed) {
    std::string deep(100000, '[');
    EXPECT_NE(error_of(deep, Status::parse).find("nested"), std::string::npos);
}

TEST(ModelConfig, EveryCatalogueEntryParses) {
    ASSERT_GE(catalogue_model_count(), 20u);
    for (std::size_t i = 0; i < catalogue_model_count(); ++i) {
        const auto& entry = catalogue_model(i);
        SCOPED_TRACE(entry.name);
        ModelConfig m = parse_model_config({entry.name, entry.config_json});
        EXPECT_GT(m.num_layers, 0);
        EXPECT_GT(m.hidden_size, 0);
    }
    EXPECT_TRUE(find_catalogue_model("QWEN3-8B"));
    EXPECT_FALSE(find_catalogue_model("qwen3-9b"));
}

TEST(ModelConfig, UnknownNameListsTheCatalogue) {
    try {
        resolve_model_source("no-such-model");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unknown_name);
        EXPECT_NE(std::string(e.what()).find("qwen3-8b"), std::string::npos);
    }
}

// The catalogue states facts; the real configs in ../shared must agree with them.
TEST(ModelConfig, CatalogueAgreesWithReferenceConfigs) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    const char* names[] = {"codellama-34b-instruct-hf",
                           "deepseek-v2-lite",
                           "glm-5.2-fp8",
                           "llama-2-7b-hf",
                           "llama-3.1-70b-instruct",
                           "llama-3.1-8b-instruct",
                           "llama-4-scout-17b-16e-instruct-fp8-dynamic",
                           "mistral-nemo-instruct-2407",
                           "mixtral-8x7b-v0.1",
                           "qwen2.5-7b-instruct",
                           "qwen3-14b",
                           "qwen3-30b-a3b",
                           "yi-34b"};
    for (const char* name : names) {
        SCOPED_TRACE(name);
        std::string path = ref + "/model_configs/" + name + "/config.json";
        ModelConfig real, ours;
        try {
            real = parse_model_config({path, read_file(path)});
        } catch (const Error& e) {
            // An architecture refused by name (DeepSeek Sparse Attention...) has nothing to compare against.
            ASSERT_EQ(e.status(), Status::unsupported) << e.what();
            continue;
        }
        ours = parse_model_config(resolve_model_source(name));
        EXPECT_EQ(real.num_layers, ours.num_layers);
        EXPECT_EQ(real.hidden_size, ours.hidden_size);
        EXPECT_EQ(real.num_heads, ours.num_heads);
        EXPECT_EQ(real.num_kv_heads, ours.num_kv_heads);
        EXPECT_EQ(real.head_dim, ours.head_dim);
        EXPECT_EQ(real.num_experts, ours.num_experts);
        EXPECT_EQ(real.moe_intermediate_size, ours.moe_intermediate_size);
        EXPECT_EQ(real.intermediate_size, ours.intermediate_size);
        EXPECT_EQ(real.num_shared_experts, ours.num_shared_experts);
        EXPECT_EQ(real.quant.experts, ours.quant.experts);
        EXPECT_EQ(real.quant.attention, ours.quant.attention);
        EXPECT_EQ(real.vocab_size, ours.vocab_size);
        EXPECT_EQ(real.index_topk, ours.index_topk);
        EXPECT_EQ(real.index_n_heads, ours.index_n_heads);
        EXPECT_EQ(real.index_head_dim, ours.index_head_dim);
    }
}

}  // namespace
}  // namespace mfusim::config
