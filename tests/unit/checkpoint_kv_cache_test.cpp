// The KV-cache format a checkpoint states (kv_cache_quant_algo, kv_cache_scheme), the engines' rule for taking it
// when the deployment leaves the KV dtype at "auto", and what it changes: KV capacity and decode attention bytes.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "config/quantization.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"
#include "serving/serving.hpp"
#include "support/roofline_steps.hpp"

namespace mfusim {
namespace {

// A Llama-shaped dense model (GQA, 8 KV heads of 128), small enough to leave room for a KV cache on one H100.
nlohmann::json llama_config() {
    return {{"architectures", {"LlamaForCausalLM"}},
            {"model_type", "llama"},
            {"hidden_size", 4096},
            {"intermediate_size", 14336},
            {"num_hidden_layers", 32},
            {"num_attention_heads", 32},
            {"num_key_value_heads", 8},
            {"head_dim", 128},
            {"vocab_size", 128256},
            {"max_position_embeddings", 131072},
            {"torch_dtype", "bfloat16"}};
}

// ModelOpt's hf_quant_config.json as nvidia/*-FP8 checkpoints ship it.
std::string hf_quant(const nlohmann::json& kv_algo) {
    nlohmann::json q = {{"producer", {{"name", "modelopt"}}},
                        {"quantization", {{"quant_algo", "FP8"}, {"exclude_modules", {"lm_head"}}}}};
    if (!kv_algo.is_discarded()) q["quantization"]["kv_cache_quant_algo"] = kv_algo;
    return q.dump();
}

config::ModelConfig with_hf_quant(const std::string& hf_quant_text) {
    return config::parse_model_config({"test/config.json", llama_config().dump(), hf_quant_text});
}

config::ModelConfig with_quantization_config(const nlohmann::json& quantization_config) {
    nlohmann::json c = llama_config();
    c["quantization_config"] = quantization_config;
    return config::parse_model_config({"test/config.json", c.dump(), ""});
}

const nlohmann::json kAbsent = nlohmann::json::value_t::discarded;

std::string refusal(const std::function<void()>& load) {
    try {
        load();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(CheckpointKvCache, ModelOptStatesFp8) {
    const config::Quantization q = with_hf_quant(hf_quant("FP8")).quant;
    EXPECT_TRUE(q.kv_cache_fp8);
    EXPECT_EQ(q.kv_cache_stated_by, config::KvCacheStatement::modelopt);
    EXPECT_NE(q.kv_cache_key.find("kv_cache_quant_algo"), std::string::npos);
    // The weights are read as before.
    EXPECT_EQ(q.attention, config::WeightFormat::fp8);
}

TEST(CheckpointKvCache, AbsentOrNullStatesNothing) {
    for (const nlohmann::json& kv : {kAbsent, nlohmann::json(nullptr)}) {
        const config::Quantization q = with_hf_quant(hf_quant(kv)).quant;
        EXPECT_FALSE(q.kv_cache_fp8);
        EXPECT_EQ(q.kv_cache_stated_by, config::KvCacheStatement::none);
    }
    EXPECT_FALSE(config::parse_model_config({"test/config.json", llama_config().dump(), ""}).quant.kv_cache_fp8);
}

TEST(CheckpointKvCache, ConfigJsonSchemes) {
    // ModelOpt writing config.json (nvidia/*-NVFP4 exports): kv_cache_scheme as compressed-tensors spells it.
    const nlohmann::json fp8_scheme = {{"dynamic", false}, {"num_bits", 8}, {"type", "float"}};
    config::Quantization q =
        with_quantization_config({{"quant_method", "modelopt"}, {"quant_algo", "FP8"}, {"kv_cache_scheme", fp8_scheme}})
            .quant;
    EXPECT_TRUE(q.kv_cache_fp8);
    EXPECT_EQ(q.kv_cache_stated_by, config::KvCacheStatement::modelopt);
    // compressed-tensors: the same fact, stated by a producer the engines' "auto" does not read.
    q = with_quantization_config({{"quant_method", "compressed-tensors"}, {"kv_cache_scheme", fp8_scheme}}).quant;
    EXPECT_TRUE(q.kv_cache_fp8);
    EXPECT_EQ(q.kv_cache_stated_by, config::KvCacheStatement::compressed_tensors);
    q = with_quantization_config({{"quant_method", "compressed-tensors"}, {"kv_cache_scheme", nullptr}}).quant;
    EXPECT_FALSE(q.kv_cache_fp8);
}

TEST(CheckpointKvCache, UnmodelledFormatWarnsAndStays16Bit) {
    const config::ModelConfig m = with_hf_quant(hf_quant("NVFP4"));
    EXPECT_FALSE(m.quant.kv_cache_fp8);
    bool warned = false;
    for (const std::string& w : m.warnings) warned = warned || w.find("NVFP4 KV cache") != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST(CheckpointKvCache, MalformedIsRefusedNamingFileAndKey) {
    std::string e = refusal([] { with_hf_quant(hf_quant(8)); });
    EXPECT_NE(e.find("hf_quant_config.json"), std::string::npos) << e;
    EXPECT_NE(e.find("quantization.kv_cache_quant_algo"), std::string::npos) << e;
    e = refusal([] { with_hf_quant(hf_quant("FP9")); });
    EXPECT_NE(e.find("quantization.kv_cache_quant_algo"), std::string::npos) << e;
    EXPECT_NE(e.find("FP9"), std::string::npos) << e;
    e = refusal([] { with_quantization_config({{"quant_method", "compressed-tensors"}, {"kv_cache_scheme", 8}}); });
    EXPECT_NE(e.find("test/config.json"), std::string::npos) << e;
    EXPECT_NE(e.find("quantization_config.kv_cache_scheme"), std::string::npos) << e;
    e = refusal([] {
        with_quantization_config({{"quant_method", "modelopt"}, {"kv_cache_scheme", {{"type", "float"}}}});
    });
    EXPECT_NE(e.find("quantization_config.kv_cache_scheme.num_bits"), std::string::npos) << e;
}

// The engines' rule, one row per engine as their sources implement it (EngineProfile::checkpoint_kv_cache).
TEST(CheckpointKvCache, EngineRule) {
    using engines::follows_checkpoint_kv_cache;
    using engines::resolve_engine;
    EXPECT_TRUE(follows_checkpoint_kv_cache(resolve_engine("trtllm")));
    EXPECT_TRUE(follows_checkpoint_kv_cache(resolve_engine("sglang")));
    EXPECT_FALSE(follows_checkpoint_kv_cache(resolve_engine("vllm", "0.12.0")));
    EXPECT_TRUE(follows_checkpoint_kv_cache(resolve_engine("vllm", "0.14.0")));
    EXPECT_FALSE(follows_checkpoint_kv_cache(resolve_engine("vllm")));  // no release named: the older default
    EXPECT_FALSE(follows_checkpoint_kv_cache(resolve_engine(R"({"base":"sglang","checkpoint_kv_cache":false})")));
    EXPECT_TRUE(follows_checkpoint_kv_cache(resolve_engine(R"({"base":"vllm","checkpoint_kv_cache":true})", "0.12.0")));
}

TEST(CheckpointKvCache, ResolvedFormat) {
    const config::Quantization modelopt = with_hf_quant(hf_quant("FP8")).quant;
    const engines::EngineProfile follows = engines::resolve_engine("sglang");
    const engines::EngineProfile keeps = engines::resolve_engine("vllm", "0.12.0");
    query::Deployment automatic, bf16, fp8;
    bf16.bf16_kv = true;
    fp8.fp8_kv = true;
    EXPECT_TRUE(roofline::resolve_kv_cache(automatic, modelopt, follows).fp8);
    EXPECT_EQ(roofline::resolve_kv_cache(automatic, modelopt, follows).from, "checkpoint");
    EXPECT_FALSE(roofline::resolve_kv_cache(automatic, modelopt, keeps).fp8);
    // An explicit format always wins, either way.
    EXPECT_FALSE(roofline::resolve_kv_cache(bf16, modelopt, follows).fp8);
    EXPECT_TRUE(roofline::resolve_kv_cache(fp8, config::Quantization{}, keeps).fp8);
    // compressed-tensors' statement: no engine's "auto" reads it.
    config::Quantization ct = modelopt;
    ct.kv_cache_stated_by = config::KvCacheStatement::compressed_tensors;
    EXPECT_FALSE(roofline::resolve_kv_cache(automatic, ct, follows).fp8);
}

// What the format changes: half the bytes per cached token, so about twice the KV capacity, and half the bytes
// the decode attention reads, where the engine takes the checkpoint's FP8.
TEST(CheckpointKvCache, HalvesKvBytesWhereItApplies) {
    const config::ModelConfig m = with_hf_quant(hf_quant("FP8"));
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    query::Deployment automatic, bf16;
    bf16.bf16_kv = true;
    const engines::EngineProfile sglang = engines::resolve_engine("sglang");
    const roofline::RooflineModel taken(m, h100, nullptr, automatic, sglang);
    const roofline::RooflineModel overridden(m, h100, nullptr, bf16, sglang);
    const roofline::RooflineModel kept(m, h100, nullptr, automatic, engines::resolve_engine("vllm", "0.12.0"));
    EXPECT_DOUBLE_EQ(taken.memory().kv_bytes_per_token * 2, overridden.memory().kv_bytes_per_token);
    EXPECT_DOUBLE_EQ(kept.memory().kv_bytes_per_token, overridden.memory().kv_bytes_per_token);
    const double share = sglang.gpu_memory_utilization > 0 ? sglang.gpu_memory_utilization : 0.85;
    const double space_taken = serving::cache_space_bytes(taken, share);
    const double space_overridden = serving::cache_space_bytes(overridden, share);
    ASSERT_GT(space_overridden, 0);
    EXPECT_NEAR(space_taken / taken.memory().kv_bytes_per_token,
                2 * space_overridden / overridden.memory().kv_bytes_per_token,
                1e-6 * space_overridden / overridden.memory().kv_bytes_per_token);
    const std::vector<mfusim_request> step = testing::decodes(64, 8192);
    const double fp8_bytes = testing::step_detail(taken, step).ops[MFUSIM_OP_ATTN_DECODE].bytes;
    const double bf16_bytes = testing::step_detail(overridden, step).ops[MFUSIM_OP_ATTN_DECODE].bytes;
    ASSERT_GT(bf16_bytes, 0);
    EXPECT_LT(fp8_bytes, 0.6 * bf16_bytes);  // the KV reads halve; the query and output stay 16-bit
    EXPECT_GT(fp8_bytes, 0.45 * bf16_bytes);
    EXPECT_EQ(taken.kv_cache().from, "checkpoint");
    EXPECT_EQ(kept.kv_cache().from, "engine");
}

}  // namespace
}  // namespace mfusim
