// Block-sparse attention (issue #27, MiniMax-M3's sparse_attention_config): a score-only lightning indexer picks each
// query's top-k blocks of keys; the layer's attention reads only those. Pinned on the fixture reconstructed from the
// public configs (tests/fixtures/arch2026/minimax_m3.json, provenance in its README.md): the parameter count against
// the card, the KV bytes per token of each layer kind, and the cost against context of each kind.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "common/error.hpp"
#include "common/json.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/model_params.hpp"
#include "roofline/roofline_model.hpp"
#include "support/reference.hpp"
#include "support/refusal.hpp"
#include "support/roofline_steps.hpp"

namespace mfusim {
namespace {

using testing::decodes;
using testing::step_detail;

nlohmann::json minimax_m3() {
    return nlohmann::json::parse(testing::fixture_text("arch2026/minimax_m3.json"));
}
nlohmann::json& sparse_config(nlohmann::json& j) {
    return j["text_config"]["sparse_attention_config"];
}
// The dense ablation: the same checkpoint with every layer reading its whole context.
std::string dense_ablation() {
    nlohmann::json j = minimax_m3();
    sparse_config(j)["use_sparse_attention"] = false;
    return j.dump();
}
// Every layer sparse (the first three too): its attention past top-k x block keys is the indexer's growth alone.
nlohmann::json all_sparse() {
    nlohmann::json j = minimax_m3();
    for (auto& f : sparse_config(j)["sparse_attention_freq"]) f = 1;
    for (auto& f : sparse_config(j)["sparse_disable_index_value"]) f = 1;
    return j;
}

config::ModelConfig parse(const std::string& json) {
    return config::parse_model_config(config::resolve_model_source(json));
}

roofline::RooflineModel make(const std::string& json, int64_t tp, bool fp8_kv = false) {
    query::Deployment d;
    d.tensor_parallel = tp;
    d.fp8_kv = fp8_kv;
    return roofline::RooflineModel(parse(json), gpu::resolve_gpu("H100"), nullptr, d);
}

double decode_attention(const std::string& json, int64_t context) {
    return step_detail(make(json, 4), decodes(32, context)).ops[MFUSIM_OP_ATTN_DECODE].time_us;
}

void expect_refused(const std::string& json, const char* key) {
    testing::expect_refused_naming([&] { parse(json); }, key);
}

// The card: 428B total, 23B active (the text tower; no vision_config in the fixture). The active count here leaves
// out the input embedding and the LM head, as the DeepSeek-V4 figures do.
TEST(BlockSparseAttention, ParametersMatchTheCard) {
    const config::ModelConfig m = parse(minimax_m3().dump());
    const config::BlockSparseAttention& b = m.block_sparse;
    EXPECT_EQ(b.layers, 57);
    EXPECT_EQ(b.index_heads, 4);
    EXPECT_EQ(b.index_dim, 128);
    EXPECT_EQ(b.keys(), 16 * 128);
    EXPECT_EQ(m.moe_layers(), 57);
    EXPECT_EQ(m.intermediate_size, 12288);  // dense_intermediate_size, not the experts' intermediate_size
    EXPECT_EQ(m.moe_intermediate_size, 3072);
    EXPECT_EQ(m.num_shared_experts, 1);
    EXPECT_EQ(m.shared_expert_intermediate_size, 3072);
    const roofline::ModelParams p = roofline::model_params(m);
    EXPECT_LT(std::fabs(p.total / 428e9 - 1.0), 0.03) << p.total / 1e9;
    const double embeddings = 2.0 * 200064 * 6144;
    EXPECT_LT(std::fabs((p.active - embeddings) / 23e9 - 1.0), 0.03) << (p.active - embeddings) / 1e9;
    // What the indexer adds, from the architecture: index_q_proj (6144 -> 4 x 128) and the one shared
    // index_k_proj (6144 -> 128) on every sparse layer, nothing on the dense ones.
    const roofline::ModelParams dense = roofline::model_params(parse(dense_ablation()));
    EXPECT_EQ(parse(dense_ablation()).block_sparse.layers, 0);
    EXPECT_DOUBLE_EQ(p.total - dense.total, 57.0 * 6144 * (4 * 128 + 128));
    EXPECT_DOUBLE_EQ(p.active - dense.active, 57.0 * 6144 * (4 * 128 + 128));
}

// KV bytes per token: every layer's K and V (4 KV heads of 128, one replica per rank beyond 4 ranks), plus each sparse
// layer's index key: 128 bf16 values, one shared head, replicated on every rank, bf16 whatever the KV dtype.
TEST(BlockSparseAttention, KvBytesPerLayerKind) {
    const std::string json = minimax_m3().dump();
    const double index = 57 * 128 * 2.0;
    EXPECT_DOUBLE_EQ(make(json, 1).memory().kv_bytes_per_token, 60 * 4 * 256 * 2.0 + index);
    EXPECT_DOUBLE_EQ(make(json, 4).memory().kv_bytes_per_token, 60 * 1 * 256 * 2.0 + index);
    EXPECT_DOUBLE_EQ(make(json, 8).memory().kv_bytes_per_token, 60 * 1 * 256 * 2.0 + index);
    EXPECT_DOUBLE_EQ(make(json, 4, true).memory().kv_bytes_per_token, 60 * 1 * 256 * 1.0 + index);
    // Every sparse layer keeps every token (its indexer may pick any block): nothing is held as a window.
    EXPECT_DOUBLE_EQ(make(json, 4).memory().windowed_kv_bytes_per_token, 0.0);
    EXPECT_DOUBLE_EQ(make(dense_ablation(), 4).memory().kv_bytes_per_token, 60 * 1 * 256 * 2.0);
}

// Decode attention against context (32 decodes, TP 4): a sparse layer reads at most top-k x block keys, so two top-k
// differ by the same time at 32k and 128k and not at all below both (1k); past them only its indexer grows, linearly
// in the context and in the index key's width; the dense layers grow with the context.
TEST(BlockSparseAttention, DecodeCostIsFlatPastTheTopkApartFromTheIndexer) {
    const std::string m3 = minimax_m3().dump();
    nlohmann::json wide = minimax_m3();
    sparse_config(wide)["sparse_topk_blocks"] = 32;
    const double d32k = decode_attention(wide.dump(), 32768) - decode_attention(m3, 32768);
    const double d128k = decode_attention(wide.dump(), 131072) - decode_attention(m3, 131072);
    EXPECT_GT(d32k, 0);
    EXPECT_NEAR(d128k, d32k, 1e-6 * d32k);
    EXPECT_NEAR(decode_attention(wide.dump(), 1024), decode_attention(m3, 1024), 1e-9 * decode_attention(m3, 1024));

    const std::string sparse = all_sparse().dump();
    auto growth = [&](const std::string& json, int64_t from, int64_t to) {
        return decode_attention(json, to) - decode_attention(json, from);
    };
    const double g = growth(sparse, 32768, 131072);
    EXPECT_GT(g, 0);
    EXPECT_NEAR(g, 3.0 * growth(sparse, 32768, 65536), 1e-6 * g);  // linear in the context
    nlohmann::json wide_index = all_sparse();
    sparse_config(wide_index)["sparse_index_dim"] = 256;
    EXPECT_NEAR(growth(wide_index.dump(), 32768, 131072) / g, 2.0, 1e-6);  // in the index key's bytes

    // The dense layers: the ablation's attention grows about as the context (x4 from 32k to 128k), and the sparse
    // layers' growth (the indexer: 256 bytes per key, one head) stays under the dense layers' (512 bytes, K and V).
    const std::string dense = dense_ablation();
    EXPECT_GT(decode_attention(dense, 131072), 3.0 * decode_attention(dense, 32768));
    EXPECT_LT(g, 0.6 * growth(dense, 32768, 131072));
    EXPECT_LT(decode_attention(m3, 131072), 0.6 * decode_attention(dense, 131072));
}

// A prefill chunk over a long cached context: its sparse layers read top-k blocks per query, not the context.
TEST(BlockSparseAttention, PrefillOverALongContextReadsTheTopk) {
    auto prefill = [](const std::string& json, int64_t context) {
        const std::vector<mfusim_request> chunk{mfusim_request{1024, context, 0u, 0u}};
        return step_detail(make(json, 4), chunk).ops[MFUSIM_OP_ATTN_PREFILL].time_us;
    };
    const std::string m3 = minimax_m3().dump(), dense = dense_ablation();
    EXPECT_LT(prefill(m3, 130048), 0.25 * prefill(dense, 130048));
    EXPECT_GT(prefill(dense, 130048), 10.0 * prefill(dense, 0));
}

TEST(BlockSparseAttention, VariantsNotRunAreRefusedByName) {
    const char* path = "text_config.sparse_attention_config.";
    auto refused = [&](const char* key, const nlohmann::json& value) {
        nlohmann::json j = minimax_m3();
        sparse_config(j)[key] = value;
        expect_refused(j.dump(), (std::string(path) + key).c_str());
    };
    refused("sparse_score_type", "mean");
    refused("sparse_num_index_heads", 8);
    refused("sparse_index_value_dim", 128);  // a key no layer here reads
    nlohmann::json value = minimax_m3();
    sparse_config(value)["sparse_disable_index_value"][10] = 0;
    expect_refused(value.dump(), "text_config.sparse_attention_config.sparse_disable_index_value");
    nlohmann::json window = minimax_m3();
    window["text_config"]["sliding_window"] = 4096;
    expect_refused(window.dump(), "text_config.sparse_attention_config");
    // A list that does not cover every layer is a malformed config, not another architecture.
    nlohmann::json short_list = minimax_m3();
    sparse_config(short_list)["sparse_attention_freq"].erase(0);
    try {
        parse(short_list.dump());
        ADD_FAILURE() << "a 59-entry sparse_attention_freq accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::config) << e.what();
        EXPECT_NE(std::string(e.what()).find("sparse_attention_freq"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mfusim
