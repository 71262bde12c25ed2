// Vision encoders (issue #27 item 4): the vision_config schemas read, the image grid, the encoder's scaling (its
// attention quadratic in the patches of a window, linear in the windows), and where its time lands: the step of a
// request's first prefill chunk, the serving estimate's TTFT. Configs are written inline in the shapes of the
// public Qwen2-VL / Qwen2.5-VL / Qwen3-VL / Llama-4 configs; parameter counts are checked on the reference
// Qwen3-VL configs when ../shared/reference is present.
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
#include "config/vision_config.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/model_params.hpp"
#include "roofline/roofline_model.hpp"
#include "serving/serving.hpp"
#include "support/reference.hpp"

namespace mfusim {
namespace {

// A small dense language model under text_config, with the given vision_config.
std::string multimodal(const std::string& vision) {
    return R"({"model_type":"vl_test","text_config":{"hidden_size":2048,"num_hidden_layers":8,)"
           R"("num_attention_heads":16,"num_key_value_heads":4,"head_dim":128,"intermediate_size":6144,)"
           R"("vocab_size":32000},"vision_config":)" +
           vision + "}";
}

// Qwen3-VL's tower (GELU MLP, native resolution, deepstack mergers).
const char* kQwen3Vision =
    R"({"depth":27,"hidden_size":1152,"intermediate_size":4304,"num_heads":16,"hidden_act":"gelu_pytorch_tanh",)"
    R"("patch_size":16,"spatial_merge_size":2,"temporal_patch_size":2,"in_channels":3,)"
    R"("deepstack_visual_indexes":[8,16,24],"out_hidden_size":2048})";
// Qwen2.5-VL's tower (SiLU gated MLP, windows of 112 pixels, four full-attention blocks).
const char* kQwen25Vision =
    R"({"depth":32,"hidden_size":1280,"intermediate_size":3420,"num_heads":16,"hidden_act":"silu",)"
    R"("patch_size":14,"spatial_merge_size":2,"temporal_patch_size":2,"window_size":112,)"
    R"("fullatt_block_indexes":[7,15,23,31],"out_hidden_size":2048})";
// Llama-4's tower (fixed 336-pixel tiles, class token, pixel shuffle 0.5).
const char* kLlama4Vision =
    R"({"num_hidden_layers":34,"hidden_size":1408,"intermediate_size":5632,"num_attention_heads":16,)"
    R"("hidden_act":"gelu","patch_size":14,"image_size":336,"pixel_shuffle_ratio":0.5,"num_channels":3,)"
    R"("projector_input_dim":4096})";

config::ModelConfig parse(const std::string& json) {
    return config::parse_model_config(config::resolve_model_source(json));
}

roofline::RooflineModel make(const config::ModelConfig& m, int64_t images, int64_t side, int64_t tp = 1) {
    query::Deployment d;
    d.tensor_parallel = tp;
    d.images = {images, side, side};
    return roofline::RooflineModel(m, gpu::resolve_gpu("H100"), nullptr, d);
}

double step_us(const roofline::RooflineModel& m, std::vector<mfusim_request> step) {
    return m.step_time_us(step.data(), step.size());
}

TEST(VisionEncoder, SchemasAreRead) {
    const config::EncoderTower q3 = parse(multimodal(kQwen3Vision)).vision;
    ASSERT_TRUE(q3.present);
    ASSERT_EQ(q3.unsupported, "");
    EXPECT_EQ(q3.layers, 27);
    EXPECT_FALSE(q3.gated_mlp);
    EXPECT_EQ(q3.mergers, 4);  // the merger and three deepstack mergers
    EXPECT_EQ(q3.out_hidden, 2048);
    EXPECT_EQ(q3.window_patches, 0);

    const config::EncoderTower q25 = parse(multimodal(kQwen25Vision)).vision;
    EXPECT_TRUE(q25.gated_mlp);
    EXPECT_EQ(q25.window_patches, 64);  // 112 / 14 = 8 patches a side
    EXPECT_EQ(q25.full_layers, 4);

    // Qwen2-VL: the tower's width is embed_dim (hidden_size is the language model's), its MLP mlp_ratio wide.
    const config::EncoderTower q2 =
        parse(multimodal(
                  R"({"depth":32,"embed_dim":1280,"hidden_size":2048,"mlp_ratio":4,"num_heads":16,"patch_size":14,)"
                  R"("spatial_merge_size":2,"temporal_patch_size":2})"))
            .vision;
    EXPECT_EQ(q2.hidden, 1280);
    EXPECT_EQ(q2.intermediate, 5120);

    const config::EncoderTower l4 = parse(multimodal(kLlama4Vision)).vision;
    EXPECT_EQ(l4.merge, 2);
    EXPECT_EQ(l4.tile_size, 336);
    EXPECT_EQ(l4.merger_hidden, 4096);
}

TEST(VisionEncoder, ImageGrid) {
    const config::EncoderTower q3 = parse(multimodal(kQwen3Vision)).vision;
    // 1024 px = 32 merge units of 32 px: 64 x 64 patches, a token per 2 x 2.
    config::EncoderGrid g = config::image_grid(q3, 1024, 1024);
    EXPECT_EQ(g.patches, 4096);
    EXPECT_EQ(g.tokens, 1024);
    EXPECT_EQ(g.windows, 1);
    // smart_resize rounds each side to the nearest merge unit: 1000 x 500 -> 31 x 16 units.
    g = config::image_grid(q3, 1000, 500);
    EXPECT_EQ(g.patches, 62 * 32);
    // Qwen2.5-VL windows of 8 x 8 patches: 1120 px = 80 patches a side, 10 x 10 windows.
    g = config::image_grid(parse(multimodal(kQwen25Vision)).vision, 1120, 1120);
    EXPECT_EQ(g.patches, 6400);
    EXPECT_EQ(g.windows, 100);
    EXPECT_EQ(g.window_tokens, 64);
    // Llama-4: 672 px = 2 x 2 tiles plus the global one, 24 x 24 patches and a class token each, 144 tokens each.
    g = config::image_grid(parse(multimodal(kLlama4Vision)).vision, 672, 672);
    EXPECT_EQ(g.windows, 5);
    EXPECT_EQ(g.window_tokens, 577);
    EXPECT_EQ(g.tokens, 720);
    EXPECT_EQ(config::image_grid(parse(multimodal(kLlama4Vision)).vision, 300, 300).windows, 1);
    // At most 16 tiles (the image processor's max_patches): 2048 px squares get 4 x 4 and the global tile.
    EXPECT_EQ(config::image_grid(parse(multimodal(kLlama4Vision)).vision, 2048, 2048).windows, 17);
    EXPECT_THROW(config::image_grid(q3, 0, 10), Error);
}

// The mechanism's scaling: with full attention, doubling the image side (4x patches) multiplies the attention
// FLOPs by 16 (quadratic in the patches of the window) and the GEMM FLOPs by 4; with fixed windows the windowed
// layers' attention grows as the patches (linear: 4x).
TEST(VisionEncoder, AttentionIsQuadraticInPatchesPerWindow) {
    const config::ModelConfig full = parse(multimodal(kQwen3Vision));
    const roofline::EncoderCost small = make(full, 1, 512).encoder_per_image();
    const roofline::EncoderCost large = make(full, 1, 1024).encoder_per_image();
    EXPECT_EQ(large.grid.patches, 4 * small.grid.patches);
    EXPECT_NEAR(large.attention_flops / small.attention_flops, 16.0, 1e-9);
    EXPECT_NEAR(large.ops[MFUSIM_OP_QKV_PROJ].flops / small.ops[MFUSIM_OP_QKV_PROJ].flops, 4.0, 1e-9);
    // The time follows once the tiles' work outweighs the launch and per-tile overheads (at 512 px they are a
    // third of it): from 1024 to 2048 px it grows more than 8-fold, the GEMMs' 4-fold.
    const roofline::EncoderCost larger = make(full, 1, 2048).encoder_per_image();
    EXPECT_GT(larger.ops[MFUSIM_OP_ATTN_PREFILL].time_us, 8 * large.ops[MFUSIM_OP_ATTN_PREFILL].time_us);
    EXPECT_LT(larger.ops[MFUSIM_OP_QKV_PROJ].time_us, 4.5 * large.ops[MFUSIM_OP_QKV_PROJ].time_us);

    // Windows only (no full-attention block): linear in the patches.
    std::string windowed = kQwen25Vision;
    windowed.replace(windowed.find("[7,15,23,31]"), 12, "[]");
    const config::ModelConfig win = parse(multimodal(windowed));
    const roofline::EncoderCost ws = make(win, 1, 560).encoder_per_image();
    const roofline::EncoderCost wl = make(win, 1, 1120).encoder_per_image();
    EXPECT_EQ(wl.grid.window_tokens, ws.grid.window_tokens);
    EXPECT_NEAR(wl.attention_flops / ws.attention_flops, 4.0, 1e-9);
    // With its four full blocks, the windowed tower's attention sits between the two.
    const double mixed = make(parse(multimodal(kQwen25Vision)), 1, 1120).encoder_per_image().attention_flops /
                         make(parse(multimodal(kQwen25Vision)), 1, 560).encoder_per_image().attention_flops;
    EXPECT_GT(mixed, 4.5);
    EXPECT_LT(mixed, 16.0);
}

// The encoder runs in the step that schedules a request's first chunk (context 0), once per image; later chunks,
// decodes and text-only deployments are unchanged.
TEST(VisionEncoder, TimedInTheFirstChunksStep) {
    const config::ModelConfig m = parse(multimodal(kQwen3Vision));
    const roofline::RooflineModel text = make(m, 0, 0), one = make(m, 1, 1024), two = make(m, 2, 1024);
    const double encoder = one.encoder_us_per_request();
    EXPECT_GT(encoder, 0);
    EXPECT_EQ(text.encoder_us_per_request(), 0);
    EXPECT_DOUBLE_EQ(two.encoder_us_per_request(), 2 * encoder);

    const std::vector<mfusim_request> first{{2048, 0, 0u, 0u}, {1, 500, 0u, 0u}};
    const std::vector<mfusim_request> later{{2048, 2048, 0u, 0u}, {1, 500, 0u, 0u}};
    const std::vector<mfusim_request> two_first{{1024, 0, 0u, 0u}, {1024, 0, 0u, 0u}};
    EXPECT_NEAR(step_us(one, first) - step_us(text, first), encoder, 1e-6 * encoder);
    EXPECT_NEAR(step_us(one, two_first) - step_us(text, two_first), 2 * encoder, 1e-6 * encoder);
    EXPECT_EQ(step_us(one, later), step_us(text, later));

    // The breakdown's total is the step time, the encoder's attention under attn_prefill.
    mfusim_step_result with{}, without{};
    with.struct_size = without.struct_size = sizeof with;
    one.step_detail(first.data(), first.size(), with);
    text.step_detail(first.data(), first.size(), without);
    EXPECT_DOUBLE_EQ(with.total_us, step_us(one, first));
    EXPECT_GT(with.ops[MFUSIM_OP_ATTN_PREFILL].time_us, without.ops[MFUSIM_OP_ATTN_PREFILL].time_us);

    // TP shards the tower: less time per GPU, plus its all-reduces.
    const roofline::RooflineModel tp2 = make(m, 1, 1024, 2);
    EXPECT_LT(tp2.encoder_us_per_request(), encoder);
    EXPECT_GT(tp2.encoder_per_image().ops[MFUSIM_OP_TP_ALLREDUCE].time_us, 0);
}

// Serving: the closed form's TTFT grows by about one encoder pass per request at low load.
TEST(VisionEncoder, ServingTtftIncludesTheEncoder) {
    const config::ModelConfig m = parse(multimodal(kQwen3Vision));
    serving::Workload wl;
    wl.input_len = 2048;
    wl.output_len = 128;
    wl.concurrency = 1;
    auto ttft = [&](const roofline::RooflineModel& model) {
        mfusim_serving_result r{};
        r.struct_size = sizeof r;
        serving::estimate(model, wl, r);
        return r.ttft_ms;
    };
    const roofline::RooflineModel text = make(m, 0, 0), one = make(m, 1, 1024);
    const double encoder_ms = one.encoder_us_per_request() / 1000;
    const double added = ttft(one) - ttft(text);
    EXPECT_GT(added, 0.9 * encoder_ms);
    EXPECT_LT(added, 1.6 * encoder_ms);
}

TEST(VisionEncoder, RefusalsNameTheKey) {
    // A tower whose schema is not read (Gemma-4's vision_config without its MLP width): text-only workloads answer,
    // images are refused naming the first key missing.
    const config::ModelConfig odd = parse(multimodal(R"({"hidden_size":1152,"num_hidden_layers":27})"));
    EXPECT_NE(odd.vision.unsupported.find("vision_config.intermediate_size"), std::string::npos)
        << odd.vision.unsupported;
    EXPECT_NO_THROW(make(odd, 0, 0));
    try {
        make(odd, 1, 1024);
        FAIL() << "images on an untimed tower must be refused";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported);
        EXPECT_NE(std::string(e.what()).find("vision_config.intermediate_size"), std::string::npos) << e.what();
    }
    // Images on a text-only model, and out-of-range counts and sizes.
    const config::ModelConfig text =
        parse(R"({"hidden_size":2048,"num_hidden_layers":8,"num_attention_heads":16,"num_key_value_heads":4,)"
              R"("intermediate_size":6144,"vocab_size":32000})");
    EXPECT_THROW(make(text, 1, 1024), Error);
    EXPECT_THROW(make(parse(multimodal(kQwen3Vision)), 65, 1024), Error);
    EXPECT_THROW(make(parse(multimodal(kQwen3Vision)), 1, 0), Error);
    // A malformed vision key is recorded, naming it.
    const config::ModelConfig bad =
        parse(multimodal(R"({"depth":27,"hidden_size":1152,"intermediate_size":4304,"num_heads":16,"patch_size":16,)"
                         R"("window_size":100})"));
    EXPECT_NE(bad.vision.unsupported.find("vision_config.window_size"), std::string::npos) << bad.vision.unsupported;
}

// The vision tower is part of the total parameters the model cards state (Qwen3-VL, as published on their cards:
// 2B 2.13 B, 4B 4.44 B, 8B 8.77 B, 32B 33.4 B, 30B-A3B 31.1 B, 235B-A22B 236 B).
TEST(VisionEncoder, ReferenceParametersIncludeTheTower) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    const std::vector<std::pair<const char*, double>> cards{
        {"Qwen--Qwen3-VL-2B-Instruct", 2.13e9},      {"Qwen--Qwen3-VL-4B-Instruct", 4.44e9},
        {"Qwen--Qwen3-VL-8B-Instruct", 8.77e9},      {"Qwen--Qwen3-VL-32B-Instruct", 33.4e9},
        {"Qwen--Qwen3-VL-30B-A3B-Instruct", 31.1e9}, {"Qwen--Qwen3-VL-235B-A22B-Instruct", 236e9}};
    int checked = 0;
    for (const auto& [name, card] : cards) {
        const std::string path = ref + "/model_configs_aic/" + name + "_config.json";
        config::ModelConfig m;
        try {
            m = config::parse_model_config(config::resolve_model_source(path));
        } catch (const Error&) {
            continue;  // absent from this copy of the reference
        }
        const roofline::ModelParams p = roofline::model_params(m);
        EXPECT_GT(p.vision, 0.3e9) << name;
        EXPECT_LT(std::fabs(p.total / card - 1), 0.03) << name << ": " << p.total / 1e9 << " B";
        ++checked;
    }
    if (checked == 0) GTEST_SKIP() << "no Qwen3-VL config in the reference";
}

// The 2026 fixtures' towers (tests/fixtures/arch2026, provenance in its README.md).
nlohmann::json fixture(const std::string& name) {
    return nlohmann::json::parse(testing::fixture_text("arch2026/" + name));
}

config::ModelConfig parse(const nlohmann::json& j) {
    return parse(j.dump());
}

// MoonViT3d (Kimi-K3): the attention is qkv_hidden_size wide (12 heads of 128) over a 1024-wide tower, so wqkv is
// 1024 -> 3 x 1536 and wo 1536 -> 1024; the head width is not hidden / heads. Its parameters, computed here from
// the architecture (vLLM-Ascend KimiK3VisionEncoderLayer / KimiK3MultiModalProjector: no biases): the patch
// embedding, 27 blocks, the PatchMergerV2 projector 4096 -> 4096 -> 7168.
TEST(VisionEncoder, AttentionWidthApartFromTheHidden) {
    const nlohmann::json k3 = fixture("kimi_k3.json");
    const config::ModelConfig m = parse(k3);
    ASSERT_EQ(m.vision.unsupported, "");
    EXPECT_EQ(m.vision.attention_width, 1536);
    EXPECT_EQ(config::attention_width(m.vision) / m.vision.heads, 128);
    const double blocks = 27.0 * (1024.0 * 3 * 1536 + 1536.0 * 1024 + 2.0 * 1024 * 4096);
    const double expected = 3.0 * 14 * 14 * 1024 + blocks + (4096.0 * 4096 + 4096.0 * 7168);
    EXPECT_DOUBLE_EQ(roofline::model_params(m).vision, expected);
    // 1024 px: 74 x 74 patches (multiples of 28 px), a token per 2 x 2.
    const roofline::EncoderCost c = make(m, 1, 1024).encoder_per_image();
    EXPECT_EQ(c.grid.patches, 74 * 74);
    EXPECT_EQ(c.grid.tokens, 37 * 37);
    // Without the key the attention is hidden wide: the q/k/v and output GEMMs and the attention shrink by 1.5.
    nlohmann::json narrow = k3;
    narrow["vision_config"].erase("qkv_hidden_size");
    narrow["vision_config"]["vt_num_attention_heads"] = 8;  // 8 heads of 128 over 1024
    const roofline::EncoderCost n = make(parse(narrow), 1, 1024).encoder_per_image();
    EXPECT_NEAR(c.ops[MFUSIM_OP_QKV_PROJ].flops / n.ops[MFUSIM_OP_QKV_PROJ].flops, 1.5, 1e-9);
    EXPECT_NEAR(c.ops[MFUSIM_OP_O_PROJ].flops / n.ops[MFUSIM_OP_O_PROJ].flops, 1.5, 1e-9);
    EXPECT_GT(c.attention_flops, n.attention_flops);
    // Heads that do not divide the attention width are refused naming the key.
    nlohmann::json odd = k3;
    odd["vision_config"]["qkv_hidden_size"] = 1540;
    EXPECT_NE(parse(odd).vision.unsupported.find("vision_config.qkv_hidden_size"), std::string::npos);
    // Text-only workloads do not run the tower: the step is the one without a vision_config.
    nlohmann::json text = k3;
    text.erase("vision_config");
    const std::vector<mfusim_request> prefill{{1024, 0, 0u, 0u}, {1, 4096, 0u, 0u}};
    EXPECT_DOUBLE_EQ(step_us(make(m, 0, 0, 8), prefill), step_us(make(parse(text), 0, 0, 8), prefill));
}

// PerceptionEncoder (Step-3.7's width / layers / heads): 47 blocks over a 728-pixel view plus 504-pixel crops, two
// stride-2 convolutions (1536 -> 3072 -> 6144) and one linear of 4 x width into the language model (vLLM step_vl.py).
TEST(VisionEncoder, DownsamplingTowerWithCrops) {
    const config::ModelConfig m = parse(fixture("step3p7_flash.json"));
    ASSERT_EQ(m.vision.unsupported, "");
    EXPECT_EQ(m.vision.layers, 47);
    EXPECT_EQ(m.vision.hidden, 1536);
    EXPECT_EQ(m.vision.heads, 16);
    EXPECT_EQ(m.vision.intermediate, 8960);  // mlp_ratio 5.8333 x 1536
    ASSERT_EQ(m.vision.downsample.size(), 2u);
    EXPECT_EQ(m.vision.merger_in, 4 * 1536);
    const double blocks = 47.0 * (4.0 * 1536 * 1536 + 2.0 * 1536 * 8960);
    const double downsample = 9.0 * 1536 * 3072 + 9.0 * 3072 * 6144;
    const double expected = 3.0 * 14 * 14 * 1536 + blocks + downsample + 6144.0 * 4096;
    const double vision = roofline::model_params(m).vision;
    EXPECT_DOUBLE_EQ(vision, expected);
    // The card's 1.8B encoder: the blocks alone are 1.74B, with the downsamplers and projector 1.98B.
    EXPECT_LT(std::fabs(vision / 1.8e9 - 1), 0.10) << vision / 1e9;
    // Image tokens (Step3VLProcessor: 169 for the view, 81 a crop): within the view and near square, no crops;
    // 1024 px: 2 x 2 crops; 2048 px: 4 x 4; 1000 x 300: elongated, 2 crops of 504.
    const config::EncoderTower& v = m.vision;
    EXPECT_EQ(config::image_grid(v, 512, 512).tokens, 169);
    EXPECT_EQ(config::image_grid(v, 728, 600).tokens, 169);
    EXPECT_EQ(config::image_grid(v, 1024, 1024).tokens, 169 + 4 * 81);
    EXPECT_EQ(config::image_grid(v, 2048, 2048).tokens, 169 + 16 * 81);
    EXPECT_EQ(config::image_grid(v, 1000, 300).tokens, 169 + 2 * 81);
    EXPECT_EQ(config::image_grid(v, 700, 400).tokens, 169 + 2 * 81);  // within the view, 1.75 : 1
    const config::EncoderGrid g = config::image_grid(v, 1024, 1024);
    EXPECT_EQ(g.patches, 52 * 52 + 4 * 36 * 36);
    EXPECT_EQ(g.crop_groups, 4);
    ASSERT_EQ(g.downsample_rows.size(), 2u);
    EXPECT_EQ(g.downsample_rows[0], 26 * 26 + 4 * 18 * 18);
    EXPECT_EQ(g.downsample_rows[1], 13 * 13 + 4 * 9 * 9);
    // Each view attends over its own patches: the crops add attention linearly in their count (one crop's
    // attention is the 1024 px image's less the view's, a quarter each).
    const roofline::EncoderCost one = make(m, 1, 512, 8).encoder_per_image();
    const roofline::EncoderCost four = make(m, 1, 1024, 8).encoder_per_image();
    const roofline::EncoderCost sixteen = make(m, 1, 2048, 8).encoder_per_image();
    EXPECT_NEAR((sixteen.attention_flops - one.attention_flops) / (four.attention_flops - one.attention_flops), 4.0,
                1e-9);
    EXPECT_GT(four.total_us, one.total_us);
}

}  // namespace
}  // namespace mfusim
