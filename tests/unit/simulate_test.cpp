// The engine simulator: its random numbers and workloads are specified, its schedulers follow their engines'
// rules, its metrics are vLLM bench's, and in steady state it agrees with the closed-form serving estimate.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "compare/serving_compare.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "serving/serving.hpp"
#include "simulate/closed_loop.hpp"
#include "simulate/random.hpp"
#include "simulate/scheduler.hpp"
#include "simulate/simulator.hpp"

namespace mfusim::simulate {
namespace {

// vLLM with every request taken in on its own (no API-server intake queue, EngineProfile::admission_server_us 0):
// for the tests of the scheduler's own waves and of the closed form's steady state.
constexpr const char* kNoIntake = R"({"base": "vllm", "admission_server_us": 0})";

roofline::RooflineModel model(const std::string& name, const std::string& engine = "vllm") {
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source(name)),
                                   gpu::resolve_gpu("H100"), nullptr, query::Deployment{},
                                   engines::resolve_engine(engine));
}

Options closed_loop(const roofline::RooflineModel& m, int64_t clients, int64_t prompts, int64_t isl, int64_t osl) {
    Options o;
    o.scheduler = scheduler_config(m.engine());
    o.workload.arrivals.max_concurrency = clients;
    o.workload.num_prompts = prompts;
    o.workload.input.mean = static_cast<double>(isl);
    o.workload.output.mean = static_cast<double>(osl);
    return o;
}

// InferenceX's closed loop: `clients` clients sending `per_client` requests each, lengths drawn as bench_serving's
// --random-range-ratio 0.8 draws them.
serving::Workload drawn_closed_loop(int64_t isl, int64_t osl, int64_t clients, double per_client) {
    serving::Workload w;
    w.input_len = isl;
    w.output_len = osl;
    w.concurrency = clients;
    w.requests_per_client = per_client;
    w.min_length_ratio = 0.8;
    return w;
}

// The most prompt tokens one step prefilled in the second half of a run (after the first wave).
int32_t widest_prefill(const Result& r) {
    int32_t most = 0;
    for (const StepRecord& s : r.timeline) {
        if (s.start_ms > r.timeline.back().start_ms / 2) most = std::max(most, s.prefill_tokens);
    }
    return most;
}

// The generator is xoshiro256** seeded by SplitMix64: its first outputs for seed 0 are fixed numbers, the same on
// every platform (computed from the published reference algorithm).
TEST(SimulateRandom, XoshiroSequenceIsSpecified) {
    Rng a(0), b(0), c(1);
    const uint64_t first = a.next();
    EXPECT_EQ(first, b.next());
    EXPECT_NE(first, c.next());
    // The published algorithms, run independently (Python, 64-bit wrap-around) for seed 0.
    EXPECT_EQ(first, 0x99ec5f36cb75f2b4ULL);
    EXPECT_EQ(b.next(), 0xbf6e1f784956452aULL);
    EXPECT_EQ(b.next(), 0x1a5f849d4933e6e0ULL);
    for (int i = 0; i < 1000; ++i) {
        const double u = a.uniform();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
    }
}

TEST(SimulateRandom, GammaHasItsMean) {
    Rng rng(7);
    for (double shape : {0.5, 1.0, 4.0}) {
        double sum = 0;
        const int n = 200000;
        for (int i = 0; i < n; ++i) sum += rng.gamma(shape);
        EXPECT_NEAR(sum / n, shape, 0.02 * shape + 0.01) << shape;
    }
}

TEST(SimulateWorkload, RatesAndLengthsFollowTheirDistributions) {
    WorkloadSpec w;
    w.num_prompts = 20000;
    w.arrivals.request_rate = 10;
    w.arrivals.burstiness = 0.5;
    w.input = {LengthDistribution::Kind::normal, 1000, 100};
    w.output = {LengthDistribution::Kind::uniform, 200, 50};
    const auto r = requests(w);
    ASSERT_EQ(r.size(), 20000u);
    EXPECT_NEAR(r.back().arrival_s / 20000, 0.1, 0.005);  // mean gap 1 / rate
    double in = 0;
    int64_t lo = 1 << 30, hi = 0;
    for (const TraceRequest& q : r) {
        in += static_cast<double>(q.input_len);
        lo = std::min(lo, q.output_len);
        hi = std::max(hi, q.output_len);
    }
    EXPECT_NEAR(in / 20000, 1000, 5);
    EXPECT_EQ(lo, 150);
    EXPECT_EQ(hi, 250);
    // Same seed, same requests; another seed, others.
    EXPECT_EQ(requests(w)[1234].input_len, r[1234].input_len);
    w.seed = 1;
    EXPECT_NE(requests(w)[1234].arrival_s, r[1234].arrival_s);
}

TEST(SimulateWorkload, RefusesValuesOutOfRange) {
    WorkloadSpec w;
    w.num_prompts = 0;
    EXPECT_THROW(requests(w), Error);
    w.num_prompts = 10;
    w.arrivals.request_rate = NAN;
    try {
        requests(w);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("workload.request_rate"), std::string::npos);
    }
    // Below one request in 1000 s the clock would outgrow a microsecond's resolution (workload.cpp, validate).
    for (double rate : {0.0, 1e-300, 9.99e-4}) {
        w.arrivals.request_rate = rate;
        EXPECT_THROW(requests(w), Error) << rate;
    }
    w.arrivals.request_rate = 1e-3;
    EXPECT_NO_THROW(requests(w));
    w.arrivals.request_rate = 1;
    w.warmup = 10;
    EXPECT_THROW(requests(w), Error);
}

TEST(SimulateMetrics, PercentilesAreNumpysLinearInterpolation) {
    // numpy.percentile([1, 2, 3, 4], [50, 90, 99]) = 2.5, 3.7, 3.97
    std::vector<std::pair<double, int64_t>> w = {{3, 1}, {1, 1}, {4, 1}, {2, 1}};
    const Summary s = summarize(w);
    EXPECT_DOUBLE_EQ(s.median, 2.5);
    EXPECT_NEAR(s.p90, 3.7, 1e-12);
    EXPECT_NEAR(s.p99, 3.97, 1e-12);
    EXPECT_NEAR(s.std, std::sqrt(1.25), 1e-12);  // population std, as numpy.std
    // Multiplicities expand: [1, 1, 1, 5] has median 1 and p90 3.8.
    std::vector<std::pair<double, int64_t>> m = {{5, 1}, {1, 3}};
    const Summary t = summarize(m);
    EXPECT_DOUBLE_EQ(t.median, 1);
    EXPECT_NEAR(t.p90, 3.8, 1e-12);
}

TEST(Simulate, SameSeedSameNumbers) {
    auto m = model("llama-3.1-8b-instruct");
    Options o = closed_loop(m, 16, 64, 1024, 64);
    o.workload.arrivals.request_rate = 20;
    o.workload.input = {LengthDistribution::Kind::lognormal, 1024, 300};
    const Result a = simulate(m, o), b = simulate(m, o);
    ASSERT_EQ(a.requests.size(), b.requests.size());
    for (std::size_t i = 0; i < a.requests.size(); ++i) {
        EXPECT_EQ(a.requests[i].ttft_ms, b.requests[i].ttft_ms);
        EXPECT_EQ(a.requests[i].e2el_ms, b.requests[i].e2el_ms);
    }
    EXPECT_EQ(a.steps, b.steps);
}

TEST(Simulate, EveryRequestCompletesWithFiniteTimes) {
    auto m = model("qwen3-8b");
    for (const char* engine : {"vllm", "sglang", "trtllm"}) {
        auto e = model("qwen3-8b", engine);
        Options o = closed_loop(e, 32, 96, 2048, 100);
        const Result r = simulate(e, o);
        EXPECT_EQ(r.completed, 96) << engine;
        for (const RequestResult& q : r.requests) {
            ASSERT_TRUE(std::isfinite(q.ttft_ms) && q.ttft_ms > 0) << engine;
            ASSERT_GE(q.e2el_ms, q.ttft_ms) << engine;
            ASSERT_GE(q.queue_ms, 0) << engine;
        }
        EXPECT_GT(r.output_throughput, 0) << engine;
        EXPECT_EQ(r.itl_ms.count, 96 * 99) << engine;  // every token after the first
    }
}

// vLLM V1 runs decodes first and then admits prompts within the token budget; a 32-client burst of 4096-token
// prompts needs 16 steps of 8192 tokens, so the last prompts wait ~15 prefill steps.
TEST(Simulate, TokenBudgetSpreadsABurstOverSteps) {
    auto m = model("llama-3.1-8b-instruct");
    Options o = closed_loop(m, 32, 32, 4096, 2);
    o.record_timeline = true;
    const Result r = simulate(m, o);
    ASSERT_GE(r.timeline.size(), 16u);
    for (std::size_t i = 0; i < 15; ++i) EXPECT_LE(r.timeline[i].prefill_tokens, 8192) << i;
    EXPECT_GT(r.ttft_ms.max, 10 * r.ttft_ms.min);
    o.scheduler.max_batched_tokens = 65536;
    EXPECT_LT(simulate(m, o).ttft_ms.max, r.ttft_ms.max);
}

// With too little KV cache, vLLM preempts (and recomputes) while TensorRT-LLM's no-evict policy admits fewer. Both
// profiles state their memory share alike (a share of the GPU), so both hold the same cache.
TEST(Simulate, PreemptionWhenTheCacheRunsOutExceptUnderNoEvict) {
    auto vllm = model("llama-3.1-8b-instruct", R"({"base":"vllm","activation_reserve_gb":54})");
    Options o = closed_loop(vllm, 64, 128, 2048, 1024);
    const Result v = simulate(vllm, o);
    EXPECT_GT(v.preemptions, 0);
    EXPECT_EQ(v.completed, 128);
    auto trt =
        model("llama-3.1-8b-instruct", R"({"base":"trtllm","activation_reserve_gb":54,"memory_share_of_free":0})");
    o.scheduler = scheduler_config(trt.engine());
    const Result t = simulate(trt, o);
    EXPECT_EQ(t.preemptions, 0);
    EXPECT_EQ(t.completed, 128);
    EXPECT_LT(t.mean_running, v.mean_running);
    // TensorRT-LLM's MAX_UTILIZATION policy admits on the prompt alone and pauses the newest when blocks run out.
    auto max_util =
        model("llama-3.1-8b-instruct", R"({"base":"trtllm","activation_reserve_gb":54,"memory_share_of_free":0,)"
                                       R"("scheduler":"trtllm-max-utilization"})");
    o.scheduler = scheduler_config(max_util.engine());
    EXPECT_EQ(o.scheduler.policy, Policy::trtllm_max_utilization);
    const Result mu = simulate(max_util, o);
    EXPECT_GT(mu.preemptions, 0);
    EXPECT_EQ(mu.completed, 128);
    EXPECT_GT(mu.mean_running, t.mean_running);
}

// SGLang prefills first: while prompts wait, no step mixes decodes with prefill chunks.
TEST(Simulate, SglangNeverMixesPrefillAndDecode) {
    auto m = model("qwen3-8b", "sglang");
    Options o = closed_loop(m, 64, 192, 1024, 64);
    o.record_timeline = true;
    const Result r = simulate(m, o);
    for (const StepRecord& s : r.timeline) EXPECT_TRUE(s.prefill_tokens == 0 || s.decode_tokens == 0);
    auto v = model("qwen3-8b", "vllm");
    o.scheduler = scheduler_config(v.engine());
    bool mixed = false;
    for (const StepRecord& s : simulate(v, o).timeline) mixed = mixed || (s.prefill_tokens > 0 && s.decode_tokens > 0);
    EXPECT_TRUE(mixed);
}

// SGLang's --scheduler-recv-interval N (SchedulerRecvSkipper): between prefills the scheduler takes new requests
// once every N decode steps, so a request that arrives while the others decode waits up to N steps before its
// prefill; after a prefill step it is taken at once. Eight clients with drawn lengths (out of lockstep, 512 / 256
// at bench_serving's 0.8) send one request every ~30 steps: most arrive into a decode run and wait, on average,
// several steps and fewer than N. The decode steps themselves do not change.
TEST(Simulate, SglangRecvIntervalHoldsArrivalsForUpToThatManyDecodeSteps) {
    auto every = model("qwen3-8b", R"({"base":"sglang","output_token_us":0})");
    auto thirty = model("qwen3-8b", R"({"base":"sglang","output_token_us":0,"scheduler_recv_interval":30})");
    EXPECT_EQ(every.engine().scheduler_recv_interval, 1);
    const Options o = closed_loop_benchmark(every.engine(), drawn_closed_loop(512, 256, 8, 20));
    const Result a = simulate(every, o), b = simulate(thirty, o);
    const double step_ms = a.tpot_ms.mean;
    EXPECT_GT(b.ttft_ms.mean - a.ttft_ms.mean, 5 * step_ms);
    EXPECT_LT(b.ttft_ms.mean - a.ttft_ms.mean, 30 * step_ms);
    EXPECT_NEAR(b.tpot_ms.mean, a.tpot_ms.mean, 0.05 * a.tpot_ms.mean);
    // One client: its next request arrives while the engine is idle, which takes it at once.
    Options one = closed_loop(every, 1, 8, 512, 64);
    EXPECT_NEAR(simulate(thirty, one).ttft_ms.mean, simulate(every, one).ttft_ms.mean, 1e-9);
}

// SGLang's --stream-interval N sends a request's first token alone, then its tokens when its output length is
// 1 mod N, and its last (stream_output_generation). TTFT, TPOT and E2E stay; the clients see one ITL per chunk:
// at OSL 1024 and N 10, 103 chunks after the first, so the mean ITL is 1023 / 103 = 9.93 TPOTs (InferenceX's
// DeepSeek-R1 SGLang runs at --stream-interval 10 report 225.8 ms ITL over 22.73 ms TPOT, the same 9.93).
TEST(Simulate, StreamIntervalChunksTheTokensAndKeepsTheLatencies) {
    auto every = model("qwen3-8b", R"({"base":"sglang","output_token_us":0})");
    auto tenth = model("qwen3-8b", R"({"base":"sglang","output_token_us":0,"stream_interval":10})");
    EXPECT_EQ(tenth.engine().stream_interval, 10);
    Options o = closed_loop(every, 4, 40, 1024, 1024);
    const Result a = simulate(every, o), b = simulate(tenth, o);
    ASSERT_EQ(a.requests.size(), b.requests.size());
    for (std::size_t i = 0; i < a.requests.size(); ++i) {
        EXPECT_EQ(a.requests[i].ttft_ms, b.requests[i].ttft_ms);
        EXPECT_EQ(a.requests[i].e2el_ms, b.requests[i].e2el_ms);
    }
    EXPECT_EQ(a.itl_ms.count, 40 * 1023);
    EXPECT_EQ(b.itl_ms.count, 40 * 103);
    EXPECT_NEAR(b.itl_ms.mean / b.tpot_ms.mean, 1023.0 / 103.0, 1e-6);
    EXPECT_THROW(engines::resolve_engine(R"({"base":"sglang","stream_interval":0})"), Error);
    // The API server's work is per streamed chunk: a server that paces every token (section 7, "SGLang's API
    // server as a queue") is ten times lighter at interval 10.
    auto paced = model("qwen3-8b", R"({"base":"sglang","output_token_us":20000})");
    auto paced_tenth = model("qwen3-8b", R"({"base":"sglang","output_token_us":20000,"stream_interval":10})");
    const Result p = simulate(paced, o), q = simulate(paced_tenth, o);
    EXPECT_GT(p.tpot_ms.mean, 2 * a.tpot_ms.mean);
    EXPECT_LT(q.tpot_ms.mean, 0.5 * p.tpot_ms.mean);
}

// SGLang's scheduler on one-token blocks with the given new_token_ratio schedule.
SchedulerConfig sglang_ratios(double init, double min, double decay) {
    SchedulerConfig c;
    c.policy = Policy::sglang;
    c.block_tokens = 1;
    c.init_new_token_ratio = init;
    c.min_new_token_ratio = min;
    c.new_token_ratio_decay = decay;
    return c;
}

// A KV cache whose pool size counts tokens (one byte each).
roofline::MemoryFacts one_byte_tokens() {
    roofline::MemoryFacts memory;
    memory.kv_bytes_per_token = 1;
    return memory;
}

// n requests of 10 prompt and 100 output tokens, queued in order.
std::vector<Sequence> enqueue_short_requests(Scheduler& sched, std::size_t n) {
    std::vector<Sequence> seqs(n);
    for (std::size_t i = 0; i < n; ++i) {
        seqs[i].prompt = 10;
        seqs[i].output = 100;
        sched.enqueue(i);
    }
    return seqs;
}

// SGLang retracts the newest request when a decode cannot get a KV slot, and re-estimates new_token_ratio from the
// requests left running (ScheduleBatch.retract_decode): (their outputs so far + 20 each) / (their max_new_tokens
// + 1), instead of starting its decay again.
TEST(Simulate, SglangReestimatesItsNewTokenRatioAfterARetraction) {
    // Two 10 + 100 token requests run in 130 tokens, so their decodes run out.
    const SchedulerConfig c = sglang_ratios(0.05, 0.01, 0.001);
    Scheduler sched(c, one_byte_tokens(), 130);
    std::vector<Sequence> seqs = enqueue_short_requests(sched, 4);
    std::vector<Scheduled> step;
    std::vector<std::size_t> produced, finished;
    double before = 0;
    for (int i = 0; i < 100 && sched.preemptions() == 0; ++i) {
        before = sched.new_token_ratio();
        sched.schedule(seqs, step);
        ASSERT_FALSE(step.empty());
        if (sched.preemptions() == 0) sched.complete(seqs, step, produced, finished);
    }
    ASSERT_EQ(sched.preemptions(), 1);
    EXPECT_LT(before, c.init_new_token_ratio);  // it had decayed
    double decoded = 0, max_new = 1;
    for (const Sequence& s : seqs) {
        if (s.computed == 0) continue;  // the retracted request, back in the queue
        decoded += static_cast<double>(s.generated + c.retract_decode_steps);
        max_new += static_cast<double>(s.output);
    }
    EXPECT_EQ(sched.running(), 1u);
    EXPECT_DOUBLE_EQ(sched.new_token_ratio(), decoded / max_new);
    EXPECT_GT(sched.new_token_ratio(), c.init_new_token_ratio);
}

// SGLang's PrefillAdder holds new_token_ratio of a running request's remaining output, but the whole of it
// (clipped at CLIP_MAX_NEW_TOKENS) for a request it admits into the batch it is forming (add_one_req's total_tokens,
// charged by _update_prefill_budget). Three 10 + 100 token requests in a 300-token pool at ratio 0.5: the first
// batch takes two (110 + 110; a third would need 110 of the 80 left, though its ratio share, 60, would fit); the
// next prefill, once the two run and hold 0.5 x 99 each, takes the third.
TEST(Simulate, SglangReservesTheWholeOutputOfTheRequestsItAdmits) {
    Scheduler sched(sglang_ratios(0.5, 0.5, 0), one_byte_tokens(), 300);
    std::vector<Sequence> seqs = enqueue_short_requests(sched, 3);
    std::vector<Scheduled> step;
    std::vector<std::size_t> produced, finished;
    sched.schedule(seqs, step);
    ASSERT_EQ(step.size(), 2u);
    EXPECT_EQ(sched.waiting(), 1u);
    sched.complete(seqs, step, produced, finished);
    sched.schedule(seqs, step);
    ASSERT_EQ(step.size(), 1u);
    EXPECT_EQ(step[0].seq, 2u);
    EXPECT_EQ(step[0].tokens, 10);
}

// The API server streams every token serially (output_token_us; SGLang's one TokenizerManager process). When the
// engine produces tokens faster than it streams them, the closed loop runs at the API server's pace: every client's
// request takes clients x output tokens x output_token_us from send to last token. The engine finishes requests
// whose tokens still wait, and a new request's first token waits behind that backlog, which grows with the output
// length (the H200 SGLang c 512 runs' TTFT, 0.9 s at OSL 100 to 8 s at OSL 2000: docs/simulate.md, "SGLang's API
// server as a queue").
TEST(Simulate, AnApiServerSlowerThanTheEnginePacesTheClientsAndQueuesTheFirstTokens) {
    auto fast = model("llama-3.1-8b-instruct", R"({"base":"sglang","output_token_us":0})");
    auto paced = model("llama-3.1-8b-instruct", R"({"base":"sglang","output_token_us":500})");
    serving::Workload w;  // InferenceX's protocol: lengths drawn over [0.8 L, L], 10 requests per client
    w.input_len = 256;
    w.output_len = 128;
    w.concurrency = 128;
    w.requests_per_client = 10;
    w.min_length_ratio = 0.8;
    auto paced_e2el_ms = [&](const Result& r) {
        return 128 * 0.5 * static_cast<double>(r.total_output_tokens) / static_cast<double>(r.completed);
    };
    const Result unpaced = simulate(fast, closed_loop_benchmark(fast.engine(), w));
    const Result short_out = simulate(paced, closed_loop_benchmark(paced.engine(), w));
    EXPECT_LT(unpaced.e2el_ms.mean, 0.5 * paced_e2el_ms(unpaced));  // the engine alone outruns the API server
    EXPECT_NEAR(short_out.e2el_ms.mean, paced_e2el_ms(short_out), 0.15 * paced_e2el_ms(short_out));
    w.output_len = 512;
    const Result long_out = simulate(paced, closed_loop_benchmark(paced.engine(), w));
    EXPECT_NEAR(long_out.e2el_ms.mean, paced_e2el_ms(long_out), 0.15 * paced_e2el_ms(long_out));
    EXPECT_GT(long_out.ttft_ms.median, 2 * short_out.ttft_ms.median);
    EXPECT_GT(short_out.ttft_ms.median, 2 * unpaced.ttft_ms.median);
}

// Shared prefixes are computed once while cached: prefix hits cut the prefill tokens and the TTFT.
TEST(Simulate, PrefixCachingReusesSharedPrefixes) {
    auto m = model("llama-3.1-8b-instruct");
    Options o = closed_loop(m, 8, 64, 4096, 16);
    o.workload.num_prefix_prompts = 2;
    o.workload.prefix_len = 3072;
    const Result cached = simulate(m, o);
    EXPECT_GT(cached.prefix_hit_tokens, 50 * 3072);
    o.scheduler.prefix_caching = false;
    const Result uncached = simulate(m, o);
    EXPECT_EQ(uncached.prefix_hit_tokens, 0);
    EXPECT_LT(cached.ttft_ms.mean, 0.7 * uncached.ttft_ms.mean);
}

// Steady state with staggered arrivals is what the closed form models: requests sent at the closed form's own
// throughput at exact intervals give its TPOT within 5% and TTFT within 10% (docs/simulate.md: closed-loop clients
// with identical lengths stay synchronized in waves, which the closed form does not model, so the comparison
// uses the open loop at the same rate). The API server's intake queue is the simulation's alone (the closed form
// reads admission_us as a latency), so the engine is compared without it.
TEST(Simulate, AgreesWithTheClosedFormInSteadyState) {
    for (const char* name : {"llama-3.1-8b-instruct", "qwen3-14b"}) {
        auto m = model(name, kNoIntake);
        for (int64_t c : {4, 16, 32, 48}) {
            for (auto [isl, osl] : {std::pair<int64_t, int64_t>{1024, 128}, {4096, 512}, {512, 1024}}) {
                serving::Workload w;
                w.input_len = isl;
                w.output_len = osl;
                w.concurrency = c;
                mfusim_serving_result f{};
                f.struct_size = sizeof f;
                serving::estimate(m, w, f);
                if (f.limited_by != MFUSIM_SERVING_LIMIT_NONE) continue;
                Options o = closed_loop(m, 0, 12 * c, isl, osl);
                o.workload.arrivals.request_rate = f.request_throughput_req_s;
                o.workload.arrivals.constant = true;
                o.workload.warmup = 4 * c;
                const Result r = simulate(m, o);
                EXPECT_NEAR(r.tpot_ms.mean / f.tpot_ms, 1, 0.05) << name << " c " << c << " " << isl << "/" << osl;
                EXPECT_NEAR(r.ttft_ms.mean / f.ttft_ms, 1, 0.10) << name << " c " << c << " " << isl << "/" << osl;
            }
        }
    }
}

// Clients that start together stay in step (each wave of prompts shares prefill steps); started one after another
// over a request's lifetime they keep their phases apart, so prompts are prefilled alone (docs/simulate.md, 6).
TEST(Simulate, ClientsStartedTogetherStayInStepAndARampSpreadsThem) {
    auto m = model("llama-3.1-8b-instruct", kNoIntake);  // the scheduler's waves, not the API server's stagger
    Options o = closed_loop(m, 8, 80, 1024, 128);
    o.record_timeline = true;
    const Result together = simulate(m, o);
    o.workload.arrivals.ramp_up_s = together.e2el_ms.mean / 1000;
    const Result ramped = simulate(m, o);
    EXPECT_GE(widest_prefill(together), 4 * 1024);  // a wave's prompts share a step
    EXPECT_LE(widest_prefill(ramped), 2 * 1024);    // one prompt a step, rarely two
    EXPECT_LT(ramped.ttft_ms.mean, 0.5 * together.ttft_ms.mean);
    o.workload.arrivals.request_rate = 5;  // a ramp staggers closed-loop clients only
    EXPECT_THROW(simulate(m, o), Error);
}

// bench_serving's --random-range-ratio r (InferenceX, SGLang): lengths uniform over the integers [floor(r L), L],
// both ends drawn; the varied lengths are what takes closed-loop clients out of lock-step.
TEST(Simulate, MinLengthRatioDrawsBenchServingLengthsAndBreaksTheWaves) {
    auto m = model("llama-3.1-8b-instruct", kNoIntake);  // the scheduler's waves, not the API server's stagger
    serving::Workload w = drawn_closed_loop(1000, 100, 8, 50);
    Options o = closed_loop_benchmark(m.engine(), w);
    o.record_timeline = true;
    const Result varied = simulate(m, o);
    int64_t shortest_in = 1 << 30, longest_in = 0, shortest_out = 1 << 30, longest_out = 0;
    for (const RequestResult& r : varied.requests) {
        shortest_in = std::min(shortest_in, r.input_len);
        longest_in = std::max(longest_in, r.input_len);
        shortest_out = std::min(shortest_out, r.output_len);
        longest_out = std::max(longest_out, r.output_len);
    }
    EXPECT_EQ(shortest_in, 800);  // 400 draws of 201 values: both ends come up (the seed is fixed)
    EXPECT_GE(longest_in, 995);
    EXPECT_LE(longest_in, 1000);
    EXPECT_EQ(shortest_out, 80);
    EXPECT_EQ(longest_out, 100);
    w.min_length_ratio = 1;
    Options fixed_options = closed_loop_benchmark(m.engine(), w);
    fixed_options.record_timeline = true;
    const Result fixed = simulate(m, fixed_options);
    EXPECT_EQ(widest_prefill(fixed), 8 * 1000);  // every wave's prompts in one step
    EXPECT_LE(widest_prefill(varied), 3 * 1000);
    EXPECT_LT(varied.ttft_ms.mean, 0.5 * fixed.ttft_ms.mean);
    for (double bad : {0.0, -0.5, 1.5, std::nan("")}) {
        w.min_length_ratio = bad;
        EXPECT_THROW(closed_loop_benchmark(m.engine(), w), Error);
    }
}

// sglang.bench_serving's and vLLM bench's --num-prompts N: N requests in all, whatever the concurrency, so the
// first wave (the clients' first prompts, sent at once and prefilled one batch after another) is concurrency / N of
// the statistics instead of the fixed tenth that 10 prompts per client give (compare --num-prompts).
TEST(Simulate, AFixedNumberOfPromptsIsSentExactlyAndItsFirstWaveWeighsMoreAtHigherConcurrency) {
    auto m = model("llama-3.1-8b-instruct", "sglang");
    serving::Workload w;
    w.input_len = 1000;
    w.output_len = 100;
    w.min_length_ratio = 0.8;
    for (int64_t clients = 1; clients <= 1200; ++clients) {
        w.concurrency = clients;
        w.requests_per_client = compare::requests_per_client_for(1000, clients);
        // N / C x C is not always N in binary; the benchmark sends N, and one each where the clients outnumber N.
        ASSERT_EQ(closed_loop_benchmark(m.engine(), w).workload.num_prompts, std::max<int64_t>(1000, clients))
            << clients;
    }
    EXPECT_THROW(compare::requests_per_client_for(0, 8), Error);
    w.concurrency = 128;
    w.requests_per_client = 10;
    const Result per_client = simulate(m, closed_loop_benchmark(m.engine(), w));
    w.requests_per_client = compare::requests_per_client_for(256, w.concurrency);
    const Result fixed_total = simulate(m, closed_loop_benchmark(m.engine(), w));
    EXPECT_EQ(fixed_total.completed, 256);
    // Half the requests are the first wave instead of a tenth: the mean TTFT carries the wave's queue.
    EXPECT_GT(fixed_total.ttft_ms.mean, 1.5 * per_client.ttft_ms.mean);
    EXPECT_LT(std::abs(fixed_total.tpot_ms.mean / per_client.tpot_ms.mean - 1), 0.25);
}

TEST(Simulate, RequestLargerThanTheCacheIsRefused) {
    auto m = model("llama-3.1-8b-instruct");
    Options o = closed_loop(m, 1, 1, 1 << 24, 1);
    try {
        simulate(m, o);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported);
        EXPECT_NE(std::string(e.what()).find("cannot get KV cache room"), std::string::npos);
    }
}

// DeepSeek-V3 on B200 at attention DP 8 / EP 8 under `engine`, 128 clients of 8k/1k drawn as InferenceX draws them
// (0.8), 10 requests each: the closed form's answer and the simulation's.
std::pair<mfusim_serving_result, Result> dep8_closed_and_simulated(const engines::EngineProfile& engine) {
    query::Deployment d;
    d.attention_data_parallel = 8;
    d.expert_parallel = 8;
    const roofline::RooflineModel m(config::parse_model_config(config::resolve_model_source("deepseek-v3")),
                                    gpu::resolve_gpu("B200"), nullptr, d, engine);
    serving::Workload w;
    w.input_len = 8192;
    w.output_len = 1024;
    w.concurrency = 128;
    w.requests_per_client = 10;
    w.min_length_ratio = 0.8;
    mfusim_serving_result f{};
    f.struct_size = sizeof f;
    serving::estimate(m, w, f);
    return {f, simulate(m, closed_loop_benchmark(m.engine(), w))};
}

// Attention-DP replicas step in lockstep, so a prefill on any replica holds every replica's decodes. With drawn
// lengths (InferenceX's protocol) each replica's prompts arrive apart from the others', and the closed form counts
// the group's steps that carry a chunk as the simulated group takes them, within 15% on TPOT (docs/serving.md,
// "Attention-DP replicas"); counting one replica's prefills only gave 0.6x.
TEST(Simulate, AttentionDpReplicasWithDrawnLengthsPrefillApartInTheClosedForm) {
    const auto [f, r] = dep8_closed_and_simulated(engines::resolve_engine("vllm"));
    EXPECT_NEAR(f.tpot_ms / r.tpot_ms.mean, 1, 0.15);
    EXPECT_NEAR(f.ttft_ms / r.ttft_ms.mean, 1, 0.25);
}

// TensorRT-LLM's attention-DP balancing starts every rank's contexts together (adp_balance.hpp), so under it the
// closed form counts the replicas' prefills as falling in the same steps, drawn lengths or not: fewer group steps
// carry a chunk than with the replicas apart, and the simulation with the balancing agrees.
TEST(Simulate, BalancedAttentionDpReplicasPrefillTogetherInTheClosedForm) {
    engines::EngineProfile engine = engines::resolve_engine("trtllm");
    engine.attention_dp_balance = false;
    const auto [apart, apart_sim] = dep8_closed_and_simulated(engine);
    engine.attention_dp_balance = true;
    const auto [together, together_sim] = dep8_closed_and_simulated(engine);
    EXPECT_LT(together.mixed_step_fraction, apart.mixed_step_fraction);
    EXPECT_LT(together.tpot_ms, apart.tpot_ms);
    EXPECT_NEAR(together.tpot_ms / together_sim.tpot_ms.mean, 1, 0.25);
}

}  // namespace
}  // namespace mfusim::simulate
