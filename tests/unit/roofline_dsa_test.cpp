// DeepSeek Sparse Attention in the roofline model: at long context the MLA attention reads index_topk keys and
// only the indexer's scoring grows with the context (linearly); the attention is the family model's sparse MLA
// (absorbed, padded heads) plus the indexer's scoring; the KV cache holds the indexer's keys. Dense MLA is the same
// config without the index_* keys.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/json.hpp"
#include "config/catalogue.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/analytical.hpp"
#include "roofline/families.hpp"
#include "roofline/model_params.hpp"
#include "roofline/roofline_model.hpp"
#include "support/roofline_steps.hpp"

namespace mfusim::roofline {
namespace {

using testing::decodes;
using testing::step_detail;

std::string catalogue_json(const char* name) {
    auto entry = config::find_catalogue_model(name);
    EXPECT_TRUE(entry.has_value()) << name;
    return entry ? std::string(entry->config_json) : std::string("{}");
}

config::ModelConfig parse(const std::string& json) {
    return config::parse_model_config(config::resolve_model_source(json));
}

// The catalogue's DeepSeek-V3.2 with and without its indexer keys.
config::ModelConfig sparse_model() {
    return parse(catalogue_json("deepseek-v3.2"));
}
config::ModelConfig dense_model() {
    nlohmann::json j = nlohmann::json::parse(catalogue_json("deepseek-v3.2"));
    for (const char* key : {"index_topk", "index_n_heads", "index_head_dim"}) j.erase(key);
    return parse(j.dump());
}

RooflineModel make(const config::ModelConfig& m, int64_t tp = 8) {
    query::Deployment d;
    d.tensor_parallel = tp;
    return RooflineModel(m, gpu::resolve_gpu("H100"), nullptr, d);
}

TEST(DeepSeekSparseAttention, ConfigReadsTheIndexer) {
    const config::ModelConfig m = sparse_model();
    EXPECT_EQ(m.index_topk, 2048);
    EXPECT_EQ(m.index_n_heads, 64);
    EXPECT_EQ(m.index_head_dim, 128);
    EXPECT_EQ(m.windowed_layers, 0);  // the indexer's cap is not a sliding window: every token stays cached
    const config::ModelConfig glm = parse(catalogue_json("glm-5.2-fp8"));
    EXPECT_EQ(glm.index_topk, 2048);
    EXPECT_EQ(glm.index_n_heads, 32);
    EXPECT_EQ(glm.index_head_dim, 128);
}

TEST(DeepSeekSparseAttention, MissingIndexerShapeIsAConfigErrorNamingTheField) {
    for (const char* missing : {"index_n_heads", "index_head_dim"}) {
        nlohmann::json j = nlohmann::json::parse(catalogue_json("deepseek-v3.2"));
        j.erase(missing);
        try {
            parse(j.dump());
            ADD_FAILURE() << "accepted without " << missing;
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), Status::config) << e.what();
            EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
        }
    }
}

TEST(DeepSeekSparseAttention, FormsNotModelledAreRefusedByKey) {
    auto refused_key = [](const std::string& json) -> std::string {
        try {
            parse(json);
        } catch (const Error& e) {
            if (e.status() != Status::unsupported) return std::string("status ") + e.what();
            const std::string what = e.what();
            const std::size_t open = what.find("field '") + 7;
            return what.substr(open, what.find('\'', open) - open);
        }
        return "accepted";
    };
    // An indexer over GQA attention.
    EXPECT_EQ(refused_key(R"({"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,
                              "index_topk":16,"index_n_heads":2,"index_head_dim":32})"),
              "index_topk");
    // GLM-5.1 lists one indexer kind per layer; a kind other than "full" (its own indexer) is not modelled.
    nlohmann::json j = nlohmann::json::parse(catalogue_json("glm-5.2-fp8"));
    j["indexer_types"] = std::vector<std::string>(78, "full");
    EXPECT_EQ(parse(j.dump()).index_topk, 2048);
    j["indexer_types"][5] = "shared";
    EXPECT_EQ(refused_key(j.dump()), "indexer_types");
}

// (c) The KV cache of every layer holds the indexer's FP8 key and fp32 scale besides the MLA latent, for every
// token (no cap at index_topk).
TEST(DeepSeekSparseAttention, KvBytesPerTokenIncludeTheIndexerCache) {
    const config::ModelConfig sparse = sparse_model(), dense = dense_model();
    EXPECT_EQ(dense.kv_bytes_per_token_per_layer(1, 8), 512.0 + 64.0);
    EXPECT_EQ(sparse.kv_bytes_per_token_per_layer(1, 8), 512.0 + 64.0 + 128.0 + 4.0);
    EXPECT_EQ(sparse.kv_bytes_per_token_per_layer(2, 8), 2.0 * (512 + 64) + 128.0 + 4.0);  // FP8 whatever the KV dtype
    const RooflineModel s = make(sparse), d = make(dense);
    EXPECT_DOUBLE_EQ(s.memory().kv_bytes_per_token - d.memory().kv_bytes_per_token, 61.0 * 132.0);
    EXPECT_EQ(s.memory().windowed_kv_bytes_per_token, 0.0);
    EXPECT_DOUBLE_EQ(s.memory().kv_bytes_for(100000), 100000 * s.memory().kv_bytes_per_token);
}

// Parameters: DeepSeek-V3.2 is DeepSeek-V3 plus, per layer, the indexer's wq_b (q_lora_rank x 64 x 128), wk
// (hidden x 128) and weights_proj (hidden x 64).
TEST(DeepSeekSparseAttention, ParametersIncludeTheIndexer) {
    const roofline::ModelParams s = roofline::model_params(sparse_model()), d = roofline::model_params(dense_model());
    const double indexer = 61.0 * (1536.0 * 64 * 128 + 7168.0 * 128 + 7168.0 * 64);
    EXPECT_DOUBLE_EQ(s.total - d.total, indexer);
    EXPECT_DOUBLE_EQ(s.active - d.active, indexer);
    std::printf("[ dsa ] DeepSeek-V3.2 params %.2fB total, %.2fB active (indexer %.3fB)\n", s.total / 1e9,
                s.active / 1e9, indexer / 1e9);
}

// (a) 64 decodes at 100k context: the MLA attention reads 2048 keys instead of 100k, so the step is far below
// dense MLA's; past index_topk the step grows only by the indexer's scoring of the added keys, linearly, at the
// indexer cache's bytes over the achievable bandwidth (memory-bound at one query per request).
TEST(DeepSeekSparseAttention, LongContextDecodeGrowsOnlyByTheIndexer) {
    const RooflineModel s = make(sparse_model()), d = make(dense_model());
    const auto step100k = decodes(64, 100000), step200k = decodes(64, 200000), step300k = decodes(64, 300000);
    const double sparse100k = s.step_time_us(step100k.data(), step100k.size());
    const double dense100k = d.step_time_us(step100k.data(), step100k.size());
    std::printf("[ dsa ] 64 decodes at 100k, H100 TP8: sparse %.0f us, dense MLA %.0f us\n", sparse100k, dense100k);
    EXPECT_LT(sparse100k, 0.5 * dense100k);

    const mfusim_step_result a = step_detail(s, step100k), b = step_detail(s, step200k), c = step_detail(s, step300k);
    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
        if (op == MFUSIM_OP_ATTN_DECODE) continue;
        EXPECT_EQ(a.ops[op].time_us, b.ops[op].time_us) << op;  // nothing else sees the context
    }
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const double bandwidth = h100.streaming_bandwidth_gbs() * 1e3 * h100.memory_efficiency;  // bytes per us
    const double added_keys = 64.0 * 100000;
    const double indexer_us = 61.0 * added_keys * (128 + 4) / bandwidth;
    EXPECT_NEAR(b.total_us - a.total_us, indexer_us, 1e-9 * b.total_us);
    EXPECT_NEAR(c.total_us - b.total_us, b.total_us - a.total_us, 1e-9 * c.total_us);  // linear
    EXPECT_DOUBLE_EQ(b.ops[MFUSIM_OP_ATTN_DECODE].flops - a.ops[MFUSIM_OP_ATTN_DECODE].flops,
                     61.0 * 2.0 * added_keys * 64 * 128);
    // Dense MLA grows by its whole attention instead.
    EXPECT_GT(d.step_time_us(step200k.data(), step200k.size()) - dense100k, 2.0 * (b.total_us - a.total_us));
}

// (b) The MLA attention of DSA is the family model's sparse MLA (families.hpp, docs/kernel-families.md): absorbed in
// prefill as in decode (FlashMLA's sparse kernels over the latent), the TP rank's 16 heads padded to FlashMLA's
// 64-head block on Hopper; its indexer's scoring beside it. The ops the indexer does not touch are dense MLA's.
TEST(DeepSeekSparseAttention, AttentionIsTheFamilyModelsSparseMlaPlusTheIndexer) {
    const RooflineModel s = make(sparse_model()), d = make(dense_model());
    const auto only_decodes = decodes(64, 1000);
    const std::vector<mfusim_request> only_prefill{mfusim_request{512, 1024, 0u, 0u}};  // 1536 keys: below top-k
    std::vector<mfusim_request> step = only_decodes;
    step.push_back(only_prefill[0]);
    const mfusim_step_result rs = step_detail(s, step), rd = step_detail(d, step);
    for (int op : {MFUSIM_OP_O_PROJ, MFUSIM_OP_FFN, MFUSIM_OP_MOE_EXPERTS, MFUSIM_OP_MOE_SHARED, MFUSIM_OP_LM_HEAD,
                   MFUSIM_OP_TP_ALLREDUCE}) {
        EXPECT_EQ(rs.ops[op].time_us, rd.ops[op].time_us) << op;
    }
    // The engine's per-layer term counts the indexer's 13 kernels on top of a layer's ten: 1.3 layers more per layer.
    EXPECT_NEAR(rs.ops[MFUSIM_OP_ENGINE].time_us - rd.ops[MFUSIM_OP_ENGINE].time_us, 61.0 * 1.3 * s.engine().layer_us,
                1e-9 * rs.total_us);
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const IndexerGeometry g{64, 128, 132.0};
    const IndexerWork decode_work{64, 64.0 * 1001, 64.0 * 1001};
    const IndexerWork prefill_work{512, 512.0 * 1024 + 0.5 * 512 * 513, 1024.0 + 512};
    const double peak = h100.peak_fp8_tflops * 1e12;
    const double scoring_decode = 61.0 * indexer_us(h100, g, peak, decode_work);
    const double scoring_prefill = 61.0 * indexer_us(h100, g, peak, prefill_work);
    // The family model's attention backend less its fixed cost and its absorbed per-head products (BF16 GEMMs; the
    // step times them under qkv_proj): the kernel alone.
    MlaShape shape;
    shape.hidden = 7168;
    shape.q_lora = 1536;
    shape.kv_lora = 512;
    shape.rope = 64;
    shape.nope = shape.v = 128;
    shape.heads = 16;
    shape.index_heads = 64;
    shape.index_dim = 128;
    shape.index_topk = 2048;
    // The kernel files' eager host floor (mla_backend_host_us) is no part of the step's kernels: the core alone.
    gpu::GpuProfile no_host_floor = h100;
    no_host_floor.mla_backend_host_us = 0;
    auto kernel_us = [&](const MlaBatch& b) {
        const double tokens = static_cast<double>(b.batch * (b.decode ? 1 : b.new_tokens));
        const GemmPrecision bf16 = bf16_gemm(h100);
        const double products = gemm_analytical(h100, bf16, 1, tokens, 128, 16 * 512).time_us +
                                gemm_analytical(h100, bf16, 1, tokens, 512, 16 * 128).time_us;
        return mla_attention_us(no_host_floor, shape, b) - h100.mla_backend_overhead_us - products;
    };
    const mfusim_step_result sd = step_detail(s, only_decodes), sp = step_detail(s, only_prefill);
    const double decode_kernel = 61.0 * kernel_us(MlaBatch{64, 1, 1000, true});
    const double prefill_kernel = 61.0 * kernel_us(MlaBatch{1, 512, 1024, false});
    EXPECT_NEAR(sd.ops[MFUSIM_OP_ATTN_DECODE].time_us, decode_kernel + scoring_decode, 1e-6 * sd.total_us);
    EXPECT_NEAR(sp.ops[MFUSIM_OP_ATTN_PREFILL].time_us, prefill_kernel + scoring_prefill, 1e-6 * sp.total_us);
    // The padded heads: 64 for the 16 of a GPU, 4x dense MLA's decode attention FLOPs besides the scoring's.
    EXPECT_NEAR(rs.ops[MFUSIM_OP_ATTN_DECODE].flops - 61.0 * indexer_flops(g, decode_work),
                4.0 * rd.ops[MFUSIM_OP_ATTN_DECODE].flops, 1e-9 * rs.ops[MFUSIM_OP_ATTN_DECODE].flops);
    // Decode alone: the rest of the difference is the indexer's GEMMs (memory-bound at 64 rows: their replicated
    // weights) and element-wise kernels, more than the weights at full bandwidth, less than 1.5x that plus launches.
    const mfusim_step_result dd = step_detail(d, only_decodes);
    const double rest = sd.total_us - dd.total_us -
                        (sd.ops[MFUSIM_OP_ATTN_DECODE].time_us - dd.ops[MFUSIM_OP_ATTN_DECODE].time_us) -
                        (sd.ops[MFUSIM_OP_ENGINE].time_us - dd.ops[MFUSIM_OP_ENGINE].time_us);
    const double weights = 61.0 * (1536.0 * 64 * 128 + 7168.0 * (128 + 64));  // FP8: one byte each
    const double bandwidth = h100.streaming_bandwidth_gbs() * 1e3 * h100.memory_efficiency;
    std::printf(
        "[ dsa ] 64 decodes at 1000: dense %.0f us, sparse %.0f us (attention %.1f, scoring %.1f us, "
        "projections %.1f us)\n",
        dd.total_us, sd.total_us, decode_kernel, scoring_decode, rest);
    EXPECT_GT(rest, weights / bandwidth);
    EXPECT_LT(rest, 1.5 * weights / bandwidth + 61.0 * 2 * 3 * h100.kernel_launch_us);
}

// Prefill past index_topk: each query's MLA attention reads at most index_topk keys, so a chunk over a long
// context costs far less attention than dense MLA's while the indexer's scoring still sees every key. At TP 1
// (attention data parallelism's shape): at TP 8 the replicated indexer costs about as much per key as the 16 MLA
// heads left on a GPU.
TEST(DeepSeekSparseAttention, LongContextPrefillAttentionIsCapped) {
    const RooflineModel s = make(sparse_model(), 1), d = make(dense_model(), 1);
    const std::vector<mfusim_request> step{mfusim_request{4096, 60000, 0u, 0u}};
    const mfusim_step_result rs = step_detail(s, step), rd = step_detail(d, step);
    EXPECT_LT(rs.ops[MFUSIM_OP_ATTN_PREFILL].time_us, 0.5 * rd.ops[MFUSIM_OP_ATTN_PREFILL].time_us);
    EXPECT_GT(rs.ops[MFUSIM_OP_ATTN_PREFILL].flops, 61.0 * 2.0 * 4096 * 60000 * 64 * 128);  // the scoring alone
    EXPECT_GT(rs.ops[MFUSIM_OP_ATTN_PREFILL].efficiency, 0.0);
    EXPECT_LT(rs.ops[MFUSIM_OP_ATTN_PREFILL].efficiency, 1.0);
}

}  // namespace
}  // namespace mfusim::roofline
