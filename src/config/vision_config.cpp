#include "config/vision_config.hpp"

#include <cmath>
#include <optional>

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

void read(const JsonFields& f, EncoderTower& v, int64_t text_hidden) {
    v.layers = required_of(f, {"depth", "num_hidden_layers", "vt_num_hidden_layers"});
    // Qwen2-VL names the tower's width embed_dim (its hidden_size is the language model's) and its MLP mlp_ratio.
    v.hidden = f.has("embed_dim") ? *first_of(f, {"embed_dim"}) : required_of(f, {"hidden_size", "vt_hidden_size"});
    if (auto inter = first_of(f, {"intermediate_size", "vt_intermediate_size"})) {
        v.intermediate = *inter;
    } else if (auto ratio = f.optional_number("mlp_ratio")) {
        if (!(*ratio > 0 && *ratio <= 64)) f.fail("mlp_ratio", "expected a ratio in (0, 64]");
        v.intermediate = static_cast<int64_t>(std::llround(*ratio * static_cast<double>(v.hidden)));
    } else {
        required_of(f, {"intermediate_size", "vt_intermediate_size", "mlp_ratio"});
    }
    v.heads = required_of(f, {"num_heads", "num_attention_heads", "vt_num_attention_heads"});
    if (v.hidden % v.heads != 0) f.fail("num_heads", "the heads do not divide the hidden size");
    // Qwen2.5-VL's vision MLP is gated (gate/up/down, SiLU); the GELU towers are two plain linears.
    v.gated_mlp = f.optional_string("hidden_act").value_or("") == "silu";
    v.patch_size = required_of(f, {"patch_size"});
    v.temporal_patch_size = first_of(f, {"temporal_patch_size"}).value_or(1);
    v.in_channels = first_of(f, {"in_channels", "num_channels"}).value_or(3);
    if (auto m = first_of(f, {"spatial_merge_size"}, 1, 64)) {
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
    v.merger_in = v.hidden * v.merge * v.merge;
    v.merger_hidden = first_of(f, {"projector_input_dim"}).value_or(v.merger_in);
    // The patch embedding: a Conv3d whose kernel is the patch (stride = kernel), i.e. a GEMM over the patches.
    v.front_end = {{1, v.in_channels * v.temporal_patch_size * v.patch_size * v.patch_size, 0}};
    v.out_hidden = text_hidden;
    v.position_embeddings = first_of(f, {"num_position_embeddings"}, 0).value_or(0);
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
