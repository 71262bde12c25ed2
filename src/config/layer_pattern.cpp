#include "config/layer_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace mfusim::config {

namespace {

// transformers' DeepseekV4Config layer types of the two compressed kinds (compress_ratios' entries, named).
constexpr const char* kSparseCompressed = "compressed_sparse_attention";
constexpr const char* kDenseCompressed = "heavily_compressed_attention";

[[noreturn]] void refuse(const JsonFields& f, const char* key, const std::string& what) {
    throw Error(Status::unsupported, f.origin() + ": field '" + f.path(key) + "': not modelled: " + what +
                                         "; refusing rather than timing another architecture");
}

// A per-layer list that must have one entry per layer.
const nlohmann::json* layer_list(const JsonFields& f, const char* key, int64_t layers) {
    if (!f.has(key)) return nullptr;
    const nlohmann::json& v = f.object()[key];
    if (!v.is_array()) f.fail(key, "expected a list with one entry per layer");
    if (v.empty()) return nullptr;  // Qwen3-MoE's mlp_only_layers: [] means "none"
    if (static_cast<int64_t>(v.size()) != layers && std::string(key) != "mlp_only_layers") {
        f.fail(key, "has " + std::to_string(v.size()) + " entries for " + std::to_string(layers) + " layers");
    }
    return &v;
}

// The key a block pattern is read from: Nemotron-H's hybrid_override_pattern string, or the newer schema's
// layers_block_type list (Nemotron-3 Ultra), whose entries name the same block kinds.
const char* block_pattern_key(const JsonFields& f) {
    if (f.has("hybrid_override_pattern")) return "hybrid_override_pattern";
    if (f.has("layers_block_type")) return "layers_block_type";
    return nullptr;
}

// The block pattern as hybrid_override_pattern letters; a block kind no model here times is refused by name.
std::string block_pattern(const JsonFields& f) {
    const char* key = block_pattern_key(f);
    if (!key) return "";
    std::string pattern;
    if (std::string(key) == "hybrid_override_pattern") {
        pattern = f.optional_string(key).value_or("");
    } else {
        const nlohmann::json& list = f.object()[key];
        if (!list.is_array()) f.fail(key, "expected a list with one block kind per block");
        for (const auto& entry : list) {
            const std::string kind = entry.is_string() ? entry.get<std::string>() : entry.dump();
            if (kind == "mamba") {
                pattern += 'M';
            } else if (kind == "attention" || kind == "full_attention") {
                pattern += '*';
            } else if (kind == "mlp") {
                pattern += '-';
            } else if (kind == "moe") {
                pattern += 'E';
            } else {
                refuse(f, key, "block kind '" + kind + "' (known: mamba, attention, mlp, moe)");
            }
        }
    }
    for (char c : pattern) {
        if (c != 'M' && c != '*' && c != '-' && c != 'E') {
            refuse(f, key, std::string("block kind '") + c + "' (known: 'M' Mamba2, '*' attention, '-' MLP, 'E' MoE)");
        }
    }
    return pattern;
}

}  // namespace

std::optional<int64_t> block_pattern_length(const JsonFields& f) {
    if (!block_pattern_key(f)) return std::nullopt;
    return static_cast<int64_t>(block_pattern(f).size());
}

// Architectures that replace per-layer blocks wholesale or add kernels of their own: refused by their key.
void refuse_unmodelled_architecture(const JsonFields& f) {
    // Only the block kinds read_block_pattern times; any other is another architecture.
    (void)block_pattern(f);
    if (const nlohmann::json* types = f.has("attn_type_list") ? &f.object()["attn_type_list"] : nullptr) {
        // MiniMax: 1 is softmax attention, 0 lightning (linear) attention.
        if (!types->is_array()) f.fail("attn_type_list", "expected a list");
        for (const auto& t : *types) {
            if (!(t.is_number_integer() && t.get<int64_t>() == 1)) {
                refuse(f, "attn_type_list", "lightning (linear) attention layers (entries other than 1)");
            }
        }
    }
    if (f.has("sliding_window") && f.has("attention_chunk_size")) {
        refuse(f, "attention_chunk_size", "chunked attention together with a sliding window");
    }
    // Compressed attention (read_compressed_attention): its list is checked there; a layer_types list beside it
    // would describe the same layers twice.
    if (f.has("compress_ratios") && f.has("layer_types")) {
        refuse(f, "layer_types", "a layer_types list together with compress_ratios");
    }
    // Kimi Linear's linear_attn_config (Kimi Delta Attention) is read by read_kda_layers, as the only
    // linear-attention layout of its model.
    if (f.has("linear_attn_config")) {
        for (const char* key :
             {"layer_types", "full_attention_interval", "linear_num_value_heads", "hybrid_layer_pattern"}) {
            if (f.has(key)) refuse(f, key, "together with linear_attn_config (two linear-attention layouts)");
        }
    }
    // Gemma-4's small models: K/V computed once and shared by the last layers, per-layer input embeddings.
    if (f.optional_integer("num_kv_shared_layers").value_or(0) > 0) {
        refuse(f, "num_kv_shared_layers", "key/value projections shared across layers");
    }
    if (f.optional_integer("hidden_size_per_layer_input").value_or(0) > 0) {
        refuse(f, "hidden_size_per_layer_input", "per-layer input embeddings");
    }
    // Shared-indexer DSA variants other than a plain period (index_topk_freq) are not read.
    for (const char* key : {"index_topk_pattern", "index_skip_topk_offset"}) {
        if (f.has(key) && !(f.object()[key].is_number_integer() && f.object()[key].get<int64_t>() == 0) &&
            !(f.object()[key].is_string() && f.object()[key].get<std::string>().empty())) {
            refuse(f, key, "a shared-indexer schedule other than every index_topk_freq-th layer");
        }
    }
}

namespace {

// Kimi Delta Attention (Kimi Linear): linear_attn_config lists the KDA layers and the full-attention (MLA) layers by
// 1-based index (vLLM's KimiLinearConfig.is_kda_layer: `(layer_idx + 1) in kda_layers`) and states the KDA head
// geometry (vllm/model_executor/layers/kda.py: num_heads, head_dim for q, k and v alike, short_conv_kernel_size).
// The two lists must cover every layer once. Returns the number of KDA layers.
int64_t read_kda_layers(const JsonFields& f, ModelConfig& m) {
    const nlohmann::json& cfg = f.object()["linear_attn_config"];
    if (!cfg.is_object()) f.fail("linear_attn_config", "expected an object");
    const JsonFields kda(cfg, f.origin(), f.path("linear_attn_config") + ".");
    for (auto it = cfg.begin(); it != cfg.end(); ++it) {
        // gate_lower_bound (Kimi-K3) bounds the decay's formula: element-wise, the same cost.
        static constexpr const char* kKnown[] = {"kda_layers",      "full_attn_layers",       "num_heads",
                                                 "head_dim",        "short_conv_kernel_size", "use_full_rank_gate",
                                                 "gate_lower_bound"};
        if (std::none_of(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return it.key() == k; })) {
            refuse(kda, it.key().c_str(), "a linear_attn_config key no KDA layer here reads");
        }
    }
    std::vector<int> seen(static_cast<std::size_t>(m.num_layers), 0);
    int64_t kda_layers = 0;
    for (const char* key : {"kda_layers", "full_attn_layers"}) {
        if (!kda.has(key) || !cfg[key].is_array()) kda.fail(key, "expected a list of 1-based layer numbers");
        for (const auto& v : cfg[key]) {
            if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > m.num_layers) {
                kda.fail(key,
                         "expected layer numbers from 1 to num_hidden_layers (" + std::to_string(m.num_layers) + ")");
            }
            int& n = seen[static_cast<std::size_t>(v.get<int64_t>() - 1)];
            if (n++ > 0) {
                kda.fail(key, "layer " + std::to_string(v.get<int64_t>()) +
                                  " is listed twice (kda_layers and full_attn_layers list each layer once)");
            }
        }
        if (std::string(key) == "kda_layers") kda_layers = static_cast<int64_t>(cfg[key].size());
    }
    const auto missing = std::find(seen.begin(), seen.end(), 0);
    if (missing != seen.end()) {
        kda.fail("full_attn_layers", "layer " + std::to_string(missing - seen.begin() + 1) +
                                         " is in neither kda_layers nor full_attn_layers");
    }
    auto dimension = [&](const char* key) {
        const int64_t v = kda.integer(key);
        if (v < 1 || v > (int64_t{1} << 16)) kda.fail(key, "must be between 1 and 65536");
        return v;
    };
    m.linear_kind = LinearAttentionKind::kimi_delta;
    m.kda_full_rank_gate = kda.optional_bool("use_full_rank_gate").value_or(false);
    if (kda.has("gate_lower_bound")) (void)kda.number("gate_lower_bound");
    m.linear_num_key_heads = m.linear_num_value_heads = dimension("num_heads");
    m.linear_key_head_dim = m.linear_value_head_dim = dimension("head_dim");
    m.linear_conv_kernel = dimension("short_conv_kernel_size");
    return kda_layers;
}

// Linear-attention layers: Gated DeltaNet from layer_types, else every layer but each full_attention_interval-th;
// Kimi Delta Attention from linear_attn_config.
void read_attention_kinds(const JsonFields& f, ModelConfig& m) {
    const nlohmann::json* types = layer_list(f, "layer_types", m.num_layers);
    int64_t linear = 0, sliding = 0, chunked = 0;
    if (f.has("linear_attn_config")) {
        linear = read_kda_layers(f, m);
    } else if (const nlohmann::json* pattern = types ? nullptr : layer_list(f, "hybrid_layer_pattern", m.num_layers)) {
        // MiMo-V2's hybrid_layer_pattern: one entry per layer, 1 a sliding-window layer, 0 full attention.
        for (const auto& p : *pattern) {
            if (!p.is_number_integer() || (p.get<int64_t>() != 0 && p.get<int64_t>() != 1)) {
                f.fail("hybrid_layer_pattern", "expected 0 (full attention) or 1 (sliding window) per layer");
            }
            sliding += p.get<int64_t>();
        }
        types = pattern;
    } else if (types) {
        for (const auto& t : *types) {
            std::string kind = t.is_string() ? t.get<std::string>() : t.dump();
            if (kind == "linear_attention") {
                ++linear;
            } else if (kind == "sliding_attention" || kind == kSparseCompressed || kind == kDenseCompressed) {
                ++sliding;  // compressed layers slide too (read_compressed_attention)
            } else if (kind == "chunked_attention") {
                ++chunked;
            } else if (kind != "full_attention") {
                refuse(f, "layer_types", "layer kind '" + kind + "'");
            }
        }
    } else if (m.full_attention_interval > 0) {
        linear = m.num_layers - m.num_layers / m.full_attention_interval;
    }
    if (linear > 0 && m.linear_num_value_heads == 0) {
        refuse(f, "layer_types", "linear_attention layers without the Gated DeltaNet keys (linear_num_value_heads...)");
    }
    m.linear_layer_count = linear;

    // MiMo-V2 names it sliding_window_size (vLLM's mimo_v2_flash reads that key).
    const char* window_key = f.has("sliding_window") ? "sliding_window" : "sliding_window_size";
    const int64_t window = f.has(window_key) ? f.integer(window_key) : 0;
    const bool window_enabled = f.optional_bool("use_sliding_window").value_or(true);
    if (window < 0) f.fail(window_key, "must not be negative");
    if (sliding > 0) {
        if (window <= 0) f.fail("sliding_window", "needed by the sliding_attention entries of layer_types");
        m.windowed_layers = sliding;
        m.attention_window = window;
    } else if (!types && window > 0 && window_enabled) {
        if (f.has("max_window_layers")) {
            // Qwen2/3: the layers from max_window_layers on slide, the ones before attend fully.
            int64_t full = f.integer("max_window_layers");
            if (full < 0) f.fail("max_window_layers", "must not be negative");
            m.windowed_layers = full >= m.num_layers ? 0 : m.num_layers - full;
        } else if (f.has("sliding_window_pattern")) {
            // Gemma 3: every pattern-th layer attends fully, the others slide.
            int64_t pattern = f.integer("sliding_window_pattern");
            if (pattern < 1) f.fail("sliding_window_pattern", "must be at least 1");
            m.windowed_layers = m.num_layers - m.num_layers / pattern;
        } else {
            m.windowed_layers = m.num_layers - linear;
            m.warnings.push_back("sliding_window " + std::to_string(window) +
                                 " applied to every attention layer (no layer_types, max_window_layers or "
                                 "sliding_window_pattern says which layers slide)");
        }
        m.attention_window = window;
    }
    if (f.has("attention_chunk_size")) {
        // Llama 4: layers with rotary embeddings attend within chunks of attention_chunk_size tokens, the NoPE
        // layers globally. A query reads at most one chunk of keys: timed as a window of that size (an upper bound).
        const int64_t chunk = f.integer("attention_chunk_size");
        if (chunk < 1) f.fail("attention_chunk_size", "must be at least 1");
        if (chunked == 0) {
            if (const nlohmann::json* rope = layer_list(f, "no_rope_layers", m.num_layers)) {
                for (const auto& r : *rope) chunked += r.is_number_integer() && r.get<int64_t>() != 0 ? 1 : 0;
            } else {
                chunked = m.num_layers - m.num_layers / 4;
                m.warnings.push_back(
                    "attention_chunk_size without no_rope_layers: every 4th layer taken as global "
                    "attention, the others chunked (the Llama 4 default)");
            }
        }
        m.windowed_layers = chunked;
        m.attention_window = chunk;
        m.warnings.push_back("chunked attention (attention_chunk_size " + std::to_string(chunk) +
                             "): timed as a sliding window of that size, an upper bound on the keys read");
    } else if (chunked > 0) {
        f.fail("attention_chunk_size", "needed by the chunked_attention entries of layer_types");
    }
    if (m.windowed_layers > m.num_layers - linear) m.windowed_layers = m.num_layers - linear;
    if (m.windowed_layers == 0) m.attention_window = 0;
}

// A lightning indexer's shape (DeepSeek Sparse Attention, and compressed attention's sparse layers): its heads
// into m, its top-k returned. A missing field is an incomplete config, not another architecture: Error(config)
// naming the field.
int64_t read_indexer(const JsonFields& f, ModelConfig& m) {
    constexpr int64_t kMaxTopk = int64_t{1} << 24, kMaxIndexer = int64_t{1} << 12;
    const int64_t topk = f.integer("index_topk");
    m.index_n_heads = f.integer("index_n_heads");
    m.index_head_dim = f.integer("index_head_dim");
    if (topk < 1 || topk > kMaxTopk) f.fail("index_topk", "must be between 1 and 2^24");
    if (m.index_n_heads < 1 || m.index_n_heads > kMaxIndexer) f.fail("index_n_heads", "must be between 1 and 4096");
    if (m.index_head_dim < 1 || m.index_head_dim > kMaxIndexer) f.fail("index_head_dim", "must be between 1 and 4096");
    return topk;
}

// Compressed attention (DeepSeek-V4): compress_ratios, one entry per layer, 0 for a sliding-window-only layer, else
// the keys pooled into one entry. Which ratio is the sparse kind (an indexer, top-k) and which the dense one follows
// transformers' DeepseekV4Config: compress_rates {compressed_sparse_attention, heavily_compressed_attention}, or the
// legacy compress_rate_csa / compress_rate_hca, default 4 and 128. Any other ratio is refused by name.
// The newer form names each layer's kind in layer_types (sliding_attention, compressed_sparse_attention,
// heavily_compressed_attention) and the ratios in compress_rates; it is read as the same per-layer ratios.
void read_compressed_attention(const JsonFields& f, ModelConfig& m) {
    const nlohmann::json* ratios = layer_list(f, "compress_ratios", m.num_layers);
    const nlohmann::json* types = ratios ? nullptr : layer_list(f, "layer_types", m.num_layers);
    const bool named = types && std::any_of(types->begin(), types->end(), [](const nlohmann::json& t) {
                           return t.is_string() && (t.get<std::string>() == kSparseCompressed ||
                                                    t.get<std::string>() == kDenseCompressed);
                       });
    if (!ratios && !named) return;
    const char* list_key = ratios ? "compress_ratios" : "layer_types";
    CompressedAttention& c = m.compressed;
    c.present = true;
    if (m.attention != AttentionKind::gqa || m.num_kv_heads != 1) {
        refuse(f, list_key, "compressed attention over other than one shared key/value head");
    }
    if (m.linear_layer_count > 0) refuse(f, list_key, "compressed attention together with linear layers");
    constexpr int64_t kMaxRatio = int64_t{1} << 20;
    auto rate = [&](const char* dict_key, const char* legacy, int64_t fallback) {
        if (f.has("compress_rates")) {
            const nlohmann::json& rates = f.object()["compress_rates"];
            if (!rates.is_object()) f.fail("compress_rates", "expected an object of ratios per layer type");
            if (rates.contains(dict_key)) {
                const JsonFields r(rates, f.origin(), f.path("compress_rates") + ".");
                return r.integer(dict_key);
            }
        }
        return f.optional_integer(legacy).value_or(fallback);
    };
    c.sparse_ratio = rate("compressed_sparse_attention", "compress_rate_csa", 4);
    c.dense_ratio = rate("heavily_compressed_attention", "compress_rate_hca", 128);
    if (c.sparse_ratio < 2 || c.sparse_ratio > kMaxRatio || c.dense_ratio < 2 || c.dense_ratio > kMaxRatio ||
        c.sparse_ratio == c.dense_ratio) {
        f.fail(list_key, "the sparse and dense compression rates must differ and lie in [2, 2^20]");
    }
    for (const auto& r : ratios ? *ratios : *types) {
        int64_t v = r.is_number_integer() ? r.get<int64_t>() : -1;
        if (!ratios) {
            const std::string kind = r.is_string() ? r.get<std::string>() : r.dump();
            if (kind == "sliding_attention") v = 0;
            if (kind == kSparseCompressed) v = c.sparse_ratio;
            if (kind == kDenseCompressed) v = c.dense_ratio;
            if (v < 0) refuse(f, list_key, "layer kind '" + kind + "' beside compressed attention layers");
        }
        if (v == 0) {
            ++c.window_only_layers;
        } else if (v == c.sparse_ratio) {
            ++c.sparse_layers;
        } else if (v == c.dense_ratio) {
            ++c.dense_layers;
        } else {
            refuse(f, list_key,
                   "compression ratio " + r.dump() + " (modelled: 0 window only, " + std::to_string(c.sparse_ratio) +
                       " sparse with an indexer, " + std::to_string(c.dense_ratio) + " dense)");
        }
    }
    // Every layer has the sliding-window branch (DeepseekV4Attention: the window cache is the K=V of every layer).
    const int64_t window = f.integer("sliding_window");
    if (window < 1) f.fail("sliding_window", "must be at least 1 (every compressed-attention layer slides)");
    m.attention_window = window;
    m.windowed_layers = m.num_layers;
    m.warnings.erase(std::remove_if(m.warnings.begin(), m.warnings.end(),
                                    [](const std::string& w) { return w.rfind("sliding_window ", 0) == 0; }),
                     m.warnings.end());
    m.q_lora_rank = f.integer("q_lora_rank");
    if (m.q_lora_rank < 1 || m.q_lora_rank > kMaxRatio) f.fail("q_lora_rank", "must be between 1 and 2^20");
    m.qk_rope_head_dim = f.optional_integer("qk_rope_head_dim").value_or(0);
    if (m.qk_rope_head_dim < 0 || m.qk_rope_head_dim > m.head_dim) {
        f.fail("qk_rope_head_dim", "must be between 0 and head_dim");
    }
    // The sparse layers' top-k is kept apart from m.index_topk: these layers are not DSA's (sparse_attention()).
    if (c.sparse_layers > 0) c.index_topk = read_indexer(f, m);
    c.o_groups = f.optional_integer("o_groups").value_or(1);
    c.o_lora_rank = f.optional_integer("o_lora_rank").value_or(0);
    if (c.o_groups < 1 || m.num_heads % c.o_groups != 0) f.fail("o_groups", "must divide num_attention_heads");
    if (c.o_lora_rank < 0 || c.o_lora_rank > kMaxRatio) f.fail("o_lora_rank", "must be between 0 and 2^20");
    c.hc_mult = f.optional_integer("hc_mult").value_or(1);
    if (c.hc_mult < 1 || c.hc_mult > 64) f.fail("hc_mult", "must be between 1 and 64");
    c.hash_moe_layers = f.optional_integer("num_hash_layers").value_or(0);
    if (const nlohmann::json* mlp = layer_list(f, "mlp_layer_types", m.num_layers)) {
        c.hash_moe_layers = std::count(mlp->begin(), mlp->end(), nlohmann::json("hash_moe"));
    }
    if (c.hash_moe_layers < 0 || c.hash_moe_layers > m.num_layers) {
        f.fail("num_hash_layers", "must be between 0 and num_hidden_layers");
    }
    if (c.hash_moe_layers > 0) {
        m.warnings.push_back("num_hash_layers " + std::to_string(c.hash_moe_layers) +
                             ": hash-routed MoE layers timed as routed MoE (the same expert GEMMs; their gate, a "
                             "token-id lookup, is not a GEMM)");
    }
}

// DeepSeek Sparse Attention: the indexer's shape and the keys each query keeps. Only the form every published
// config has is read (an indexer of its own on every MLA layer, no sliding window besides); anything else is
// refused by its key rather than timed as that form.
void read_sparse_attention(const JsonFields& f, ModelConfig& m) {
    if (!f.has("index_topk") || m.compressed.present) return;
    if (m.attention != AttentionKind::mla) {
        refuse(f, "index_topk", "DeepSeek Sparse Attention over non-MLA attention (no kv_lora_rank)");
    }
    if (m.linear_layer_count > 0 || m.windowed_layers > 0) {
        refuse(f, "index_topk", "DeepSeek Sparse Attention together with linear or windowed attention layers");
    }
    m.index_topk = read_indexer(f, m);
    // Shared indexers (GLM-5.2's IndexShare, SGLang's and vLLM's index_topk_freq / use_index_cache): every
    // index_topk_freq-th layer scores with its own indexer, the layers between reuse its top-k, so they hold no
    // indexer weights or key cache and run no scoring. 1: an indexer on every layer.
    const int64_t freq = f.optional_integer("index_topk_freq").value_or(1);
    if (freq < 1 || freq > m.num_layers) f.fail("index_topk_freq", "must be between 1 and num_hidden_layers");
    m.indexer_layers = (m.num_layers + freq - 1) / freq;
    // GLM-5.1 lists the indexer of each layer; "full" (its own indexer) is the only kind seen and modelled.
    if (const nlohmann::json* kinds = layer_list(f, "indexer_types", m.num_layers)) {
        for (const auto& k : *kinds) {
            std::string kind = k.is_string() ? k.get<std::string>() : k.dump();
            if (kind != "full") refuse(f, "indexer_types", "indexer kind '" + kind + "'");
        }
        if (freq != 1) refuse(f, "indexer_types", "a per-layer indexer list together with index_topk_freq");
    }
}

// Block-sparse attention (MiniMax-M3's sparse_attention_config; config::BlockSparseAttention), read as vLLM's
// vllm/models/minimax_m3/ model reads it (MiniMaxM3DecoderLayer: a layer is sparse where sparse_attention_freq[i] is
// not 0; MiniMaxM3SparseAttention, MiniMaxM3Indexer) and as the public port pinned against it checks it (load_args:
// score type "max" only, index heads equal to the KV heads, a score-only indexer). Every key of the object is known
// or the object is refused naming it; a variant the kernels do not run is refused naming its key.
void read_block_sparse_attention(const JsonFields& f, ModelConfig& m) {
    if (!f.has("sparse_attention_config")) return;
    const nlohmann::json& cfg = f.object()["sparse_attention_config"];
    if (!cfg.is_object()) f.fail("sparse_attention_config", "expected an object");
    const JsonFields sa(cfg, f.origin(), f.path("sparse_attention_config") + ".");
    static constexpr const char* kKnown[] = {
        "use_sparse_attention", "sparse_attention_freq",     "sparse_num_index_heads", "sparse_index_dim",
        "sparse_block_size",    "sparse_topk_blocks",        "sparse_local_block",     "sparse_init_block",
        "sparse_score_type",    "sparse_disable_index_value"};
    for (auto it = cfg.begin(); it != cfg.end(); ++it) {
        if (std::none_of(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return it.key() == k; })) {
            refuse(sa, it.key().c_str(), "a sparse_attention_config key no block-sparse layer here reads");
        }
    }
    // The dense ablation: the same checkpoint served with every layer dense.
    if (!sa.optional_bool("use_sparse_attention").value_or(true)) return;
    if (m.attention != AttentionKind::gqa) refuse(f, "sparse_attention_config", "block-sparse attention over MLA");
    if (m.linear_layer_count > 0 || m.windowed_layers > 0 || f.has("index_topk") || block_pattern_key(f)) {
        refuse(f, "sparse_attention_config",
               "block-sparse attention together with linear, windowed, DSA or block-pattern layers");
    }
    const nlohmann::json* freq = layer_list(sa, "sparse_attention_freq", m.num_layers);
    if (!freq) sa.fail("sparse_attention_freq", "expected a list with one entry per layer (1 sparse, 0 dense)");
    const nlohmann::json* value = layer_list(sa, "sparse_disable_index_value", m.num_layers);
    int64_t layers = 0;
    for (std::size_t i = 0; i < freq->size(); ++i) {
        const nlohmann::json& e = (*freq)[i];
        const bool sparse = e.is_boolean() ? e.get<bool>() : (e.is_number_integer() && e.get<int64_t>() != 0);
        if (!e.is_boolean() && !e.is_number_integer()) {
            sa.fail("sparse_attention_freq", "expected 0 (dense) or 1 (block-sparse) per layer");
        }
        if (!sparse) continue;
        ++layers;
        // An index value/output branch (sparse_disable_index_value 0 on a sparse layer) is not in any checkpoint's
        // kernels: the reference backend asserts a score-only indexer.
        if (value) {
            const nlohmann::json& v = (*value)[i];
            if (!(v.is_boolean() ? v.get<bool>() : (v.is_number_integer() && v.get<int64_t>() != 0))) {
                refuse(sa, "sparse_disable_index_value", "an index value/output projection on a sparse layer");
            }
        }
    }
    if (layers == 0) return;
    if (sa.optional_string("sparse_score_type").value_or("max") != "max") {
        refuse(sa, "sparse_score_type", "a block score other than the maximum over the block's keys");
    }
    auto dimension = [&](const char* key, int64_t max) {
        const int64_t v = sa.integer(key);
        if (v < 1 || v > max) sa.fail(key, "must be between 1 and " + std::to_string(max));
        return v;
    };
    BlockSparseAttention& b = m.block_sparse;
    b.index_heads = dimension("sparse_num_index_heads", 4096);
    b.index_dim = dimension("sparse_index_dim", 4096);
    b.block_size = dimension("sparse_block_size", 1 << 16);
    b.topk_blocks = dimension("sparse_topk_blocks", 1 << 16);
    // Each index head selects for one KV head's query group (MiniMaxM3QKVParallelLinearWithIndexer asserts it).
    if (b.index_heads != m.num_kv_heads) {
        refuse(sa, "sparse_num_index_heads",
               "index heads other than one per KV head (" + std::to_string(m.num_kv_heads) + ")");
    }
    // The forced blocks (the newest local ones, the first init ones) are among the top-k, not added to it.
    const int64_t local = sa.optional_integer("sparse_local_block").value_or(0);
    const int64_t init = sa.optional_integer("sparse_init_block").value_or(0);
    if (local < 0 || init < 0 || local + init > b.topk_blocks) {
        sa.fail(local < 0 || local + init > b.topk_blocks ? "sparse_local_block" : "sparse_init_block",
                "the forced blocks (sparse_local_block + sparse_init_block) must be between 0 and sparse_topk_blocks");
    }
    b.layers = layers;
    m.warnings.push_back("block-sparse attention on " + std::to_string(layers) + " of " + std::to_string(m.num_layers) +
                         " layers: each query reads at most " + std::to_string(b.topk_blocks) + " blocks of " +
                         std::to_string(b.block_size) + " keys; the indexer (" + std::to_string(b.index_heads) +
                         " heads of " + std::to_string(b.index_dim) +
                         ", one shared bf16 key) scores the whole context");
}

// Which layers' FFN is MoE: the first DeepSeek first_k_dense_replace layers are dense, then every moe_layer_freq-th;
// Qwen's decoder_sparse_step and mlp_only_layers, Llama 4's interleave_moe_layer_step, GLM's mlp_layer_types.
void read_moe_layers(const JsonFields& f, ModelConfig& m) {
    if (!m.is_moe()) return;
    const int64_t n = m.num_layers;
    std::vector<bool> moe(static_cast<std::size_t>(n), true);
    auto positive = [&](const char* key) {
        int64_t v = f.integer(key);
        if (v < 1) f.fail(key, "must be at least 1");
        return v;
    };
    for (int64_t i = 0; i < m.first_dense_layers && i < n; ++i) moe[static_cast<std::size_t>(i)] = false;
    if (const nlohmann::json* flags = f.has("moe_layer_freq") && f.object()["moe_layer_freq"].is_array()
                                          ? layer_list(f, "moe_layer_freq", n)
                                          : nullptr) {
        // A per-layer list (MiMo-V2, MiniMax-M3): 1 an MoE layer, 0 a dense one.
        for (std::size_t i = 0; i < flags->size(); ++i) {
            const auto& v = (*flags)[i];
            if (!v.is_number_integer() || (v.get<int64_t>() != 0 && v.get<int64_t>() != 1)) {
                f.fail("moe_layer_freq", "expected 0 (dense) or 1 (MoE) per layer");
            }
            if (v.get<int64_t>() == 0) moe[i] = false;
        }
    } else if (f.has("moe_layer_freq")) {
        int64_t freq = positive("moe_layer_freq");
        for (int64_t i = 0; i < n; ++i) {
            if (i % freq != 0) moe[static_cast<std::size_t>(i)] = false;
        }
    }
    for (const char* key : {"decoder_sparse_step", "interleave_moe_layer_step"}) {
        if (!f.has(key)) continue;
        int64_t step = positive(key);
        for (int64_t i = 0; i < n; ++i) {
            if ((i + 1) % step != 0) moe[static_cast<std::size_t>(i)] = false;
        }
    }
    if (const nlohmann::json* dense = layer_list(f, "mlp_only_layers", n)) {
        for (const auto& d : *dense) {
            if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() >= n) {
                f.fail("mlp_only_layers", "expected layer indices below num_hidden_layers");
            }
            moe[static_cast<std::size_t>(d.get<int64_t>())] = false;
        }
    }
    if (f.has("moe_layers_enum")) {
        // Step-3.5 / 3.7: the MoE layers' indices, as "3,4,...,44" or a list; the others are dense (TensorRT-LLM
        // modeling_step3p7.py _is_moe_layer). Indices past the decoder name the checkpoint's MTP layers (their
        // per-layer entries follow the decoder's), which the drafter plans, not this one.
        const nlohmann::json& v = f.object()["moe_layers_enum"];
        std::vector<int64_t> indices;
        if (v.is_string()) {
            const std::string text = v.get<std::string>();
            std::size_t start = 0;
            while (start <= text.size()) {
                const std::size_t comma = std::min(text.find(',', start), text.size());
                const std::string item = text.substr(start, comma - start);
                if (item.find_first_not_of(" \t") != std::string::npos) {
                    std::size_t used = 0;
                    int64_t index = -1;
                    try {
                        index = std::stoll(item, &used);
                    } catch (const std::exception&) {
                        used = 0;
                    }
                    if (used == 0 || item.find_first_not_of(" \t", used) != std::string::npos) {
                        f.fail("moe_layers_enum", "expected comma-separated layer indices, found '" + item + "'");
                    }
                    indices.push_back(index);
                }
                start = comma + 1;
            }
        } else if (v.is_array()) {
            for (const auto& e : v) {
                if (!e.is_number_integer()) f.fail("moe_layers_enum", "expected integer layer indices");
                indices.push_back(e.get<int64_t>());
            }
        } else {
            f.fail("moe_layers_enum", "expected a string of comma-separated layer indices or a list");
        }
        std::vector<bool> listed(static_cast<std::size_t>(n), false);
        for (int64_t i : indices) {
            if (i < 0) f.fail("moe_layers_enum", "negative layer index " + std::to_string(i));
            if (i < n) listed[static_cast<std::size_t>(i)] = true;
        }
        for (int64_t i = 0; i < n; ++i) {
            if (!listed[static_cast<std::size_t>(i)]) moe[static_cast<std::size_t>(i)] = false;
        }
    }
    if (const nlohmann::json* types = layer_list(f, "mlp_layer_types", n)) {
        for (std::size_t i = 0; i < types->size(); ++i) {
            std::string t = (*types)[i].is_string() ? (*types)[i].get<std::string>() : (*types)[i].dump();
            // DeepSeek-V4 names its MoE layers "moe" and "hash_moe" (experts picked by a token-id hash).
            const bool routed = t == "sparse" || t == "moe" || t == "hash_moe";
            if (t != "dense" && !routed) f.fail("mlp_layer_types", "unknown entry '" + t + "'");
            moe[i] = routed;
        }
    }
    int64_t count = 0;
    for (bool b : moe) count += b ? 1 : 0;
    m.moe_layer_count = count;
    if (count < n && m.intermediate_size == 0) {
        f.fail("intermediate_size", "needed for the " + std::to_string(n - count) + " dense layers of this MoE model");
    }
}

// Nemotron-H's hybrid_override_pattern: one character per block, and a block holds ONE of a Mamba2 mixer ('M'),
// softmax attention ('*'), a dense MLP ('-') or an MoE ('E'), so the counts of each kind come from the pattern
// rather than from num_hidden_layers (which counts blocks and must equal its length).
void read_block_pattern(const JsonFields& f, ModelConfig& m) {
    const char* key = block_pattern_key(f);
    if (!key) return;
    const std::string pattern = block_pattern(f);
    if (static_cast<int64_t>(pattern.size()) != m.num_layers) {
        f.fail("num_hidden_layers", "is " + std::to_string(m.num_layers) + " but " + key + " has " +
                                        std::to_string(pattern.size()) + " blocks");
    }
    int64_t mamba = 0, attention = 0, mlp = 0, moe = 0;
    for (char c : pattern) {
        mamba += c == 'M' ? 1 : 0;
        attention += c == '*' ? 1 : 0;
        mlp += c == '-' ? 1 : 0;
        moe += c == 'E' ? 1 : 0;
    }
    // The other per-layer keys describe decoder layers, not blocks: together with a pattern they are ambiguous.
    if (m.linear_layer_count > 0 || m.windowed_layers > 0 || m.sparse_attention()) {
        refuse(f, key, "a block pattern together with linear, windowed or sparse attention layers");
    }
    m.ffn_only_layers = mlp + moe;
    m.mixer_only_layers = mamba + attention;
    if (moe > 0 && !m.is_moe()) f.fail("n_routed_experts", std::string("needed by the MoE blocks of ") + key);
    m.moe_layer_count = moe;
    if (mlp > 0 && m.intermediate_size == 0) {
        f.fail("intermediate_size", std::string("needed by the MLP blocks of ") + key);
    }
    m.mamba_layer_count = mamba;
    if (mamba == 0) return;
    auto dimension = [&](const char* name) {
        const int64_t v = f.integer(name);
        if (v < 1 || v > (int64_t{1} << 20)) f.fail(name, "must be between 1 and 2^20");
        return v;
    };
    m.mamba_head_dim = dimension("mamba_head_dim");
    if (f.has("mamba_num_heads")) {
        m.mamba_num_heads = dimension("mamba_num_heads");
    } else {
        // Mamba2's d_inner is expand x hidden_size when the head count is not given.
        const int64_t inner = dimension("expand") * m.hidden_size;
        if (inner % m.mamba_head_dim != 0) f.fail("mamba_head_dim", "does not divide expand x hidden_size");
        m.mamba_num_heads = inner / m.mamba_head_dim;
    }
    m.mamba_state_size = dimension("ssm_state_size");
    m.mamba_groups = dimension("n_groups");
    if (m.mamba_num_heads % m.mamba_groups != 0) {
        f.fail("n_groups", "does not divide mamba_num_heads (" + std::to_string(m.mamba_num_heads) + ")");
    }
    m.mamba_conv_kernel = dimension("conv_kernel");
    // NemotronHConfig's default chunk; it only sets the intra-chunk share of the prefill FLOPs.
    m.mamba_chunk_size = f.has("chunk_size") ? dimension("chunk_size") : 128;
}

// Keys of a block_configs entry that no branch below reads are another architecture's: refused by their path.
void refuse_unknown_keys(const JsonFields& x, std::initializer_list<const char*> known) {
    for (auto it = x.object().begin(); it != x.object().end(); ++it) {
        const bool listed = std::any_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; });
        if (!listed) refuse(x, it.key().c_str(), "unknown key of a block_configs entry");
    }
}

// A block_configs sub-object ("attention", "ffn"): required, and an object.
JsonFields block_part(const JsonFields& block, const char* key) {
    if (!block.object().contains(key) || !block.object()[key].is_object()) block.fail(key, "expected an object");
    return JsonFields(block.object()[key], block.origin(), block.path(key) + ".");
}

// The MLP width of a DeciLM block: its intermediate_size, or from ffn_mult as the DeciLM code derives it
// (`_ffn_mult_to_intermediate_size` and `_find_multiple`, marked "DeciLM-specific code" and carried unchanged into
// vLLM's model_executor/models/nemotron_nas.py and llama.cpp's DeciLM converter): int(2 x ffn_mult x hidden_size / 3),
// truncated, then rounded up to a multiple of 256. E.g. ffn_mult 5.25 at hidden 8192 gives 28672, Llama-3.3-70B's.
int64_t block_ffn_width(const JsonFields& ffn, int64_t hidden) {
    constexpr int64_t kMaxWidth = int64_t{1} << 20;
    int64_t width = 0;
    if (ffn.has("intermediate_size")) {
        width = ffn.integer("intermediate_size");
    } else {
        const double mult = ffn.number("ffn_mult");
        const double exact = 2.0 * mult * static_cast<double>(hidden) / 3.0;
        if (!(exact >= 1 && exact <= static_cast<double>(kMaxWidth))) {
            ffn.fail("ffn_mult", "gives an MLP width outside [1, 2^20] at hidden_size " + std::to_string(hidden));
        }
        width = static_cast<int64_t>(std::floor(exact));
        if (width % 256 != 0) width += 256 - width % 256;
    }
    if (width < 1 || width > kMaxWidth) {
        ffn.fail(ffn.has("intermediate_size") ? "intermediate_size" : "ffn_mult",
                 "gives an MLP width of " + std::to_string(width) + ", outside [1, 2^20]");
    }
    return width;
}

// DeciLM / Llama-Nemotron NAS heterogeneous blocks: one {attention, ffn} entry per layer. A layer's attention may be
// removed (no_op: an FFN-only layer) and its KV heads set by n_heads_in_group; its FFN may be removed (a mixer-only
// layer) or sized by ffn_mult. Mapped onto the block-pattern counts (ffn_only_layers, mixer_only_layers) and the
// dense-MLP width groups; attention replaced by a linear layer, windows, sink tokens, sparsified blocks, differing
// KV head counts and unknown keys are refused by their path (vLLM's nemotron_nas builds none of these variants).
void read_block_configs(const JsonFields& f, ModelConfig& m) {
    if (!f.has("block_configs")) return;
    const nlohmann::json* blocks = layer_list(f, "block_configs", m.num_layers);
    if (!blocks) f.fail("block_configs", "expected one entry per layer");
    // The other per-layer descriptions would have to be merged with the blocks: not modelled.
    for (const char* key : {"hybrid_override_pattern", "layers_block_type", "layer_types", "full_attention_interval",
                            "sliding_window", "attention_chunk_size", "kv_lora_rank", "index_topk"}) {
        if (f.has(key)) refuse(f, key, "together with block_configs (heterogeneous blocks)");
    }
    if (m.is_moe()) refuse(f, "block_configs", "heterogeneous blocks in a mixture-of-experts model");
    int64_t ffn_only = 0, mixer_only = 0, kv_heads = 0;
    std::vector<DenseFfnGroup> widths;
    for (std::size_t i = 0; i < blocks->size(); ++i) {
        const std::string at = "block_configs[" + std::to_string(i) + "]";
        const nlohmann::json& entry = (*blocks)[i];
        if (!entry.is_object()) f.fail(at.c_str(), "expected an object with attention and ffn");
        const JsonFields block(entry, f.origin(), f.path(at.c_str()) + ".");
        refuse_unknown_keys(block, {"attention", "ffn"});
        const JsonFields attn = block_part(block, "attention");
        const JsonFields ffn = block_part(block, "ffn");
        refuse_unknown_keys(
            attn, {"no_op", "n_heads_in_group", "replace_with_linear", "window_length", "num_sink_tokens", "sparsify",
                   "unshifted_sink", "use_prefill_window_in_sink_attention"});
        refuse_unknown_keys(ffn, {"no_op", "ffn_mult", "intermediate_size", "replace_with_linear", "sparsify"});
        const bool no_attention = attn.optional_bool("no_op").value_or(false);
        const bool no_ffn = ffn.optional_bool("no_op").value_or(false);
        if (no_attention && no_ffn) refuse(f, at.c_str(), "a block with neither attention nor FFN");
        if (no_attention) {
            ++ffn_only;
        } else {
            if (attn.optional_bool("replace_with_linear").value_or(false)) {
                refuse(attn, "replace_with_linear", "attention replaced by a hidden x hidden linear layer");
            }
            for (const char* key : {"window_length", "num_sink_tokens", "sparsify"}) {
                if (attn.has(key)) refuse(attn, key, "windowed, sink-token or sparsified attention blocks");
            }
            for (const char* key : {"unshifted_sink", "use_prefill_window_in_sink_attention"}) {
                if (attn.optional_bool(key).value_or(false)) refuse(attn, key, "sink-token attention variants");
            }
            const int64_t group = attn.integer("n_heads_in_group");
            if (group < 1 || group > m.num_heads || m.num_heads % group != 0) {
                attn.fail("n_heads_in_group", "must divide num_attention_heads (" + std::to_string(m.num_heads) + ")");
            }
            const int64_t kv = m.num_heads / group;
            if (kv_heads == 0) {
                kv_heads = kv;
            } else if (kv != kv_heads) {
                refuse(attn, "n_heads_in_group",
                       "attention layers with different KV head counts (" + std::to_string(kv) + " here, " +
                           std::to_string(kv_heads) + " in an earlier layer)");
            }
        }
        if (no_ffn) {
            ++mixer_only;
            continue;
        }
        if (ffn.optional_bool("replace_with_linear").value_or(false)) {
            refuse(ffn, "replace_with_linear", "an FFN replaced by a hidden x hidden linear layer");
        }
        if (ffn.has("sparsify")) refuse(ffn, "sparsify", "sparsified FFN blocks");
        const int64_t width = block_ffn_width(ffn, m.hidden_size);
        auto same = std::find_if(widths.begin(), widths.end(),
                                 [&](const DenseFfnGroup& g) { return g.intermediate_size == width; });
        if (same == widths.end()) {
            widths.push_back({width, 1});
        } else {
            ++same->layers;
        }
    }
    m.ffn_only_layers = ffn_only;
    m.mixer_only_layers = mixer_only;
    m.dense_ffn_widths = std::move(widths);
    if (kv_heads > 0) m.num_kv_heads = kv_heads;
    // A uniform width is the ordinary case, stated by intermediate_size.
    if (m.dense_ffn_widths.size() == 1) m.intermediate_size = m.dense_ffn_widths.front().intermediate_size;
}

}  // namespace

void read_layer_pattern(const JsonFields& f, ModelConfig& m) {
    read_attention_kinds(f, m);
    read_compressed_attention(f, m);
    read_sparse_attention(f, m);
    read_block_sparse_attention(f, m);
    read_moe_layers(f, m);
    read_block_pattern(f, m);
    read_block_configs(f, m);
    // Squared-ReLU MLPs (Nemotron) have an up and a down matrix; SiLU/GELU MLPs of decoder LLMs are gated (three).
    for (const char* key : {"mlp_hidden_act", "hidden_act"}) {
        if (auto act = f.optional_string(key)) {
            if (*act == "relu2") m.gated_mlp = false;
            break;
        }
    }
    // Learned per-head sink logits (gpt-oss) add one term to each softmax: no measurable time.
    if (f.has("attention_sinks") || m.model_type == "gpt_oss") {
        m.attention_sinks = true;
        m.warnings.push_back("attention sinks: treated as costless (one extra logit per head in the softmax)");
    }
    if (auto mtp = f.optional_integer("num_nextn_predict_layers"); mtp && *mtp > 0) {
        m.mtp_layers = *mtp;
        m.warnings.push_back("num_nextn_predict_layers " + std::to_string(*mtp) +
                             ": multi-token-prediction layers are timed only as a drafter (--speculative mtp)");
    }
}

}  // namespace mfusim::config
