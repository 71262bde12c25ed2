// Weight quantization as checkpoints state it (quantization_config in config.json, hf_quant_config.json beside
// it) or as a deployment overrides it: one format per class of linear layer, because checkpoints quantize some
// classes and not others (gpt-oss: MXFP4 routed experts, BF16 attention; most NVFP4 checkpoints keep attention in
// BF16 or FP8). How a format runs on a GPU (FP8/FP4 tensor cores, or weight-only with dequantisation) is the
// kernel model's business (src/roofline/precision.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mfusim::config {

enum class WeightFormat : uint8_t {
    bf16,       // 16-bit weights (bf16/fp16): no quantization
    fp8,        // FP8 E4M3, per-tensor or per-channel scales
    fp8_block,  // FP8 E4M3 with 128x128 block scales (DeepSeek-V3 style, DeepGEMM)
    nvfp4,      // FP4 E2M1, FP8 scale per 16 elements
    mxfp4,      // FP4 E2M1, E8M0 scale per 32 elements
    int8_wo,    // 8-bit integer weights, 16-bit activations
    int4_wo,    // 4-bit integer weights (AWQ/GPTQ/compressed-tensors), group-128 16-bit scales, 16-bit activations
};

// Bytes one weight occupies in memory, scales included.
double weight_format_bytes(WeightFormat format);
std::string_view weight_format_name(WeightFormat format);  // "bf16", "fp8", ... (the --quant spellings)
// The --quant / options.quant spellings (also AIConfigurator's gemm_quant_mode values); nullopt if unknown.
std::optional<WeightFormat> parse_weight_format(std::string_view name);
std::string weight_format_names();  // for messages

// Who states a checkpoint's KV-cache format, which decides which engines read it when the KV dtype is left at
// "auto" (engines::follows_checkpoint_kv_cache, docs/engine.md "The checkpoint's KV cache"): NVIDIA ModelOpt
// (hf_quant_config.json's kv_cache_quant_algo, or quant_method "modelopt" in config.json with kv_cache_quant_algo
// or kv_cache_scheme), or compressed-tensors (quantization_config.kv_cache_scheme).
enum class KvCacheStatement : uint8_t { none, modelopt, compressed_tensors };

struct Quantization {
    WeightFormat attention = WeightFormat::bf16;  // q/k/v/o projections (MLA: its projections)
    WeightFormat mlp = WeightFormat::bf16;        // dense MLP layers and shared experts
    WeightFormat experts = WeightFormat::bf16;    // routed experts
    WeightFormat recurrent = WeightFormat::bf16;  // recurrent mixers' projections (Gated DeltaNet, Mamba2)
    std::string method;                           // quant_method as stated; "" for none
    // The KV cache the checkpoint says it was calibrated for: true for FP8 (E4M3). It is a fact of the checkpoint,
    // not of a deployment: whether it sets the cache's dtype is the engine's rule (see KvCacheStatement).
    bool kv_cache_fp8 = false;
    KvCacheStatement kv_cache_stated_by = KvCacheStatement::none;
    std::string
        kv_cache_key;  // where it is stated, for messages: "hf_quant_config.json quantization.kv_cache_quant_algo"

    bool any() const {
        return attention != WeightFormat::bf16 || mlp != WeightFormat::bf16 || experts != WeightFormat::bf16 ||
               recurrent != WeightFormat::bf16;
    }
    // A deployment's override: every class the checkpoint quantized (all of them for an unquantized checkpoint)
    // takes `format`; classes the checkpoint explicitly keeps in 16 bits stay so.
    Quantization overridden(WeightFormat format) const;
};

// How many layers of the model hold each class of linear layer an exclusion list can name. A class the list keeps
// in 16 bits in at least half of its layers is timed in 16 bits, otherwise in the checkpoint's format; either way,
// when the list names some of its layers but not all, a warning says how many (the step model times one format
// per class). 0: not known, and any mention keeps the whole class in 16 bits.
struct ClassLayers {
    int64_t attention = 0;  // softmax-attention layers
    int64_t recurrent = 0;  // Gated DeltaNet and Mamba2 layers
    int64_t mlp = 0;        // layers with a dense MLP or shared experts
    int64_t decoder = 0;    // all decoder layers (a whole layer named in a list counts for every class it holds)
};

// Reads quantization_config of a config root (and, when given, the root of an hf_quant_config.json); exclusion
// lists (modules_to_not_convert, ignored_layers, ignore, exclude_modules) keep classes in 16 bits, judged against
// `layers`, with warnings appended to `warnings`. Error(config) naming the key for a method or bit width that is
// not understood. The KV-cache statement (kv_cache_quant_algo, kv_cache_scheme) is read too: FP8 is modelled, a
// known format that is not (NVFP4, INT8) warns and leaves the cache in 16 bits, anything else is Error(config)
// naming the file and key.
Quantization parse_quantization(const nlohmann::json& root, const nlohmann::json* hf_quant_config,
                                const std::string& origin, const ClassLayers& layers = {},
                                std::vector<std::string>* warnings = nullptr);

}  // namespace mfusim::config
