#include "config/quantization.hpp"

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/json.hpp"

namespace mfusim::config {

namespace {

struct FormatName {
    WeightFormat format;
    const char* name;
    double bytes;
};

// Scales: FP8 block 1/(128*128) of 4 bytes; NVFP4 one FP8 byte per 16; MXFP4 one byte per 32; int4 and int8
// group-128 fp16 scales.
const FormatName kFormats[] = {
    {WeightFormat::bf16, "bf16", 2.0},
    {WeightFormat::fp8, "fp8", 1.0},
    {WeightFormat::fp8_block, "fp8_block", 1.0 + 4.0 / (128.0 * 128.0)},
    {WeightFormat::nvfp4, "nvfp4", 0.5 + 1.0 / 16.0},
    {WeightFormat::mxfp4, "mxfp4", 0.5 + 1.0 / 32.0},
    {WeightFormat::int8_wo, "int8_wo", 1.0 + 2.0 / 128.0},
    {WeightFormat::int4_wo, "int4_wo", 0.5 + 2.0 / 128.0},
};

const FormatName& entry(WeightFormat format) {
    for (const FormatName& f : kFormats) {
        if (f.format == format) return f;
    }
    return kFormats[0];
}

bool lists_attention(const nlohmann::json& list) {
    if (!list.is_array()) return false;
    for (const auto& item : list) {
        if (item.is_string()) {
            const std::string& s = item.get_ref<const std::string&>();
            // Vision towers' attention is not the language model's (multimodal checkpoints list both).
            if (s.find("vision") != std::string::npos || s.find("visual") != std::string::npos) continue;
            if (s.find("self_attn") != std::string::npos || s.find("attention") != std::string::npos) return true;
        }
    }
    return false;
}

// The format a quant_method (and its details) states for the quantized layers.
WeightFormat method_format(const JsonFields& q, const std::string& method, const char* method_key) {
    if (method == "fp8" || method == "fbgemm_fp8") {
        return q.has("weight_block_size") ? WeightFormat::fp8_block : WeightFormat::fp8;
    }
    if (method == "mxfp4") return WeightFormat::mxfp4;
    if (method == "modelopt" || method == "modelopt_fp4" || method == "nvfp4") {
        std::string algo = q.optional_string("quant_algo").value_or(method == "modelopt" ? "FP8" : "NVFP4");
        if (algo == "FP8") return WeightFormat::fp8;
        if (algo == "NVFP4" || algo == "MIXED_PRECISION") return WeightFormat::nvfp4;
        if (algo == "FP8_BLOCK_SCALES") return WeightFormat::fp8_block;
        q.fail("quant_algo", "'" + algo + "' is not a quantization the model understands (FP8, NVFP4)");
    }
    if (method == "awq" || method == "gptq" || method == "bitsandbytes") {
        int64_t bits = q.optional_integer("bits").value_or(4);
        if (bits == 4) return WeightFormat::int4_wo;
        if (bits == 8) return WeightFormat::int8_wo;
        q.fail("bits", std::to_string(bits) + "-bit weights are not modelled (4 and 8 are)");
    }
    if (method == "compressed-tensors") {
        if (q.object().contains("config_groups") && q.object()["config_groups"].is_object()) {
            for (const auto& [name, group] : q.object()["config_groups"].items()) {
                if (!group.is_object() || !group.contains("weights") || !group["weights"].is_object()) continue;
                JsonFields w(group["weights"], q.origin(), q.path("config_groups.") + name + ".weights.");
                int64_t bits = w.optional_integer("num_bits").value_or(16);
                std::string type = w.optional_string("type").value_or("int");
                if (bits == 8) return type == "float" ? WeightFormat::fp8 : WeightFormat::int8_wo;
                if (bits == 4) return type == "float" ? WeightFormat::nvfp4 : WeightFormat::int4_wo;
                if (bits == 16) return WeightFormat::bf16;
                w.fail("num_bits", std::to_string(bits) + "-bit weights are not modelled (4, 8 and 16 are)");
            }
        }
        return WeightFormat::bf16;
    }
    q.fail(method_key, "'" + method + "' is not a quantization method the model understands (fp8, fbgemm_fp8, "
                       "modelopt, mxfp4, awq, gptq, compressed-tensors)");
}

}  // namespace

double weight_format_bytes(WeightFormat format) {
    return entry(format).bytes;
}

std::string_view weight_format_name(WeightFormat format) {
    return entry(format).name;
}

std::optional<WeightFormat> parse_weight_format(std::string_view name) {
    if (name == "" || name == "bf16" || name == "fp16" || name == "float16" || name == "bfloat16") {
        return WeightFormat::bf16;
    }
    if (name == "int4" || name == "w4a16" || name == "awq" || name == "gptq") return WeightFormat::int4_wo;
    if (name == "int8" || name == "w8a16") return WeightFormat::int8_wo;
    for (const FormatName& f : kFormats) {
        if (name == f.name) return f.format;
    }
    return std::nullopt;
}

std::string weight_format_names() {
    std::string names;
    for (const FormatName& f : kFormats) names += (names.empty() ? "" : ", ") + std::string(f.name);
    return names;
}

Quantization Quantization::overridden(WeightFormat format) const {
    Quantization q = *this;
    bool checkpoint_quantized = any();
    if (!checkpoint_quantized || attention != WeightFormat::bf16) q.attention = format;
    if (!checkpoint_quantized || mlp != WeightFormat::bf16) q.mlp = format;
    if (!checkpoint_quantized || experts != WeightFormat::bf16) q.experts = format;
    return q;
}

Quantization parse_quantization(const nlohmann::json& root, const nlohmann::json* hf_quant_config,
                                const std::string& origin) {
    Quantization result;
    // hf_quant_config.json (TensorRT Model Optimizer): {"quantization": {"quant_algo": "NVFP4", "exclude_modules": [...]}}
    if (hf_quant_config && hf_quant_config->is_object() && hf_quant_config->contains("quantization") &&
        (*hf_quant_config)["quantization"].is_object()) {
        JsonFields q((*hf_quant_config)["quantization"], origin + " (hf_quant_config.json)", "quantization.");
        WeightFormat f = method_format(q, "modelopt", "quant_algo");
        result = Quantization{f, f, f, "modelopt"};
        if (lists_attention(q.object().value("exclude_modules", nlohmann::json()))) {
            result.attention = WeightFormat::bf16;
        }
        return result;
    }
    if (!root.contains("quantization_config") || !root["quantization_config"].is_object()) return result;
    JsonFields q(root["quantization_config"], origin, "quantization_config.");
    std::string method = q.optional_string("quant_method").value_or("");
    if (method.empty()) q.fail("quant_method", "missing: the quantization cannot be read without it");
    WeightFormat f = method_format(q, method, "quant_method");
    result = Quantization{f, f, f, method};
    const nlohmann::json& qc = q.object();
    for (const char* key : {"modules_to_not_convert", "ignored_layers", "ignore", "exclude_modules"}) {
        if (qc.contains(key) && lists_attention(qc[key])) result.attention = WeightFormat::bf16;
    }
    return result;
}

}  // namespace mfusim::config
