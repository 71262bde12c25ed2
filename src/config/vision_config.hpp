// The vision tower of a multimodal config (vision_config): a ViT that turns each image into patches, runs `layers`
// transformer blocks over them (bidirectional attention, per image or per window), then merges each
// merge x merge group of patches into one language-model token through an MLP (the merger / projector).
// The schemas read (docs/architectures.md, "Vision encoders"): Qwen2-VL / Qwen2.5-VL / Qwen3-VL / Qwen3.5
// (depth, num_heads, spatial_merge_size, window_size + fullatt_block_indexes, deepstack_visual_indexes),
// Llama-4 (num_hidden_layers, num_attention_heads, image_size tiles, pixel_shuffle_ratio), MoonViT
// (vt_num_hidden_layers, vt_hidden_size, merge_kernel_size; qkv_hidden_size where the attention is wider than the
// tower) and PerceptionEncoder (width, layers, heads: a view plus crops, two stride-2 downsamplers, a 4 x width
// projector). No model name is read.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "config/encoder_tower.hpp"

namespace mfusim::config {

// Reads root["vision_config"] (origin names the file in messages); text_hidden is the language model's hidden
// size. Never throws: a schema it cannot read is recorded in `unsupported` (naming the key), so a text-only
// workload of the same config still answers; asking for images then is the error.
EncoderTower parse_vision_config(const nlohmann::json& root, const std::string& origin, int64_t text_hidden);

// Error(invalid_argument) for a size outside 1..16384 pixels. Native-resolution encoders resize the image to
// multiples of patch_size x merge (Qwen's smart_resize, rounding to the nearest multiple, at least one).
EncoderGrid image_grid(const EncoderTower& v, int64_t width, int64_t height);

}  // namespace mfusim::config
