// The serving estimate: its regimes, limits and monotonicity, and its agreement with the step model.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "serving/serving.hpp"

namespace mfusim::serving {
namespace {

roofline::RooflineModel model(const std::string& name, int64_t tp = 1, const std::string& engine = "vllm") {
    query::Deployment d;
    d.tensor_parallel = tp;
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source(name)),
                                   gpu::resolve_gpu("H100"), nullptr, d, engines::resolve_engine(engine));
}

mfusim_serving_result serve(const roofline::RooflineModel& m, int64_t isl, int64_t osl, int64_t concurrency,
                            double requests_per_client = 0, double min_length_ratio = 1) {
    Workload w;
    w.input_len = isl;
    w.output_len = osl;
    w.concurrency = concurrency;
    w.requests_per_client = requests_per_client;
    w.min_length_ratio = min_length_ratio;
    mfusim_serving_result r{};
    r.struct_size = sizeof r;
    estimate(m, w, r);
    return r;
}

TEST(Serving, MoreConcurrencyMeansSlowerTokensAndMoreThroughput) {
    auto m = model("llama-3.1-8b-instruct");
    double last_tpot = 0, last_tput = 0, last_ttft = 0;
    for (int64_t c : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
        mfusim_serving_result r = serve(m, 1024, 256, c);
        EXPECT_TRUE(std::isfinite(r.ttft_ms) && std::isfinite(r.tpot_ms)) << c;
        EXPECT_GE(r.tpot_ms, last_tpot) << c;
        EXPECT_GE(r.ttft_ms, last_ttft * 0.999) << c;
        EXPECT_GT(r.output_throughput_tok_s_gpu, last_tput) << c;
        EXPECT_NEAR(r.e2e_ms, r.ttft_ms + 255 * r.tpot_ms, 1e-9 * r.e2e_ms);
        last_tpot = r.tpot_ms;
        last_tput = r.output_throughput_tok_s_gpu;
        last_ttft = r.ttft_ms;
    }
}

TEST(Serving, StepTimesAreTheStepModelsOwn) {
    auto m = model("qwen3-8b", 1, "none");
    mfusim_serving_result r = serve(m, 2048, 128, 1);
    // One client: its prompt's step carries (in the mean) just under one decode, so the mixed step lies between the
    // step model's prefill alone and the prefill with one decode.
    roofline::StepMix mix;
    mix.chunks = 1;
    mix.chunk_tokens = 2048;
    mix.decode_context = 2048 + 127 / 2;
    const double alone = m.mix_time_us(mix);
    mix.decodes = 1;
    const double with_decode = m.mix_time_us(mix);
    EXPECT_GT(r.mixed_step_ms * 1000, alone);
    EXPECT_LT(r.mixed_step_ms * 1000, with_decode);
    EXPECT_LT(r.decode_batch, 1.0);
    // The kernels-only engine adds nothing outside the steps: TTFT is half a step of waiting plus the prefill.
    EXPECT_GT(r.ttft_ms, r.mixed_step_ms);
    EXPECT_LT(r.ttft_ms, r.mixed_step_ms + r.decode_step_ms);
}

TEST(Serving, WithoutMixedBatchesClientsMoveInWaves) {
    auto mixed = model("llama-3.1-8b-instruct", 1, "vllm");
    auto waves = model("llama-3.1-8b-instruct", 1, R"({"base": "vllm", "mixed_batches": false})");
    mfusim_serving_result a = serve(mixed, 2048, 256, 64), b = serve(waves, 2048, 256, 64);
    // 64 prompts of 2048 tokens are 16 budget-sized batches: waves wait for most of them.
    EXPECT_GT(b.ttft_ms, 4 * a.ttft_ms);
    EXPECT_EQ(b.decode_batch, 64);
    // The first-wave term of a short measurement lies between steady state and waves.
    mfusim_serving_result k = serve(mixed, 2048, 256, 64, 5);
    EXPECT_GT(k.ttft_ms, a.ttft_ms);
    EXPECT_LT(k.ttft_ms, b.ttft_ms);
}

// Drawn lengths spread the clients' finishes, so an engine that keeps prefill and decode apart no longer sees its
// clients arrive together after their first request: the closed form answers it as the mixed engine's staggered
// steady state (with the first wave weighted 1/k), not as lockstep waves; fixed lengths keep the waves.
TEST(Serving, DrawnLengthsTakeClientsOutOfLockstepWaves) {
    auto mixed = model("llama-3.1-8b-instruct", 1, "vllm");
    auto apart = model("llama-3.1-8b-instruct", 1, R"({"base": "vllm", "mixed_batches": false})");
    auto run = [](const roofline::RooflineModel& m, double ratio) { return serve(m, 2048, 256, 64, 10, ratio); };
    const mfusim_serving_result fixed = run(apart, 1), drawn = run(apart, 0.8);
    // Waves queue 16 budget-sized batches of prompts; staggered arrivals wait for about one step and their own.
    EXPECT_LT(drawn.ttft_ms, 0.5 * fixed.ttft_ms);
    EXPECT_EQ(fixed.decode_batch, 64);
    EXPECT_LT(drawn.decode_batch, 64);
    // Staggered, both engines are the same regime.
    EXPECT_DOUBLE_EQ(drawn.ttft_ms, run(mixed, 0.8).ttft_ms);
    // A mixed engine is staggered whatever the lengths: the ratio does not move it.
    EXPECT_DOUBLE_EQ(run(mixed, 1).ttft_ms, run(mixed, 0.8).ttft_ms);
}

// SGLang runs its prefill batches without the decodes, so under drawn lengths (answered in the staggered steady
// state) the running decodes take none of the prefill batch's token budget: a prompt as long as the budget is one
// chunk, where a mixed engine's step shares the budget with its decodes and cuts the prompt in two
// (docs/simulate.md, "Closed form against simulation on unseen GPUs (2026-11-27)").
TEST(Serving, PrefillApartFromDecodesHasTheWholeBudget) {
    auto mixed = model("llama-3.1-8b-instruct", 1, "vllm");
    auto apart = model("llama-3.1-8b-instruct", 1, R"({"base": "vllm", "mixed_batches": false})");
    auto run = [](const roofline::RooflineModel& m) {
        Workload w;
        w.input_len = 2048;
        w.output_len = 256;
        w.concurrency = 64;
        w.max_batched_tokens = 2048;
        w.min_length_ratio = 0.8;
        mfusim_serving_result r{};
        r.struct_size = sizeof r;
        estimate(m, w, r);
        return r;
    };
    const mfusim_serving_result a = run(apart), b = run(mixed);
    EXPECT_GT(b.decode_batch, 30);  // decodes enough to take a share of the mixed step's budget
    EXPECT_EQ(a.prefill_steps_per_request, 1);
    EXPECT_EQ(b.prefill_steps_per_request, 2);
    EXPECT_LT(a.ttft_ms, b.ttft_ms);
}

TEST(Serving, KvCapacityLimitsTheRunningRequestsAndQueuesTheRest) {
    auto m = model("llama-3.1-70b-instruct", 4);
    mfusim_serving_result small = serve(m, 8192, 1024, 8), big = serve(m, 8192, 1024, 2048);
    EXPECT_EQ(small.limited_by, MFUSIM_SERVING_LIMIT_NONE);
    EXPECT_EQ(big.limited_by, MFUSIM_SERVING_LIMIT_KV_CAPACITY);
    EXPECT_LT(big.running_requests, 2048);
    EXPECT_NEAR(big.running_requests * (8192 + 512), big.kv_capacity_tokens, 8192 + 512);
    EXPECT_GT(big.queue_ms, 1000);
}

TEST(Serving, TrtllmReservesEachRequestsWholeLengthInTheCache) {
    // TensorRT-LLM's GUARANTEED_NO_EVICT admits a request only with blocks for its whole prompt and output, as the
    // simulator's scheduler does; vLLM holds what a request has computed (prompt and half the output on average).
    const int64_t in = 1024, out = 8192;
    auto vllm = model("llama-3.1-70b-instruct", 4, "vllm"), trt = model("llama-3.1-70b-instruct", 4, "trtllm");
    const mfusim_serving_result v = serve(vllm, in, out, 2048), t = serve(trt, in, out, 2048);
    EXPECT_EQ(v.limited_by, MFUSIM_SERVING_LIMIT_KV_CAPACITY);
    EXPECT_EQ(t.limited_by, MFUSIM_SERVING_LIMIT_KV_CAPACITY);
    const double mean = in + out / 2.0;
    auto space = [&](const roofline::RooflineModel& m, const mfusim_serving_result& r) {
        return r.kv_capacity_tokens / mean * m.memory().request_bytes(mean);
    };
    EXPECT_NEAR(v.running_requests, std::floor(space(vllm, v) / vllm.memory().request_bytes(mean)), 1.0);
    EXPECT_NEAR(t.running_requests, std::floor(space(trt, t) / trt.memory().request_bytes(in + out)), 1.0);
    // Here that is about (1024 + 4096) / (1024 + 8192) of vLLM's count on the same cache.
    EXPECT_LT(t.running_requests / space(trt, t), 0.6 * v.running_requests / space(vllm, v));
    // Below the cache's limit nothing changes.
    EXPECT_EQ(serve(trt, in, 128, 8).limited_by, MFUSIM_SERVING_LIMIT_NONE);
    // Drawn lengths (uniform in [0.8 L, L]): each request reserves its own, so the cache holds their mean.
    const mfusim_serving_result drawn = serve(trt, in, out, 2048, 0, 0.8);
    const double drawn_whole = (std::floor(0.8 * in) + in) / 2 + (std::floor(0.8 * out) + out) / 2;
    EXPECT_NEAR(drawn.running_requests, std::floor(space(trt, t) / trt.memory().request_bytes(drawn_whole)), 1.0);
    EXPECT_GT(drawn.running_requests, t.running_requests);
}

TEST(Serving, RecurrentStateSharesTheCacheWithKv) {
    // Qwen3-Next: 3 of 4 layers are Gated DeltaNet, each request holding a fixed state beside its KV. The cache
    // holds whole requests, so its capacity in tokens is the space over (KV + state) per request.
    auto m = model("qwen3-next-80b-a3b", 4);
    const roofline::MemoryFacts& mem = m.memory();
    ASSERT_GT(mem.state_bytes_per_request, 0);
    const double context = 2048 + 256 / 2.0;
    EXPECT_EQ(mem.request_bytes(context), mem.kv_bytes_for(context) + mem.state_bytes_per_request);
    const mfusim_serving_result r = serve(m, 2048, 256, 4096);
    EXPECT_EQ(r.limited_by, MFUSIM_SERVING_LIMIT_KV_CAPACITY);
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const double space = m.gpu().memory_gb * gib * m.engine().gpu_memory_utilization - mem.weight_bytes -
                         m.engine().activation_reserve_gb * gib;
    EXPECT_NEAR(r.kv_capacity_tokens, space / mem.request_bytes(context) * context, 1.0);
    // The state is not negligible here: counting KV alone would promise noticeably more room.
    EXPECT_LT(r.kv_capacity_tokens, 0.95 * space / mem.kv_bytes_for(context) * context);
    EXPECT_NEAR(r.running_requests, std::floor(space / mem.request_bytes(context)), 1.0);
}

TEST(Serving, RefusesWeightsThatDoNotFitAndBadWorkloads) {
    auto m = model("llama-3.1-70b-instruct", 1);  // 141 GB of BF16 weights on one 80 GB GPU
    try {
        serve(m, 1024, 128, 1);
        FAIL() << "expected a refusal";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::config);
        EXPECT_NE(std::string(e.what()).find("the weights take"), std::string::npos) << e.what();
    }
    auto ok = model("qwen3-8b");
    EXPECT_THROW(serve(ok, 0, 128, 1), Error);
    EXPECT_THROW(serve(ok, 1024, 0, 1), Error);
    EXPECT_THROW(serve(ok, 1024, 128, 0), Error);
    EXPECT_THROW(serve(ok, 1024, 128, 1, 0.5), Error);
    EXPECT_THROW(serve(ok, 1024, 128, 1, std::nan("")), Error);
}

TEST(Serving, TensorParallelismShortensTokens) {
    mfusim_serving_result tp1 = serve(model("qwen3-14b", 1), 1024, 256, 16);
    mfusim_serving_result tp4 = serve(model("qwen3-14b", 4), 1024, 256, 16);
    EXPECT_LT(tp4.tpot_ms, tp1.tpot_ms);
    EXPECT_LT(tp4.ttft_ms, tp1.ttft_ms);
    EXPECT_LT(tp4.output_throughput_tok_s_gpu, tp1.output_throughput_tok_s_gpu);  // per GPU
}

}  // namespace
}  // namespace mfusim::serving
