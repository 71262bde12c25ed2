// The vision tower of a multimodal config (vision_config): a ViT that turns each image into patches, runs `layers`
// transformer blocks over them (bidirectional attention, per image or per window), then merges each
// merge x merge group of patches into one language-model token through an MLP (the merger / projector).
// The schemas read (docs/architectures.md, "Vision encoders"): Qwen2-VL / Qwen2.5-VL / Qwen3-VL / Qwen3.5
// (depth, num_heads, spatial_merge_size, window_size + fullatt_block_indexes, deepstack_visual_indexes),
// Llama-4 (num_hidden_layers, num_attention_heads, image_size tiles, pixel_shuffle_ratio) and MoonViT
// (vt_num_hidden_layers, vt_hidden_size, merge_kernel_size). No model name is read.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace mfusim::config {

struct VisionEncoder {
    bool present = false;     // the config has a vision_config
    std::string unsupported;  // non-empty: the tower cannot be timed, in words naming the key (present only)
    int64_t layers = 0, hidden = 0, intermediate = 0, heads = 0;
    bool gated_mlp = false;  // gate, up, down (hidden_act silu: Qwen2.5-VL); else fc1, fc2
    int64_t patch_size = 0;
    int64_t temporal_patch_size = 1;  // a still image is repeated over the temporal patch (Qwen's Conv3d)
    int64_t in_channels = 3;
    int64_t merge = 1;  // merge x merge patches become one language-model token
    // Windowed attention (Qwen2.5-VL window_size in pixels): window_patches per window on every layer but
    // full_layers of them; 0: every layer attends over the whole image (or tile).
    int64_t window_patches = 0, full_layers = 0;
    // Fixed-resolution tiles (Llama-4: image_size with pixel_shuffle_ratio): an image is cut into tiles of
    // tile_size pixels, plus one global tile when it needs more than one; each tile attends over its own patches
    // plus class_tokens. 0: native resolution (the image's own patch grid).
    int64_t tile_size = 0, class_tokens = 0;
    int64_t mergers = 1;              // the merger and the deepstack mergers (Qwen3-VL deepstack_visual_indexes)
    int64_t merger_hidden = 0;        // the merger MLP's inner width (default: hidden * merge^2)
    int64_t out_hidden = 0;           // the language model's hidden size (the merger's output)
    int64_t position_embeddings = 0;  // learned position table rows (num_position_embeddings), parameters only
};

// The patches and tokens of one image of width x height pixels.
struct ImageGrid {
    int64_t windows = 0;        // attention groups (tiles, or windows of the patch grid), each of window_tokens
    int64_t window_tokens = 0;  // tokens one window attends over (a tile's class tokens included)
    int64_t full_tokens = 0;    // tokens a full-attention layer attends over per group (the image, or one tile)
    int64_t full_groups = 0;    // groups of full_tokens in a full-attention layer
    int64_t patches = 0;        // encoder tokens of the image (the encoder's GEMM rows)
    int64_t image_tokens = 0;   // language-model tokens the image becomes
};

// Reads root["vision_config"] (origin names the file in messages); text_hidden is the language model's hidden
// size. Never throws: a schema it cannot read is recorded in `unsupported` (naming the key), so a text-only
// workload of the same config still answers; asking for images then is the error.
VisionEncoder parse_vision_config(const nlohmann::json& root, const std::string& origin, int64_t text_hidden);

// Error(invalid_argument) for a size outside 1..16384 pixels. Native-resolution encoders resize the image to
// multiples of patch_size x merge (Qwen's smart_resize, rounding to the nearest multiple, at least one).
ImageGrid image_grid(const VisionEncoder& v, int64_t width, int64_t height);

// Weights of the tower (patch embedding, blocks, mergers, position table); biases and norms left out.
double vision_params(const VisionEncoder& v);

}  // namespace mfusim::config
