// A modality encoder of a multimodal config: the vision tower (vision_config, vision_config.hpp) or the audio tower
// (audio_config, audio_config.hpp), read into one shape that one cost model times (roofline/vision_encoder.hpp) and
// one parameter count counts. A tower is a front end of GEMMs (a patch embedding, or the audio's convolutions) into
// `hidden`, `layers` transformer blocks with bidirectional attention over groups of its positions (an image, a tile,
// a window, an audio chunk), then a merger (projector) into the language model's width. Each modality's parser turns
// its own input (an image's pixels, an audio clip's seconds) into an EncoderGrid; everything after is shared.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mfusim::config {

// A strided convolution after the blocks (PerceptionEncoder's vit_downsampler1 / vit_downsampler2: kernel 3,
// stride 2, padding 1, each doubling the width), timed as an implicit GEMM over its output positions:
// k = kernel^2 x the input width, n = out.
struct DownsampleConv {
    int64_t kernel = 0, stride = 0, out = 0;
};

// One front-end GEMM into the tower's width: rows_per_position rows of k inputs per encoder position (a Conv3d
// whose kernel is the patch: 1 row of C x T x p^2; a Conv1d of kernel 3 over mel frames: one row per frame of
// 3 x channels, i.e. the stride's frames per position).
struct FrontEndGemm {
    int64_t rows_per_position = 1;
    int64_t k = 0;
    int64_t n = 0;  // 0: the tower's hidden size
};

struct EncoderTower {
    bool present = false;     // the config has the tower's key (vision_config, audio_config)
    std::string unsupported;  // non-empty: the tower cannot be timed, in words naming the key (present only)
    int64_t layers = 0, hidden = 0, intermediate = 0, heads = 0;
    // The attention's width, heads x head width (qkv_hidden_size: MoonViT3d's wqkv is hidden -> 3 x this, its wo
    // this -> hidden); 0: the hidden size (head width hidden / heads).
    int64_t attention_width = 0;
    bool gated_mlp = false;  // gate, up, down (hidden_act silu: Qwen2.5-VL); else fc1, fc2
    std::vector<FrontEndGemm> front_end;

    // Vision (vision_config.hpp): the image grid's inputs.
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
    // A global view plus crops (Step's image processor): every image is resized to one view of tile_size pixels,
    // and a large or elongated one is also cut into crops, each resized to crop_size pixels; each view attends over
    // its own patches. 0: no crops.
    int64_t crop_size = 0;
    // Strided convolutions between the blocks and the merger (empty: the merger concatenates merge x merge patches).
    std::vector<DownsampleConv> downsample;

    // Audio (audio_config.hpp): the clip's inputs.
    int64_t mel_bins = 0;
    int64_t mel_frames_per_position = 0;  // the front end's stride product (2: conv2's stride)
    // Attention chunks in positions: the padded 30-second window (max_source_positions, every clip padded to it)
    // or the chunk of n_window (clips split, not padded); pad_to_chunk says which.
    int64_t chunk_positions = 0;
    bool pad_to_chunk = false;
    int64_t pool = 1;  // positions averaged into one language-model token after the blocks (AvgPool1d)

    // The merger: merger_in inputs per token (vision: merge^2 patches concatenated; audio: the pooled position);
    // an MLP through merger_hidden, or one linear when merger_hidden is 0; `mergers` of them (Qwen3-VL deepstack).
    int64_t mergers = 1;
    int64_t merger_in = 0;
    int64_t merger_hidden = 0;
    int64_t out_hidden = 0;           // the language model's hidden size (the merger's output)
    int64_t position_embeddings = 0;  // learned position table rows (num_position_embeddings), parameters only
};

// The positions and tokens of one input (an image, an audio clip).
struct EncoderGrid {
    int64_t windows = 0;        // attention groups (tiles, windows of the patch grid, audio chunks)
    int64_t window_tokens = 0;  // tokens one window attends over (a tile's class tokens included)
    int64_t full_tokens = 0;    // tokens a full-attention layer attends over per group (the image, or one tile)
    int64_t full_groups = 0;    // groups of full_tokens in a full-attention layer
    int64_t crop_groups = 0;    // more full-attention groups of another size (crops beside a global view)
    int64_t crop_tokens = 0;    // tokens one crop attends over
    std::vector<int64_t> downsample_rows;  // output positions of each downsampling convolution, over the input
    int64_t patches = 0;                   // encoder positions (the blocks' GEMM rows), padding included
    int64_t tokens = 0;                    // language-model tokens the input becomes
};

// The attention's width (heads x head width): attention_width, or the hidden size.
inline int64_t attention_width(const EncoderTower& v) {
    return v.attention_width > 0 ? v.attention_width : v.hidden;
}

// Weights of the tower (front end, blocks, downsampling convolutions, mergers, position table); biases and norms left
// out. 0 when absent or not timed.
double encoder_params(const EncoderTower& v);

}  // namespace mfusim::config
