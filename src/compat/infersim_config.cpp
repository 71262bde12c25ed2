#include "compat/infersim_config.hpp"

#include <cmath>

#include "common/error.hpp"
#include "common/json.hpp"

namespace mfusim::compat {

namespace {

// The object InferSim indexes, with its error vocabulary.
class Keys {
  public:
    Keys(const nlohmann::json& object, const std::string& origin) : d_(object), origin_(origin) {}

    bool present(const char* key) const { return d_.contains(key); }
    bool present_not_null(const char* key) const { return d_.contains(key) && !d_[key].is_null(); }

    // d[key] used as an integer: KeyError when absent, TypeError when null or not a number.
    int64_t integer(const char* key) const {
        if (!d_.contains(key)) raise("KeyError", std::string("'") + key + "'");
        return value(key);
    }

    // d.get(key, fallback)
    int64_t integer_or(const char* key, int64_t fallback) const { return d_.contains(key) ? value(key) : fallback; }

    [[noreturn]] void raise(const char* exception, const std::string& what) const {
        throw Error(Status::config, origin_ + ": InferSim raises " + exception + ": " + what);
    }

  private:
    int64_t value(const char* key) const {
        const nlohmann::json& v = d_[key];
        if (v.is_null()) {
            raise("TypeError", std::string("'") + key + "' is null where InferSim needs a number");
        }
        int64_t out = 0;
        if (v.is_number_integer()) {
            if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
                raise("OverflowError", std::string("'") + key + "' is too large");
            }
            out = v.get<int64_t>();
        } else if (v.is_number_float() && std::isfinite(v.get<double>()) &&
                   v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 9.0e15) {
            out = static_cast<int64_t>(v.get<double>());
        } else {
            raise("TypeError", std::string("'") + key + "' must be an integer, found " + v.dump().substr(0, 40));
        }
        if (out < 0) {
            throw Error(Status::config, origin_ + ": field '" + key + "' is negative (" + std::to_string(out) +
                                            "); InferSim's floor divisions are not defined for it here");
        }
        return out;
    }

    const nlohmann::json& d_;
    const std::string& origin_;
};

}  // namespace

InferSimConfig parse_infersim_config(const config::ModelSource& source) {
    InferSimConfig c;
    c.origin = source.origin;
    const nlohmann::json root = parse_json(source.json_text, source.origin);
    if (!root.is_object()) {
        throw Error(Status::config, source.origin + ": InferSim raises TypeError: the config is not a JSON object");
    }
    Keys top(root, c.origin);
    if (!root.contains("model_type")) top.raise("KeyError", "'model_type'");
    if (root["model_type"].is_string()) c.model_type = root["model_type"].get<std::string>();

    const nlohmann::json* dict = &root;
    if (c.model_type == "qwen3_5" || c.model_type == "qwen3_5_moe") {
        if (!root.contains("text_config")) top.raise("KeyError", "'text_config'");
        dict = &root["text_config"];
        if (!dict->is_object()) top.raise("TypeError", "'text_config' is not a JSON object");
    }
    Keys d(*dict, c.origin);

    c.h = d.integer("hidden_size");
    c.L = d.integer("num_hidden_layers");

    c.hybrid = d.present_not_null("full_attention_interval");
    if (c.hybrid) {
        c.interval = d.integer("full_attention_interval");
        if (c.interval == 0)
            d.raise("ZeroDivisionError", "integer division or modulo by zero (full_attention_interval is 0)");
        c.N_f = c.L / c.interval;
        c.N_l = c.L - c.N_f;
        c.c_k = d.integer("linear_conv_kernel_dim");
        c.d_k = d.integer("linear_key_head_dim");
        c.h_k = d.integer("linear_num_key_heads");
        c.d_lv = d.integer("linear_value_head_dim");
        c.h_v = d.integer("linear_num_value_heads");
    }

    c.mla = d.present("kv_lora_rank");
    if (!c.mla) {
        c.H = d.integer("num_attention_heads");
        c.Hkv = d.integer("num_key_value_heads");
        if (d.present("head_dim")) {
            c.d = d.integer("head_dim");
        } else {
            if (c.H == 0) d.raise("ZeroDivisionError", "integer division or modulo by zero (num_attention_heads is 0)");
            c.d = c.h / c.H;
        }
    } else {
        c.r_q = d.integer("q_lora_rank");
        c.d_n = d.integer("qk_nope_head_dim");
        c.d_r = d.integer("qk_rope_head_dim");
        c.r_kv = d.integer("kv_lora_rank");
        c.H = d.integer("num_attention_heads");
        c.d_v = d.integer("v_head_dim");
        c.d_qk = c.d_n + c.d_r;
    }

    // n_routed_experts / n_shared_experts / shared_expert_intermediate_size are deliberately not read (Q9).
    c.moe = true;
    if (d.present("num_routed_experts")) {
        c.E = d.integer("num_routed_experts");
    } else if (d.present("num_experts")) {
        c.E = d.integer("num_experts");
    } else {
        c.moe = false;
        c.E = 1;
    }
    if (c.moe) {
        c.k_e = d.integer("num_experts_per_tok");
        c.I = d.integer("moe_intermediate_size");
        c.E_s = d.integer_or("num_shared_experts", 0);
    } else {
        c.k_e = 1;
        c.I = d.integer("intermediate_size");
        c.E_s = 0;
    }
    return c;
}

}  // namespace mfusim::compat
