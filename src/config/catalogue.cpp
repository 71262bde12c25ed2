// Facts about published models (layer counts, head counts, sizes) as compact HF configs. The InferSim entries
// (deepseek-v3, deepseek-v3.2, qwen3-*, qwen3.5-*, qwen3-next) keep the key spellings of InferSim's hf_configs,
// because compat mode reads keys exactly as InferSim does (deepseek-v3.2 spells n_routed_experts and is therefore
// dense there; InferSim's deepseek-v3 file spells num_routed_experts).
#include <algorithm>
#include <cctype>

#include "config/catalogue.hpp"

namespace mfusim::config {

namespace {

// clang-format off
constexpr CatalogueModel kModels[] = {
    {"codellama-34b-instruct-hf",
     R"json({"model_type":"llama","hidden_size":8192,"num_hidden_layers":48,"num_attention_heads":64,"num_key_value_heads":8,"intermediate_size":22016,"vocab_size":32000,"tie_word_embeddings":false})json"},
    {"deepseek-v2-lite",
     R"json({"model_type":"deepseek_v2","hidden_size":2048,"num_hidden_layers":27,"num_attention_heads":16,"num_key_value_heads":16,"intermediate_size":10944,"moe_intermediate_size":1408,"n_routed_experts":64,"num_experts_per_tok":6,"n_shared_experts":2,"first_k_dense_replace":1,"kv_lora_rank":512,"q_lora_rank":null,"qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"vocab_size":102400,"tie_word_embeddings":false,"moe_layer_freq":1})json"},
    {"deepseek-v3",
     R"json({"model_type":"deepseek_v3","hidden_size":7168,"num_hidden_layers":61,"num_attention_heads":128,"num_key_value_heads":128,"intermediate_size":18432,"moe_intermediate_size":2048,"num_routed_experts":256,"num_experts_per_tok":8,"num_shared_experts":1,"first_k_dense_replace":3,"kv_lora_rank":512,"q_lora_rank":1536,"qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"vocab_size":129280,"tie_word_embeddings":false,"moe_layer_freq":1,"quantization_config":{"quant_method":"fp8","weight_block_size":[128,128]}})json"},
    {"deepseek-v3.2",
     R"json({"model_type":"deepseek_v32","hidden_size":7168,"num_hidden_layers":61,"num_attention_heads":128,"num_key_value_heads":128,"intermediate_size":18432,"moe_intermediate_size":2048,"n_routed_experts":256,"num_experts_per_tok":8,"n_shared_experts":1,"first_k_dense_replace":3,"kv_lora_rank":512,"q_lora_rank":1536,"qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"vocab_size":129280,"tie_word_embeddings":false,"moe_layer_freq":1,"index_topk":2048,"index_n_heads":64,"index_head_dim":128,"quantization_config":{"quant_method":"fp8","weight_block_size":[128,128]}})json"},
    {"glm-5.2-fp8",
     R"json({"model_type":"glm_moe_dsa","hidden_size":6144,"num_hidden_layers":78,"num_attention_heads":64,"num_key_value_heads":64,"head_dim":192,"intermediate_size":12288,"moe_intermediate_size":2048,"n_routed_experts":256,"num_experts_per_tok":8,"n_shared_experts":1,"first_k_dense_replace":3,"kv_lora_rank":512,"q_lora_rank":2048,"qk_rope_head_dim":64,"qk_nope_head_dim":192,"v_head_dim":256,"vocab_size":154880,"tie_word_embeddings":false,"moe_layer_freq":1,"index_topk":2048,"index_n_heads":32,"index_head_dim":128,"quantization_config":{"quant_method":"fp8","weight_block_size":[128,128]}})json"},
    {"llama-2-7b-hf",
     R"json({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"intermediate_size":11008,"vocab_size":32000,"tie_word_embeddings":false})json"},
    {"llama-3.1-70b-instruct",
     R"json({"model_type":"llama","hidden_size":8192,"num_hidden_layers":80,"num_attention_heads":64,"num_key_value_heads":8,"intermediate_size":28672,"vocab_size":128256,"tie_word_embeddings":false})json"},
    {"llama-3.1-8b-instruct",
     R"json({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,"tie_word_embeddings":false})json"},
    {"llama-4-scout-17b-16e-instruct-fp8-dynamic",
     R"json({"model_type":"llama4","quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{"weights":{"num_bits":8,"type":"float"}}},"ignore":["language_model.model.layers.*.self_attn"]},"text_config":{"model_type":"llama4_text","hidden_size":5120,"num_hidden_layers":48,"num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"intermediate_size":8192,"num_local_experts":16,"num_experts_per_tok":1,"vocab_size":202048,"interleave_moe_layer_step":1,"intermediate_size_mlp":16384}})json"},
    {"mistral-nemo-instruct-2407",
     R"json({"model_type":"mistral","hidden_size":5120,"num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":128,"intermediate_size":14336,"vocab_size":131072,"tie_word_embeddings":false})json"},
    {"mixtral-8x7b-v0.1",
     R"json({"model_type":"mixtral","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"num_local_experts":8,"num_experts_per_tok":2,"vocab_size":32000,"tie_word_embeddings":false})json"},
    {"qwen2.5-7b-instruct",
     R"json({"model_type":"qwen2","hidden_size":3584,"num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,"intermediate_size":18944,"vocab_size":152064,"tie_word_embeddings":false})json"},
    {"qwen3-14b",
     R"json({"model_type":"qwen3","hidden_size":5120,"num_hidden_layers":40,"num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"intermediate_size":17408,"vocab_size":151936,"tie_word_embeddings":false})json"},
    {"qwen3-235b-a22b",
     R"json({"model_type":"qwen3_moe","hidden_size":4096,"num_hidden_layers":94,"num_attention_heads":64,"num_key_value_heads":4,"head_dim":128,"intermediate_size":12288,"moe_intermediate_size":1536,"num_experts":128,"num_experts_per_tok":8,"vocab_size":151936,"tie_word_embeddings":false,"decoder_sparse_step":1})json"},
    {"qwen3-30b-a3b",
     R"json({"model_type":"qwen3_moe","hidden_size":2048,"num_hidden_layers":48,"num_attention_heads":32,"num_key_value_heads":4,"head_dim":128,"intermediate_size":6144,"moe_intermediate_size":768,"num_experts":128,"num_experts_per_tok":8,"vocab_size":151936,"tie_word_embeddings":false,"decoder_sparse_step":1})json"},
    {"qwen3-8b",
     R"json({"model_type":"qwen3","hidden_size":4096,"num_hidden_layers":36,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":128,"intermediate_size":12288,"vocab_size":151936,"tie_word_embeddings":false})json"},
    {"qwen3-next-80b-a3b",
     R"json({"model_type":"qwen3_next","hidden_size":2048,"num_hidden_layers":48,"num_attention_heads":16,"num_key_value_heads":2,"head_dim":256,"intermediate_size":5120,"moe_intermediate_size":512,"num_experts":512,"num_experts_per_tok":10,"shared_expert_intermediate_size":512,"vocab_size":151936,"tie_word_embeddings":false,"full_attention_interval":4,"linear_conv_kernel_dim":4,"linear_key_head_dim":128,"linear_num_key_heads":16,"linear_value_head_dim":128,"linear_num_value_heads":32,"decoder_sparse_step":1})json"},
    {"qwen3.5-122b-a10b",
     R"json({"model_type":"qwen3_5_moe","tie_word_embeddings":false,"quantization_config":{"quant_method":"fp8","weight_block_size":[128,128]},"text_config":{"model_type":"qwen3_5_moe_text","hidden_size":3072,"num_hidden_layers":48,"num_attention_heads":32,"num_key_value_heads":2,"head_dim":256,"moe_intermediate_size":1024,"num_experts":256,"num_experts_per_tok":8,"shared_expert_intermediate_size":1024,"vocab_size":248320,"full_attention_interval":4,"linear_conv_kernel_dim":4,"linear_key_head_dim":128,"linear_num_key_heads":16,"linear_value_head_dim":128,"linear_num_value_heads":64}})json"},
    {"qwen3.5-35b-a3b",
     R"json({"model_type":"qwen3_5_moe","tie_word_embeddings":false,"text_config":{"model_type":"qwen3_5_moe_text","hidden_size":2048,"num_hidden_layers":40,"num_attention_heads":16,"num_key_value_heads":2,"head_dim":256,"moe_intermediate_size":512,"num_experts":256,"num_experts_per_tok":8,"shared_expert_intermediate_size":512,"vocab_size":248320,"full_attention_interval":4,"linear_conv_kernel_dim":4,"linear_key_head_dim":128,"linear_num_key_heads":16,"linear_value_head_dim":128,"linear_num_value_heads":32}})json"},
    {"yi-34b",
     R"json({"model_type":"llama","hidden_size":7168,"num_hidden_layers":60,"num_attention_heads":56,"num_key_value_heads":8,"intermediate_size":20480,"vocab_size":64000,"tie_word_embeddings":false})json"},
};
// clang-format on

}  // namespace

std::size_t catalogue_model_count() {
    return sizeof kModels / sizeof kModels[0];
}

const CatalogueModel& catalogue_model(std::size_t index) {
    return kModels[index];
}

std::optional<CatalogueModel> find_catalogue_model(std::string_view name) {
    for (const CatalogueModel& model : kModels) {
        std::string_view candidate(model.name);
        if (candidate.size() == name.size() &&
            std::equal(name.begin(), name.end(), candidate.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            })) {
            return model;
        }
    }
    return std::nullopt;
}

std::string normalise_model_name(std::string_view name) {
    // Only an "org/name" id loses its organisation: a path ("./x/qwen3-8b", "/models/...") that does not exist
    // must stay an error rather than quietly become a catalogue model.
    std::size_t slash = name.find('/');
    if (slash != std::string_view::npos && slash > 0 && name[0] != '.' && name.find('/', slash + 1) == name.npos) {
        name.remove_prefix(slash + 1);
    }
    std::string out;
    for (char c : name) out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::optional<CatalogueModel> match_catalogue_model(std::string_view name) {
    if (auto exact = find_catalogue_model(name)) return exact;
    std::string wanted = normalise_model_name(name);
    for (const CatalogueModel& model : kModels) {
        if (normalise_model_name(model.name) == wanted) return model;
    }
    return std::nullopt;
}

}  // namespace mfusim::config
