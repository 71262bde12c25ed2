#include "config/model_config.hpp"

#include <optional>

#include "common/error.hpp"
#include "common/json.hpp"
#include "config/layer_pattern.hpp"

namespace mfusim::config {

namespace {

// Sizes past these are not a model anyone serves; rejecting them keeps every later product within int64/double
// exactness (2^53) and turns typos like an extra digit into a clear error.
constexpr int64_t kMaxDimension = 1 << 20;
constexpr int64_t kMaxLayers = 4096;
constexpr int64_t kMaxExperts = 65536;

int64_t checked(const JsonFields& f, const char* key, int64_t value, int64_t min, int64_t max) {
    if (value < min || value > max) {
        f.fail(key, "value " + std::to_string(value) + " is outside [" + std::to_string(min) + ", " +
                        std::to_string(max) + "]");
    }
    return value;
}

int64_t required(const JsonFields& f, const char* key, int64_t min = 1, int64_t max = kMaxDimension) {
    return checked(f, key, f.integer(key), min, max);
}

int64_t optional(const JsonFields& f, const char* key, int64_t fallback, int64_t min = 0, int64_t max = kMaxDimension) {
    auto v = f.optional_integer(key);
    return v ? checked(f, key, *v, min, max) : fallback;
}

// First present key of several spellings.
const char* first_key(const JsonFields& f, std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
        if (f.has(key)) return key;
    }
    return nullptr;
}

// GQA head geometry per layer kind. v_head_dim: values narrower than keys (MiMo-V2). MiMo-V2's sliding layers
// have their own heads (swa_num_attention_heads, swa_num_key_value_heads, swa_head_dim, swa_v_head_dim: vLLM's
// mimo_v2_flash builds their attention from these); Gemma-4's full layers have theirs (global_head_dim,
// num_global_key_value_heads, the latter only with attention_k_eq_v, where the value is the key's projection:
// transformers' Gemma4TextConfig per_layer_config), the sliding ones keeping head_dim and num_key_value_heads.
void read_head_geometry(const JsonFields& f, ModelConfig& m) {
    m.v_head_dim = optional(f, "v_head_dim", 0);
    const HeadGeometry base = m.full_heads();
    auto divides = [&](const char* key, const HeadGeometry& g) {
        if (g.kv_heads < 1 || g.heads % g.kv_heads != 0) {
            f.fail(key, "the query heads (" + std::to_string(g.heads) + ") are not a multiple of the KV heads (" +
                            std::to_string(g.kv_heads) + ")");
        }
    };
    const bool swa = first_key(f, {"swa_num_attention_heads", "swa_num_key_value_heads", "swa_head_dim",
                                   "swa_v_head_dim"}) != nullptr;
    const bool global = f.has("global_head_dim") || f.has("num_global_key_value_heads");
    // Step-3.5 / 3.7 state the sliding layers' heads in one object, attention_other_setting (num_attention_heads,
    // num_attention_groups as the KV heads, head_dim): TensorRT-LLM modeling_step3p7.py _layer_query_heads /
    // _layer_kv_heads give them to the layers whose layer_types entry is sliding_attention.
    const bool other = f.has("attention_other_setting");
    if (other && (swa || global)) {
        throw Error(Status::unsupported, f.origin() + ": field '" + f.path("attention_other_setting") +
                                             "': not modelled: together with swa_* or global_* head keys");
    }
    if (other) {
        const nlohmann::json& o = f.object()["attention_other_setting"];
        if (!o.is_object()) f.fail("attention_other_setting", "expected an object");
        const JsonFields a(o, f.origin(), f.path("attention_other_setting") + ".");
        if (auto kind = a.optional_string("attention_type"); kind && *kind != "sliding_attention") {
            throw Error(Status::unsupported, f.origin() + ": field '" + a.path("attention_type") +
                                                 "': not modelled: a second geometry for '" + *kind + "' layers");
        }
        HeadGeometry w = base;
        w.heads = optional(a, "num_attention_heads", m.num_heads, 1);
        const char* kv_key = first_key(a, {"num_attention_groups", "num_key_value_heads"});
        w.kv_heads = kv_key ? optional(a, kv_key, m.num_kv_heads, 1) : m.num_kv_heads;
        w.head_dim = w.v_head_dim = optional(a, "head_dim", m.head_dim, 1);
        if (w.kv_heads < 1 || w.heads % w.kv_heads != 0) {
            a.fail(kv_key ? kv_key : "num_attention_heads", "the query heads (" + std::to_string(w.heads) +
                                                                ") are not a multiple of the KV heads (" +
                                                                std::to_string(w.kv_heads) + ")");
        }
        if (m.windowed_layers > 0 && !(w == base)) m.windowed_heads = w;
    }
    if (swa && global) {
        throw Error(Status::unsupported, f.origin() + ": field '" + f.path("global_head_dim") +
                                             "': not modelled: separate head geometries for both sliding "
                                             "(swa_*) and global layers");
    }
    if (swa) {
        HeadGeometry w;
        w.heads = optional(f, "swa_num_attention_heads", m.num_heads, 1);
        w.kv_heads = optional(f, "swa_num_key_value_heads", m.num_kv_heads, 1);
        w.head_dim = optional(f, "swa_head_dim", m.head_dim, 1);
        w.v_head_dim = optional(f, "swa_v_head_dim", w.head_dim, 1);
        w.head_gate = base.head_gate;
        divides("swa_num_key_value_heads", w);
        if (m.windowed_layers > 0 && !(w == base)) m.windowed_heads = w;
    }
    if (global) {
        const bool k_eq_v = f.optional_bool("attention_k_eq_v").value_or(false);
        HeadGeometry g = base;
        g.head_dim = g.v_head_dim = optional(f, "global_head_dim", m.head_dim, 1);
        if (k_eq_v) g.kv_heads = optional(f, "num_global_key_value_heads", m.num_kv_heads, 1);
        g.k_eq_v = k_eq_v;
        divides("num_global_key_value_heads", g);
        if (m.windowed_layers > 0 && !(g == base)) m.windowed_heads = base;
        m.num_kv_heads = g.kv_heads;
        m.head_dim = g.head_dim;
        m.v_head_dim = g.v_head_dim;
        m.k_eq_v = g.k_eq_v;
    } else if (f.optional_bool("attention_k_eq_v").value_or(false)) {
        throw Error(Status::unsupported, f.origin() + ": field '" + f.path("attention_k_eq_v") +
                                             "': not modelled: keys doubling as values without a global geometry");
    }
}

// The load warning of a multimodal config's encoder tower: timed only for a workload that brings its input, or
// not timeable (then that input is refused).
std::string tower_warning(const std::string& kind, const std::string& input, const std::string& flag,
                          const std::string& unsupported) {
    if (unsupported.empty()) {
        return "multimodal config: the " + kind + " tower (" + kind + "_config) is timed only for a workload's " +
               input + " (" + flag + "); text-only steps do not run it";
    }
    return "multimodal config: the " + kind + " tower cannot be timed (" + unsupported +
           "); text-only workloads are timed and " + input + " refused";
}

}  // namespace

std::vector<DenseFfnGroup> ModelConfig::dense_ffn_groups() const {
    if (!dense_ffn_widths.empty()) return dense_ffn_widths;
    const int64_t layers = dense_ffn_layers();
    if (layers <= 0) return {};
    return {DenseFfnGroup{intermediate_size, layers}};
}

double ModelConfig::kv_bytes_per_token_per_layer(double kv_bytes, int64_t tp) const {
    if (attention == AttentionKind::mla) {
        // The compressed latent and the rope key are shared by all heads and replicated on every TP rank.
        return kv_bytes * static_cast<double>(kv_lora_rank + qk_rope_head_dim) + indexer_bytes_per_token_per_layer();
    }
    // Block-sparse layers add their index key (averaged over the layers as above; 0 without them).
    return gqa_kv_bytes(full_heads(), kv_bytes, tp) + indexer_bytes_per_token_per_layer();
}

double ModelConfig::gqa_kv_bytes(const HeadGeometry& g, double kv_bytes, int64_t tp) {
    // KV heads are split across ranks; with fewer KV heads than ranks each rank keeps one replica. K and V are both
    // cached even where the value is the key's projection (the engines' paged caches hold a K and a V page).
    int64_t heads = g.kv_heads >= tp ? g.kv_heads / tp : 1;
    return kv_bytes * static_cast<double>(heads * (g.head_dim + g.v_head_dim));
}

ModelConfig parse_model_config(const ModelSource& source) {
    nlohmann::json root = parse_json(source.json_text, source.origin);
    if (!root.is_object()) throw Error(Status::config, source.origin + ": a model config must be a JSON object");
    // Multimodal and Qwen3.5 configs nest the language model under text_config; omni configs nest that, with the
    // towers, under thinker_config (the model that reads the inputs and writes text).
    const bool thinker = !root.contains("hidden_size") && !root.contains("text_config") &&
                         root.contains("thinker_config") && root["thinker_config"].is_object() &&
                         root["thinker_config"].contains("text_config");
    const nlohmann::json& outer = thinker ? root["thinker_config"] : root;
    bool nested = outer.contains("text_config") && outer["text_config"].is_object() && !outer.contains("hidden_size");
    const nlohmann::json& body = nested ? outer["text_config"] : outer;
    JsonFields f(body, source.origin, std::string(thinker ? "thinker_config." : "") + (nested ? "text_config." : ""));

    ModelConfig m;
    refuse_unmodelled_architecture(f);
    m.model_type = f.optional_string("model_type").value_or("");
    if (nested && m.model_type.empty()) {
        m.model_type = JsonFields(root, source.origin).optional_string("model_type").value_or("");
    }
    m.hidden_size = required(f, "hidden_size");
    m.vision = parse_vision_config(outer, source.origin, m.hidden_size);
    if (m.vision.present) {
        m.warnings.push_back(tower_warning("vision", "images", "--images-per-request", m.vision.unsupported));
    }
    m.audio = parse_audio_config(root, source.origin, m.hidden_size);
    if (m.audio.present) {
        m.warnings.push_back(tower_warning("audio", "audio", "--audio-seconds-per-request", m.audio.unsupported));
    }
    // The newer Nemotron-H schema states the block count only as the length of layers_block_type.
    const std::optional<int64_t> blocks = f.has("num_hidden_layers") ? std::nullopt : block_pattern_length(f);
    m.num_layers = blocks ? checked(f, "layers_block_type", *blocks, 1, kMaxLayers)
                          : required(f, "num_hidden_layers", 1, kMaxLayers);
    m.vocab_size = optional(f, "vocab_size", 0, 0, 1 << 24);
    m.attention_residual_block = optional(f, "attn_res_block_size", 0, 1, m.num_layers);
    m.num_heads = required(f, "num_attention_heads");
    m.tied_embeddings = f.optional_bool("tie_word_embeddings").value_or(false);
    m.qk_norm_across_heads =
        f.optional_bool("use_qk_norm").value_or(false) && f.optional_string("qk_norm_type").value_or("") == "per_layer";

    if (f.present("kv_lora_rank") && f.has("kv_lora_rank")) {
        m.attention = AttentionKind::mla;
        m.kv_lora_rank = required(f, "kv_lora_rank");
        m.q_lora_rank = optional(f, "q_lora_rank", 0);
        m.qk_nope_head_dim = required(f, "qk_nope_head_dim");
        m.qk_rope_head_dim = required(f, "qk_rope_head_dim", 0);
        m.v_head_dim = required(f, "v_head_dim");
        m.num_kv_heads = m.num_heads;
        m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
        m.mla_output_gate = f.optional_bool("mla_use_output_gate").value_or(false);
    } else {
        // Step-3 / 3.5 / 3.7 name the KV heads num_attention_groups (TensorRT-LLM modeling_step3p7.py aliases it).
        const char* kv_key = first_key(f, {"num_key_value_heads", "num_attention_groups"});
        m.num_kv_heads = kv_key ? optional(f, kv_key, m.num_heads, 1) : m.num_heads;
        m.head_wise_gate = f.optional_bool("use_head_wise_attn_gate").value_or(false);
        if (m.num_heads % m.num_kv_heads != 0) {
            f.fail(kv_key ? kv_key : "num_key_value_heads", "num_attention_heads (" + std::to_string(m.num_heads) +
                                                                ") is not a multiple of it (" +
                                                                std::to_string(m.num_kv_heads) + ")");
        }
        if (f.has("head_dim")) {
            m.head_dim = required(f, "head_dim");
        } else {
            if (m.hidden_size % m.num_heads != 0) {
                f.fail("num_attention_heads", "no head_dim given and hidden_size is not a multiple of the head count");
            }
            m.head_dim = m.hidden_size / m.num_heads;
        }
    }

    const char* experts_key =
        first_key(f, {"num_routed_experts", "n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"});
    if (experts_key) m.num_experts = checked(f, experts_key, f.integer(experts_key), 0, kMaxExperts);
    // Gemma-4 states its MoE under enable_moe_block; without it, its num_experts (null in dense configs) is unused.
    const bool moe_block = f.optional_bool("enable_moe_block").value_or(false);
    if (f.present("enable_moe_block") && !moe_block) m.num_experts = 0;
    if (m.num_experts > 1) {
        // Gemma-4: top_k_experts; Kimi Linear (KimiLinearConfig): num_experts_per_token; Step-3.x: moe_top_k.
        const char* top_k_key = first_key(f, {"top_k_experts", "num_experts_per_token", "moe_top_k"});
        m.experts_per_token = required(f, top_k_key ? top_k_key : "num_experts_per_tok", 1, m.num_experts);
        if (const char* groups_key = first_key(f, {"n_group", "num_expert_group"})) {
            m.expert_groups = optional(f, groups_key, 1, 1, m.num_experts);
            if (m.expert_groups > 1) m.topk_groups = optional(f, "topk_group", m.expert_groups, 1, m.expert_groups);
        }
        // Mixtral and Llama 4 state the expert size as intermediate_size; DeepSeek and Qwen as moe_intermediate_size.
        m.moe_intermediate_size =
            f.has("moe_intermediate_size") ? required(f, "moe_intermediate_size") : required(f, "intermediate_size");
        // The dense layers' MLP: Llama 4's intermediate_size_mlp, MiniMax-M3's dense_intermediate_size (vLLM's
        // minimax_m3 MiniMaxM3MLP of config.dense_intermediate_size), else intermediate_size.
        const char* dense_key = first_key(f, {"intermediate_size_mlp", "dense_intermediate_size"});
        m.intermediate_size = optional(f, dense_key ? dense_key : "intermediate_size", 0);
        const char* shared_key = first_key(f, {"num_shared_experts", "n_shared_experts"});
        m.num_shared_experts = shared_key ? checked(f, shared_key, f.integer(shared_key), 0, 64) : 0;
        m.shared_expert_intermediate_size = m.moe_intermediate_size;
        // Qwen: shared_expert_intermediate_size; Nemotron-H: moe_shared_expert_intermediate_size; MiniMax
        // (M1, M3): shared_intermediate_size; Step-3.x: share_expert_dim (one shared expert per MoE layer).
        if (const char* key = first_key(f, {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size",
                                            "shared_intermediate_size", "share_expert_dim"})) {
            m.shared_expert_intermediate_size = required(f, key, 0);
            if (m.num_shared_experts == 0 && m.shared_expert_intermediate_size > 0) m.num_shared_experts = 1;
        }
        if (moe_block) {
            // Gemma-4's MoE layers keep their dense MLP (intermediate_size) and add the routed experts after it
            // (transformers' Gemma4 decoder layer: mlp, then experts): every token runs it, as a shared expert.
            if (m.num_shared_experts > 0) f.fail("enable_moe_block", "together with shared experts");
            m.num_shared_experts = 1;
            m.shared_expert_intermediate_size = required(f, "intermediate_size");
            m.intermediate_size = 0;
        }
        // Nemotron-3 Super's moe_latent_size; Kimi-K3's routed_expert_hidden_size (the same latent MoE: router on
        // the hidden state, replicated down / up projections around the experts, shared experts on the hidden state).
        const char* latent_key = first_key(f, {"moe_latent_size", "routed_expert_hidden_size"});
        m.moe_latent_size = latent_key ? optional(f, latent_key, 0) : 0;
        m.first_dense_layers = optional(f, "first_k_dense_replace", 0, 0, m.num_layers);
        m.moe_layer_count = m.num_layers - m.first_dense_layers;
    } else {
        m.num_experts = 0;
        // DeciLM's block_configs give each layer's MLP width (ffn_mult); intermediate_size is then null.
        m.intermediate_size =
            f.has("block_configs") ? optional(f, "intermediate_size", 0) : required(f, "intermediate_size");
    }

    if (f.has("full_attention_interval") || f.has("linear_num_value_heads")) {
        if (f.has("full_attention_interval")) {
            m.full_attention_interval = required(f, "full_attention_interval", 1, m.num_layers);
        }
        m.linear_conv_kernel = required(f, "linear_conv_kernel_dim");
        m.linear_key_head_dim = required(f, "linear_key_head_dim");
        m.linear_num_key_heads = required(f, "linear_num_key_heads");
        m.linear_value_head_dim = required(f, "linear_value_head_dim");
        m.linear_num_value_heads = required(f, "linear_num_value_heads");
    }
    read_layer_pattern(f, m);
    if (m.attention == AttentionKind::gqa) read_head_geometry(f, m);
    nlohmann::json hf_quant;
    if (!source.hf_quant_json_text.empty())
        hf_quant = parse_json(source.hf_quant_json_text, source.origin + " (hf_quant_config.json)");
    ClassLayers layers;
    layers.attention = m.full_attention_layers();
    layers.recurrent = m.linear_layer_count + m.mamba_layer_count;
    layers.mlp = m.dense_ffn_layers() + (m.num_shared_experts > 0 ? m.moe_layers() : 0);
    layers.decoder = m.num_layers;
    // The quantization is stated beside the language model's fields or above them: Llama 4 puts it at the top,
    // Kimi-K2.5 (KimiK25Config) inside text_config only, so the nested body is read when the top has none (read
    // as BF16, its INT4 experts would weigh four times their size).
    const bool quant_in_body = nested && !root.contains("quantization_config") && body.contains("quantization_config");
    m.quant = parse_quantization(quant_in_body ? body : root, source.hf_quant_json_text.empty() ? nullptr : &hf_quant,
                                 source.origin, layers, &m.warnings);
    return m;
}

}  // namespace mfusim::config
