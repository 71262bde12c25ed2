// The engine loops' ways of holding context requests back (docs/simulate.md, sections 2 and 8): TensorRT-LLM's
// batch waiting (batch_wait_timeout_iters / batch_wait_max_tokens_ratio, PyExecutor._waiting_requests) and
// attention-DP balancing (attention_dp_config, PyExecutor._balance_adp_requests), both off in the built-in profile
// as in the engine's defaults, each test turning one on; and the overlap scheduler (overlap_scheduler), on in the
// `trtllm` and `sglang` profiles as in the engines (PyExecutor._executor_loop_overlap, SGLang's
// Scheduler.event_loop_overlap: batch n+1 is taken while step n runs, so a request arriving during a step joins the
// step after next), each test comparing it with the same profile off. Each checks the rule the source states.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "serving/serving.hpp"
#include "simulate/adp_balance.hpp"
#include "simulate/simulator.hpp"

namespace mfusim::simulate {
namespace {

roofline::RooflineModel model(const std::string& engine, int64_t dp = 1, const std::string& name = "qwen3-8b") {
    query::Deployment d;
    d.attention_data_parallel = dp;
    d.expert_parallel = dp;
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source(name)),
                                   gpu::resolve_gpu("H100"), nullptr, d, engines::resolve_engine(engine));
}

// Closed-loop clients with bench_serving's uniform lengths, so that they leave the first wave within a few
// requests and new prompts arrive while others decode (the case both rules are about).
Result run(const roofline::RooflineModel& m, int64_t clients, int64_t isl, int64_t osl) {
    Options o;
    o.scheduler = scheduler_config(m.engine());
    o.workload.arrivals.max_concurrency = clients;
    o.workload.num_prompts = 12 * clients;
    o.workload.warmup = 2 * clients;
    o.workload.input = {LengthDistribution::Kind::uniform, static_cast<double>(isl), 0.1 * static_cast<double>(isl)};
    o.workload.output = {LengthDistribution::Kind::uniform, static_cast<double>(osl), 0.1 * static_cast<double>(osl)};
    return simulate(m, o);
}

constexpr const char* kWait =
    R"({"base":"trtllm","max_batched_tokens":2304,"batch_wait_timeout_iters":20,"batch_wait_max_tokens_ratio":0.9})";

// A 1k prompt with three decodes is far below 0.9 x 2304 tokens, so each new prompt waits the 20 iterations of
// the timeout, each about one decode step (the TPOT): TTFT grows by close to 20 TPOTs (less when a second prompt
// arrives during a wait and shares its end), TPOT barely moves. InferenceX's Llama-3.1-70B 1k/1k runs below TP 8
// set exactly these flags and measure 386, 230 and 132 ms more TTFT at TP 1, 2 and 4 than their 1k/8k runs
// (20 x 20.1, 12.0 and 8.0 ms TPOT: 402, 240, 160).
TEST(TrtllmBatchWaiting, ContextRequestsWaitTheTimeoutWhileOthersDecode) {
    const Result base = run(model("trtllm"), 4, 1024, 256);
    const Result wait = run(model(kWait), 4, 1024, 256);
    const double added = (wait.ttft_ms.mean - base.ttft_ms.mean) / base.tpot_ms.mean;
    EXPECT_GT(added, 14) << wait.ttft_ms.mean << " vs " << base.ttft_ms.mean;
    EXPECT_LT(added, 21);
    EXPECT_NEAR(wait.tpot_ms.mean / base.tpot_ms.mean, 1, 0.05);
}

// The token threshold releases at once when the step's tokens reach it (0.1 x 2304 < one 1k prompt), and, as in
// the engine, a ratio without a timeout never holds (iterations waited >= 0 is always true). Either way the run
// is the default's, to the last digit.
TEST(TrtllmBatchWaiting, ThresholdReachedOrNoTimeoutNeverHolds) {
    const Result base = run(model(R"({"base":"trtllm","max_batched_tokens":2304})"), 4, 1024, 256);
    for (
        const char* engine :
        {R"({"base":"trtllm","max_batched_tokens":2304,"batch_wait_timeout_iters":20,"batch_wait_max_tokens_ratio":0.1})",
         R"({"base":"trtllm","max_batched_tokens":2304,"batch_wait_max_tokens_ratio":0.9})"}) {
        const Result r = run(model(engine), 4, 1024, 256);
        EXPECT_EQ(r.ttft_ms.mean, base.ttft_ms.mean) << engine;
        EXPECT_EQ(r.steps, base.steps) << engine;
    }
}

// PyExecutor._schedule waits for a batch only without attention DP: the same flags hold prompts back in one
// replica and leave a DEP 2 group's run as it was, to the last digit.
TEST(TrtllmBatchWaiting, OffUnderAttentionDp) {
    const std::string moe = "qwen3-30b-a3b";
    const char* plain = R"({"base":"trtllm","max_batched_tokens":2304})";
    EXPECT_EQ(run(model(kWait, 2, moe), 8, 1024, 128).ttft_ms.mean,
              run(model(plain, 2, moe), 8, 1024, 128).ttft_ms.mean);
    EXPECT_GT(run(model(kWait, 1, moe), 8, 1024, 128).ttft_ms.mean,
              run(model(plain, 1, moe), 8, 1024, 128).ttft_ms.mean);
}

using Rank = AdpBalance::Rank;

// The balancing rule, iteration by iteration (_balance_adp_requests).
TEST(TrtllmAdpBalance, WaitsForEveryRankOrTheTimeout) {
    const Rank ctx_gen{1, 2, true}, gen{0, 2, true}, ctx_only{1, 0, true}, idle{0, 0, false};
    AdpBalance b(3, 0, 64);
    // One rank has a context request, all have generation requests: held until the third iteration.
    EXPECT_TRUE(b.hold({ctx_gen, gen}));
    EXPECT_TRUE(b.hold({ctx_gen, gen}));
    EXPECT_FALSE(b.hold({ctx_gen, gen}));
    // Every rank has one: they go together.
    EXPECT_FALSE(b.hold({ctx_gen, ctx_gen}));
    // A rank without generation requests has nothing to overlap a wait with: no hold.
    EXPECT_FALSE(b.hold({ctx_gen, ctx_only}));
    // An idle rank runs a dummy generation request (_pad_attention_dp_dummy_request), so the others wait for it.
    EXPECT_TRUE(b.hold({ctx_gen, idle}));
    // A rank whose generation batch is full has no room for a context request: no balanced start, so wait.
    AdpBalance full(3, 0, 2);
    EXPECT_TRUE(full.hold({ctx_gen, ctx_gen}));
    // batching_wait_iters: with context and generation requests everywhere, they wait that many iterations more.
    AdpBalance batching(50, 2, 64);
    EXPECT_TRUE(batching.hold({ctx_gen, ctx_gen}));
    EXPECT_TRUE(batching.hold({ctx_gen, ctx_gen}));
    EXPECT_FALSE(batching.hold({ctx_gen, ctx_gen}));
}

// In a simulated DEP group, balancing holds prompts back for up to `timeout_iters` decode steps: TTFT grows by
// many steps, not by a fraction of one; off (the default), nothing changes.
TEST(TrtllmAdpBalance, HoldsPromptsBackInTheGroup) {
    const std::string moe = "qwen3-30b-a3b";
    const Result base = run(model("trtllm", 4, moe), 8, 1024, 256);
    const Result balanced = run(model(R"({"base":"trtllm","attention_dp_balance":true,"attention_dp_timeout_iters":60,)"
                                      R"("attention_dp_batching_wait_iters":0})",
                                      4, moe),
                                8, 1024, 256);
    EXPECT_GT(balanced.ttft_ms.mean - base.ttft_ms.mean, 10 * base.tpot_ms.mean);
    EXPECT_LT(balanced.ttft_ms.mean - base.ttft_ms.mean, 60 * base.tpot_ms.mean);
    EXPECT_EQ(balanced.completed, base.completed);
    EXPECT_FALSE(engines::resolve_engine("trtllm").attention_dp_balance);
    EXPECT_EQ(engines::resolve_engine("trtllm").batch_wait_timeout_iters, 0);
}

constexpr const char* kOff = R"({"base":"trtllm","overlap_scheduler":false})";

TEST(OverlapScheduler, OnInTheBuiltInProfilesAndReadFromJson) {
    EXPECT_TRUE(engines::overlap_scheduler_of(engines::resolve_engine("trtllm")));
    EXPECT_FALSE(engines::overlap_scheduler_of(engines::resolve_engine("vllm")));  // no version named
    EXPECT_TRUE(engines::overlap_scheduler_of(engines::resolve_engine("sglang")));
    EXPECT_FALSE(engines::overlap_scheduler_of(engines::resolve_engine(kOff)));
}

// SGLang turns its overlap loop off for a model with recurrent layers (ServerArgs._handle_mamba_radix_cache), the
// case its serial_host_step_us charges; TensorRT-LLM, which charges no such term, keeps it.
TEST(OverlapScheduler, SglangTurnsItOffForRecurrentModels) {
    EXPECT_TRUE(model("sglang").overlaps_scheduling());
    EXPECT_FALSE(model("sglang", 1, "qwen3.5-35b-a3b").overlaps_scheduling());
    EXPECT_TRUE(model("trtllm", 1, "qwen3.5-35b-a3b").overlaps_scheduling());
    EXPECT_FALSE(model(kOff).overlaps_scheduling());
}

// With clients that keep the engine decoding, a new prompt arrives during a step and, its batch already taken,
// waits for the step after it: TTFT grows by one step (about one TPOT), half a step more than the wait for the
// running step's end that both loops share; TPOT barely moves (the decodes run back to back either way).
TEST(OverlapScheduler, ArrivalDuringAStepWaitsOneStepMore) {
    const Result off = run(model(kOff), 8, 1024, 256);
    const Result on = run(model("trtllm"), 8, 1024, 256);
    const double added = (on.ttft_ms.mean - off.ttft_ms.mean) / off.tpot_ms.mean;
    EXPECT_GT(added, 0.6) << on.ttft_ms.mean << " vs " << off.ttft_ms.mean;
    EXPECT_LT(added, 1.4);
    EXPECT_NEAR(on.tpot_ms.mean / off.tpot_ms.mean, 1, 0.03);
}

// An idle engine's fetch blocks, so a prompt reaching it starts at once: one client at a time sees no difference.
TEST(OverlapScheduler, IdleEngineStartsAtOnce) {
    const Result off = run(model(kOff), 1, 1024, 64);
    const Result on = run(model("trtllm"), 1, 1024, 64);
    EXPECT_DOUBLE_EQ(on.ttft_ms.mean, off.ttft_ms.mean);
    EXPECT_DOUBLE_EQ(on.tpot_ms.mean, off.tpot_ms.mean);
}

// TensorRT-LLM does not chunk prompts (BaseLlmArgs.enable_chunked_prefill defaults to false): its micro-batch
// scheduler skips a context request that does not fit the step's remaining max_num_tokens, and the request waits for
// a step with room for all of it. Four clients of 1,200-token prompts under a 1,500-token budget: without chunks
// every step's prefill is whole prompts; the same profile with chunking on cuts a second prompt to fill the budget.
TEST(TrtllmChunkedPrefill, OffByDefaultSoAPromptWaitsForRoomForAllOfIt) {
    auto prefills = [](const char* engine) {
        const roofline::RooflineModel m = model(engine);
        Options o;
        o.scheduler = scheduler_config(m.engine());
        o.record_timeline = true;
        o.workload.arrivals.max_concurrency = 4;
        o.workload.num_prompts = 24;
        o.workload.input = {LengthDistribution::Kind::fixed, 1200, 0};
        o.workload.output = {LengthDistribution::Kind::fixed, 32, 0};
        std::vector<int32_t> tokens;
        for (const StepRecord& step : simulate(m, o).timeline) tokens.push_back(step.prefill_tokens);
        return tokens;
    };
    int cut = 0;
    for (int32_t t : prefills(R"({"base":"trtllm","max_batched_tokens":1500})")) EXPECT_EQ(t % 1200, 0) << t;
    for (int32_t t : prefills(R"({"base":"trtllm","max_batched_tokens":1500,"chunked_prefill":true})")) {
        cut += t % 1200 != 0 ? 1 : 0;
    }
    EXPECT_GT(cut, 0);
}

// A prompt above the budget can never be scheduled without chunks; the engine refuses it ("should not exceed
// max_num_tokens", LLM._check_arguments), and so does the simulator, up front, naming the request and the budget.
TEST(TrtllmChunkedPrefill, APromptAboveTheBudgetIsRefusedUpFront) {
    const roofline::RooflineModel m = model(R"({"base":"trtllm","max_batched_tokens":1000})");
    Options o;
    o.scheduler = scheduler_config(m.engine());
    o.workload.arrivals.max_concurrency = 2;
    o.workload.num_prompts = 4;
    o.workload.input = {LengthDistribution::Kind::fixed, 1200, 0};
    o.workload.output = {LengthDistribution::Kind::fixed, 8, 0};
    try {
        simulate(m, o);
        FAIL() << "a 1,200-token prompt under a 1,000-token budget was simulated";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported);
        EXPECT_NE(std::string(e.what()).find("max_batched_tokens 1000"), std::string::npos) << e.what();
    }
    o.scheduler.chunked_prefill = true;
    EXPECT_EQ(simulate(m, o).completed, 4);
}

// The closed form answers the same engine the same way: refused above the budget, answered at it or with chunks.
TEST(TrtllmChunkedPrefill, TheClosedFormRefusesTheSamePrompt) {
    serving::Workload w;
    w.input_len = 1200;
    w.output_len = 8;
    w.concurrency = 2;
    mfusim_serving_result out{};
    out.struct_size = sizeof out;
    try {
        serving::estimate(model(R"({"base":"trtllm","max_batched_tokens":1000})"), w, out);
        FAIL() << "a 1,200-token prompt under a 1,000-token budget was answered";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported);
        EXPECT_NE(std::string(e.what()).find("max_batched_tokens 1000"), std::string::npos) << e.what();
    }
    serving::estimate(model(R"({"base":"trtllm","max_batched_tokens":1200})"), w, out);
    EXPECT_GT(out.ttft_ms, 0);
    serving::estimate(model(R"({"base":"trtllm","max_batched_tokens":1000,"chunked_prefill":true})"), w, out);
    EXPECT_GT(out.ttft_ms, 0);
}

}  // namespace
}  // namespace mfusim::simulate
