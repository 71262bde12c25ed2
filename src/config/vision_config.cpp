#include "config/vision_config.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "common/json.hpp"

namespace mfusim::config {
namespace {

constexpr int64_t kMaxVisionDimension = 1 << 16;

// The first of `keys` present: its value, checked in [min, max]; nullopt when none is.
std::optional<int64_t> first_of(const JsonFields& f, std::initializer_list<const char*> keys, int64_t min = 1,
                                int64_t max = kMaxVisionDimension) {
    for (const char* key : keys) {
        if (!f.has(key)) continue;
        const int64_t v = f.integer(key);
        if (v < min || v > max) {
            f.fail(key, "value " + std::to_string(v) + " is outside [" + std::to_string(min) + ", " +
                            std::to_string(max) + "]");
        }
        return v;
    }
    return std::nullopt;
}

int64_t required_of(const JsonFields& f, std::initializer_list<const char*> keys) {
    if (auto v = first_of(f, keys)) return *v;
    std::string names;
    for (const char* key : keys) names += (names.empty() ? "" : " or ") + f.path(key);
    throw Error(Status::unsupported,
                f.origin() + ": vision tower without " + names + ": no vision encoder schema here reads it");
}

int64_t list_length(const JsonFields& f, const char* key) {
    if (!f.has(key)) return 0;
    const nlohmann::json& v = f.object()[key];
    if (!v.is_array()) f.fail(key, "expected a list of layer indexes");
    return static_cast<int64_t>(v.size());
}

// Step's image processor (vLLM vllm/transformers_utils/processors/step3_vl.py, Step3VLProcessor and ImagePatcher):
// the crop side (its patch_size, 504 px) and the rules deciding the crops. A view of image_size px is always encoded.
constexpr int64_t kCropSize = 504;       // Step3VLProcessor.patch_size: each crop resized to it
constexpr int64_t kCropMaxImage = 3024;  // MAX_IMAGE_SIZE: the longer side scaled down to it first

// PerceptionEncoder (vLLM step_vl.py, the `width` / `layers` / `heads` schema): after the blocks, vit_downsampler1
// (kernel 3, stride 2, padding 1, width -> 2 x width) and vit_downsampler2 (2 x width -> 4 x width), then
// vit_large_projector, one linear of 4 x width into the language model's width.
void read_downsampling_tower(const JsonFields& f, EncoderTower& v) {
    v.downsample = {{3, 2, 2 * v.hidden}, {3, 2, 4 * v.hidden}};
    v.merge = 4;  // two stride-2 convolutions: 4 x 4 patches a token
    v.tile_size = required_of(f, {"image_size"});
    if (v.tile_size % v.patch_size != 0) f.fail("image_size", "not a multiple of patch_size");
    v.crop_size = kCropSize;
    v.merger_in = v.downsample.back().out;
    v.merger_hidden = 0;  // one linear (vit_large_projector)
}

void read(const JsonFields& f, EncoderTower& v, int64_t text_hidden) {
    v.layers = required_of(f, {"depth", "num_hidden_layers", "vt_num_hidden_layers", "layers"});
    // Qwen2-VL names the tower's width embed_dim (its hidden_size is the language model's) and its MLP mlp_ratio;
    // PerceptionEncoder names it width.
    v.hidden =
        f.has("embed_dim") ? *first_of(f, {"embed_dim"}) : required_of(f, {"hidden_size", "vt_hidden_size", "width"});
    if (auto inter = first_of(f, {"intermediate_size", "vt_intermediate_size"})) {
        v.intermediate = *inter;
    } else if (auto ratio = f.optional_number("mlp_ratio")) {
        if (!(*ratio > 0 && *ratio <= 64)) f.fail("mlp_ratio", "expected a ratio in (0, 64]");
        v.intermediate = static_cast<int64_t>(std::llround(*ratio * static_cast<double>(v.hidden)));
    } else {
        required_of(f, {"intermediate_size", "vt_intermediate_size", "mlp_ratio"});
    }
    v.heads = required_of(f, {"num_heads", "num_attention_heads", "vt_num_attention_heads", "heads"});
    // MoonViT3d (Kimi-K3) sets the attention's width apart from the hidden size: wqkv hidden -> 3 x qkv_hidden_size,
    // wo back, heads of qkv_hidden_size / heads (vLLM-Ascend kimi_k3 KimiK3VisionEncoderLayer).
    if (auto width = first_of(f, {"qkv_hidden_size"})) {
        v.attention_width = *width;
        if (*width % v.heads != 0) f.fail("qkv_hidden_size", "the heads do not divide the attention width");
    } else if (v.hidden % v.heads != 0) {
        f.fail("num_heads", "the heads do not divide the hidden size");
    }
    // Qwen2.5-VL's vision MLP is gated (gate/up/down, SiLU); the GELU towers are two plain linears.
    v.gated_mlp = f.optional_string("hidden_act").value_or("") == "silu";
    v.patch_size = required_of(f, {"patch_size"});
    v.temporal_patch_size = first_of(f, {"temporal_patch_size"}).value_or(1);
    v.in_channels = first_of(f, {"in_channels", "num_channels"}).value_or(3);
    if (f.has("width")) {
        read_downsampling_tower(f, v);
    } else if (auto m = first_of(f, {"spatial_merge_size"}, 1, 64)) {
        v.merge = *m;
    } else if (f.has("merge_kernel_size")) {
        const nlohmann::json& k = f.object()["merge_kernel_size"];
        if (!k.is_array() || k.size() != 2 || !k[0].is_number_integer() || k[0] != k[1] || k[0].get<int64_t>() < 1 ||
            k[0].get<int64_t>() > 64) {
            f.fail("merge_kernel_size", "expected a square kernel [m, m] with m in 1..64");
        }
        v.merge = k[0].get<int64_t>();
    } else if (auto ratio = f.optional_number("pixel_shuffle_ratio")) {
        // Pixel shuffle by r folds 1/r x 1/r patches into one token (Llama-4: 0.5, four patches a token).
        if (!(*ratio > 0 && *ratio <= 1) || std::abs(1.0 / *ratio - std::round(1.0 / *ratio)) > 1e-9) {
            f.fail("pixel_shuffle_ratio", "expected 1/m for an integer m");
        }
        v.merge = std::llround(1.0 / *ratio);
        // Fixed-resolution tiles with a class token each (vLLM mllama4.py: Llama4VisionEncoder over
        // image_size / patch_size squared patches plus the class embedding).
        v.tile_size = required_of(f, {"image_size"});
        v.class_tokens = 1;
    }
    if (auto window = first_of(f, {"window_size"}, 0, kMaxVisionDimension); window && *window > 0) {
        if (*window % v.patch_size != 0) f.fail("window_size", "not a multiple of patch_size");
        const int64_t side = *window / v.patch_size;
        v.window_patches = side * side;
        v.full_layers = list_length(f, "fullatt_block_indexes");
        if (v.full_layers > v.layers) f.fail("fullatt_block_indexes", "more entries than layers");
    }
    v.mergers = 1 + list_length(f, "deepstack_visual_indexes");
    if (v.downsample.empty()) {
        // The patch merger concatenates merge x merge patches of mm_hidden_size (MoonViT's projector input; the
        // tower's width when absent).
        v.merger_in = first_of(f, {"mm_hidden_size"}).value_or(v.hidden) * v.merge * v.merge;
        v.merger_hidden = first_of(f, {"projector_input_dim"}).value_or(v.merger_in);
    }
    // The patch embedding: a Conv3d whose kernel is the patch (stride = kernel), i.e. a GEMM over the patches.
    v.front_end = {{1, v.in_channels * v.temporal_patch_size * v.patch_size * v.patch_size, 0}};
    v.out_hidden = text_hidden;
    v.position_embeddings = first_of(f, {"num_position_embeddings"}, 0).value_or(0);
}

// The side of a square grid after the downsampling convolutions (padding kernel / 2, as vit_downsampler1/2).
std::vector<int64_t> downsampled_sides(const EncoderTower& v, int64_t side) {
    std::vector<int64_t> sides;
    for (const DownsampleConv& c : v.downsample) {
        side = (side + 2 * (c.kernel / 2) - c.kernel) / c.stride + 1;
        sides.push_back(side);
    }
    return sides;
}

// The crops ImagePatcher cuts an image into (get_num_patches): a side of `side` pixels becomes `window`-pixel
// crops, one more when the remainder is over 0.2 of a window (get_image_size_for_crop); the window is a full crop
// for images longer than the view, the shorter side for elongated ones (determine_window_size: longer than 1.5
// times the shorter within the view, 4 times beyond it), none for a near-square image within the view.
int64_t crops(int64_t view, int64_t width, int64_t height) {
    auto w = static_cast<double>(width), h = static_cast<double>(height);
    const double ratio = w / h;
    if (std::min(w, h) < 32 && (ratio > 4 || ratio < 0.25)) w = h = std::max(w, h);  // square_pad
    if (std::max(w, h) > kCropMaxImage) {
        const double scale = static_cast<double>(kCropMaxImage) / std::max(w, h);
        w = std::floor(w * scale);
        h = std::floor(h * scale);
    }
    const double lng = std::max(w, h), shrt = std::min(w, h);
    double window = 0;
    if (lng <= static_cast<double>(view)) {
        window = lng / shrt > 1.5 ? shrt : 0;
    } else {
        window = lng / shrt > 4 ? std::min(shrt, static_cast<double>(kCropSize)) : static_cast<double>(kCropSize);
    }
    if (window <= 0) return 0;
    auto count = [window](double side) -> int64_t {
        if (side / window < 1) return 1;
        const double whole = std::floor(side / window);
        const double cut = window * (side / window - whole > 0.2 ? whole + 1 : whole);
        return cut <= window ? 1 : static_cast<int64_t>(std::ceil((cut - window) / window + 1));
    };
    return count(w) * count(h);
}

// A global view of tile_size pixels plus crops of crop_size, each its own attention group (vLLM step_vl.py encodes
// pixel_values and patch_pixel_values as separate images); tokens are each view's grid after the downsampling
// (Step3VLProcessor: 169 for the 728-pixel view, 81 a crop). Delimiter tokens (im_start, patch_start, newlines) are
// text tokens of the prompt and not counted here, as for the other towers.
EncoderGrid cropped_grid(const EncoderTower& v, int64_t width, int64_t height) {
    EncoderGrid g;
    const int64_t n = crops(v.tile_size, width, height);
    const int64_t view = v.tile_size / v.patch_size, crop = v.crop_size / v.patch_size;
    const std::vector<int64_t> vs = downsampled_sides(v, view), cs = downsampled_sides(v, crop);
    for (size_t i = 0; i < vs.size(); ++i) g.downsample_rows.push_back(vs[i] * vs[i] + n * cs[i] * cs[i]);
    g.full_groups = 1;
    g.full_tokens = view * view;
    g.crop_groups = n;
    g.crop_tokens = crop * crop;
    g.windows = 1;
    g.window_tokens = g.full_tokens;
    g.patches = g.full_tokens + n * g.crop_tokens;
    g.tokens = vs.empty() ? g.patches : vs.back() * vs.back() + n * cs.back() * cs.back();
    return g;
}

}  // namespace

EncoderTower parse_vision_config(const nlohmann::json& root, const std::string& origin, int64_t text_hidden) {
    EncoderTower v;
    if (!root.contains("vision_config") || root["vision_config"].is_null()) return v;
    v.present = true;
    try {
        if (!root["vision_config"].is_object())
            throw Error(Status::config, origin + ": vision_config: expected an object");
        read(JsonFields(root["vision_config"], origin, "vision_config."), v, text_hidden);
    } catch (const Error& e) {
        v.unsupported = e.what();
    }
    return v;
}

EncoderGrid image_grid(const EncoderTower& v, int64_t width, int64_t height) {
    constexpr int64_t kMaxPixels = 16384;
    if (width < 1 || width > kMaxPixels || height < 1 || height > kMaxPixels) {
        throw Error(Status::invalid_argument, "image size " + std::to_string(width) + "x" + std::to_string(height) +
                                                  ": each side must be 1 to " + std::to_string(kMaxPixels) + " pixels");
    }
    EncoderGrid g;
    if (v.crop_size > 0) return cropped_grid(v, width, height);
    if (v.tile_size > 0) {
        // At most kMaxTiles tiles (the Llama-4 image processor's max_patches default, 16): the larger side gives
        // up a tile until the grid fits, as its best-fit canvas does for the aspect ratio.
        constexpr int64_t kMaxTiles = 16;
        int64_t across = (width + v.tile_size - 1) / v.tile_size, down = (height + v.tile_size - 1) / v.tile_size;
        while (across * down > kMaxTiles) (across >= down ? across : down) -= 1;
        const int64_t tiles = across * down;
        const int64_t groups = tiles > 1 ? tiles + 1 : 1;  // the global (thumbnail) tile beside the local ones
        const int64_t side = v.tile_size / v.patch_size;
        g.window_tokens = g.full_tokens = side * side + v.class_tokens;
        g.windows = g.full_groups = groups;
        g.patches = groups * g.window_tokens;
        g.tokens = groups * (side / v.merge) * (side / v.merge);
        return g;
    }
    // Qwen's smart_resize: each side to the nearest multiple of patch_size x merge, at least one.
    const int64_t unit = v.patch_size * v.merge;
    auto units = [&](int64_t pixels) { return std::max<int64_t>(1, (pixels + unit / 2) / unit); };
    const int64_t gw = units(width) * v.merge, gh = units(height) * v.merge;
    g.patches = gw * gh;
    g.tokens = g.patches / (v.merge * v.merge);
    g.full_tokens = g.patches;
    g.full_groups = 1;
    if (v.window_patches > 0 && v.window_patches < g.patches) {
        // Windows of side x side patches tile the grid; edge windows are partial (Qwen2.5-VL get_window_index pads
        // the grid to whole windows and drops the padding): timed as whole windows of the mean size.
        const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(v.window_patches))));
        const int64_t windows = ((gw + side - 1) / side) * ((gh + side - 1) / side);
        g.windows = windows;
        g.window_tokens = (g.patches + windows - 1) / windows;
    } else {
        g.windows = 1;
        g.window_tokens = g.patches;
    }
    return g;
}

}  // namespace mfusim::config
