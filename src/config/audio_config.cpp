#include "config/audio_config.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "common/error.hpp"
#include "common/json.hpp"
#include "common/numbers.hpp"

namespace mfusim::config {
namespace {

constexpr int64_t kMaxAudioDimension = 1 << 16;

int64_t required_of(const JsonFields& f, std::initializer_list<const char*> keys, int64_t max = kMaxAudioDimension) {
    for (const char* key : keys) {
        if (!f.has(key)) continue;
        const int64_t v = f.integer(key);
        if (v < 1 || v > max) {
            f.fail(key, "value " + std::to_string(v) + " is outside [1, " + std::to_string(max) + "]");
        }
        return v;
    }
    std::string names;
    for (const char* key : keys) names += (names.empty() ? "" : " or ") + f.path(key);
    throw Error(Status::unsupported,
                f.origin() + ": audio tower without " + names + ": no audio encoder schema here reads it");
}

int64_t optional_of(const JsonFields& f, const char* key, int64_t fallback) {
    return f.has(key) ? required_of(f, {key}) : fallback;
}

void read(const JsonFields& f, EncoderTower& a, int64_t text_hidden) {
    // Front ends other than the two Conv1d are not timed: a Conv2d downsampling stack (downsample_hidden_size) or
    // a conformer's subsampling (conf_* / sscp_* keys) are refused naming the key.
    for (const char* key : {"downsample_hidden_size", "conf_num_hidden_layers", "sscp_conv_channel_size"}) {
        if (f.present(key)) {
            throw Error(Status::unsupported, f.origin() + ": " + f.path(key) +
                                                 ": this audio front end (not two Conv1d over mel frames) is not "
                                                 "timed yet");
        }
    }
    a.layers = required_of(f, {"encoder_layers", "num_hidden_layers"});
    a.hidden = required_of(f, {"d_model"});
    a.intermediate = required_of(f, {"encoder_ffn_dim"});
    a.heads = required_of(f, {"encoder_attention_heads"});
    if (a.hidden % a.heads != 0) f.fail("encoder_attention_heads", "the heads do not divide d_model");
    // Whisper's blocks: fc1, GELU, fc2 (activation_function gelu); a gated MLP is not this schema.
    const std::string act = f.optional_string("activation_function").value_or("gelu");
    if (act.find("glu") != std::string::npos) f.fail("activation_function", "a gated MLP is not timed for audio");
    a.mel_bins = optional_of(f, "num_mel_bins", 128);  // Qwen2AudioEncoderConfig's default
    // conv1: kernel 3, stride 1 over each mel frame; conv2: kernel 3, stride 2: two frames a position.
    a.mel_frames_per_position = 2;
    a.front_end = {{2, 3 * a.mel_bins, 0}, {1, 3 * a.hidden, 0}};
    if (f.has("n_window")) {
        // Chunked attention: chunks of 2 x n_window mel frames, n_window positions each, no padding to 30 s.
        a.chunk_positions = required_of(f, {"n_window"});
        a.pad_to_chunk = false;
    } else {
        a.chunk_positions = optional_of(f, "max_source_positions", 1500);
        a.pad_to_chunk = true;
    }
    a.pool = 2;
    a.merge = 1;
    a.merger_in = a.hidden;
    a.merger_hidden = 0;  // one linear: the projector (d_model -> text hidden) or proj (d_model -> output_dim)
    a.out_hidden = optional_of(f, "output_dim", text_hidden);
}

}  // namespace

EncoderTower parse_audio_config(const nlohmann::json& root, const std::string& origin, int64_t text_hidden) {
    EncoderTower a;
    const nlohmann::json* holder = &root;
    std::string prefix = "audio_config.";
    if (!root.contains("audio_config") && root.contains("thinker_config") && root["thinker_config"].is_object()) {
        holder = &root["thinker_config"];
        prefix = "thinker_config.audio_config.";
    }
    if (!holder->contains("audio_config") || (*holder)["audio_config"].is_null()) return a;
    a.present = true;
    try {
        if (!(*holder)["audio_config"].is_object())
            throw Error(Status::config, origin + ": " + prefix.substr(0, prefix.size() - 1) + ": expected an object");
        read(JsonFields((*holder)["audio_config"], origin, prefix), a, text_hidden);
    } catch (const Error& e) {
        a.unsupported = e.what();
    }
    return a;
}

EncoderGrid audio_grid(const EncoderTower& a, double seconds) {
    if (!(seconds > 0 && seconds <= 3600)) {
        throw Error(Status::invalid_argument,
                    "audio_seconds_per_request must be in (0, 3600] with audio, got " + shortest_text(seconds));
    }
    EncoderGrid g;
    const auto frames = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(seconds * kMelFramesPerSecond - 1e-9)));
    // Output lengths as the encoder computes them (Qwen2AudioEncoder._get_feat_extract_output_lengths): conv2's
    // (L - 1) // 2 + 1 positions, the pool's (L - 2) // 2 + 1 tokens (at least one).
    const int64_t positions = (frames - 1) / 2 + 1;
    g.tokens = std::max<int64_t>(1, (positions - 2) / a.pool + 1);
    if (a.pad_to_chunk) {
        const int64_t window_frames = a.chunk_positions * a.mel_frames_per_position;
        if (frames > window_frames) {
            throw Error(Status::unsupported,
                        "audio of " + shortest_text(seconds) + " s exceeds the audio tower's window of " +
                            std::to_string(window_frames / kMelFramesPerSecond) +
                            " s (audio_config.max_source_positions " + std::to_string(a.chunk_positions) +
                            "): the feature extractor truncates longer clips; split them into requests");
        }
        // Every clip is padded to the whole window and the blocks run over it (the padding masked, not skipped).
        g.patches = a.chunk_positions;
        g.full_groups = 1;
        g.full_tokens = a.chunk_positions;
    } else {
        // Chunks of chunk_positions positions attend among themselves (varlen, the last one partial): timed as
        // whole chunks of the mean size.
        g.patches = positions;
        g.full_groups = (positions + a.chunk_positions - 1) / a.chunk_positions;
        g.full_tokens = (positions + g.full_groups - 1) / g.full_groups;
    }
    g.windows = g.full_groups;
    g.window_tokens = g.full_tokens;
    return g;
}

}  // namespace mfusim::config
