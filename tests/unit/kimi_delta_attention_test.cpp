// Kimi Delta Attention (issue #27, Kimi Linear / Kimi-K3): linear_attn_config's KDA layers read and timed as a
// recurrent kernel site beside MLA layers and a MoE. The fixture (tests/fixtures/arch2026/kimi_linear_48b_a3b.json,
// provenance in its README.md) reconstructs Kimi-Linear-48B-A3B from the public config classes. The scaling each
// layer kind must show is pinned here: KDA's decode cost flat in the context, its prefill linear in the tokens, the
// MLA layers' attention growing with the context.
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
#include "support/roofline_steps.hpp"

namespace mfusim {
namespace {

using testing::decodes;
using testing::step_detail;

std::string kimi_linear_text() {
    return testing::fixture_text("arch2026/kimi_linear_48b_a3b.json");
}

nlohmann::json kimi_linear() {
    return nlohmann::json::parse(kimi_linear_text());
}

config::ModelConfig parse(const nlohmann::json& j) {
    return config::parse_model_config(config::resolve_model_source(j.dump()));
}

roofline::RooflineModel make(const config::ModelConfig& m, int64_t tp = 1) {
    query::Deployment d;
    d.tensor_parallel = tp;
    return roofline::RooflineModel(m, gpu::resolve_gpu("H100"), nullptr, d);
}

double op_us(const mfusim_step_result& r, mfusim_op op) {
    return r.ops[op].time_us;
}

void expect_error(const nlohmann::json& j, Status status, const std::string& field) {
    try {
        parse(j);
        ADD_FAILURE() << "accepted; expected an error naming " << field;
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), status) << e.what();
        EXPECT_NE(std::string(e.what()).find("field '" + field + "'"), std::string::npos) << e.what();
    }
}

// Kimi-Linear-48B-A3B's card: 48B total, 3B active. 20 KDA layers and 7 MLA layers from the 1-based lists, the
// first layer dense, 26 MoE layers of 256 experts, top 8 (num_experts_per_token).
TEST(KimiDeltaAttention, ParametersMatchTheCard) {
    const config::ModelConfig m = parse(kimi_linear());
    EXPECT_EQ(m.linear_kind, config::LinearAttentionKind::kimi_delta);
    EXPECT_EQ(m.linear_layer_count, 20);
    EXPECT_EQ(m.full_attention_layers(), 7);
    EXPECT_EQ(m.attention, config::AttentionKind::mla);
    EXPECT_EQ(m.linear_num_value_heads, 32);
    EXPECT_EQ(m.linear_key_head_dim, 128);
    EXPECT_EQ(m.linear_conv_kernel, 4);
    EXPECT_EQ(m.experts_per_token, 8);
    EXPECT_EQ(m.moe_layer_count, 26);
    const roofline::ModelParams p = roofline::model_params(m);
    EXPECT_LT(std::fabs(p.total / 48e9 - 1.0), 0.03) << p.total / 1e9 << " B total against the card's 48 B";
    // A KDA layer's weights, from vLLM's KimiDeltaAttention: q, k, v, o (4 x 2304 x 4096), b (2304 x 32), f_a and
    // g_a (2304 x 128 each), f_b and g_b (128 x 4096 each). Removing the KDA layers' kind (all MLA) changes the
    // total by exactly 20 x (KDA - MLA) weights.
    const double kda = 4.0 * 2304 * 4096 + 2304.0 * 32 + 2.0 * 2304 * 128 + 2.0 * 128 * 4096;
    const double mla = 2304.0 * 32 * 192 + 2304.0 * 576 + 512.0 * 32 * 256 + 32.0 * 128 * 2304;
    nlohmann::json all_mla = kimi_linear();
    all_mla.erase("linear_attn_config");
    const roofline::ModelParams q = roofline::model_params(parse(all_mla));
    EXPECT_NEAR(p.total - q.total, 20.0 * (kda - mla), 1.0);
}

// State per request: 20 KDA layers of a 32 x 128 x 128 fp32 state plus the bf16 conv state of q, k and v (3 taps
// of 3 x 4096 channels), sharded by TP with the heads. KV per token: 7 MLA layers of one 512 + 64 latent, bf16,
// replicated on every rank.
TEST(KimiDeltaAttention, StateAndKvBytes) {
    const double state = 32.0 * 128 * 128 * 4 + 3.0 * 4096 * 3 * 2;
    const roofline::RooflineModel tp1 = make(parse(kimi_linear()), 1);
    EXPECT_DOUBLE_EQ(tp1.memory().state_bytes_per_request, 20 * state);
    EXPECT_DOUBLE_EQ(tp1.memory().kv_bytes_per_token, 7 * 576 * 2.0);
    const roofline::RooflineModel tp4 = make(parse(kimi_linear()), 4);
    EXPECT_DOUBLE_EQ(tp4.memory().state_bytes_per_request, 20 * state / 4);
    EXPECT_DOUBLE_EQ(tp4.memory().kv_bytes_per_token, 7 * 576 * 2.0);
}

// Decode: the KDA layers' time (core and projections, MFUSIM_OP_LINEAR_ATTN) is the same at 1k and 128k context,
// while the MLA layers' decode attention grows with the keys it reads.
TEST(KimiDeltaAttention, DecodeCostFlatInContextMlaGrows) {
    const roofline::RooflineModel m = make(parse(kimi_linear()), 1);
    const mfusim_step_result short_ctx = step_detail(m, decodes(32, 1024));
    const mfusim_step_result long_ctx = step_detail(m, decodes(32, 131072));
    EXPECT_GT(op_us(short_ctx, MFUSIM_OP_LINEAR_ATTN), 0);
    EXPECT_DOUBLE_EQ(op_us(short_ctx, MFUSIM_OP_LINEAR_ATTN), op_us(long_ctx, MFUSIM_OP_LINEAR_ATTN));
    // 128x the keys: the MLA attention at least 20x (its launch and fixed work do not grow).
    EXPECT_GT(op_us(long_ctx, MFUSIM_OP_ATTN_DECODE), 20 * op_us(short_ctx, MFUSIM_OP_ATTN_DECODE));
    EXPECT_GT(long_ctx.total_us, short_ctx.total_us);
}

// Prefill: the KDA layers' time is linear in the new tokens (twice the tokens, twice the time within 5% once the
// GEMMs are compute-bound) and independent of the cached context; the MLA layers' prefill attention grows with it.
TEST(KimiDeltaAttention, PrefillLinearInTokens) {
    const roofline::RooflineModel m = make(parse(kimi_linear()), 1);
    const double t8k = op_us(step_detail(m, {mfusim_request{8192, 0, 0u, 0u}}), MFUSIM_OP_LINEAR_ATTN);
    const double t16k = op_us(step_detail(m, {mfusim_request{16384, 0, 0u, 0u}}), MFUSIM_OP_LINEAR_ATTN);
    EXPECT_NEAR(t16k / t8k, 2.0, 0.1);
    const mfusim_step_result cold = step_detail(m, {mfusim_request{1024, 0, 0u, 0u}});
    const mfusim_step_result warm = step_detail(m, {mfusim_request{1024, 130048, 0u, 0u}});
    EXPECT_DOUBLE_EQ(op_us(cold, MFUSIM_OP_LINEAR_ATTN), op_us(warm, MFUSIM_OP_LINEAR_ATTN));
    EXPECT_GT(op_us(warm, MFUSIM_OP_ATTN_PREFILL), 10 * op_us(cold, MFUSIM_OP_ATTN_PREFILL));
}

// The recurrent core is Gated DeltaNet's with key heads = value heads: the same layers stated as GDN layers of the
// same geometry (layer_types and the linear_* keys) hold exactly the same state per request and KV per token.
TEST(KimiDeltaAttention, SameStateAsGatedDeltaNetOfItsGeometry) {
    nlohmann::json gdn = kimi_linear();
    gdn.erase("linear_attn_config");
    std::vector<std::string> types(27, "full_attention");
    for (int layer : {1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26}) {
        types[static_cast<std::size_t>(layer - 1)] = "linear_attention";
    }
    gdn["layer_types"] = types;
    gdn["linear_conv_kernel_dim"] = 4;
    gdn["linear_key_head_dim"] = 128;
    gdn["linear_value_head_dim"] = 128;
    gdn["linear_num_key_heads"] = 32;
    gdn["linear_num_value_heads"] = 32;
    const roofline::RooflineModel as_gdn = make(parse(gdn), 1);
    const roofline::RooflineModel as_kda = make(parse(kimi_linear()), 1);
    EXPECT_DOUBLE_EQ(as_gdn.memory().state_bytes_per_request, as_kda.memory().state_bytes_per_request);
    EXPECT_DOUBLE_EQ(as_gdn.memory().kv_bytes_per_token, as_kda.memory().kv_bytes_per_token);
}

// Kimi-K3 nests its text model in a multimodal wrapper's text_config: read there, it plans the same model.
TEST(KimiDeltaAttention, ReadInsideAMultimodalWrapper) {
    nlohmann::json wrapped = {{"model_type", "kimi_k25"}, {"architectures", {"KimiK25ForConditionalGeneration"}}};
    wrapped["text_config"] = kimi_linear();
    const config::ModelConfig inner = parse(wrapped);
    EXPECT_EQ(inner.linear_layer_count, 20);
    EXPECT_DOUBLE_EQ(roofline::model_params(inner).total, roofline::model_params(parse(kimi_linear())).total);
    const std::vector<mfusim_request> step = decodes(8, 4096);
    EXPECT_DOUBLE_EQ(make(inner).step_time_us(step.data(), step.size()),
                     make(parse(kimi_linear())).step_time_us(step.data(), step.size()));
    // Errors name the field under its wrapper.
    wrapped["text_config"]["linear_attn_config"]["kda_layers"][0] = 0;
    expect_error(wrapped, Status::config, "text_config.linear_attn_config.kda_layers");
}

// Malformed layer lists and values are errors naming the field; unknown linear_attn_config keys and a second
// linear-attention layout are refused by name.
TEST(KimiDeltaAttention, MalformedListsAndUntimedVariants) {
    nlohmann::json j = kimi_linear();
    j["linear_attn_config"]["kda_layers"].push_back(4);  // also a full layer: found in the second list
    expect_error(j, Status::config, "linear_attn_config.full_attn_layers");
    j = kimi_linear();
    j["linear_attn_config"]["kda_layers"].push_back(1);  // twice in one list
    expect_error(j, Status::config, "linear_attn_config.kda_layers");
    j = kimi_linear();
    j["linear_attn_config"]["full_attn_layers"].erase(0);  // layer 4 in neither list
    expect_error(j, Status::config, "linear_attn_config.full_attn_layers");
    j = kimi_linear();
    j["linear_attn_config"]["full_attn_layers"].push_back(28);  // past the last layer
    expect_error(j, Status::config, "linear_attn_config.full_attn_layers");
    j = kimi_linear();
    j["linear_attn_config"].erase("head_dim");
    expect_error(j, Status::config, "linear_attn_config.head_dim");
    j = kimi_linear();
    j["linear_attn_config"]["gate_low_rank_dim"] = 64;
    expect_error(j, Status::unsupported, "linear_attn_config.gate_low_rank_dim");
    j = kimi_linear();
    j["linear_attn_config"]["use_full_rank_gate"] = "yes";
    expect_error(j, Status::config, "linear_attn_config.use_full_rank_gate");
    j = kimi_linear();
    j["attn_res_block_size"] = 0;
    expect_error(j, Status::config, "attn_res_block_size");
    j = kimi_linear();
    j["full_attention_interval"] = 4;
    expect_error(j, Status::unsupported, "full_attention_interval");
}

// Kimi-K3's additions (public ports of its model: mlx-lm style `kimi_k3` with `text_config`), each read and timed:
// a sigmoid output gate on the MLA layers (g_proj, hidden -> heads x v_head_dim), latent experts
// (routed_expert_hidden_size: the latent MoE of moe_latent_size), a full-rank KDA output gate (use_full_rank_gate)
// and attention residuals (attn_res_block_size). Each adds exactly its weights, and the residual mixes their bytes.
TEST(KimiDeltaAttention, KimiK3AdditionsAddTheirWeights) {
    const nlohmann::json base = kimi_linear();
    const double total = roofline::model_params(parse(base)).total;
    auto with = [&](const char* key, const nlohmann::json& value) {
        nlohmann::json j = base;
        j[key] = value;
        return roofline::model_params(parse(j)).total;
    };
    // 7 MLA layers x 2304 x 32 x 128.
    EXPECT_DOUBLE_EQ(with("mla_use_output_gate", true) - total, 7.0 * 2304 * 32 * 128);
    // 26 MoE layers: experts on 1152 instead of 2304 (256 x 3 x 1024 x (2304 - 1152) fewer), plus the down and up
    // projections (2 x 2304 x 1152); the same as Nemotron's moe_latent_size.
    EXPECT_DOUBLE_EQ(with("routed_expert_hidden_size", 1152) - total,
                     26.0 * (2.0 * 2304 * 1152 - 256.0 * 3 * 1024 * (2304 - 1152)));
    EXPECT_DOUBLE_EQ(with("routed_expert_hidden_size", 1152), with("moe_latent_size", 1152));
    // Full-rank gate: g_proj (2304 x 4096) replaces g_a (2304 x 128) and g_b (128 x 4096), in 20 KDA layers.
    nlohmann::json full = base;
    full["linear_attn_config"]["use_full_rank_gate"] = true;
    full["linear_attn_config"]["gate_lower_bound"] = -5.0;
    EXPECT_DOUBLE_EQ(roofline::model_params(parse(full)).total - total,
                     20.0 * (2304.0 * 4096 - 2304.0 * 128 - 128.0 * 4096));
    // Attention residuals: no weights counted; the step grows by the mixes' bytes, and more with smaller blocks
    // (more snapshots to read).
    EXPECT_DOUBLE_EQ(with("attn_res_block_size", 12), total);
    nlohmann::json res12 = base, res4 = base;
    res12["attn_res_block_size"] = 12;
    res4["attn_res_block_size"] = 4;
    const std::vector<mfusim_request> step{mfusim_request{4096, 0, 0u, 0u}};
    const double plain = step_detail(make(parse(base)), step).total_us;
    const double t12 = step_detail(make(parse(res12)), step).total_us;
    const double t4 = step_detail(make(parse(res4)), step).total_us;
    EXPECT_GT(t12, plain);
    EXPECT_GT(t4, t12);
    // All of it inside a kimi_k3 wrapper's text_config.
    nlohmann::json k3 = {{"model_type", "kimi_k3"}};
    k3["text_config"] = res12;
    EXPECT_DOUBLE_EQ(step_detail(make(parse(k3)), step).total_us, t12);
}

// Kimi-K3 (tests/fixtures/arch2026/kimi_k3.json: the checkpoint's text_config as two public ports quote it, inside
// its kimi_k3 wrapper). The card: 2.8T total, 104B active, 16 of 896 experts per token. 69 KDA and 24 MLA layers
// from the 1-based lists (the last two layers both MLA), 92 latent-MoE layers after one dense layer.
TEST(KimiDeltaAttention, KimiK3ParametersStateAndKv) {
    const nlohmann::json k3 = nlohmann::json::parse(testing::fixture_text("arch2026/kimi_k3.json"));
    const config::ModelConfig m = parse(k3);
    EXPECT_EQ(m.linear_kind, config::LinearAttentionKind::kimi_delta);
    EXPECT_EQ(m.linear_layer_count, 69);
    EXPECT_EQ(m.full_attention_layers(), 24);
    EXPECT_EQ(m.linear_num_value_heads, 96);
    EXPECT_EQ(m.moe_layer_count, 92);
    EXPECT_EQ(m.experts_per_token, 16);
    const roofline::ModelParams p = roofline::model_params(m);
    EXPECT_LT(std::fabs(p.total / 2.8e12 - 1.0), 0.03) << p.total / 1e9 << " B total against the card's 2.8T";
    EXPECT_LT(std::fabs(p.active / 104e9 - 1.0), 0.03) << p.active / 1e9 << " B active against the card's 104B";
    // The routed experts run on the 3584-wide latent: stating it as moe_latent_size plans the same weights, and
    // dropping it (experts on the 7168-wide hidden state) adds 92 x (896 x 3 x 3072 x 3584 - 2 x 7168 x 3584).
    nlohmann::json full_width = k3, latent = k3;
    full_width["text_config"].erase("routed_expert_hidden_size");
    latent["text_config"].erase("routed_expert_hidden_size");
    latent["text_config"]["moe_latent_size"] = 3584;
    EXPECT_DOUBLE_EQ(roofline::model_params(parse(latent)).total, p.total);
    EXPECT_DOUBLE_EQ(roofline::model_params(parse(full_width)).total - p.total,
                     92.0 * (896.0 * 3 * 3072 * 3584 - 2.0 * 7168 * 3584));
    // At TP 8: per KDA layer 96 / 8 heads of a 128 x 128 fp32 state and the bf16 conv state of q, k and v (3 taps of
    // 3 x 12288 / 8 channels); per token 24 MLA latents of 512 + 64, bf16, replicated.
    const roofline::RooflineModel tp8 = make(m, 8);
    EXPECT_DOUBLE_EQ(tp8.memory().state_bytes_per_request, 69 * (12.0 * 128 * 128 * 4 + 3.0 * 12288 / 8 * 3 * 2));
    EXPECT_DOUBLE_EQ(tp8.memory().kv_bytes_per_token, 24 * 576 * 2.0);
    // The KDA layers' decode time flat in the context, the MLA layers' growing.
    const mfusim_step_result short_ctx = step_detail(tp8, decodes(32, 1024));
    const mfusim_step_result long_ctx = step_detail(tp8, decodes(32, 131072));
    EXPECT_DOUBLE_EQ(op_us(short_ctx, MFUSIM_OP_LINEAR_ATTN), op_us(long_ctx, MFUSIM_OP_LINEAR_ATTN));
    EXPECT_GT(op_us(long_ctx, MFUSIM_OP_ATTN_DECODE), 20 * op_us(short_ctx, MFUSIM_OP_ATTN_DECODE));
}

}  // namespace
}  // namespace mfusim
