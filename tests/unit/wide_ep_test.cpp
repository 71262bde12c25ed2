// Wide expert parallelism that does not divide the routed experts (DeepSeek's 256 over EP 48 inside an NVL72
// domain, Qwen3's 128 over EP 48): the engines run it through their load balancers' redundant expert slots,
// ceil(experts / ep) per rank (roofline::physical_experts, operation_plan.hpp), and the library times it so.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/operation_plan.hpp"
#include "roofline/roofline_model.hpp"

namespace mfusim {
namespace {

roofline::RooflineModel dep(int64_t ranks, const std::string& model = "deepseek-v3",
                            const std::string& engine = "trtllm") {
    query::Deployment d;
    d.attention_data_parallel = ranks;
    d.expert_parallel = ranks;
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source(model)),
                                   gpu::resolve_gpu("GB200"), nullptr, d, engines::resolve_engine(engine));
}

double decode_step_us(const roofline::RooflineModel& m, int64_t requests) {
    const std::vector<mfusim_request> batch(static_cast<std::size_t>(requests), mfusim_request{1, 2048, 0u, 0u});
    return m.step_time_us(batch.data(), batch.size());
}

TEST(WideEp, SlotsFillEveryRank) {
    EXPECT_EQ(roofline::physical_experts(256, 1), 256);
    EXPECT_EQ(roofline::physical_experts(256, 32), 256);
    EXPECT_EQ(roofline::physical_experts(256, 48), 288);
    EXPECT_EQ(roofline::physical_experts(128, 48), 144);
}

// EP 48 holds 6 slots a GPU, between EP 32's 8 experts and EP 64's 4: the experts' weights are linear in the slots
// a GPU holds and everything else is replicated alike, so its weight bytes are the mean of the two exactly.
TEST(WideEp, Ep48IsTimedWithSixSlotsPerGpu) {
    const double w32 = dep(32).memory().weight_bytes, w48 = dep(48).memory().weight_bytes;
    const double w64 = dep(64).memory().weight_bytes;
    EXPECT_LT(w64, w48);
    EXPECT_LT(w48, w32);
    EXPECT_NEAR(w48, (w32 + w64) / 2, 1e-9 * w32);
    // A decode step of 64 requests per replica: finite, and no cheaper than EP 64's (more slots to read per rank,
    // the same tokens per rank).
    const double t48 = decode_step_us(dep(48), 64);
    EXPECT_GT(t48, 0.0);
    EXPECT_GE(t48, decode_step_us(dep(64), 64));
    // Qwen3-235B's 128 experts over 48 ranks: 3 slots each.
    EXPECT_NO_THROW(dep(48, "qwen3-235b-a22b"));
}

// TensorRT-LLM's wide EP dispatches each token only to the ranks of its experts (MoeShape::dispatched): at the same
// requests per attention replica, so the same routed pairs per rank, a wider EP holds fewer experts per GPU and
// receives about as many tokens, so its routed experts take no longer. Timing the kernel's passes over every pair of
// the whole group (all replicas' tokens, as a benchmark that feeds each rank every token) made DeepSeek's block-FP8
// experts on GB200 50% slower at EP 64 than at EP 32. vLLM's default all-gather feeds every rank every token: there
// the passes keep the group's pairs and a wider EP costs more.
TEST(WideEp, DispatchedExpertsDoNotSlowDownWithWiderEp) {
    for (int64_t batch : {16, 64}) {
        const double t16 = decode_step_us(dep(16), batch), t32 = decode_step_us(dep(32), batch);
        const double t64 = decode_step_us(dep(64), batch);
        EXPECT_LE(t32, t16 * 1.001) << batch;
        EXPECT_LE(t64, t32 * 1.001) << batch;
        EXPECT_GT(decode_step_us(dep(64, "deepseek-v3", "vllm"), batch), t64) << batch;
    }
}

// A DEP 16 decode inside one NVL72 domain (GB200) against the same decode over two HGX nodes (B200: the messages
// for the other node leave through the NICs). Under SGLang, whose DEP recipes run DeepEP, the domain is faster at
// every batch, one request a replica included: DeepEP's internode kernels pay its fixed cost and the fabric's
// latency (docs/disagg.md section 23). TensorRT-LLM on HGX runs NCCL's collectives there instead
// (EngineProfile::deepep_across_domains 0: the group's tokens gathered, section 24): at 64 requests a replica, where
// they carry real bytes, the domain is faster too; turning the field on times DeepEP's path.
TEST(WideEp, OneNvl72DomainBeatsTwoHgxNodes) {
    query::Deployment d;
    d.attention_data_parallel = 16;
    d.expert_parallel = 16;
    const config::ModelConfig model = config::parse_model_config(config::resolve_model_source("deepseek-v3"));
    ASSERT_TRUE(gpu::resolve_gpu("B200").spans_domains(16));
    ASSERT_FALSE(gpu::resolve_gpu("GB200").spans_domains(16));
    auto pair = [&](const engines::EngineProfile& engine) {
        return std::pair{roofline::RooflineModel(model, gpu::resolve_gpu("GB200"), nullptr, d, engine),
                         roofline::RooflineModel(model, gpu::resolve_gpu("B200"), nullptr, d, engine)};
    };
    const engines::EngineProfile sglang = engines::resolve_engine("sglang");
    ASSERT_EQ(sglang.deepep_across_domains, 1);
    const auto [nvl72, hgx] = pair(sglang);
    for (int64_t batch : {1, 4, 16, 64}) EXPECT_LT(decode_step_us(nvl72, batch), decode_step_us(hgx, batch)) << batch;

    engines::EngineProfile trtllm = engines::resolve_engine("trtllm");
    ASSERT_EQ(trtllm.deepep_across_domains, 0);
    const auto [trt_nvl72, trt_hgx] = pair(trtllm);
    EXPECT_LT(decode_step_us(trt_nvl72, 64), decode_step_us(trt_hgx, 64));
    trtllm.deepep_across_domains = 1;
    const auto [deepep_nvl72, deepep_hgx] = pair(trtllm);
    EXPECT_EQ(decode_step_us(deepep_nvl72, 1), decode_step_us(trt_nvl72, 1));  // inside a domain: no change
    EXPECT_NE(decode_step_us(deepep_hgx, 1), decode_step_us(trt_hgx, 1));
}

// More ranks than experts leave a rank without one of its own: refused, naming the experts.
TEST(WideEp, MoreRanksThanExpertsIsRefused) {
    try {
        dep(64, "qwen3-30b-a3b");  // 128 experts: fine
    } catch (const Error& e) {
        FAIL() << e.what();
    }
    query::Deployment d;
    d.attention_data_parallel = 256;
    d.expert_parallel = 256;
    EXPECT_THROW(roofline::RooflineModel(config::parse_model_config(config::resolve_model_source("qwen3-30b-a3b")),
                                         gpu::resolve_gpu("GB200"), nullptr, d),
                 Error);
}

}  // namespace
}  // namespace mfusim
