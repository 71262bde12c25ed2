// Audio encoders (issue #27 item 4): the audio_config schemas read (Whisper-style: two Conv1d over mel frames, then
// transformer blocks, a pool and a projector), the clip's positions and tokens, the encoder's scaling with the
// seconds of audio, and where its time lands (the step of a request's first prefill chunk, the serving TTFT)
// through the same encoder model as the vision towers. Configs are written inline in the shapes of the public
// Qwen2-Audio-7B and Qwen2.5-Omni-7B configs (their text models stated in full).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/audio_config.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/model_params.hpp"
#include "roofline/roofline_model.hpp"
#include "serving/serving.hpp"

namespace mfusim {
namespace {

// Qwen2-Audio-7B: the audio tower as its config states it (every clip padded to the 30-second window), the text
// model Qwen-7B's shape.
const char* kQwen2Audio =
    R"({"model_type":"qwen2_audio","audio_config":{"model_type":"qwen2_audio_encoder","num_mel_bins":128,)"
    R"("encoder_layers":32,"encoder_attention_heads":20,"encoder_ffn_dim":5120,"d_model":1280,)"
    R"("activation_function":"gelu","max_source_positions":1500},)"
    R"("text_config":{"model_type":"qwen2","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,)"
    R"("num_key_value_heads":32,"intermediate_size":11008,"vocab_size":156032}})";

// Qwen2.5-Omni-7B's thinker: the chunked audio tower (n_window 100), the towers and text model under thinker_config.
const char* kOmni =
    R"({"model_type":"qwen2_5_omni","thinker_config":{"audio_config":{"d_model":1280,"encoder_layers":32,)"
    R"("encoder_attention_heads":20,"encoder_ffn_dim":5120,"num_mel_bins":128,"max_source_positions":1500,)"
    R"("n_window":100,"output_dim":3584},"text_config":{"hidden_size":3584,"num_hidden_layers":28,)"
    R"("num_attention_heads":28,"num_key_value_heads":4,"intermediate_size":18944,"vocab_size":152064}}})";

config::ModelConfig parse(const std::string& json) {
    return config::parse_model_config(config::resolve_model_source(json));
}

roofline::RooflineModel make(const config::ModelConfig& m, double seconds, int64_t tp = 1) {
    query::Deployment d;
    d.tensor_parallel = tp;
    d.audio.seconds_per_request = seconds;
    return roofline::RooflineModel(m, gpu::resolve_gpu("H100"), nullptr, d);
}

double step_us(const roofline::RooflineModel& m, std::vector<mfusim_request> step) {
    return m.step_time_us(step.data(), step.size());
}

TEST(AudioEncoder, SchemasAreRead) {
    const config::ModelConfig q2 = parse(kQwen2Audio);
    ASSERT_TRUE(q2.audio.present);
    ASSERT_EQ(q2.audio.unsupported, "");
    EXPECT_FALSE(q2.vision.present);
    EXPECT_EQ(q2.audio.layers, 32);
    EXPECT_EQ(q2.audio.hidden, 1280);
    EXPECT_EQ(q2.audio.chunk_positions, 1500);
    EXPECT_TRUE(q2.audio.pad_to_chunk);
    EXPECT_EQ(q2.audio.out_hidden, 4096);  // the projector to the text model's width
    ASSERT_EQ(q2.audio.front_end.size(), 2u);
    EXPECT_EQ(q2.audio.front_end[0].k, 3 * 128);  // conv1: kernel 3 over the mel bins
    EXPECT_EQ(q2.audio.front_end[1].k, 3 * 1280);

    const config::ModelConfig omni = parse(kOmni);
    ASSERT_EQ(omni.audio.unsupported, "");
    EXPECT_EQ(omni.hidden_size, 3584);  // the text model under thinker_config.text_config
    EXPECT_EQ(omni.num_layers, 28);
    EXPECT_EQ(omni.audio.chunk_positions, 100);
    EXPECT_FALSE(omni.audio.pad_to_chunk);
    EXPECT_EQ(omni.audio.out_hidden, 3584);  // output_dim
}

TEST(AudioEncoder, ClipGrid) {
    const config::EncoderTower q2 = parse(kQwen2Audio).audio, omni = parse(kOmni).audio;
    // 10 s = 1000 mel frames (hop 10 ms) -> conv2's (1000 - 1) // 2 + 1 = 500 positions -> the pool's
    // (500 - 2) // 2 + 1 = 250 tokens; the padded tower still runs its whole 1500-position window.
    config::EncoderGrid g = config::audio_grid(q2, 10);
    EXPECT_EQ(g.tokens, 250);
    EXPECT_EQ(g.patches, 1500);
    EXPECT_EQ(g.full_groups, 1);
    // 30 s fills the window: 750 tokens, vLLM's get_max_qwen2_audio_audio_tokens ((1500 - 2) // 2 + 1).
    EXPECT_EQ(config::audio_grid(q2, 30).tokens, 750);
    // The chunked tower: 500 positions in chunks of 100, no padding.
    g = config::audio_grid(omni, 10);
    EXPECT_EQ(g.patches, 500);
    EXPECT_EQ(g.full_groups, 5);
    EXPECT_EQ(g.full_tokens, 100);
    EXPECT_EQ(g.tokens, 250);
    EXPECT_EQ(config::audio_grid(omni, 120).tokens, 3000);  // no 30-second limit
}

// The mechanism's scaling: the chunked tower's FLOPs are linear in the seconds (fixed chunks, so attention too);
// the padded tower's are constant up to its window (every clip padded to 30 s), only its tokens grow.
TEST(AudioEncoder, CostScalesWithSeconds) {
    const config::ModelConfig omni = parse(kOmni);
    const roofline::EncoderCost a = make(omni, 10).encoder_per_audio(), b = make(omni, 20).encoder_per_audio();
    EXPECT_NEAR(b.attention_flops / a.attention_flops, 2.0, 1e-9);
    EXPECT_NEAR(b.ops[MFUSIM_OP_QKV_PROJ].flops / a.ops[MFUSIM_OP_QKV_PROJ].flops, 2.0, 1e-9);
    EXPECT_GT(b.total_us, 1.5 * a.total_us);
    EXPECT_LT(b.total_us, 2.2 * a.total_us);
    // Longer chunks cost more attention per position: the padded tower's 1500-position window against 15 chunks
    // of 100 over the same 30 s (same GEMMs).
    const config::ModelConfig q2 = parse(kQwen2Audio);
    const roofline::EncoderCost padded = make(q2, 30).encoder_per_audio(), chunked = make(omni, 30).encoder_per_audio();
    EXPECT_NEAR(padded.attention_flops / chunked.attention_flops, 15.0, 1e-9);
    EXPECT_NEAR(padded.ops[MFUSIM_OP_QKV_PROJ].flops / chunked.ops[MFUSIM_OP_QKV_PROJ].flops, 1.0, 1e-9);
    // Padding: 5 s and 25 s cost the padded tower the same (but its projector), with five times the tokens.
    const roofline::EncoderCost short_clip = make(q2, 5).encoder_per_audio(),
                                long_clip = make(q2, 25).encoder_per_audio();
    EXPECT_DOUBLE_EQ(short_clip.attention_flops, long_clip.attention_flops);
    EXPECT_DOUBLE_EQ(short_clip.ops[MFUSIM_OP_QKV_PROJ].flops, long_clip.ops[MFUSIM_OP_QKV_PROJ].flops);
    EXPECT_NEAR(long_clip.total_us / short_clip.total_us, 1.0, 0.01);  // only the projector's rows grow
    EXPECT_EQ(long_clip.grid.tokens, 625);
    EXPECT_EQ(short_clip.grid.tokens, 125);
}

// Without audio nothing changes; with it, the tower runs once in the step of a request's first chunk.
TEST(AudioEncoder, TimedInTheFirstChunksStepOnly) {
    const config::ModelConfig m = parse(kQwen2Audio);
    const roofline::RooflineModel text = make(m, 0), audio = make(m, 10);
    const double encoder = audio.encoder_us_per_request();
    EXPECT_EQ(text.encoder_us_per_request(), 0);
    EXPECT_GT(encoder, 0);
    EXPECT_DOUBLE_EQ(encoder, audio.encoder_per_audio().total_us);
    const std::vector<mfusim_request> first{{2048, 0, 0u, 0u}, {1, 500, 0u, 0u}};
    const std::vector<mfusim_request> later{{2048, 2048, 0u, 0u}, {1, 500, 0u, 0u}};
    const std::vector<mfusim_request> decode{{1, 4000, 0u, 0u}, {1, 500, 0u, 0u}};
    const std::vector<mfusim_request> two_first{{1024, 0, 0u, 0u}, {1024, 0, 0u, 0u}};
    EXPECT_NEAR(step_us(audio, first) - step_us(text, first), encoder, 1e-6 * encoder);
    EXPECT_NEAR(step_us(audio, two_first) - step_us(text, two_first), 2 * encoder, 1e-6 * encoder);
    EXPECT_EQ(step_us(audio, later), step_us(text, later));
    EXPECT_EQ(step_us(audio, decode), step_us(text, decode));

    // A text-only deployment of the audio model steps exactly as a model without the tower.
    const config::ModelConfig stripped =
        parse(R"({"model_type":"qwen2",)" +
              std::string(kQwen2Audio).substr(std::string(kQwen2Audio).find("\"text_config\"")));
    const roofline::RooflineModel plain = make(stripped, 0);
    for (const auto& s : {first, later, decode, two_first}) EXPECT_EQ(step_us(plain, s), step_us(text, s));

    // The breakdown's total is the step time; the tower's attention under attn_prefill.
    mfusim_step_result with{}, without{};
    with.struct_size = without.struct_size = sizeof with;
    audio.step_detail(first.data(), first.size(), with);
    text.step_detail(first.data(), first.size(), without);
    EXPECT_DOUBLE_EQ(with.total_us, step_us(audio, first));
    EXPECT_GT(with.ops[MFUSIM_OP_ATTN_PREFILL].time_us, without.ops[MFUSIM_OP_ATTN_PREFILL].time_us);

    // vLLM runs the tower replicated: tensor parallelism leaves it whole, with no all-reduce.
    const roofline::EncoderCost tp2 = make(m, 10, 2).encoder_per_audio();
    EXPECT_DOUBLE_EQ(tp2.total_us, audio.encoder_per_audio().total_us);
    EXPECT_EQ(tp2.ops[MFUSIM_OP_TP_ALLREDUCE].time_us, 0);
    // Its BF16 weights are held only when audio is served.
    EXPECT_GT(audio.memory().weight_bytes, text.memory().weight_bytes);
}

TEST(AudioEncoder, ServingTtftIncludesTheEncoder) {
    const config::ModelConfig m = parse(kOmni);
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
    const roofline::RooflineModel text = make(m, 0), audio = make(m, 60);
    const double encoder_ms = audio.encoder_us_per_request() / 1000;
    const double added = ttft(audio) - ttft(text);
    EXPECT_GT(added, 0.9 * encoder_ms);
    EXPECT_LT(added, 1.6 * encoder_ms);
}

// The tower's weights counted from its architecture: conv1 (3 x 128 mel bins -> 1280), conv2 (3 x 1280 -> 1280),
// 32 blocks of q, k, v, o (4 x 1280^2) and fc1, fc2 (2 x 1280 x 5120), the projector (1280 -> 4096).
TEST(AudioEncoder, ParametersIncludeTheTower) {
    const roofline::ModelParams p = roofline::model_params(parse(kQwen2Audio));
    const double tower =
        3.0 * 128 * 1280 + 3.0 * 1280 * 1280 + 32 * (4.0 * 1280 * 1280 + 2.0 * 1280 * 5120) + 1280.0 * 4096;
    EXPECT_DOUBLE_EQ(p.audio, tower);
    EXPECT_EQ(p.vision, 0);
    std::string text_only = kQwen2Audio;
    const roofline::ModelParams t = roofline::model_params(
        parse(R"({"model_type":"qwen2",)" + text_only.substr(text_only.find("\"text_config\""))));
    EXPECT_DOUBLE_EQ(p.total - t.total, tower);
    EXPECT_EQ(p.active, t.active);  // it runs per clip, not per token
}

TEST(AudioEncoder, RefusalsNameTheKeyOrField) {
    // A conformer tower (its conf_* keys): text-only workloads answer, audio is refused naming the key.
    std::string conformer = kQwen2Audio;
    conformer.replace(conformer.find("\"model_type\":\"qwen2_audio_encoder\""), 0, "\"conf_num_hidden_layers\":12,");
    const config::ModelConfig odd = parse(conformer);
    EXPECT_NE(odd.audio.unsupported.find("audio_config.conf_num_hidden_layers"), std::string::npos)
        << odd.audio.unsupported;
    EXPECT_NO_THROW(make(odd, 0));
    try {
        make(odd, 10);
        FAIL() << "audio on an untimed tower must be refused";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported);
        EXPECT_NE(std::string(e.what()).find("audio_config.conf_num_hidden_layers"), std::string::npos) << e.what();
    }
    // A malformed key is recorded naming it (with its thinker_config path).
    std::string bad = kOmni;
    bad.replace(bad.find("\"d_model\":1280"), 14, "\"d_model\":0");
    EXPECT_NE(parse(bad).audio.unsupported.find("thinker_config.audio_config.d_model"), std::string::npos)
        << parse(bad).audio.unsupported;
    // Audio on a model without a tower; seconds out of range or not finite name the field.
    const config::ModelConfig text =
        parse(R"({"hidden_size":2048,"num_hidden_layers":8,"num_attention_heads":16,"num_key_value_heads":4,)"
              R"("intermediate_size":6144,"vocab_size":32000})");
    EXPECT_THROW(make(text, 10), Error);
    const config::ModelConfig m = parse(kOmni);
    for (double s : {-1.0, 3601.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        try {
            make(m, s);
            FAIL() << s << " s must be refused";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), Status::invalid_argument);
            EXPECT_NE(std::string(e.what()).find("audio_seconds_per_request"), std::string::npos) << e.what();
        }
    }
    // Longer than the padded tower's window: the feature extractor would truncate it.
    try {
        make(parse(kQwen2Audio), 45);
        FAIL() << "45 s on a 30-second window must be refused";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported);
        EXPECT_NE(std::string(e.what()).find("max_source_positions"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mfusim
