// Attention data parallelism over MoE tensor parallelism (attention DP with expert parallelism 1: TensorRT-LLM's
// enable_attention_dp with moe_expert_parallel_size 1, SGLang's --enable-dp-attention without --ep-size, the
// NVIDIA B200/B300 disaggregated recipes' context servers): every GPU of the group runs its 1/(tp x dp) share of
// every expert on the whole group's tokens, gathered before the experts and reduce-scattered after them
// (operation_plan.cpp, OperationPlanner::moe).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "mfusim.h"
#include "roofline/analytical.hpp"
#include "roofline/roofline_model.hpp"

namespace mfusim {
namespace {

roofline::RooflineModel group(int64_t dp, int64_t ep, const char* gpu = "B200", const std::string& quant = "",
                              const engines::EngineProfile& engine = engines::resolve_engine("trtllm")) {
    query::Deployment d;
    d.attention_data_parallel = dp;
    d.expert_parallel = ep;
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source("deepseek-v3")),
                                   gpu::resolve_gpu(gpu), nullptr, d, engine, quant);
}

double step_us(const roofline::RooflineModel& m, int64_t requests, int64_t prompt, mfusim_step_result* detail) {
    std::vector<mfusim_request> batch(static_cast<std::size_t>(requests), mfusim_request{1, 2048, 0u, 0u});
    if (prompt > 0) batch.push_back(mfusim_request{prompt, 0, 0u, 0u});
    if (detail != nullptr) {
        detail->struct_size = sizeof *detail;
        m.step_detail(batch.data(), batch.size(), *detail);
        return detail->total_us;
    }
    return m.step_time_us(batch.data(), batch.size());
}

// Was refused ("modelled with expert parallelism only"); now timed. Each GPU holds 1/8 of every expert: the same
// expert bytes as EP 8's eight whole experts, the rest alike.
TEST(AttentionDpMoeTp, IsTimedAndHoldsAnEighthOfTheExperts) {
    const roofline::RooflineModel tp_moe = group(8, 1), ep_moe = group(8, 8);
    EXPECT_NEAR(tp_moe.memory().weight_bytes, ep_moe.memory().weight_bytes, 1e-3 * ep_moe.memory().weight_bytes);
    for (int64_t requests : {1, 16, 128}) {
        const double t = step_us(tp_moe, requests, 0, nullptr);
        EXPECT_GT(t, 0.0) << requests;
        EXPECT_LT(t, 1e6) << requests;
    }
}

// The gather and scatter carry the group's tokens: reported as the MoE's communication, growing with the tokens, and
// none of it without attention DP (TP 8 all-reduces instead).
TEST(AttentionDpMoeTp, GathersAndScattersTheGroupsTokens) {
    mfusim_step_result small{}, large{};
    step_us(group(8, 1), 4, 0, &small);
    step_us(group(8, 1), 4, 8192, &large);
    const double comm_small = small.ops[MFUSIM_OP_EP_COMM].time_us;
    const double comm_large = large.ops[MFUSIM_OP_EP_COMM].time_us;
    EXPECT_GT(comm_small, 0.0);
    EXPECT_GT(comm_large, 2 * comm_small);
    query::Deployment tp8;
    tp8.tensor_parallel = 8;
    const roofline::RooflineModel tp_only(config::parse_model_config(config::resolve_model_source("deepseek-v3")),
                                          gpu::resolve_gpu("B200"), nullptr, tp8, engines::resolve_engine("trtllm"));
    mfusim_step_result none{};
    step_us(tp_only, 4, 0, &none);
    EXPECT_EQ(none.ops[MFUSIM_OP_EP_COMM].time_us, 0.0);
    EXPECT_GT(none.ops[MFUSIM_OP_TP_ALLREDUCE].time_us, 0.0);
}

// Expert parallelism over two HGX nodes under TensorRT-LLM, which has no all-to-all there (MNNVL only inside an
// NVL72 domain): its fused MoE all-gathers every replica's tokens and reduce-scatters the outputs over NCCL, the
// collectives of attention DP over MoE TP above. So its communication is the gather path's over the 16 GPUs' ring:
// the tokens' BF16 hidden states (block-FP8 experts quantise inside the kernel) with their top-8 ids and weights,
// and BF16 outputs back; inside one node, and under SGLang's DeepEP, it is not.
TEST(AttentionDpMoeTp, AcrossHgxNodesTensorRtLlmGathersTheGroupsTokensForItsExperts) {
    const roofline::RooflineModel ep16 = group(16, 16), tp16 = group(16, 1);
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    ASSERT_TRUE(b200.spans_domains(16));
    const double moe_layers = 58, hidden = 7168, routing = 8 * 8;
    for (int64_t requests : {1, 64}) {
        for (int64_t prompt : {0, 4096}) {
            mfusim_step_result ep{}, tp{};
            step_us(ep16, requests, prompt, &ep);
            step_us(tp16, requests, prompt, &tp);
            const double comm = ep.ops[MFUSIM_OP_EP_COMM].time_us;
            EXPECT_DOUBLE_EQ(comm, tp.ops[MFUSIM_OP_EP_COMM].time_us) << requests << " " << prompt;
            const double group_tokens = 16.0 * static_cast<double>(requests + prompt);
            const double per_token = (2 * hidden + routing + 2 * hidden) / 2;
            EXPECT_NEAR(comm, moe_layers * roofline::nccl_allreduce_us(b200, group_tokens * per_token, 16),
                        1e-9 * comm);
        }
    }
    // NVFP4 experts on Blackwell: TensorRT-LLM gathers FP4 activations with an FP8 scale per 16 (quantise, then
    // allgather); SGLang's dp_gather moves BF16 hidden states.
    const roofline::RooflineModel fp4 = group(16, 1, "B200", "nvfp4");
    mfusim_step_result quantised{};
    step_us(fp4, 64, 0, &quantised);
    const double fp4_per_token = ((0.5 + 1.0 / 16) * hidden + routing + 2 * hidden) / 2;
    EXPECT_NEAR(quantised.ops[MFUSIM_OP_EP_COMM].time_us,
                moe_layers * roofline::nccl_allreduce_us(b200, 16.0 * 64 * fp4_per_token, 16),
                1e-9 * quantised.ops[MFUSIM_OP_EP_COMM].time_us);
    mfusim_step_result bf16{};
    step_us(group(16, 1, "B200", "nvfp4", engines::resolve_engine("sglang")), 64, 0, &bf16);
    EXPECT_NEAR(bf16.ops[MFUSIM_OP_EP_COMM].time_us,
                moe_layers * roofline::nccl_allreduce_us(b200, 16.0 * 64 * 2 * hidden, 16),
                1e-9 * bf16.ops[MFUSIM_OP_EP_COMM].time_us);
    // SGLang runs DeepEP across the nodes: another time.
    query::Deployment d;
    d.attention_data_parallel = 16;
    d.expert_parallel = 16;
    const roofline::RooflineModel sglang(config::parse_model_config(config::resolve_model_source("deepseek-v3")), b200,
                                         nullptr, d, engines::resolve_engine("sglang"));
    mfusim_step_result deepep{}, gathered{};
    step_us(sglang, 64, 0, &deepep);
    step_us(ep16, 64, 0, &gathered);
    EXPECT_NE(deepep.ops[MFUSIM_OP_EP_COMM].time_us, gathered.ops[MFUSIM_OP_EP_COMM].time_us);
}

// SGLang's dp_gather: a decode-only step all-gathers and reduce-scatters the group's BF16 tokens (MAX_LEN), one
// all-reduce's bytes; a step with prefill tokens all-reduces the zero-padded group buffer and then the experts'
// outputs (SUM_LEN), twice that (EngineProfile::moe_gather_extend_allreduce). TensorRT-LLM gathers alike in both.
TEST(AttentionDpMoeTp, SglangAllReducesTwiceWhenTheBatchExtends) {
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    const double moe_layers = 58, hidden = 7168;
    const roofline::RooflineModel sglang = group(8, 1, "B200", "", engines::resolve_engine("sglang"));
    const roofline::RooflineModel plain =
        group(8, 1, "B200", "", engines::resolve_engine(R"({"base":"sglang","moe_gather_extend_allreduce":0})"));
    mfusim_step_result decode{}, extend{}, extend_plain{};
    step_us(sglang, 64, 0, &decode);
    step_us(sglang, 64, 512, &extend);
    step_us(plain, 64, 512, &extend_plain);
    EXPECT_NEAR(decode.ops[MFUSIM_OP_EP_COMM].time_us,
                moe_layers * roofline::nccl_allreduce_us(b200, 8.0 * 64 * 2 * hidden, 8),
                1e-9 * decode.ops[MFUSIM_OP_EP_COMM].time_us);
    const double once = moe_layers * roofline::nccl_allreduce_us(b200, 8.0 * (64 + 512) * 2 * hidden, 8);
    EXPECT_NEAR(extend_plain.ops[MFUSIM_OP_EP_COMM].time_us, once, 1e-9 * once);
    EXPECT_NEAR(extend.ops[MFUSIM_OP_EP_COMM].time_us, 2 * once, 2e-9 * once);
}

// TensorRT-LLM before PR 8950 (1.1.0rc2.post2, InferenceX's B200 and H200 DeepSeek image until February 2026) ran
// its MoE all-to-all under attention DP only for an EP group larger than the experts per token
// (select_alltoall_method_type: moe_ep_size > experts_per_token and MNNVL), and gathered otherwise: DeepSeek's top-8
// at DEP 8 inside one HGX node takes the gather path of a profile that always gathers, while DEP 16 in one NVL72
// domain and later releases keep the all-to-all (EngineProfile::moe_alltoall_above_topk).
TEST(AttentionDpMoeTp, TensorRtLlmBeforePr8950GathersWhereEpIsAtMostTheTopK) {
    using engines::moe_alltoall_above_topk_of;
    using engines::resolve_engine;
    EXPECT_TRUE(moe_alltoall_above_topk_of(resolve_engine("trtllm", "1.1.0rc2.post2")));
    EXPECT_TRUE(moe_alltoall_above_topk_of(resolve_engine("trtllm", "1.2.0rc2")));
    EXPECT_FALSE(moe_alltoall_above_topk_of(resolve_engine("trtllm", "1.2.0rc6.post2")));
    EXPECT_FALSE(moe_alltoall_above_topk_of(resolve_engine("trtllm")));  // no release named: the built-in profile's
    EXPECT_FALSE(moe_alltoall_above_topk_of(resolve_engine("vllm", "0.11.2")));
    EXPECT_FALSE(moe_alltoall_above_topk_of(
        resolve_engine(R"({"base":"trtllm","moe_alltoall_above_topk":false})", "1.1.0rc2.post2")));

    auto ep_comm = [](const roofline::RooflineModel& m, int64_t requests, int64_t prompt) {
        mfusim_step_result r{};
        step_us(m, requests, prompt, &r);
        return r.ops[MFUSIM_OP_EP_COMM].time_us;
    };
    const engines::EngineProfile old = resolve_engine("trtllm", "1.1.0rc2.post2"), current = resolve_engine("trtllm");
    const engines::EngineProfile gathers = resolve_engine(R"({"base":"trtllm","moe_gather_within_domain":1})");
    for (int64_t requests : {1, 64}) {
        for (int64_t prompt : {0, 4096}) {
            const double at_old = ep_comm(group(8, 8, "B200", "nvfp4", old), requests, prompt);
            EXPECT_DOUBLE_EQ(at_old, ep_comm(group(8, 8, "B200", "nvfp4", gathers), requests, prompt));
            EXPECT_NE(at_old, ep_comm(group(8, 8, "B200", "nvfp4", current), requests, prompt));
            // DEP 16 in one NVL72 domain: EP 16 > top-8, the all-to-all in both releases.
            EXPECT_DOUBLE_EQ(ep_comm(group(16, 16, "GB200", "nvfp4", old), requests, prompt),
                             ep_comm(group(16, 16, "GB200", "nvfp4", current), requests, prompt));
        }
    }
}

}  // namespace
}  // namespace mfusim
