// Block patterns (Nemotron-H hybrid_override_pattern) and Mamba2 mixers: the per-kind block counts come from the
// pattern, a Mamba2 layer's decode cost grows with the requests but not with their context (its state is fixed),
// attention blocks still grow with context, and each request holds a context-independent state.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/analytical.hpp"
#include "roofline/model_params.hpp"
#include "roofline/roofline_model.hpp"

namespace mfusim {
namespace {

using roofline::RooflineModel;

// A small Nemotron-H-like model: `pattern` picks the blocks.
std::string hybrid_json(const std::string& pattern, const std::string& extra = "") {
    return R"({"model_type":"nemotron_h","hidden_size":2048,"num_hidden_layers":)" + std::to_string(pattern.size()) +
           R"(,"hybrid_override_pattern":")" + pattern +
           R"(","num_attention_heads":16,"num_key_value_heads":2,"head_dim":128,"intermediate_size":4096,
              "vocab_size":32000,"mlp_hidden_act":"relu2","mamba_num_heads":32,"mamba_head_dim":64,
              "ssm_state_size":128,"n_groups":8,"conv_kernel":4,"chunk_size":128,"n_routed_experts":32,
              "num_experts_per_tok":4,"moe_intermediate_size":1024,"n_shared_experts":1,
              "moe_shared_expert_intermediate_size":2048)" +
           extra + "}";
}

config::ModelConfig parse(const std::string& json) {
    return config::parse_model_config(config::resolve_model_source(json));
}

RooflineModel model_on_h100(const config::ModelConfig& m, int64_t tp = 1) {
    query::Deployment d;
    d.tensor_parallel = tp;
    return RooflineModel(m, gpu::resolve_gpu("H100"), nullptr, d, engines::builtin_engines().front());
}

double decode_op_us(const RooflineModel& m, int64_t batch, int64_t context, mfusim_op op) {
    std::vector<mfusim_request> step(static_cast<std::size_t>(batch), mfusim_request{1, context, 0u, 0u});
    mfusim_step_result r{};
    r.struct_size = sizeof r;
    m.step_detail(step.data(), step.size(), r);
    return r.ops[op].time_us;
}

TEST(RooflineMamba, PatternGivesPerKindBlockCounts) {
    const config::ModelConfig m = parse(hybrid_json("MEM*EM-M*E"));
    EXPECT_EQ(m.num_layers, 10);
    EXPECT_EQ(m.mamba_layer_count, 4);
    EXPECT_EQ(m.full_attention_layers(), 2);
    EXPECT_EQ(m.moe_layers(), 3);
    EXPECT_EQ(m.dense_ffn_layers(), 1);
    EXPECT_EQ(m.ffn_only_layers, 4);
    EXPECT_EQ(m.mixer_only_layers, 6);
    EXPECT_EQ(m.linear_layer_count, 0);
    EXPECT_FALSE(m.gated_mlp);  // relu2: up and down only
    EXPECT_EQ(m.mamba_inner(), 32 * 64);
    EXPECT_EQ(m.shared_expert_intermediate_size, 2048);

    // d_inner from expand x hidden_size when the head count is absent.
    std::string no_heads = hybrid_json("M*");
    no_heads.replace(no_heads.find("\"mamba_num_heads\":32,"), 21, "\"expand\":2,");
    EXPECT_EQ(parse(no_heads).mamba_num_heads, 2 * 2048 / 64);
}

TEST(RooflineMamba, MalformedPatternsAreRefusedByName) {
    try {
        parse(hybrid_json("M*X-"));
        FAIL() << "an unknown block kind must be refused";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported);
        EXPECT_NE(std::string(e.what()).find("hybrid_override_pattern"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'X'"), std::string::npos) << e.what();
    }
    std::string wrong_length = hybrid_json("M*E");
    wrong_length.replace(wrong_length.find("\"num_hidden_layers\":3"), 21, "\"num_hidden_layers\":4");
    try {
        parse(wrong_length);
        FAIL() << "a pattern of another length than num_hidden_layers must fail";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::config);
        EXPECT_NE(std::string(e.what()).find("num_hidden_layers"), std::string::npos) << e.what();
    }
    std::string no_state = hybrid_json("M*");
    no_state.replace(no_state.find("\"ssm_state_size\":128,"), 21, "");
    EXPECT_THROW(parse(no_state), Error);
}

TEST(RooflineMamba, DecodeGrowsWithBatchNotContextWhileAttentionGrowsWithContext) {
    const RooflineModel m = model_on_h100(parse(hybrid_json("MEM*EM-M*E")));
    const double short8 = decode_op_us(m, 8, 512, MFUSIM_OP_LINEAR_ATTN);
    const double long8 = decode_op_us(m, 8, 65536, MFUSIM_OP_LINEAR_ATTN);
    const double short64 = decode_op_us(m, 64, 512, MFUSIM_OP_LINEAR_ATTN);
    EXPECT_GT(short8, 0);
    EXPECT_DOUBLE_EQ(short8, long8);  // the state is the same at any context
    EXPECT_GT(short64, short8);
    const double attention_short = decode_op_us(m, 8, 512, MFUSIM_OP_ATTN_DECODE);
    const double attention_long = decode_op_us(m, 8, 65536, MFUSIM_OP_ATTN_DECODE);
    EXPECT_GT(attention_short, 0);
    EXPECT_GT(attention_long, 2 * attention_short);

    // A pattern without attention blocks: the whole step is context-independent.
    const RooflineModel pure = model_on_h100(parse(hybrid_json("MEME")));
    std::vector<mfusim_request> a(16, mfusim_request{1, 100, 0u, 0u}), b(16, mfusim_request{1, 100000, 0u, 0u});
    EXPECT_DOUBLE_EQ(pure.step_time_us(a.data(), a.size()), pure.step_time_us(b.data(), b.size()));
}

TEST(RooflineMamba, StateAndWeightsPerGpu) {
    const config::ModelConfig cfg = parse(hybrid_json("MEM*EM-M*E"));
    const RooflineModel tp1 = model_on_h100(cfg, 1), tp2 = model_on_h100(cfg, 2);
    // Per Mamba2 layer: fp32 state heads x head_dim x d_state, bf16 conv state of (conv_kernel - 1) inputs of the
    // d_inner + 2 n_groups d_state channels.
    const double per_layer = 32.0 * 64 * 128 * 4 + (32.0 * 64 + 2 * 8 * 128) * 3 * 2;
    EXPECT_DOUBLE_EQ(tp1.memory().state_bytes_per_request, 4 * per_layer);
    EXPECT_DOUBLE_EQ(tp2.memory().state_bytes_per_request, 2 * per_layer);  // heads and groups split over 2
    // KV only in the two attention blocks: 2 KV heads x 128 x K and V x bf16.
    EXPECT_DOUBLE_EQ(tp1.memory().kv_bytes_per_token, 2.0 * 2 * 2 * 128 * 2);
    // TP must divide the Mamba2 heads.
    std::string odd_heads = hybrid_json("M*");
    odd_heads.replace(odd_heads.find("\"mamba_num_heads\":32"), 20, "\"mamba_num_heads\":24");
    EXPECT_EQ(parse(odd_heads).mamba_num_heads, 24);
    EXPECT_THROW(model_on_h100(parse(odd_heads), 16), Error);

    // Parameters: the per-kind blocks, each counted once.
    const roofline::ModelParams p = roofline::model_params(cfg);
    const double h = 2048, inner = 32 * 64;
    const double mamba = h * (2 * inner + 2 * 8 * 128 + 32) + inner * h;
    const double attention = h * (16 * 128 + 2 * 2 * 128) + 16 * 128 * h;
    const double mlp = 2 * h * 4096, expert = 2 * h * 1024, shared = 2 * h * 2048, router = h * 32;
    const double fixed = 2 * 32000 * h + 4 * mamba + 2 * attention + mlp;
    EXPECT_DOUBLE_EQ(p.total, fixed + 3 * (32 * expert + shared + router));
    EXPECT_DOUBLE_EQ(p.active, fixed + 3 * (4 * expert + shared + router));
}

TEST(RooflineMamba, PrefillScanFlopsFollowTheSsdFormula) {
    // 2 FLOPs x tokens x (2 heads x head_dim x d_state + chunk x (groups x d_state + heads x head_dim)).
    roofline::LinearAttentionGeometry g{8, 32, 128, 64, 4, 2.0, 1.0, 128, 8};
    roofline::LinearAttentionWork w{1000, 1, 0};
    const double expected = 2.0 * 1000 * (2.0 * 32 * 64 * 128 + 128.0 * (8 * 128 + 32 * 64));
    EXPECT_DOUBLE_EQ(roofline::linear_attention_flops(g, w), expected);
}

TEST(RooflineMamba, LatentMoeExpertsReadTheLatent) {
    const config::ModelConfig plain = parse(hybrid_json("MEM*"));
    const config::ModelConfig latent = parse(hybrid_json("MEM*", R"(,"moe_latent_size":512)"));
    EXPECT_EQ(latent.expert_width(), 512);
    const double h = 2048;
    const double delta = roofline::model_params(plain).total - roofline::model_params(latent).total;
    // Each of the 32 experts shrinks from 2 x h x 1024 to 2 x 512 x 1024; the two latent projections are added.
    EXPECT_DOUBLE_EQ(delta, 32 * 2 * (h - 512) * 1024 - 2 * h * 512);
    EXPECT_LT(model_on_h100(latent).memory().weight_bytes, model_on_h100(plain).memory().weight_bytes);
}

}  // namespace
}  // namespace mfusim
