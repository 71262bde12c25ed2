// CompatModel::step_time_us / step_detail: the compat meaning of an engine step (docs/compat-steps.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "unit/compat_fixtures.hpp"

namespace mfusim::compat {
namespace {

using testing::decode_scenario;
using testing::fixture_model;
using testing::prefill_scenario;

std::vector<mfusim_request> prefills(int64_t count, int64_t tokens) {
    return std::vector<mfusim_request>(static_cast<std::size_t>(count), mfusim_request{tokens, 0, 0, 0});
}
std::vector<mfusim_request> decodes(int64_t count, int64_t context) {
    return std::vector<mfusim_request>(static_cast<std::size_t>(count), mfusim_request{1, context, 0, 0});
}
std::vector<mfusim_request> concat(std::vector<mfusim_request> a, const std::vector<mfusim_request>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

double step(const CompatModel& m, const std::vector<mfusim_request>& r) {
    return m.step_time_us(r.data(), r.size());
}

mfusim_step_result detail(const CompatModel& m, const std::vector<mfusim_request>& r) {
    mfusim_step_result out;
    std::memset(&out, 0xff, sizeof out);
    out.struct_size = sizeof out;
    m.step_detail(r.data(), r.size(), out);
    return out;
}

double ttft_us(const CompatModel& m, int64_t isl, int64_t mpt) {
    return *m.estimate(prefill_scenario(isl, mpt)).find("prefill.ttft_ms") * 1000;
}
double tpot_us(const CompatModel& m, int64_t bs, int64_t context) {
    return *m.estimate(decode_scenario(bs, context, 0)).find("decode.tpot_ms") * 1000;  // K = int(c + 0 / 2) = c
}

query::Deployment deployment(int64_t ws, int64_t tp = 1, bool tbo = false) {
    query::Deployment d;
    d.world_size = ws;
    d.tensor_parallel = tp;
    d.two_batch_overlap = tbo;
    return d;
}

TEST(CompatSteps, HomogeneousPrefillIsTtft) {
    for (const char* config : {"tiny_dense", "tiny_moe", "tiny_mla", "tiny_hybrid"}) {
        for (const query::Deployment& d : {deployment(1), deployment(2, 2), deployment(4, 1, true)}) {
            SCOPED_TRACE(std::string(config) + " ws " + std::to_string(d.world_size));
            CompatModel m = fixture_model(config, "H20", d);
            EXPECT_EQ(step(m, prefills(1, 1024)), ttft_us(m, 1024, 1024));
            EXPECT_EQ(step(m, prefills(4, 1024)), ttft_us(m, 1024, 4096));
            EXPECT_EQ(step(m, prefills(3, 3000)), ttft_us(m, 3000, 9000));
        }
    }
}

TEST(CompatSteps, HomogeneousDecodeIsTpot) {
    for (const char* config : {"tiny_dense", "tiny_moe", "tiny_mla", "tiny_hybrid"}) {
        for (const query::Deployment& d : {deployment(1), deployment(2, 2), deployment(4, 1, true)}) {
            SCOPED_TRACE(std::string(config) + " ws " + std::to_string(d.world_size));
            CompatModel m = fixture_model(config, "H20", d);
            EXPECT_EQ(step(m, decodes(1, 1024)), tpot_us(m, 1, 1024));
            EXPECT_EQ(step(m, decodes(40, 5000)), tpot_us(m, 40, 5000));
        }
    }
}

TEST(CompatSteps, DecodeContextIsTheRoundedMean) {
    CompatModel m = fixture_model("tiny_dense");
    std::vector<mfusim_request> r = {{1, 1000, 0, 0}, {1, 1001, 0, 0}};  // mean 1000.5 -> 1001
    EXPECT_EQ(step(m, r), tpot_us(m, 2, 1001));
    r = {{1, 1000, 0, 0}, {1, 1000, 0, 0}, {1, 1001, 0, 0}};  // 1000.33 -> 1000
    EXPECT_EQ(step(m, r), tpot_us(m, 3, 1000));
}

TEST(CompatSteps, MixedStepKeepsOneOverhead) {
    for (const char* config : {"tiny_dense", "tiny_hybrid"}) {
        CompatModel m = fixture_model(config);
        const double p = ttft_us(m, 2048, 4096), d = tpot_us(m, 8, 3000);
        const double overhead_us = m.hybrid() ? 2000 : 5000;
        const double mixed = step(m, concat(prefills(2, 2048), decodes(8, 3000)));
        EXPECT_EQ(mixed, ((p / 1000 + d / 1000) - overhead_us / 1000) * 1000) << config;
        EXPECT_EQ(step(m, concat(decodes(8, 3000), prefills(2, 2048))), mixed);  // order does not matter
    }
}

TEST(CompatSteps, EmptyAndZeroTokenRequests) {
    CompatModel m = fixture_model("tiny_dense");
    EXPECT_EQ(m.step_time_us(nullptr, 0), 0);
    std::vector<mfusim_request> idle = {{0, 500, 0, 0}, {0, 0, 0, 0}};
    EXPECT_EQ(step(m, idle), 0);
    EXPECT_EQ(step(m, concat(idle, prefills(2, 1024))), step(m, prefills(2, 1024)));
    mfusim_step_result out = detail(m, {});
    EXPECT_EQ(out.total_us, 0);
    EXPECT_EQ(out.n_ops, MFUSIM_OP_COUNT);
    EXPECT_EQ(out.ops[MFUSIM_OP_OVERHEAD].time_us, 0);
}

// A one-token request on an empty context is a 1-token prefill, not a decode.
TEST(CompatSteps, OneTokenWithoutContextIsPrefill) {
    CompatModel m = fixture_model("tiny_dense");
    EXPECT_EQ(step(m, prefills(1, 1)), ttft_us(m, 1, 1));
}

TEST(CompatSteps, UnevenPrefillSumsAttentionPerChunk) {
    CompatModel m = fixture_model("tiny_dense");
    const auto uneven = std::vector<mfusim_request>{{1024, 0, 0, 0}, {3072, 0, 0, 0}};
    const auto even = prefills(2, 2048);  // same M = 4096
    mfusim_step_result u = detail(m, uneven), e = detail(m, even);
    mfusim_step_result a = detail(m, prefills(1, 1024)), b = detail(m, prefills(1, 3072));
    EXPECT_EQ(u.ops[MFUSIM_OP_QKV_PROJ].time_us, e.ops[MFUSIM_OP_QKV_PROJ].time_us);
    EXPECT_EQ(u.ops[MFUSIM_OP_FFN].time_us, e.ops[MFUSIM_OP_FFN].time_us);
    EXPECT_NEAR(u.ops[MFUSIM_OP_ATTN_PREFILL].time_us,
                a.ops[MFUSIM_OP_ATTN_PREFILL].time_us + b.ops[MFUSIM_OP_ATTN_PREFILL].time_us, 1e-9);
    EXPECT_EQ(step(m, {{3072, 0, 0, 0}, {1024, 0, 0, 0}}), step(m, uneven));
    // The cached prefix of a chunk is ignored: InferSim has no notion of it.
    EXPECT_EQ(step(m, {{1024, 5000, 0, 0}, {3072, 0, 0, 0}}), step(m, uneven));
}

TEST(CompatSteps, DetailMatchesTimeAndSumsUp) {
    for (const char* config : {"tiny_dense", "tiny_moe", "tiny_mla", "tiny_hybrid"}) {
        for (const query::Deployment& d : {deployment(1), deployment(2, 2), deployment(8, 1, true)}) {
            SCOPED_TRACE(std::string(config) + " ws " + std::to_string(d.world_size));
            CompatModel m = fixture_model(config, "H20", d);
            for (const auto& r : {prefills(3, 1024), decodes(16, 2000), concat(prefills(1, 4096), decodes(4, 100)),
                                  std::vector<mfusim_request>{{100, 0, 0, 0}, {900, 0, 0, 0}}}) {
                mfusim_step_result out = detail(m, r);
                EXPECT_EQ(out.total_us, step(m, r));
                EXPECT_EQ(out.struct_size, sizeof out);
                double sum = 0;
                for (int i = 0; i < MFUSIM_OP_COUNT; ++i) {
                    EXPECT_GE(out.ops[i].time_us, 0) << i;
                    EXPECT_LT(std::strlen(out.ops[i].table), sizeof out.ops[i].table);
                    sum += out.ops[i].time_us;
                }
                EXPECT_NEAR(sum, out.total_us, 1e-9 * out.total_us);
            }
        }
    }
}

TEST(CompatSteps, DetailProvenanceAndBounds) {
    CompatModel m = fixture_model("tiny_dense");
    mfusim_step_result out = detail(m, prefills(2, 1024));
    const mfusim_op_detail& attn = out.ops[MFUSIM_OP_ATTN_PREFILL];
    EXPECT_EQ(attn.source, MFUSIM_SOURCE_TABLE_EXACT);
    EXPECT_EQ(attn.efficiency, 0.51);
    EXPECT_STREQ(attn.table, "mha/prefill/h20/4-2-64.csv");
    EXPECT_EQ(attn.bound, MFUSIM_BOUND_COMPUTE);
    EXPECT_GT(attn.flops, 0);
    const mfusim_op_detail& ffn = out.ops[MFUSIM_OP_FFN];
    EXPECT_EQ(ffn.source, MFUSIM_SOURCE_TABLE_NEAREST);  // (2048, 256, 1024) from group (300, 1024), m row 256
    EXPECT_EQ(ffn.distance, 44 + 0 + (2048 - 256));
    EXPECT_STREQ(ffn.table, "gemm/h20/data.csv");
    EXPECT_EQ(out.ops[MFUSIM_OP_MOE_EXPERTS].time_us, 0);
    EXPECT_EQ(out.ops[MFUSIM_OP_OVERHEAD].time_us, 30000);
    EXPECT_EQ(out.ops[MFUSIM_OP_OVERHEAD].bound, MFUSIM_BOUND_FIXED);
    EXPECT_EQ(out.ops[MFUSIM_OP_ATTN_DECODE].time_us, 0);
    EXPECT_EQ(out.bound, MFUSIM_BOUND_FIXED);  // 30 ms dominates a tiny model

    mfusim_step_result dec = detail(m, decodes(4, 1024));
    EXPECT_EQ(dec.ops[MFUSIM_OP_ATTN_DECODE].source, MFUSIM_SOURCE_TABLE_EXACT);
    EXPECT_EQ(dec.ops[MFUSIM_OP_QKV_PROJ].source, MFUSIM_SOURCE_DEFAULT);  // m = 4 below every GEMM row
    EXPECT_STREQ(dec.ops[MFUSIM_OP_QKV_PROJ].table, "");
    EXPECT_EQ(dec.ops[MFUSIM_OP_QKV_PROJ].efficiency, 0.6);
    EXPECT_EQ(dec.ops[MFUSIM_OP_OVERHEAD].time_us, 5000);

    mfusim_step_result mixed = detail(m, concat(prefills(1, 1024), decodes(4, 1024)));
    EXPECT_EQ(mixed.ops[MFUSIM_OP_OVERHEAD].time_us, 30000);
    EXPECT_GT(mixed.ops[MFUSIM_OP_ATTN_PREFILL].time_us, 0);
    EXPECT_GT(mixed.ops[MFUSIM_OP_ATTN_DECODE].time_us, 0);

    CompatModel moe = fixture_model("tiny_moe", "H20", deployment(2, 2));
    mfusim_step_result mo = detail(moe, prefills(1, 1024));
    EXPECT_GT(mo.ops[MFUSIM_OP_MOE_EXPERTS].time_us, 0);
    EXPECT_GT(mo.ops[MFUSIM_OP_MOE_SHARED].time_us, 0);
    EXPECT_GT(mo.ops[MFUSIM_OP_EP_COMM].time_us, 0);
    EXPECT_GT(mo.ops[MFUSIM_OP_TP_ALLREDUCE].time_us, 0);
    EXPECT_EQ(mo.ops[MFUSIM_OP_TP_ALLREDUCE].bound, MFUSIM_BOUND_COMMUNICATION);

    CompatModel hybrid = fixture_model("tiny_hybrid");
    mfusim_step_result hy = detail(hybrid, decodes(8, 1000));
    EXPECT_GT(hy.ops[MFUSIM_OP_LINEAR_ATTN].time_us, 0);
    EXPECT_STREQ(hy.ops[MFUSIM_OP_LINEAR_ATTN].table, "gdn/decode/h20/4-2-32-4-32.csv");
    EXPECT_EQ(hy.ops[MFUSIM_OP_OVERHEAD].time_us, 2000);

    CompatModel fallback = fixture_model("tiny_dense", "H200");
    mfusim_step_result fb = detail(fallback, prefills(1, 1024));
    EXPECT_EQ(fb.ops[MFUSIM_OP_ATTN_PREFILL].source, MFUSIM_SOURCE_DEFAULT);
    EXPECT_EQ(fb.ops[MFUSIM_OP_ATTN_PREFILL].efficiency, 0.9);
}

TEST(CompatSteps, CrashesAreErrors) {
    CompatModel hybrid = fixture_model("tiny_hybrid", "H800");  // no GDN tables on H800
    const auto r = prefills(1, 1024);
    try {
        hybrid.step_time_us(r.data(), r.size());
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::compat_crash);
        EXPECT_NE(std::string(e.what()).find("AssertionError"), std::string::npos);
    }
}

}  // namespace
}  // namespace mfusim::compat
