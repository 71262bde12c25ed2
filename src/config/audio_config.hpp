// The audio tower of a multimodal config (audio_config, or thinker_config.audio_config): a Whisper-style encoder
// that turns a clip's log-mel frames into positions through two Conv1d (kernel 3; the first stride 1 over the mel
// bins, the second stride 2), runs `encoder_layers` transformer blocks over them (bidirectional attention within
// each chunk), averages each two positions into one language-model token (AvgPool1d(2, 2)) and projects them to
// the language model's width (one linear). Read into the shared EncoderTower (encoder_tower.hpp), timed by the
// same encoder model as the vision towers. The schema read (docs/architectures.md, "Audio encoders"): Qwen2-Audio's
// encoder (d_model, encoder_layers, encoder_attention_heads, encoder_ffn_dim, num_mel_bins, max_source_positions;
// every clip padded to the 30-second window) and its chunked form (n_window: attention within chunks of 2 x n_window
// mel frames, no padding; output_dim). No model name is read.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "config/encoder_tower.hpp"

namespace mfusim::config {

// Log-mel frames per second of audio: the Whisper feature extractor's hop of 160 samples at 16 kHz (its
// preprocessor_config.json, not in config.json; Qwen2-Audio and Qwen2.5-Omni use it unchanged).
inline constexpr int64_t kMelFramesPerSecond = 100;

// Reads root["audio_config"] or root["thinker_config"]["audio_config"]; text_hidden is the language model's hidden
// size. Never throws: a schema it cannot time (a conformer's, a Conv2d front end) is recorded in `unsupported`
// naming the key, so a text-only workload still answers; asking for audio then is the error.
EncoderTower parse_audio_config(const nlohmann::json& root, const std::string& origin, int64_t text_hidden);

// The positions and tokens of one clip of `seconds`. Error(invalid_argument) for seconds outside (0, 3600];
// Error(unsupported) for a clip longer than a padded tower's window (the feature extractor truncates it there).
EncoderGrid audio_grid(const EncoderTower& a, double seconds);

}  // namespace mfusim::config
