#include "config/layer_pattern.hpp"

#include <string>
#include <vector>

#include "common/error.hpp"

namespace mfusim::config {

namespace {

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

// Architectures that replace per-layer blocks wholesale or add kernels of their own: refused by their key.
}  // namespace

void refuse_unmodelled_architecture(const JsonFields& f) {
    if (f.has("hybrid_override_pattern")) {
        // Only the block kinds read_block_pattern times; any other is another architecture.
        std::string pattern = f.optional_string("hybrid_override_pattern").value_or("");
        for (char c : pattern) {
            if (c != 'M' && c != '*' && c != '-' && c != 'E') {
                refuse(f, "hybrid_override_pattern",
                       std::string("block kind '") + c + "' (known: 'M' Mamba2, '*' attention, '-' MLP, 'E' MoE)");
            }
        }
    }
    if (f.has("block_configs")) {
        refuse(f, "block_configs", "heterogeneous per-layer blocks (attention removed or resized, FFN multipliers)");
    }
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
}

namespace {

// Linear-attention (Gated DeltaNet) layers: from layer_types, else every layer but each full_attention_interval-th.
void read_attention_kinds(const JsonFields& f, ModelConfig& m) {
    const nlohmann::json* types = layer_list(f, "layer_types", m.num_layers);
    int64_t linear = 0, sliding = 0, chunked = 0;
    if (types) {
        for (const auto& t : *types) {
            std::string kind = t.is_string() ? t.get<std::string>() : t.dump();
            if (kind == "linear_attention") {
                ++linear;
            } else if (kind == "sliding_attention") {
                ++sliding;
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

    const int64_t window = f.has("sliding_window") ? f.integer("sliding_window") : 0;
    const bool window_enabled = f.optional_bool("use_sliding_window").value_or(true);
    if (window < 0) f.fail("sliding_window", "must not be negative");
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

// DeepSeek Sparse Attention: the indexer's shape and the keys each query keeps. Only the form every published
// config has is read (an indexer of its own on every MLA layer, no sliding window besides); anything else is
// refused by its key rather than timed as that form.
void read_sparse_attention(const JsonFields& f, ModelConfig& m) {
    if (!f.has("index_topk")) return;
    if (m.attention != AttentionKind::mla) {
        refuse(f, "index_topk", "DeepSeek Sparse Attention over non-MLA attention (no kv_lora_rank)");
    }
    if (m.linear_layer_count > 0 || m.windowed_layers > 0) {
        refuse(f, "index_topk", "DeepSeek Sparse Attention together with linear or windowed attention layers");
    }
    // A missing indexer shape is an incomplete config, not another architecture: Error(config) naming the field.
    m.index_topk = f.integer("index_topk");
    m.index_n_heads = f.integer("index_n_heads");
    m.index_head_dim = f.integer("index_head_dim");
    constexpr int64_t kMaxTopk = int64_t{1} << 24, kMaxIndexer = int64_t{1} << 12;
    if (m.index_topk < 1 || m.index_topk > kMaxTopk) f.fail("index_topk", "must be between 1 and 2^24");
    if (m.index_n_heads < 1 || m.index_n_heads > kMaxIndexer) f.fail("index_n_heads", "must be between 1 and 4096");
    if (m.index_head_dim < 1 || m.index_head_dim > kMaxIndexer) f.fail("index_head_dim", "must be between 1 and 4096");
    // GLM-5.1 lists the indexer of each layer; "full" (its own indexer) is the only kind seen and modelled.
    if (const nlohmann::json* kinds = layer_list(f, "indexer_types", m.num_layers)) {
        for (const auto& k : *kinds) {
            std::string kind = k.is_string() ? k.get<std::string>() : k.dump();
            if (kind != "full") refuse(f, "indexer_types", "indexer kind '" + kind + "'");
        }
    }
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
    if (f.has("moe_layer_freq")) {
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
    if (const nlohmann::json* types = layer_list(f, "mlp_layer_types", n)) {
        for (std::size_t i = 0; i < types->size(); ++i) {
            std::string t = (*types)[i].is_string() ? (*types)[i].get<std::string>() : (*types)[i].dump();
            if (t != "dense" && t != "sparse") f.fail("mlp_layer_types", "unknown entry '" + t + "'");
            moe[i] = t == "sparse";
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
    if (!f.has("hybrid_override_pattern")) return;
    const std::string pattern = f.optional_string("hybrid_override_pattern").value_or("");
    if (static_cast<int64_t>(pattern.size()) != m.num_layers) {
        f.fail("num_hidden_layers", "is " + std::to_string(m.num_layers) + " but hybrid_override_pattern has " +
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
        refuse(f, "hybrid_override_pattern",
               "a block pattern together with linear, windowed or sparse attention layers");
    }
    m.ffn_only_layers = mlp + moe;
    m.mixer_only_layers = mamba + attention;
    if (moe > 0 && !m.is_moe()) f.fail("n_routed_experts", "needed by the 'E' (MoE) blocks of hybrid_override_pattern");
    m.moe_layer_count = moe;
    if (mlp > 0 && m.intermediate_size == 0) {
        f.fail("intermediate_size", "needed by the '-' (MLP) blocks of hybrid_override_pattern");
    }
    m.mamba_layer_count = mamba;
    if (mamba == 0) return;
    auto dimension = [&](const char* key) {
        const int64_t v = f.integer(key);
        if (v < 1 || v > (int64_t{1} << 20)) f.fail(key, "must be between 1 and 2^20");
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

}  // namespace

void read_layer_pattern(const JsonFields& f, ModelConfig& m) {
    read_attention_kinds(f, m);
    read_sparse_attention(f, m);
    read_moe_layers(f, m);
    read_block_pattern(f, m);
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
        m.warnings.push_back("num_nextn_predict_layers " + std::to_string(*mtp) +
                             ": multi-token-prediction layers are not timed (speculative decoding is not modelled)");
    }
}

}  // namespace mfusim::config
