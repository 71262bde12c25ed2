// CompatModel::estimate on the fixture model and tables: formulas (sections 7-16), names printed per run,
// warnings, soft errors and InferSim's crashes.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "common/error.hpp"
#include "unit/compat_fixtures.hpp"

namespace mfusim::compat {
namespace {

using testing::decode_scenario;
using testing::fixture_model;
using testing::fixture_tables;
using testing::json_config;
using testing::prefill_scenario;

double value(const query::Report& r, const std::string& name) {
    const double* v = r.find(name);
    EXPECT_NE(v, nullptr) << name;
    return v ? *v : NAN;
}

std::string crash(const std::function<void()>& fn, Status status = Status::compat_crash) {
    try {
        fn();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), status) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
}

query::Deployment deployment(int64_t ws, int64_t tp = 1) {
    query::Deployment d;
    d.world_size = ws;
    d.tensor_parallel = tp;
    return d;
}

// tiny_dense on H20: h 256, L 2, GQA 4/2/64, I 512; every step of sections 7-14 by hand.
TEST(CompatModel, DensePrefillByHand) {
    CompatModel m = fixture_model("tiny_dense");
    EXPECT_EQ(m.device_type(), "H20");
    EXPECT_STREQ(m.attn_type(), "MHA/GQA");
    EXPECT_FALSE(m.hybrid());
    query::Report r = m.estimate(prefill_scenario(1024, 2048));

    const double A = 2.0 * (256 * 4 * 64 + 256 * 2 * 64 * 2 + 256 * 4 * 64);
    const double X = 2.0 * 3 * 256 * 512;
    EXPECT_EQ(value(r, "one_attn_params_size_mb"), (A / 1024) / 1024);
    EXPECT_EQ(value(r, "one_expert_params_size_mb"), 0.75);
    const double Pg = (((A + X * 1.0) / 1024) / 1024 / 1024) * 2;
    EXPECT_EQ(value(r, "per_gpu_params_size_gb"), Pg);
    EXPECT_EQ(value(r, "kv_cache_space_gb"), ((96 - Pg) - 15) - 5);
    EXPECT_EQ(value(r, "current_per_token_kv_cache_size_kb"), 1.0);  // 2 bytes * 2 (K, V) * L 2 * 2 heads * 64
    EXPECT_EQ(value(r, "target_per_token_kv_cache_size_kb"),
              (((((((96 - Pg) - 15) - 5) * 1024) * 1024 * 1024) / 128) / (1024 + 2048)) / 1024);
    EXPECT_EQ(value(r, "num_hidden_layers"), 2);
    EXPECT_EQ(value(r, "target_decode_batchsize"), 128);  // ceil(2560 * 50 / 1000)

    const double peak = 148.0 * 1024;
    const double g = (2.0 * 256 * 1024 * 2) / 1e9;
    const double t_c = ((1024 * g) / 1.8) / (peak * 0.51);
    const double t_kv = ((((1024.0 * 1024) / 2) / 1024) / 1024) / 1024 / 3276.8;
    EXPECT_EQ(value(r, "prefill.attn_core_mfu"), 0.51);
    EXPECT_EQ(value(r, "prefill.attn_core_latency_us"), t_c * 1e6);
    EXPECT_EQ(value(r, "prefill.kv_loading_latency_us"), t_kv * 1e6);
    const double qkv = ((2.0 * 2048 * 256 * 512) / 1e9) / (peak * 0.153);  // group (256,512), last row m 32
    const double o = ((2.0 * 2048 * 256 * 256) / 1e9) / (peak * 0.351);    // duplicated group, later row wins
    EXPECT_EQ(value(r, "prefill.qkv_proj_latency_us"), qkv * 1e6);
    EXPECT_EQ(value(r, "prefill.o_proj_latency_us"), o * 1e6);
    // Dense FFN = one expert: MFU of GEMM (2048, 256, (512 * 2) // ws) -> group (300, 1024) -> 0.552.
    const double g_r = (2.0 * 256 * 512) * ((2048.0 * 3.0) / 1e9);
    const double t_r = g_r / (peak * 0.552);
    const double t_ld = (((X * (1.0 / 1)) / 1024) / 1024 / 1024) / 3276.8;
    EXPECT_EQ(value(r, "prefill.routed_experts_mfu"), 0.552);
    EXPECT_EQ(value(r, "prefill.routed_experts_latency_us"), t_r * 1e6);
    EXPECT_EQ(value(r, "prefill.experts_loading_latency_us"), t_ld * 1e6);
    EXPECT_EQ(value(r, "prefill.comm_before_moe_ffn_us"), 0);
    EXPECT_EQ(value(r, "prefill.comm_after_moe_ffn_us"), 0);
    const double a_core = std::max(t_c, t_kv) * 2;  // ceil(2048 / 1024)
    const double T = (((a_core + std::max(t_r, t_ld)) + (qkv + o)) + (0.0 + 0.0)) + 0.0;
    const double ttft = ((T * 2) * 1000) + 30;
    EXPECT_EQ(value(r, "prefill.ttft_ms"), ttft);
    EXPECT_EQ(value(r, "prefill.throughput_tgs_tok_gpu_s"), (2048.0 / 1) / (ttft / 1000));
    EXPECT_EQ(r.find("prefill.tp_all_reduce_us"), nullptr);
    EXPECT_EQ(r.find("prefill.shared_expert_latency_us"), nullptr);
    EXPECT_EQ(r.find("decode.tpot_ms"), nullptr);
    EXPECT_TRUE(r.warnings.empty());
    EXPECT_TRUE(r.soft_errors.empty());
}

TEST(CompatModel, DenseDecodeByHand) {
    CompatModel m = fixture_model("tiny_dense");
    query::Report r = m.estimate(decode_scenario(4, 3000, 2001));  // K = int(3000 + 1000.5) = 4000
    const double peak = 148.0 * 1024;
    const double g = (2.0 * 256 * 4000 * 2) / 1e9;
    const double t_c = (4 * g) / (peak * 0.031);  // nearest (4, 4096)
    const double t_kv = (((((1024.0 * 4000) * 4) / 2) / 1024) / 1024) / 1024 / 3276.8;
    EXPECT_EQ(value(r, "decode.attn_core_mfu"), 0.031);
    EXPECT_EQ(value(r, "decode.attn_core_latency_us"), t_c * 1e6);
    EXPECT_EQ(value(r, "decode.kv_loading_latency_us"), t_kv * 1e6);
    EXPECT_EQ(value(r, "decode.qkv_proj_latency_us"), ((2.0 * 4 * 256 * 512) / 1e9) / (peak * 0.6) * 1e6);  // m < 16
    EXPECT_EQ(value(r, "decode.routed_experts_ffn_mfu"), 0.6);
    EXPECT_EQ(value(r, "per_token_per_layer_attn_core_gflops"), (2.0 * 256 * 4000 * 2) / 1e9);
    EXPECT_NE(r.find("decode.tpot_ms"), nullptr);
    EXPECT_NE(r.find("decode.routed_experts_ffn_latency_us"), nullptr);
    EXPECT_EQ(r.find("prefill.ttft_ms"), nullptr);
    EXPECT_EQ(r.find("prefill.max_prefill_tokens"), nullptr);
    const double tpot = value(r, "decode.tpot_ms");
    EXPECT_EQ(value(r, "decode.throughput_tgs_tok_gpu_s"), (4.0 / 1) / (tpot / 1000));
}

TEST(CompatModel, BothPhasesAndNamesAreOracleColumns) {
    query::Scenario s;  // InferSim's defaults, both phases
    query::Report r = fixture_model("tiny_moe").estimate(s);
    EXPECT_NE(r.find("prefill.ttft_ms"), nullptr);
    EXPECT_NE(r.find("decode.tpot_ms"), nullptr);
    EXPECT_NE(r.find("prefill.shared_expert_latency_us"), nullptr);  // E_s = 1
    EXPECT_NE(r.find("decode.shared_expert_latency_us"), nullptr);
    for (const auto& [name, v] : r.values) {
        EXPECT_EQ(name.find("device_type"), std::string::npos);
        EXPECT_EQ(name.find("attn_type"), std::string::npos);
    }
    query::Report tp = fixture_model("tiny_moe", "H20", deployment(2, 2)).estimate(s);
    EXPECT_NE(tp.find("prefill.tp_all_reduce_us"), nullptr);
    EXPECT_NE(tp.find("decode.tp_all_reduce_us"), nullptr);
}

TEST(CompatModel, MlaNamesAndFullHeadQuirk) {
    CompatModel m = fixture_model("tiny_mla");
    EXPECT_STREQ(m.attn_type(), "MLA");
    query::Report r = m.estimate(prefill_scenario(1024, 4096));
    for (const char* n : {"q_down_proj", "q_up_proj", "kv_down_proj", "bmm_q_wk", "bmm_o_wv", "o_proj"}) {
        EXPECT_NE(r.find(std::string("prefill.") + n + "_latency_us"), nullptr) << n;
    }
    EXPECT_EQ(r.find("prefill.qkv_proj_latency_us"), nullptr);
    EXPECT_EQ(value(r, "prefill.attn_core_mfu"), 0.45);
    // Q7: at tp 2 the file name uses H // tp (missing) but the FLOPs keep the full H.
    query::Report tp2 = fixture_model("tiny_mla", "H20", deployment(2, 2)).estimate(prefill_scenario(1024, 4096));
    EXPECT_EQ(tp2.joined_warnings(), "Warning: bench_data/mla/prefill/h20/2-16-8.csv not exist.");
    const double g = (2.0 * 4 * 24 * 1024 + 2.0 * 1024 * 4 * 16) / 1e9;
    EXPECT_EQ(value(tp2, "prefill.attn_core_latency_us"), (((1024 * g) / 1.8) / ((148.0 * 1024) * 0.9)) * 1e6);
    // Q9: the DeepSeek spellings are not read, so MLA runs as dense here and no grouped-GEMM warning appears.
    EXPECT_EQ(r.find("prefill.shared_expert_latency_us"), nullptr);
}

TEST(CompatModel, HybridNamesAndTboIgnored) {
    CompatModel m = fixture_model("tiny_hybrid");
    EXPECT_TRUE(m.hybrid());
    query::Report p = m.estimate(prefill_scenario(4096, 8192));
    for (const char* n :
         {"prefill.linear_attn_core_latency_us", "prefill.states_loading_latency_us", "prefill.qkvzba_proj_latency_us",
          "prefill.o_proj_latency_us#2", "one_full_attn_params_size_mb", "one_linear_attn_params_size_mb",
          "target_per_req_kv_cache_size_mb", "current_per_req_cache_size_mb", "per_token_full_attn_core_gflops"}) {
        EXPECT_NE(p.find(n), nullptr) << n;
    }
    EXPECT_EQ(p.find("one_attn_params_size_mb"), nullptr);
    EXPECT_EQ(p.find("per_token_attn_core_gflops"), nullptr);
    EXPECT_EQ(value(p, "prefill.linear_attn_core_latency_us"), 210.0);  // raw table us, not x1e6
    query::Deployment tbo;
    tbo.two_batch_overlap = true;
    query::Report q = fixture_model("tiny_hybrid", "H20", tbo).estimate(prefill_scenario(4096, 8192));
    EXPECT_EQ(value(q, "prefill.ttft_ms"), value(p, "prefill.ttft_ms"));
    EXPECT_EQ(value(q, "prefill.throughput_tgs_tok_gpu_s"), value(p, "prefill.throughput_tgs_tok_gpu_s"));
    query::Report d = m.estimate(decode_scenario(40, 1000, 100));
    EXPECT_EQ(value(d, "decode.linear_attn_core_latency_us"), 30.0);
}

TEST(CompatModel, TboDoublesTokens) {
    query::Deployment tbo = deployment(2);
    tbo.two_batch_overlap = true;
    query::Report r = fixture_model("tiny_moe", "H20", tbo).estimate(decode_scenario(16, 1024, 1024));
    EXPECT_EQ(value(r, "decode.throughput_tgs_tok_gpu_s"), (32.0 / 1) / (value(r, "decode.tpot_ms") / 1000));
    query::Report p = fixture_model("tiny_moe", "H20", tbo).estimate(prefill_scenario(1024, 4096));
    EXPECT_EQ(value(p, "prefill.throughput_tgs_tok_gpu_s"), (8192.0 / 1) / (value(p, "prefill.ttft_ms") / 1000));
}

// Q12: the dense FFN's MFU is looked up with n = (I * 2) // ws.
TEST(CompatModel, DenseFfnLookupUsesWorldSize) {
    EXPECT_EQ(value(fixture_model("tiny_dense").estimate(prefill_scenario(1024, 2048)), "prefill.routed_experts_mfu"),
              0.552);
    EXPECT_EQ(value(fixture_model("tiny_dense", "H20", deployment(2)).estimate(prefill_scenario(1024, 2048)),
                    "prefill.routed_experts_mfu"),
              0.153);  // (256, 512)
}

// Q10: Hkv // tp = 0 empties the KV cache and names a "-0-" table.
TEST(CompatModel, ZeroKvHeadsAfterSharding) {
    query::Report r = fixture_model("tiny_dense", "H20", deployment(4, 4)).estimate(decode_scenario(8, 1024, 1024));
    EXPECT_EQ(value(r, "current_per_token_kv_cache_size_kb"), 0);
    EXPECT_EQ(value(r, "decode.kv_loading_latency_us"), 0);
    EXPECT_EQ(r.joined_warnings(), "Warning: bench_data/mha/decode/h20/1-0-64.csv not exists");
}

TEST(CompatModel, WarningsAreSortedAndUnique) {
    query::Scenario s;
    query::Report r = fixture_model("tiny_moe", "H200").estimate(s);
    EXPECT_EQ(r.joined_warnings(),
              "Warning: bench_data/gemm/h200/data.csv not exists | "
              "Warning: bench_data/grouped_gemm/prefill/h200/data.csv not exists | "
              "Warning: bench_data/mha/decode/h200/4-2-64.csv not exists | "
              "Warning: bench_data/mha/prefill/h200/4-2-64.csv not exist. | "
              "warning: bench_data/grouped_gemm/decode/h200/data.csv not exists");
    query::Report none = fixture_model("tiny_dense", "H20", {}, false).estimate(prefill_scenario(1024, 4096));
    EXPECT_EQ(none.joined_warnings(),
              "Warning: bench_data/gemm/h20/data.csv not exists | "
              "Warning: bench_data/mha/prefill/h20/4-2-64.csv not exist.");
    EXPECT_EQ(value(none, "prefill.attn_core_mfu"), 0.9);
    EXPECT_EQ(value(none, "prefill.routed_experts_mfu"), 0.6);
}

TEST(CompatModel, SoftErrorsInEmissionOrder) {
    query::Scenario s = decode_scenario(1000000, 100000, 0);
    s.target_tpot_ms = 1;
    query::Report r = fixture_model("tiny_dense").estimate(s);
    EXPECT_EQ(r.joined_soft_errors(),
              "!Error: need smaller kvcache | !Error: TPOT > SLO, need smaller GFLOPs to speedup");
    // The KV message is evaluated for prefill-only runs too (Q32).
    query::Scenario p = prefill_scenario(100000, 4096);
    p.decode_batch = 1000000;
    EXPECT_EQ(fixture_model("tiny_dense").estimate(p).joined_soft_errors(), "!Error: need smaller kvcache");
}

TEST(CompatModel, InferSimCrashesAreErrors) {
    CompatModel h800 = fixture_model("tiny_dense", "H800");
    EXPECT_EQ(crash([&] { h800.estimate(decode_scenario(1, 512, 1024)); }),
              "InferSim raises ZeroDivisionError: decode attention MFU of mha/decode/h800/4-2-64.csv rounds to 0 at "
              "bs 1, kv 1024");
    EXPECT_NE(crash([&] { h800.estimate(decode_scenario(4, 1024, 1024)); }).find("ZeroDivisionError"),
              std::string::npos);  // (4, 1536) is nearest to (1, 1024) too (Q15)
    query::Deployment fp8;
    fp8.fp8_kv = true;
    EXPECT_EQ(crash([&] {
                  fixture_model("tiny_dense", "H800", fp8).estimate(decode_scenario(64, 4096, 8192));
              }).rfind("InferSim raises ValueError: min() arg is an empty sequence", 0),
              0u);
    EXPECT_EQ(crash([&] { fixture_model("tiny_hybrid", "H800").estimate(prefill_scenario(4096, 4096)); }),
              "InferSim raises AssertionError: Error: bench_data/gdn/prefill/h800/4-2-32-4-32.csv not exist.");
    CompatModel dense = fixture_model("tiny_dense");
    EXPECT_NE(crash([&] { dense.estimate(decode_scenario(0, 1024, 1024)); }).find("ZeroDivisionError"),
              std::string::npos);
    EXPECT_NE(crash([&] { dense.estimate(prefill_scenario(0, 4096)); }).find("ZeroDivisionError"), std::string::npos);
    // A GEMM whose MFU rounds to 0: (2048, 1024, 512) -> group (1024, 1024), last row m 32 with MFU 0.0004.
    CompatModel wide(json_config(R"({"model_type":"x","hidden_size":1024,"num_hidden_layers":1,)"
                                 R"("num_attention_heads":4,"num_key_value_heads":2,"head_dim":64,)"
                                 R"("intermediate_size":64})"),
                     gpu::resolve_gpu("H20"), fixture_tables(), {});
    EXPECT_EQ(crash([&] { wide.estimate(prefill_scenario(1024, 2048)); }),
              "InferSim raises ZeroDivisionError: GEMM MFU of gemm/h20/data.csv rounds to 0 at m 2048, k 1024, n 512");
}

TEST(CompatModel, DeploymentsInferSimCannotRun) {
    EXPECT_NE(crash([] { fixture_model("tiny_dense", "H20", deployment(1, 2)); }).find("world_size 1 < tp_size 2"),
              std::string::npos);
    crash([] { fixture_model("tiny_dense", "H20", deployment(1, 0)); });
    crash([] { fixture_model("tiny_dense", "H20", deployment(0, 1)); });
    crash([] { fixture_model("tiny_dense", "H20", deployment(-1, 1)); }, Status::invalid_argument);
    crash([] { fixture_model("tiny_dense", "H100"); }, Status::unsupported);
    crash([] { fixture_model("tiny_dense").estimate(prefill_scenario(-1, 4096)); }, Status::invalid_argument);
}

}  // namespace
}  // namespace mfusim::compat
