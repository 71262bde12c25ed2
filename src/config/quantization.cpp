#include "config/quantization.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/json.hpp"
#include "common/named.hpp"

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

// The class of linear layers an exclusion-list entry names, read from its module path: `none` for what is not a
// quantizable linear layer of the language model (norms, routers, the LM head, embeddings, vision towers and
// projectors, multi-token-prediction heads); `layer` for a whole decoder layer ("model.layers.3*"), every class
// in it.
enum class ExcludedClass : uint8_t { none, attention, recurrent, mlp, layer };

bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

ExcludedClass excluded_class(std::string_view path) {
    for (std::string_view skip : {"vision", "visual", "mm_projector", "mtp", "lm_head", "embed", "norm"}) {
        if (contains(path, skip)) return ExcludedClass::none;
    }
    if (contains(path, "shared_expert") && !contains(path, "shared_expert_gate")) return ExcludedClass::mlp;
    // "layers.<n>" followed by nothing, "*" or ".*".
    const std::size_t at = path.rfind("layers.");
    if (at != std::string_view::npos) {
        std::size_t end = at + 7;
        while (end < path.size() && path[end] >= '0' && path[end] <= '9') ++end;
        const std::string_view rest = path.substr(end);
        if (end > at + 7 && (rest.empty() || rest == "*" || rest == ".*")) return ExcludedClass::layer;
    }
    if (contains(path, "linear_attn")) return ExcludedClass::recurrent;
    if (contains(path, "self_attn") || contains(path, "attention")) return ExcludedClass::attention;
    // Hybrid blocks name their mixer `mixer` whatever it is: the projection says which (Nemotron-H).
    const std::size_t dot = path.rfind('.');
    const std::string_view leaf = dot == std::string_view::npos ? path : path.substr(dot + 1);
    if (contains(path, "mixer")) {
        // (Its conv1d is not a GEMM: checkpoints list it beside the projections, and it is timed in 16 bits anyway.)
        if (leaf == "in_proj" || leaf == "out_proj") return ExcludedClass::recurrent;
        if (leaf == "q_proj" || leaf == "k_proj" || leaf == "v_proj" || leaf == "o_proj" || leaf == "qkv_proj") {
            return ExcludedClass::attention;
        }
    }
    if (contains(path, "mlp") && !contains(path, "experts") && !contains(path, "gate") && !contains(path, "router")) {
        return ExcludedClass::mlp;
    }
    if (leaf == "gate_proj" || leaf == "up_proj" || leaf == "down_proj") return ExcludedClass::mlp;
    return ExcludedClass::none;
}

// The layer an entry names ("model.layers.12.self_attn" -> 12); -1 when it names every layer (a wildcard, or no
// layer number: "*self_attn*").
int64_t excluded_layer(std::string_view path) {
    const std::size_t at = path.find("layers.");
    if (at == std::string_view::npos) return -1;
    int64_t layer = 0;
    std::size_t i = at + 7, digits = 0;
    for (; i < path.size() && path[i] >= '0' && path[i] <= '9' && digits < 9; ++i, ++digits) {
        layer = layer * 10 + (path[i] - '0');
    }
    return digits == 0 ? -1 : layer;
}

// Which layers of each class the exclusion lists of a quantization config name.
struct Excluded {
    std::set<int64_t> layers[5];
    bool all[5] = {};

    void add(const nlohmann::json& list) {
        if (!list.is_array()) return;
        for (const auto& item : list) {
            if (!item.is_string()) continue;
            const std::string& path = item.get_ref<const std::string&>();
            const auto c = static_cast<std::size_t>(excluded_class(path));
            if (c == 0) continue;
            const int64_t layer = excluded_layer(path);
            if (layer < 0) {
                all[c] = true;
            } else {
                layers[c].insert(layer);
            }
        }
    }

    // Keeps a class in 16 bits when the lists name at least half of its layers (or all, or the count is not known),
    // with a warning when they name some but not all.
    // Whole layers count for every class; those past the decoder (multi-token-prediction layers) for none.
    void apply(ExcludedClass c, const char* what, int64_t class_layers, int64_t decoder_layers, WeightFormat& format,
               std::vector<std::string>* warnings) const {
        const auto i = static_cast<std::size_t>(c);
        std::set<int64_t> kept = layers[i];
        for (int64_t l : layers[static_cast<std::size_t>(ExcludedClass::layer)]) {
            if (decoder_layers <= 0 || l < decoder_layers) kept.insert(l);
        }
        const auto named = static_cast<int64_t>(kept.size());
        if (format == WeightFormat::bf16 || (!all[i] && named == 0)) return;
        if (all[i] || class_layers <= 0 || named >= class_layers) {
            format = WeightFormat::bf16;
            return;
        }
        const WeightFormat quantized = format;
        if (2 * named >= class_layers) format = WeightFormat::bf16;
        if (warnings) {
            warnings->push_back("the checkpoint keeps the " + std::string(what) + " of " + std::to_string(named) +
                                " of its " + std::to_string(class_layers) +
                                " layers in 16 bits and quantizes the rest; all are timed in " +
                                std::string(weight_format_name(format == WeightFormat::bf16 ? format : quantized)));
        }
    }
};

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
    if (method == "bitsandbytes") {
        // bitsandbytes states its width as flags, not bits: LLM.int8() is 8-bit weight-only, NF4/FP4 4-bit.
        if (q.optional_bool("load_in_8bit").value_or(false)) return WeightFormat::int8_wo;
        if (q.optional_bool("load_in_4bit").value_or(false)) return WeightFormat::int4_wo;
        q.fail("load_in_4bit", "bitsandbytes needs load_in_4bit or load_in_8bit true (neither is)");
    }
    if (method == "awq" || method == "gptq") {
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
    q.fail(method_key, "'" + method +
                           "' is not a quantization method the model understands (fp8, fbgemm_fp8, "
                           "modelopt, mxfp4, awq, gptq, compressed-tensors)");
}

// The KV cache a checkpoint states, as the engines read it: a kv_cache_quant_algo string (ModelOpt's QuantAlgo name,
// compared case-insensitively as SGLang's ModelRunner.configure_kv_cache_dtype and vLLM's
// get_kv_cache_quant_algo_string do) or a kv_cache_scheme (compressed-tensors' QuantizationArgs, also written by
// ModelOpt into config.json: {"num_bits": 8, "type": "float"} is FP8, the form vLLM maps to fp8). FP8 is modelled;
// NVFP4 and INT8 are real formats the step model has no kernels for, so they warn and leave the cache in 16 bits.
void read_kv_cache(const JsonFields& q, KvCacheStatement by, const std::string& where, Quantization& result,
                   std::vector<std::string>* warnings) {
    auto state = [&](const char* key, bool fp8) {
        result.kv_cache_fp8 = fp8;
        result.kv_cache_stated_by = by;
        result.kv_cache_key = where + q.path(key);
    };
    auto unmodelled = [&](const char* key, const std::string& format) {
        if (warnings) {
            warnings->push_back("the checkpoint states a " + format + " KV cache (" + where + q.path(key) +
                                "), which is not modelled: the KV cache is timed in 16 bits unless --kv-quant says");
        }
    };
    if (auto algo = q.optional_string("kv_cache_quant_algo")) {
        std::string upper;
        for (char c : *algo) upper += static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
        if (upper == "FP8") return state("kv_cache_quant_algo", true);
        if (upper == "NVFP4" || upper == "INT8") return unmodelled("kv_cache_quant_algo", upper);
        q.fail("kv_cache_quant_algo", "'" + *algo + "' is not a KV-cache format (FP8, NVFP4, INT8 or null)");
    }
    if (!q.has("kv_cache_scheme")) return;
    const nlohmann::json& scheme = q.object()["kv_cache_scheme"];
    if (scheme.is_string()) {
        // A few exports write the ModelOpt name here ("FP8"); vLLM's get_kv_cache_quant_algo_string reads it so.
        const std::string& name = scheme.get_ref<const std::string&>();
        if (name == "FP8" || name == "fp8") return state("kv_cache_scheme", true);
        q.fail("kv_cache_scheme", "'" + name + "' is not a KV-cache format (FP8, or an object with num_bits and type)");
    }
    if (!scheme.is_object()) {
        q.fail("kv_cache_scheme", "expected an object or null, found " + json_text(scheme, -1).substr(0, 40));
    }
    JsonFields s(scheme, q.origin(), q.path("kv_cache_scheme."));
    const int64_t bits = s.optional_integer("num_bits").value_or(0);
    const std::string type = s.optional_string("type").value_or("");
    if (bits <= 0) s.fail("num_bits", "missing: the KV-cache scheme needs its bit width");
    if (bits == 8 && type == "float") return state("kv_cache_scheme", true);
    if (bits == 8 || bits == 4) return unmodelled("kv_cache_scheme", std::to_string(bits) + "-bit " + type);
    if (bits == 16) return;
    s.fail("num_bits", std::to_string(bits) + "-bit KV caches are not a format engines store (8, 4 or 16)");
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
    return joined_names(kFormats);
}

Quantization Quantization::overridden(WeightFormat format) const {
    Quantization q = *this;
    bool checkpoint_quantized = any();
    if (!checkpoint_quantized || attention != WeightFormat::bf16) q.attention = format;
    if (!checkpoint_quantized || mlp != WeightFormat::bf16) q.mlp = format;
    if (!checkpoint_quantized || experts != WeightFormat::bf16) q.experts = format;
    if (!checkpoint_quantized || recurrent != WeightFormat::bf16) q.recurrent = format;
    return q;
}

Quantization parse_quantization(const nlohmann::json& root, const nlohmann::json* hf_quant_config,
                                const std::string& origin, const ClassLayers& layers,
                                std::vector<std::string>* warnings) {
    Quantization result;
    Excluded excluded;
    // hf_quant_config.json (TensorRT Model Optimizer): {"quantization": {"quant_algo": "NVFP4", "exclude_modules":
    // [...]}}
    if (hf_quant_config && hf_quant_config->is_object() && hf_quant_config->contains("quantization") &&
        (*hf_quant_config)["quantization"].is_object()) {
        JsonFields q((*hf_quant_config)["quantization"], origin + " (hf_quant_config.json)", "quantization.");
        WeightFormat f = method_format(q, "modelopt", "quant_algo");
        result.attention = result.mlp = result.experts = result.recurrent = f;
        result.method = "modelopt";
        read_kv_cache(q, KvCacheStatement::modelopt, "hf_quant_config.json ", result, warnings);
        excluded.add(q.object().value("exclude_modules", nlohmann::json()));
    } else if (root.contains("quantization_config") && !root["quantization_config"].is_null()) {
        // Not an object (a string, a list): refused rather than read as unquantized, which would time BF16 weights.
        if (!root["quantization_config"].is_object()) {
            throw Error(Status::config, origin + ": field 'quantization_config': expected an object, found " +
                                            json_text(root["quantization_config"], -1).substr(0, 40));
        }
        JsonFields q(root["quantization_config"], origin, "quantization_config.");
        std::string method = q.optional_string("quant_method").value_or("");
        if (method.empty()) q.fail("quant_method", "missing: the quantization cannot be read without it");
        WeightFormat f = method_format(q, method, "quant_method");
        result.attention = result.mlp = result.experts = result.recurrent = f;
        result.method = method;
        if (method == "modelopt" || method == "modelopt_fp4") {
            read_kv_cache(q, KvCacheStatement::modelopt, "config.json ", result, warnings);
        } else if (method == "compressed-tensors") {
            read_kv_cache(q, KvCacheStatement::compressed_tensors, "config.json ", result, warnings);
        }
        const nlohmann::json& qc = q.object();
        for (const char* key : {"modules_to_not_convert", "ignored_layers", "ignore", "exclude_modules"}) {
            if (qc.contains(key)) excluded.add(qc[key]);
        }
    } else {
        return result;
    }
    excluded.apply(ExcludedClass::attention, "attention projections", layers.attention, layers.decoder,
                   result.attention, warnings);
    excluded.apply(ExcludedClass::recurrent, "recurrent mixers' projections", layers.recurrent, layers.decoder,
                   result.recurrent, warnings);
    excluded.apply(ExcludedClass::mlp, "dense MLPs and shared experts", layers.mlp, layers.decoder, result.mlp,
                   warnings);
    return result;
}

}  // namespace mfusim::config
