// Step-3.7-Flash (issue #27): its text tower read from the Step-3.5 / 3.7 key names (num_attention_groups,
// attention_other_setting for the sliding layers' heads, moe_layers_enum, moe_num_experts, moe_top_k,
// share_expert_dim, use_head_wise_attn_gate). The fixture (tests/fixtures/arch2026/step3p7_flash.json, provenance in
// its README.md) reconstructs the published config from public ports; the counts are checked against the card.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/json.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/model_params.hpp"
#include "roofline/roofline_model.hpp"
#include "support/reference.hpp"

namespace mfusim {
namespace {

nlohmann::json step37() {
    return nlohmann::json::parse(testing::fixture_text("arch2026/step3p7_flash.json"));
}

config::ModelConfig parse(const nlohmann::json& j) {
    return config::parse_model_config(config::resolve_model_source(j.dump()));
}

roofline::RooflineModel make(const config::ModelConfig& m, int64_t tp) {
    query::Deployment d;
    d.tensor_parallel = tp;
    return roofline::RooflineModel(m, gpu::resolve_gpu("H200"), nullptr, d);
}

double decode_us(const roofline::RooflineModel& m, int64_t context) {
    std::vector<mfusim_request> step(32, mfusim_request{1, context, 0u, 0u});
    return m.step_time_us(step.data(), step.size());
}

// The error a config is refused or rejected with, or "" when it parses.
std::string error_of(const nlohmann::json& j, Status* status = nullptr) {
    try {
        parse(j);
    } catch (const Error& e) {
        if (status) *status = e.status();
        return e.what();
    }
    return "";
}

// The card: 196B in the language backbone (198B with the 1.8B vision encoder), about 11B active. Its active figure
// is read without the embedding and the LM head (2 x vocab x hidden, untied), as for DeepSeek-V4.
TEST(Step3p7, ParametersMatchTheCard) {
    const config::ModelConfig m = parse(step37());
    EXPECT_EQ(m.num_kv_heads, 8);  // num_attention_groups
    EXPECT_EQ(m.num_heads, 64);
    EXPECT_EQ(m.windowed_layers, 33);  // layer_types: every 4th layer full, from layer 0
    EXPECT_EQ(m.attention_window, 512);
    EXPECT_EQ(m.windowed_heads.heads, 96);  // attention_other_setting
    EXPECT_EQ(m.windowed_heads.kv_heads, 8);
    EXPECT_EQ(m.windowed_heads.head_dim, 128);
    EXPECT_TRUE(m.windowed_heads.head_gate);
    EXPECT_TRUE(m.full_heads().head_gate);
    EXPECT_EQ(m.num_experts, 288);                       // moe_num_experts
    EXPECT_EQ(m.experts_per_token, 8);                   // moe_top_k
    EXPECT_EQ(m.moe_layer_count, 42);                    // moe_layers_enum "3,...,44"
    EXPECT_EQ(m.shared_expert_intermediate_size, 1280);  // share_expert_dim
    EXPECT_EQ(m.intermediate_size, 11264);               // the 3 dense layers
    const roofline::ModelParams p = roofline::model_params(m);
    EXPECT_LT(std::fabs((p.total - p.vision) / 196e9 - 1.0), 0.03) << p.total / 1e9;
    EXPECT_LT(std::fabs(p.total / 198e9 - 1.0), 0.03) << p.total / 1e9;  // with the vision encoder
    const double embeddings = 2.0 * 128896 * 4096;
    EXPECT_LT(std::fabs((p.active - embeddings) / 11e9 - 1.0), 0.03) << p.active / 1e9;
}

// KV bytes per token per layer kind: 8 KV heads of 128 (K and V) on both kinds, so the sliding layers' 96 query heads
// add nothing to the cache; at TP 8 each GPU holds one KV head per layer.
TEST(Step3p7, KvBytesPerLayerKind) {
    const config::ModelConfig m = parse(step37());
    const roofline::RooflineModel tp1 = make(m, 1);
    EXPECT_DOUBLE_EQ(tp1.memory().kv_bytes_per_token, 12 * 8 * (128 + 128) * 2.0);
    EXPECT_DOUBLE_EQ(tp1.memory().windowed_kv_bytes_per_token, 33 * 8 * (128 + 128) * 2.0);
    EXPECT_EQ(tp1.memory().kv_window, 512);
    const roofline::RooflineModel tp8 = make(m, 8);
    EXPECT_DOUBLE_EQ(tp8.memory().kv_bytes_per_token, 12 * 1 * (128 + 128) * 2.0);
    EXPECT_DOUBLE_EQ(tp8.memory().windowed_kv_bytes_per_token, 33 * 1 * (128 + 128) * 2.0);
}

// The head-wise gate is a g_proj of hidden x heads on every attention layer (each kind its own head count), and a
// step costs more with it.
TEST(Step3p7, HeadWiseGateAddsOneWeightPerHead) {
    nlohmann::json j = step37();
    const config::ModelConfig gated = parse(j);
    j["text_config"]["use_head_wise_attn_gate"] = false;
    const config::ModelConfig plain = parse(j);
    const double added = roofline::model_params(gated).total - roofline::model_params(plain).total;
    EXPECT_DOUBLE_EQ(added, 4096.0 * (12 * 64 + 33 * 96));
    EXPECT_GT(decode_us(make(gated, 8), 1024), decode_us(make(plain, 8), 1024));
}

// attention_other_setting is MiMo-V2's swa_* geometry under other names: the same plan and step time.
TEST(Step3p7, SlidingGeometryEqualsItsSwaForm) {
    nlohmann::json j = step37();
    const config::ModelConfig other = parse(j);
    auto& t = j["text_config"];
    t.erase("attention_other_setting");
    t["swa_num_attention_heads"] = 96;
    t["swa_num_key_value_heads"] = 8;
    const config::ModelConfig swa = parse(j);
    EXPECT_EQ(other.windowed_heads, swa.windowed_heads);
    EXPECT_DOUBLE_EQ(decode_us(make(other, 8), 131072), decode_us(make(swa, 8), 131072));
    // Without a second geometry the sliding layers have the full layers' 64 heads: fewer parameters.
    t.erase("swa_num_attention_heads");
    t.erase("swa_num_key_value_heads");
    EXPECT_LT(roofline::model_params(parse(j)).total, roofline::model_params(swa).total);
}

// moe_layers_enum as a string or a list, with the checkpoint's MTP layer indices past the decoder, is one plan; the
// same as DeepSeek's first_k_dense_replace. Malformed entries are errors naming the key.
TEST(Step3p7, MoeLayersEnumForms) {
    nlohmann::json j = step37();
    const double reference = roofline::model_params(parse(j)).total;
    std::vector<int> layers;
    for (int i = 3; i < 48; ++i) layers.push_back(i);  // 45..47: the MTP layers
    j["text_config"]["moe_layers_enum"] = layers;
    EXPECT_EQ(parse(j).moe_layer_count, 42);
    EXPECT_DOUBLE_EQ(roofline::model_params(parse(j)).total, reference);
    j["text_config"].erase("moe_layers_enum");
    j["text_config"]["first_k_dense_replace"] = 3;
    EXPECT_DOUBLE_EQ(roofline::model_params(parse(j)).total, reference);
    j["text_config"].erase("first_k_dense_replace");
    for (const nlohmann::json& bad :
         {nlohmann::json("3,x,5"), nlohmann::json("3,-1"), nlohmann::json(3.5), nlohmann::json::array({3, "4"})}) {
        j["text_config"]["moe_layers_enum"] = bad;
        Status status = Status::ok;
        const std::string what = error_of(j, &status);
        EXPECT_EQ(status, Status::config) << bad.dump();
        EXPECT_NE(what.find("text_config.moe_layers_enum"), std::string::npos) << what;
    }
}

// A second geometry for a layer kind other than sliding_attention is refused naming the key.
TEST(Step3p7, OtherAttentionTypesAreRefusedByName) {
    nlohmann::json j = step37();
    j["text_config"]["attention_other_setting"]["attention_type"] = "full_attention";
    Status status = Status::ok;
    const std::string what = error_of(j, &status);
    EXPECT_EQ(status, Status::unsupported);
    EXPECT_NE(what.find("attention_other_setting.attention_type"), std::string::npos) << what;
}

}  // namespace
}  // namespace mfusim
