// Heterogeneous per-layer blocks (DeciLM / Llama-Nemotron NAS block_configs): a layer without attention is an
// FFN-only layer, a layer without FFN a mixer-only layer, the MLP widths come from ffn_mult, and the dense MLPs are
// timed, counted and held per width. A model with two widths must cost exactly the layer-weighted mix of the two
// uniform models (every op is linear in the layers of each width), attention-free layers must drop out of the
// attention ops and the KV cache, and every variant not modelled is refused naming its key path.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/names.hpp"
#include "roofline/model_params.hpp"
#include "roofline/roofline_model.hpp"
#include "support/reference.hpp"
#include "support/roofline_steps.hpp"

namespace mfusim {
namespace {

using testing::step_detail;

using roofline::RooflineModel;

config::ModelConfig parse(const std::string& json) {
    return config::parse_model_config(config::resolve_model_source(json));
}

// A small Llama-like model: hidden 1536, 12 heads of 128, 4 KV heads, vocabulary 32000. `body` is the rest: either
// "intermediate_size" and "num_hidden_layers", or "num_hidden_layers" and "block_configs".
std::string model_json(const std::string& body) {
    return R"({"model_type":"nemotron-nas","hidden_size":1536,"num_attention_heads":12,"num_key_value_heads":4,
               "vocab_size":32000,"hidden_act":"silu",)" +
           body + "}";
}

std::string uniform(int64_t layers, int64_t intermediate) {
    return model_json(R"("num_hidden_layers":)" + std::to_string(layers) + R"(,"intermediate_size":)" +
                      std::to_string(intermediate));
}

// One block_configs entry. n_heads_in_group 3: 12 / 3 = 4 KV heads, as in the uniform models. At hidden 1536,
// ffn_mult 2 gives int(2 x 2 x 1536 / 3) = 2048 and ffn_mult 4 gives 4096, both multiples of 256 already.
std::string block(bool attention, double ffn_mult, const std::string& attention_extra = "",
                  const std::string& ffn_extra = "") {
    std::string a = attention ? R"("no_op":false,"n_heads_in_group":3,"window_length":null,"num_sink_tokens":null,)"
                                R"("sparsify":null,"replace_with_linear":false)"
                              : R"("no_op":true,"n_heads_in_group":null)";
    std::string f = ffn_mult > 0 ? R"("no_op":false,"replace_with_linear":false,"sparsify":null,"ffn_mult":)" +
                                       std::to_string(ffn_mult)
                                 : R"("no_op":true)";
    return R"({"attention":{)" + a + attention_extra + R"(},"ffn":{)" + f + ffn_extra + "}}";
}

std::string blocks(const std::vector<std::string>& entries) {
    std::string list;
    for (const std::string& e : entries) list += (list.empty() ? "" : ",") + e;
    return model_json(R"("num_hidden_layers":)" + std::to_string(entries.size()) + R"(,"intermediate_size":null,)" +
                      R"("block_configs":[)" + list + "]");
}

RooflineModel on_h100(const config::ModelConfig& m, int64_t tp) {
    query::Deployment d;
    d.tensor_parallel = tp;
    return RooflineModel(m, gpu::resolve_gpu("H100"), nullptr, d, engines::builtin_engines().front());
}

// Steps of several shapes: one decode, a decode batch, a prefill chunk over a prefix, a mixed step.
std::vector<std::vector<mfusim_request>> steps() {
    std::vector<mfusim_request> batch(32, mfusim_request{1, 3000, 0u, 0u});
    std::vector<mfusim_request> mixed = batch;
    mixed.push_back(mfusim_request{700, 1200, 0u, 0u});
    return {{mfusim_request{1, 100, 0u, 0u}}, batch, {mfusim_request{512, 1024, 0u, 0u}}, mixed};
}

std::string refusal(const std::string& json, Status expected = Status::unsupported) {
    try {
        parse(json);
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), expected) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "accepted: " << json;
    return "";
}

TEST(RooflineBlocks, BlockConfigsGiveLayerKindsWidthsAndKvHeads) {
    // Layers: attention + MLP 2048; FFN only (MLP 4096); attention only; attention + MLP 2048.
    const config::ModelConfig m = parse(blocks({block(true, 2), block(false, 4), block(true, 0), block(true, 2)}));
    EXPECT_EQ(m.num_layers, 4);
    EXPECT_EQ(m.full_attention_layers(), 3);
    EXPECT_EQ(m.dense_ffn_layers(), 3);
    EXPECT_EQ(m.ffn_only_layers, 1);
    EXPECT_EQ(m.mixer_only_layers, 1);
    EXPECT_EQ(m.num_kv_heads, 4);
    const std::vector<config::DenseFfnGroup> groups = m.dense_ffn_groups();
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].intermediate_size, 2048);
    EXPECT_EQ(groups[0].layers, 2);
    EXPECT_EQ(groups[1].intermediate_size, 4096);
    EXPECT_EQ(groups[1].layers, 1);
    // DeciLM's rounding: int(2 x 1.3 x 1536 / 3) = 1331, rounded up to 1536; an explicit intermediate_size is kept.
    const config::ModelConfig odd =
        parse(blocks({block(true, 1.3), R"({"attention":{"n_heads_in_group":3},"ffn":{"intermediate_size":1000}})"}));
    ASSERT_EQ(odd.dense_ffn_groups().size(), 2u);
    EXPECT_EQ(odd.dense_ffn_groups()[0].intermediate_size, 1536);
    EXPECT_EQ(odd.dense_ffn_groups()[1].intermediate_size, 1000);
    // A uniform model is one group of intermediate_size.
    const std::vector<config::DenseFfnGroup> one = parse(uniform(3, 2048)).dense_ffn_groups();
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].intermediate_size, 2048);
    EXPECT_EQ(one[0].layers, 3);
}

// Two layers of MLP 2048 and one of 4096, attention everywhere: every op of every step, the weights and the
// parameters are 2/3 of the uniform 2048-wide model's plus 1/3 of the uniform 4096-wide model's (the attention,
// norms, all-reduces and engine terms are the same in all three). Timing only one width, or miscounting the layers
// of either, breaks it.
TEST(RooflineBlocks, TwoWidthsCostTheLayerWeightedMixOfTheUniformModels) {
    const config::ModelConfig mixed = parse(blocks({block(true, 2), block(true, 4), block(true, 2)}));
    const config::ModelConfig narrow = parse(uniform(3, 2048)), wide = parse(uniform(3, 4096));
    const double a = 2.0 / 3.0, b = 1.0 / 3.0;
    auto expect_mix = [&](double got, double x, double y, const char* what) {
        EXPECT_NEAR(got, a * x + b * y, 1e-9 * std::max(1.0, std::abs(got))) << what;
    };
    const roofline::ModelParams pm = roofline::model_params(mixed), pn = roofline::model_params(narrow),
                                pw = roofline::model_params(wide);
    expect_mix(pm.total, pn.total, pw.total, "params_total");
    for (int64_t tp : {1, 2}) {
        SCOPED_TRACE("tp " + std::to_string(tp));
        const RooflineModel m = on_h100(mixed, tp), n = on_h100(narrow, tp), w = on_h100(wide, tp);
        expect_mix(m.memory().weight_bytes, n.memory().weight_bytes, w.memory().weight_bytes, "weight bytes");
        EXPECT_DOUBLE_EQ(m.memory().kv_bytes_per_token, n.memory().kv_bytes_per_token);
        for (const auto& step : steps()) {
            const mfusim_step_result rm = step_detail(m, step), rn = step_detail(n, step), rw = step_detail(w, step);
            expect_mix(rm.total_us, rn.total_us, rw.total_us, "total");
            expect_mix(m.step_time_us(step.data(), step.size()), rn.total_us, rw.total_us, "step_time_us");
            for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
                expect_mix(rm.ops[op].time_us, rn.ops[op].time_us, rw.ops[op].time_us, query::op_name(op));
            }
            // The two widths differ: the mix lies strictly between them.
            EXPECT_LT(rn.ops[MFUSIM_OP_FFN].time_us, rm.ops[MFUSIM_OP_FFN].time_us);
            EXPECT_LT(rm.ops[MFUSIM_OP_FFN].time_us, rw.ops[MFUSIM_OP_FFN].time_us);
        }
    }
}

// Attention removed from one layer in four: the attention ops, the attention weights and the KV cache are 3/4 of
// the uniform model's, the FFN is unchanged, and at TP 2 the step has 7 all-reduces instead of 8 (no attention
// all-reduce in the FFN-only layer).
TEST(RooflineBlocks, LayersWithoutAttentionDropOutOfAttentionAndKvCache) {
    const config::ModelConfig holed = parse(blocks({block(true, 2), block(false, 2), block(true, 2), block(true, 2)}));
    const config::ModelConfig full = parse(uniform(4, 2048));
    const RooflineModel h = on_h100(holed, 2), f = on_h100(full, 2);
    EXPECT_DOUBLE_EQ(h.memory().kv_bytes_per_token, 0.75 * f.memory().kv_bytes_per_token);
    // Per GPU at TP 2: 2 KV heads x 128 x K and V x 2 bytes, in the 3 attention layers.
    EXPECT_DOUBLE_EQ(h.memory().kv_bytes_per_token, 3.0 * 2 * 128 * 2 * 2);
    for (const auto& step : steps()) {
        const mfusim_step_result rh = step_detail(h, step), rf = step_detail(f, step);
        for (mfusim_op op : {MFUSIM_OP_QKV_PROJ, MFUSIM_OP_O_PROJ, MFUSIM_OP_ATTN_DECODE, MFUSIM_OP_ATTN_PREFILL}) {
            EXPECT_NEAR(rh.ops[op].time_us, 0.75 * rf.ops[op].time_us, 1e-9 * rf.ops[op].time_us) << op;
        }
        EXPECT_DOUBLE_EQ(rh.ops[MFUSIM_OP_FFN].time_us, rf.ops[MFUSIM_OP_FFN].time_us);
        EXPECT_NEAR(rh.ops[MFUSIM_OP_TP_ALLREDUCE].time_us, 7.0 / 8.0 * rf.ops[MFUSIM_OP_TP_ALLREDUCE].time_us,
                    1e-9 * rf.ops[MFUSIM_OP_TP_ALLREDUCE].time_us);
        EXPECT_LT(rh.total_us, rf.total_us);
    }
    // An FFN removed instead: the MLP op loses a quarter, attention is unchanged.
    const config::ModelConfig no_mlp = parse(blocks({block(true, 2), block(true, 0), block(true, 2), block(true, 2)}));
    const RooflineModel n = on_h100(no_mlp, 2);
    for (const auto& step : steps()) {
        const mfusim_step_result rn = step_detail(n, step), rf = step_detail(f, step);
        EXPECT_NEAR(rn.ops[MFUSIM_OP_FFN].time_us, 0.75 * rf.ops[MFUSIM_OP_FFN].time_us,
                    1e-9 * rf.ops[MFUSIM_OP_FFN].time_us);
        EXPECT_DOUBLE_EQ(rn.ops[MFUSIM_OP_ATTN_DECODE].time_us, rf.ops[MFUSIM_OP_ATTN_DECODE].time_us);
    }
}

TEST(RooflineBlocks, VariantsNotModelledAreRefusedByKeyPath) {
    auto names = [](const std::string& message, const std::string& key) {
        EXPECT_NE(message.find("field '" + key + "': not modelled"), std::string::npos) << message;
    };
    names(refusal(blocks({block(true, 2), block(true, 2, R"(,"window_length":4096)")})),
          "block_configs[1].attention.window_length");
    names(refusal(blocks({block(true, 2, R"(,"num_sink_tokens":4)")})), "block_configs[0].attention.num_sink_tokens");
    names(refusal(blocks({block(true, 2, R"(,"sparsify":["x"])")})), "block_configs[0].attention.sparsify");
    names(refusal(blocks({block(true, 2, R"(,"unshifted_sink":true)")})), "block_configs[0].attention.unshifted_sink");
    names(
        refusal(blocks({R"({"attention":{"replace_with_linear":true,"n_heads_in_group":null},"ffn":{"ffn_mult":2}})"})),
        "block_configs[0].attention.replace_with_linear");
    names(refusal(blocks({block(true, 2), block(true, 2, "", R"(,"replace_with_linear":true)")})),
          "block_configs[1].ffn.replace_with_linear");
    names(refusal(blocks({block(true, 2, "", R"(,"sparsify":{"a":1})")})), "block_configs[0].ffn.sparsify");
    names(refusal(blocks({block(true, 2, "", R"(,"hidden_act":"relu2")")})), "block_configs[0].ffn.hidden_act");
    names(refusal(blocks({block(true, 2, R"(,"llama4":{})")})), "block_configs[0].attention.llama4");
    names(refusal(blocks({R"({"attention":{"no_op":true},"ffn":{"no_op":true},"mamba":{}})"})),
          "block_configs[0].mamba");
    names(refusal(blocks({block(true, 2), R"({"attention":{"no_op":true},"ffn":{"no_op":true}})"})),
          "block_configs[1]");
    // KV heads that differ between attention layers (a per-layer KV cache shape).
    std::string six_groups = block(true, 2);
    six_groups.replace(six_groups.find("\"n_heads_in_group\":3"), 20, "\"n_heads_in_group\":6");
    names(refusal(blocks({block(false, 2), block(true, 2), six_groups})),
          "block_configs[2].attention.n_heads_in_group");
    // Together with another per-layer description, or MoE.
    std::string windowed = blocks({block(true, 2)});
    windowed.insert(1, R"("sliding_window":4096,)");
    names(refusal(windowed), "sliding_window");
    std::string moe = blocks({block(true, 2)});
    moe.insert(1, R"("num_local_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":512,)");
    names(refusal(moe), "block_configs");
    // Malformed rather than unmodelled: Error(config) naming the field.
    std::string short_list = blocks({block(true, 2), block(true, 2)});
    short_list.replace(short_list.find("\"num_hidden_layers\":2"), 21, "\"num_hidden_layers\":3");
    EXPECT_NE(refusal(short_list, Status::config).find("field 'block_configs'"), std::string::npos);
    std::string no_group = blocks({R"({"attention":{"no_op":false},"ffn":{"ffn_mult":2}})"});
    EXPECT_NE(refusal(no_group, Status::config).find("field 'block_configs[0].attention.n_heads_in_group'"),
              std::string::npos);
    std::string bad_group = blocks({R"({"attention":{"n_heads_in_group":5},"ffn":{"ffn_mult":2}})"});
    EXPECT_NE(refusal(bad_group, Status::config).find("block_configs[0].attention.n_heads_in_group"),
              std::string::npos);
}

// NVIDIA's Llama-3.3-Nemotron-Super-49B-v1 (a NAS derivative of Llama-3.3-70B-Instruct): 80 blocks, 49 with
// attention, every MLP width from ffn_mult.
TEST(RooflineBlocks, NemotronSuper49BAnswersLikeAStepTime) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    const std::string path = ref + "/model_configs_aic/nvidia--Llama-3_3-Nemotron-Super-49B-v1_config.json";
    const config::ModelConfig m = config::parse_model_config(config::resolve_model_source(path));
    EXPECT_EQ(m.num_layers, 80);
    EXPECT_EQ(m.full_attention_layers(), 49);
    EXPECT_EQ(m.ffn_only_layers, 31);
    EXPECT_EQ(m.dense_ffn_layers(), 80);
    EXPECT_EQ(m.num_kv_heads, 8);  // 64 heads, n_heads_in_group 8 in every attention layer
    int64_t layers = 0, llama70b_wide = 0;
    for (const config::DenseFfnGroup& g : m.dense_ffn_groups()) {
        layers += g.layers;
        // ffn_mult 5.25 at hidden 8192 is Llama-3.3-70B's own MLP width, 28672.
        if (g.intermediate_size == 28672) llama70b_wide = g.layers;
    }
    EXPECT_EQ(layers, 80);
    EXPECT_GT(llama70b_wide, 0);

    const RooflineModel r = on_h100(m, 2);
    // KV cache: only the 49 attention layers, 8 KV heads / TP 2 x 128 x K and V x 2 bytes each.
    EXPECT_DOUBLE_EQ(r.memory().kv_bytes_per_token, 49.0 * 4 * 128 * 2 * 2);
    auto decode = [&](int64_t batch) {
        std::vector<mfusim_request> step(static_cast<std::size_t>(batch), mfusim_request{1, 2048, 0u, 0u});
        return r.step_time_us(step.data(), step.size());
    };
    auto prefill = [&](int64_t tokens) {
        mfusim_request q{tokens, 0, 0u, 0u};
        return r.step_time_us(&q, 1);
    };
    const double d1 = decode(1), d8 = decode(8), d64 = decode(64), p128 = prefill(128), p2048 = prefill(2048);
    for (double t : {d1, d8, d64, p128, p2048}) EXPECT_TRUE(std::isfinite(t) && t > 0) << t;
    EXPECT_LT(d1, d8);
    EXPECT_LT(d8, d64);
    EXPECT_LT(p128, p2048);
    // A 1-request decode reads every weight once: at least the weights over the HBM bandwidth.
    const gpu::GpuProfile& h100 = r.gpu();
    EXPECT_GT(d1, r.memory().weight_bytes / (h100.streaming_bandwidth_gbs() * 1e3));
}

}  // namespace
}  // namespace mfusim
