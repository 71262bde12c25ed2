// The architectures of 2026 (issue #27): each mechanism read from its config keys and pinned by what it must do.
// Fixtures (tests/fixtures/arch2026, provenance in its README.md) reconstruct published configs from the
// public implementations' config classes; the real GLM-5.2 and Nemotron-3 Super configs are read from
// ../shared/reference and varied in memory (never copied). Parameter counts are checked against the model cards.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
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
#include "support/refusal.hpp"
#include "support/roofline_steps.hpp"

namespace mfusim {
namespace {

using testing::decodes;
using testing::step_detail;

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string fixture(const char* name) {
    return testing::fixture_text(std::string("arch2026/") + name);
}

config::ModelConfig parse(const std::string& json) {
    return config::parse_model_config(config::resolve_model_source(json));
}

roofline::RooflineModel make(const config::ModelConfig& m, int64_t tp = 1) {
    query::Deployment d;
    d.tensor_parallel = tp;
    return roofline::RooflineModel(m, gpu::resolve_gpu("H100"), nullptr, d);
}

double decode_us(const roofline::RooflineModel& m, int64_t batch, int64_t context) {
    std::vector<mfusim_request> step(static_cast<std::size_t>(batch), mfusim_request{1, context, 0u, 0u});
    return m.step_time_us(step.data(), step.size());
}

// "field '<key>'" of a refusal.
void expect_refused(const std::string& json, const char* key) {
    testing::expect_refused_naming([&] { parse(json); }, key);
}

// Within 3% of a model card's figure.
void expect_card(double count, double card, const char* what) {
    EXPECT_LT(std::fabs(count / card - 1.0), 0.03)
        << what << ": " << count / 1e9 << " B against the card's " << card / 1e9 << " B";
}

// MiMo-V2-Flash's card: 309B total, 15B active.
TEST(Architectures2026, MimoV2ParametersMatchTheCard) {
    const config::ModelConfig m = parse(fixture("mimo_v2_flash.json"));
    EXPECT_EQ(m.windowed_layers, 39);  // hybrid_layer_pattern: 1 = sliding window
    EXPECT_EQ(m.attention_window, 128);
    EXPECT_EQ(m.moe_layer_count, 47);  // moe_layer_freq as a per-layer list
    EXPECT_EQ(m.windowed_heads.kv_heads, 8);
    EXPECT_EQ(m.gqa_v_head_dim(), 128);
    const roofline::ModelParams p = roofline::model_params(m);
    expect_card(p.total, 309e9, "MiMo-V2-Flash total");
    expect_card(p.active, 15e9, "MiMo-V2-Flash active");
}

// Gemma-4 26B-A4B's card: 25.2B total, 3.8B active.
TEST(Architectures2026, Gemma4ParametersMatchTheCard) {
    const config::ModelConfig m = parse(fixture("gemma4_26b_a4b.json"));
    EXPECT_EQ(m.num_experts, 128);
    EXPECT_EQ(m.experts_per_token, 8);  // top_k_experts
    EXPECT_EQ(m.moe_layer_count, 30);
    EXPECT_EQ(m.shared_expert_intermediate_size, 2112);  // the dense MLP beside the experts
    EXPECT_EQ(m.head_dim, 512);                          // global layers: global_head_dim
    EXPECT_EQ(m.num_kv_heads, 2);                        // num_global_key_value_heads
    EXPECT_TRUE(m.k_eq_v);
    EXPECT_EQ(m.windowed_heads.head_dim, 256);
    EXPECT_EQ(m.windowed_heads.kv_heads, 8);
    const roofline::ModelParams p = roofline::model_params(m);
    expect_card(p.total, 25.2e9, "Gemma-4 26B-A4B total");
    expect_card(p.active, 3.8e9, "Gemma-4 26B-A4B active");
}

// KV bytes per token per layer kind: each kind its own geometry, K and V widths apart.
TEST(Architectures2026, KvBytesPerLayerKind) {
    const roofline::RooflineModel mimo = make(parse(fixture("mimo_v2_flash.json")), 8);
    // Full layers: 4 KV heads < TP 8, one replica per GPU, K 192 + V 128 wide, bf16; windowed: 8 heads / 8.
    EXPECT_DOUBLE_EQ(mimo.memory().kv_bytes_per_token, 9 * 1 * (192 + 128) * 2.0);
    EXPECT_DOUBLE_EQ(mimo.memory().windowed_kv_bytes_per_token, 39 * 1 * (192 + 128) * 2.0);
    EXPECT_EQ(mimo.memory().kv_window, 128);
    const roofline::RooflineModel gemma = make(parse(fixture("gemma4_26b_a4b.json")), 1);
    EXPECT_DOUBLE_EQ(gemma.memory().kv_bytes_per_token, 5 * 2 * (512 + 512) * 2.0);
    EXPECT_DOUBLE_EQ(gemma.memory().windowed_kv_bytes_per_token, 25 * 8 * (256 + 256) * 2.0);
}

// A windowed layer's own geometry changes its cost by the same amount at any context past the window: its
// attention reads at most `window` keys whatever the context, while the full layers' cost grows with it.
TEST(Architectures2026, WindowedGeometryCostIsBoundedByTheWindow) {
    nlohmann::json j = nlohmann::json::parse(fixture("mimo_v2_flash.json"));
    const roofline::RooflineModel own = make(parse(j.dump()), 2);
    j["swa_num_key_value_heads"] = 4;
    j["swa_head_dim"] = 192;
    j["swa_v_head_dim"] = 128;
    j["v_head_dim"] = 128;
    const config::ModelConfig same_model = parse(j.dump());
    EXPECT_EQ(same_model.windowed_heads.heads, 0);  // the same geometry as the full layers: not split
    const roofline::RooflineModel same = make(same_model, 2);
    auto attention = [](const roofline::RooflineModel& m, int64_t context) {
        return step_detail(m, decodes(32, context)).ops[MFUSIM_OP_ATTN_DECODE].time_us;
    };
    const double d32k = attention(own, 32768) - attention(same, 32768);
    const double d128k = attention(own, 131072) - attention(same, 131072);
    EXPECT_GT(d32k, 0);  // 4 KV heads per GPU read more than 2
    EXPECT_NEAR(d128k, d32k, 1e-9 * d32k);
    EXPECT_GT(attention(own, 131072), attention(own, 32768));
    EXPECT_GT(attention(same, 131072), attention(same, 32768));
    // Below the window every layer reads all its keys; the step stays finite and grows with the batch.
    EXPECT_LT(decode_us(own, 1, 64), decode_us(own, 64, 64));
}

// The same architecture under its two spellings gives the same plan: a per-layer moe_layer_freq list against the
// scalar form with first_k_dense_replace; Gemma-4's MoE keys against the common ones.
TEST(Architectures2026, PerLayerListsEqualTheirScalarForms) {
    nlohmann::json list = nlohmann::json::parse(fixture("mimo_v2_flash.json"));
    nlohmann::json scalar = list;
    scalar.erase("moe_layer_freq");
    scalar["first_k_dense_replace"] = 1;
    const roofline::ModelParams a = roofline::model_params(parse(list.dump()));
    const roofline::ModelParams b = roofline::model_params(parse(scalar.dump()));
    EXPECT_EQ(a.total, b.total);
    EXPECT_EQ(a.active, b.active);
    EXPECT_EQ(decode_us(make(parse(list.dump()), 8), 16, 4096), decode_us(make(parse(scalar.dump()), 8), 16, 4096));

    nlohmann::json bad = list;
    bad["moe_layer_freq"] = nlohmann::json::array({0, 1});
    EXPECT_THROW(parse(bad.dump()), Error);  // one entry per layer
    bad["moe_layer_freq"] = std::vector<int>(48, 2);
    EXPECT_THROW(parse(bad.dump()), Error);  // 0 or 1

    // Gemma-4 without enable_moe_block is a dense model whatever num_experts says.
    nlohmann::json gemma = nlohmann::json::parse(fixture("gemma4_26b_a4b.json"));
    gemma["text_config"]["enable_moe_block"] = false;
    const config::ModelConfig dense = parse(gemma.dump());
    EXPECT_FALSE(dense.is_moe());
    EXPECT_EQ(dense.intermediate_size, 2112);
}

// Nemotron-3's newer schema: the block pattern as a layers_block_type list, the layer count its length. The real
// Super config rewritten that way answers exactly as under hybrid_override_pattern.
TEST(Architectures2026, LayersBlockTypeEqualsHybridOverridePattern) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    const std::string path = ref + "/model_configs_aic/nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8_config.json";
    const std::string text = read_text(path);
    if (text.empty()) GTEST_SKIP() << path << " absent";
    nlohmann::json j = parse_json(text, path);  // the config holds an Infinity
    const config::ModelConfig original = parse(j.dump());
    nlohmann::json blocks = nlohmann::json::array();
    for (char c : j["hybrid_override_pattern"].get<std::string>()) {
        blocks.push_back(c == 'M' ? "mamba" : c == '*' ? "attention" : c == '-' ? "mlp" : "moe");
    }
    j.erase("hybrid_override_pattern");
    j.erase("num_hidden_layers");
    j["layers_block_type"] = blocks;
    const config::ModelConfig listed = parse(j.dump());
    EXPECT_EQ(listed.num_layers, original.num_layers);
    EXPECT_EQ(listed.mamba_layer_count, original.mamba_layer_count);
    EXPECT_EQ(listed.moe_layer_count, original.moe_layer_count);
    EXPECT_EQ(roofline::model_params(listed).total, roofline::model_params(original).total);
    EXPECT_EQ(decode_us(make(listed, 4), 8, 8192), decode_us(make(original, 4), 8, 8192));
    j["layers_block_type"][0] = "kda";
    expect_refused(j.dump(), "layers_block_type");
}

// GLM-5.2's shared indexers: with index_topk_freq f only every f-th layer scores (and holds indexer weights and
// keys); the attention still reads index_topk keys on every layer. The real GLM-5.2 config, varied in memory.
TEST(Architectures2026, SharedIndexersScoreOnEveryFthLayer) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    const std::string text = read_text(ref + "/model_configs/glm-5.2-fp8/config.json");
    if (text.empty()) GTEST_SKIP() << "glm-5.2-fp8 absent";
    nlohmann::json j = nlohmann::json::parse(text);
    const config::ModelConfig own = parse(j.dump());
    j["index_topk_freq"] = 4;
    const config::ModelConfig shared = parse(j.dump());
    EXPECT_EQ(own.indexer_layers, 78);
    EXPECT_EQ(shared.indexer_layers, 20);  // layers 0, 4, ..., 76
    // Indexer weights per layer: q (q_lora_rank x heads x dim) and k + weights (hidden x (dim + heads)).
    const double per_layer = 2048.0 * 32 * 128 + 6144.0 * (128 + 32);
    EXPECT_DOUBLE_EQ(roofline::model_params(own).total - roofline::model_params(shared).total, 58 * per_layer);
    const roofline::RooflineModel a = make(own, 8), b = make(shared, 8);
    const std::vector<mfusim_request> step(16, mfusim_request{1, 131072, 0u, 0u});
    const mfusim_step_result ra = step_detail(a, step), rb = step_detail(b, step);
    // The indexer's scoring (under attn_decode) shrinks to 20/78; the sparse attention itself is unchanged.
    EXPECT_LT(rb.ops[MFUSIM_OP_ATTN_DECODE].time_us, ra.ops[MFUSIM_OP_ATTN_DECODE].time_us);
    EXPECT_LT(rb.total_us, ra.total_us);
    EXPECT_NEAR(b.memory().kv_bytes_per_token, a.memory().kv_bytes_per_token - 58 * (128 + 4.0), 1e-6);
    j["index_skip_topk_offset"] = 3;
    expect_refused(j.dump(), "index_skip_topk_offset");
}

// DeepSeek-V4-Flash (compress_ratios): every layer slides over 128 keys; 20 layers pool 4 keys to one and read the
// top 512 an indexer picks, 20 pool 128 to one and read them all. Card: 284B total, 13B active.
nlohmann::json deepseek_v4() {
    return nlohmann::json::parse(fixture("deepseek_v4_flash.json"));
}
// The config with the compression ratios not in `keep` set to 0 (window-only layers).
std::string only_ratios(nlohmann::json j, std::initializer_list<int64_t> keep) {
    for (auto& r : j["compress_ratios"]) {
        const int64_t v = r.get<int64_t>();
        if (std::find(keep.begin(), keep.end(), v) == keep.end()) r = 0;
    }
    return j.dump();
}

TEST(Architectures2026, DeepseekV4ParametersMatchTheCard) {
    const config::ModelConfig m = parse(deepseek_v4().dump());
    const config::CompressedAttention& c = m.compressed;
    ASSERT_TRUE(c.present);
    EXPECT_EQ(c.window_only_layers, 3);
    EXPECT_EQ(c.sparse_layers, 20);
    EXPECT_EQ(c.sparse_ratio, 4);
    EXPECT_EQ(c.dense_layers, 20);
    EXPECT_EQ(c.dense_ratio, 128);
    EXPECT_EQ(c.index_topk, 512);
    EXPECT_EQ(c.o_groups, 8);
    EXPECT_EQ(c.hc_mult, 4);
    EXPECT_EQ(c.hash_moe_layers, 3);
    EXPECT_EQ(m.windowed_layers, 43);
    EXPECT_EQ(m.attention_window, 128);
    const roofline::ModelParams p = roofline::model_params(m);
    expect_card(p.total, 284e9, "DeepSeek-V4-Flash total");
    // The card's active count leaves out the input embedding and the LM head (as DeepSeek's cards do).
    expect_card(p.active - 2.0 * 129280 * 4096, 13e9, "DeepSeek-V4-Flash active");
    // What compression adds, from the architecture (transformers' modeling_deepseek_v4.py): a sparse layer's
    // compressor (KV and gate, two series of 512: 4096 x 2048) and indexer (q_b 1024 x 64 x 128; its own
    // compressor 4096 x 512 and head weights 4096 x 64); a dense layer's compressor (4096 x 1024).
    const roofline::ModelParams window_only = roofline::model_params(parse(only_ratios(deepseek_v4(), {})));
    const double sparse = 4096.0 * 2048 + 1024.0 * 64 * 128 + 4096.0 * (512 + 64);
    const double dense = 4096.0 * 1024;
    EXPECT_DOUBLE_EQ(p.total - window_only.total, 20 * sparse + 20 * dense);
}

// KV bytes per token by kind: every layer's window of K=V (one 512-wide vector, replicated on every rank); the pooled
// entries, one per r tokens; the sparse layers' indexer keys (FP8 key and fp32 scale), one per r tokens.
TEST(Architectures2026, CompressedKvBytesPerLayerKind) {
    const roofline::RooflineModel v4 = make(parse(deepseek_v4().dump()), 8);
    EXPECT_DOUBLE_EQ(v4.memory().windowed_kv_bytes_per_token, 43 * 512 * 2.0);
    EXPECT_EQ(v4.memory().kv_window, 128);
    EXPECT_DOUBLE_EQ(v4.memory().kv_bytes_per_token, 20 * (512 * 2.0 + 128 + 4) / 4 + 20 * 512 * 2.0 / 128);
    // An FP8 cache holds vLLM's entry: 448 FP8 no-rope bytes, 64 bf16 rope values, 7 scales, a pad byte.
    query::Deployment fp8;
    fp8.tensor_parallel = 8;
    fp8.fp8_kv = true;
    const roofline::RooflineModel v4_fp8(parse(deepseek_v4().dump()), gpu::resolve_gpu("H100"), nullptr, fp8);
    EXPECT_DOUBLE_EQ(v4_fp8.memory().windowed_kv_bytes_per_token, 43 * 584.0);
    EXPECT_DOUBLE_EQ(v4_fp8.memory().kv_bytes_per_token, 20 * (584.0 + 128 + 4) / 4 + 20 * 584.0 / 128);
    // 128k tokens of context hold the window and the pooled entries, not 128k keys per layer.
    EXPECT_LT(v4.memory().kv_bytes_for(131072), 131072.0 * 43 * 512 * 2.0 / 5);
}

// Each kind's attention against context (32 decodes): the window branch is flat past the window; a dense layer's
// pooled entries grow as context / r (half the growth at twice r); a sparse layer reads a flat top-k past top-k x r
// (two top-k differ by the same time at 32k and 128k), and its indexer grows as context / r.
TEST(Architectures2026, CompressedAttentionScalesByLayerKind) {
    auto attention = [](const std::string& json, int64_t context) {
        return step_detail(make(parse(json), 8), decodes(32, context)).ops[MFUSIM_OP_ATTN_DECODE].time_us;
    };
    auto growth = [&](const std::string& json) { return attention(json, 131072) - attention(json, 32768); };
    const std::string window = only_ratios(deepseek_v4(), {});
    EXPECT_DOUBLE_EQ(attention(window, 131072), attention(window, 4096));
    EXPECT_GT(attention(window, 4096), attention(window, 16));

    nlohmann::json dense64 = deepseek_v4();
    for (auto& r : dense64["compress_ratios"]) r = r.get<int64_t>() == 128 ? 64 : r.get<int64_t>();
    dense64["compress_rates"] = {{"heavily_compressed_attention", 64}};
    const double g128 = growth(only_ratios(deepseek_v4(), {128})), g64 = growth(only_ratios(dense64, {64}));
    EXPECT_GT(g128, 0);
    EXPECT_NEAR(g64 / g128, 2.0, 0.05);

    const std::string sparse = only_ratios(deepseek_v4(), {4});
    nlohmann::json topk = nlohmann::json::parse(sparse);
    topk["index_topk"] = 1024;
    const double d32k = attention(topk.dump(), 32768) - attention(sparse, 32768);
    const double d128k = attention(topk.dump(), 131072) - attention(sparse, 131072);
    EXPECT_GT(d32k, 0);
    EXPECT_NEAR(d128k, d32k, 1e-6 * d32k);
    nlohmann::json sparse8 = nlohmann::json::parse(sparse);
    for (auto& r : sparse8["compress_ratios"]) r = r.get<int64_t>() == 4 ? 8 : r.get<int64_t>();
    sparse8["compress_rates"] = {{"compressed_sparse_attention", 8}};
    const double g4 = growth(sparse), g8 = growth(sparse8.dump());
    EXPECT_GT(g8, 0);
    EXPECT_NEAR(g4 / g8, 2.0, 0.05);
    // The whole model: its 128k decode attention far below the same layers reading every key.
    const std::string full = [] {
        nlohmann::json j = deepseek_v4();
        j.erase("compress_ratios");
        j.erase("sliding_window");
        j.erase("index_topk");
        return j.dump();
    }();
    EXPECT_LT(attention(deepseek_v4().dump(), 131072), attention(full, 131072) / 4);
}

// transformers' newer form: layer types by name, MoE layers as "hash_moe" / "moe": the same plan as compress_ratios.
TEST(Architectures2026, CompressedLayerTypesEqualCompressRatios) {
    nlohmann::json named = deepseek_v4();
    std::vector<std::string> types, mlp;
    for (const auto& r : named["compress_ratios"]) {
        const int64_t v = r.get<int64_t>();
        types.push_back(v == 0   ? "sliding_attention"
                        : v == 4 ? "compressed_sparse_attention"
                                 : "heavily_compressed_attention");
        mlp.push_back(mlp.size() < 3 ? "hash_moe" : "moe");
    }
    named.erase("compress_ratios");
    named.erase("num_hash_layers");
    named["layer_types"] = types;
    named["mlp_layer_types"] = mlp;
    const config::ModelConfig a = parse(deepseek_v4().dump()), b = parse(named.dump());
    EXPECT_EQ(b.compressed.sparse_layers, a.compressed.sparse_layers);
    EXPECT_EQ(b.compressed.dense_layers, a.compressed.dense_layers);
    EXPECT_EQ(b.compressed.window_only_layers, a.compressed.window_only_layers);
    EXPECT_EQ(b.compressed.hash_moe_layers, 3);
    EXPECT_EQ(b.moe_layer_count, 43);
    EXPECT_DOUBLE_EQ(roofline::model_params(b).total, roofline::model_params(a).total);
    EXPECT_DOUBLE_EQ(decode_us(make(b, 8), 32, 65536), decode_us(make(a, 8), 32, 65536));
    named["layer_types"][4] = "full_attention";
    expect_refused(named.dump(), "layer_types");
}

// Ratios other than the two kinds, a layer_types list beside compress_ratios, and a TP that splits a group of the
// output projection are refused or rejected by name.
TEST(Architectures2026, CompressedAttentionRefusals) {
    nlohmann::json j = deepseek_v4();
    j["compress_ratios"][5] = 16;
    expect_refused(j.dump(), "compress_ratios");
    j = deepseek_v4();
    j["layer_types"] = std::vector<std::string>(43, "sliding_attention");
    expect_refused(j.dump(), "layer_types");
    j = deepseek_v4();
    j["compress_ratios"].erase(0);
    EXPECT_THROW(parse(j.dump()), Error);  // 42 entries for 43 layers
    try {
        make(parse(deepseek_v4().dump()), 16);
        ADD_FAILURE() << "TP 16 over 8 output groups accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("o_groups"), std::string::npos) << e.what();
    }
}

// Mechanisms not timed yet are refused by their key, never approximated.
TEST(Architectures2026, UntimedMechanismsAreRefusedByName) {
    // sparse_attention_config (block-sparse attention) is timed now: block_sparse_attention_test.cpp; its variants
    // no kernel runs are refused there. linear_attn_config (Kimi Delta Attention) too: kimi_delta_attention_test.cpp.
    nlohmann::json gemma = nlohmann::json::parse(fixture("gemma4_26b_a4b.json"));
    gemma["text_config"]["num_kv_shared_layers"] = 10;
    expect_refused(gemma.dump(), "text_config.num_kv_shared_layers");
}

// A q/k RMSNorm over all heads (MiniMax-M2's qk_norm_type "per_layer") sums each token's variances over the TP
// ranks: one more all-reduce per attention layer, of 8 bytes per token, and nothing else; a per-head norm (or one
// GPU) has none.
TEST(Architectures2026, QkNormOverAllHeadsAllReducesUnderTp) {
    nlohmann::json plain = {{"model_type", "llama"},     {"hidden_size", 3072},      {"num_hidden_layers", 8},
                            {"num_attention_heads", 48}, {"num_key_value_heads", 8}, {"head_dim", 128},
                            {"intermediate_size", 8192}, {"vocab_size", 32000}};
    nlohmann::json across = plain, per_head = plain;
    across["use_qk_norm"] = true;
    across["qk_norm_type"] = "per_layer";
    per_head["use_qk_norm"] = true;
    per_head["qk_norm_type"] = "per_head";
    EXPECT_TRUE(parse(across.dump()).qk_norm_across_heads);
    EXPECT_FALSE(parse(per_head.dump()).qk_norm_across_heads);
    const auto step = decodes(16, 2048);
    EXPECT_EQ(step_detail(make(parse(across.dump()), 1), step).total_us,
              step_detail(make(parse(plain.dump()), 1), step).total_us);
    EXPECT_EQ(step_detail(make(parse(per_head.dump()), 4), step).total_us,
              step_detail(make(parse(plain.dump()), 4), step).total_us);
    const mfusim_step_result a = step_detail(make(parse(across.dump()), 4), step);
    const mfusim_step_result p = step_detail(make(parse(plain.dump()), 4), step);
    const double extra = a.ops[MFUSIM_OP_TP_ALLREDUCE].time_us - p.ops[MFUSIM_OP_TP_ALLREDUCE].time_us;
    EXPECT_GT(extra, 0);
    // No slower than one of the two activation all-reduces per layer (a 6 KB message per token).
    EXPECT_LE(extra, p.ops[MFUSIM_OP_TP_ALLREDUCE].time_us / 2);
    EXPECT_NEAR(a.total_us - p.total_us, extra, 1e-9 * a.total_us);
}

}  // namespace
}  // namespace mfusim
