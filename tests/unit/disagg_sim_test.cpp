// The two-pool engine simulation (src/simulate/disagg_sim.*): one request alone takes exactly the closed form's
// path (admission, prefill, transfer), the closed loop keeps its clients, the decode slots bound the batch, and a
// prefill pool too small for the load queues its prompts where a larger one does not.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "serving/disagg.hpp"
#include "simulate/disagg_sim.hpp"

namespace mfusim::simulate {
namespace {

roofline::RooflineModel model(int64_t tp, const std::string& engine = "sglang", int64_t attention_dp = 1) {
    query::Deployment d;
    d.tensor_parallel = tp;
    d.attention_data_parallel = attention_dp;
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct")),
                                   gpu::resolve_gpu("H100"), nullptr, d, engines::resolve_engine(engine));
}

serving::DisaggWorkload workload(int64_t concurrency, int64_t prefill_workers, int64_t decode_workers,
                                 int64_t decode_batch = 0) {
    serving::DisaggWorkload w;
    w.input_len = 2048;
    w.output_len = 64;
    w.concurrency = concurrency;
    w.prefill_workers = prefill_workers;
    w.decode_workers = decode_workers;
    w.decode_batch = decode_batch;
    return w;
}

TEST(DisaggSim, OneClientTakesTheClosedFormsPath) {
    for (const char* engine : {"sglang", "vllm", "trtllm"}) {
        const auto p = model(1, engine), d = model(2, engine);
        const serving::DisaggWorkload w = workload(1, 1, 1);
        serving::DisaggResult closed;
        serving::estimate_disagg(p, d, w, closed);
        const Result sim = simulate_disagg_benchmark(p, d, w, 3, 1);
        ASSERT_EQ(sim.completed, 3);
        // Alone, a request waits for nothing: admission + prefill + transfer, the decode worker idle when its KV
        // lands; every step is the decode step of one request. TensorRT-LLM's first token waits for the decode
        // worker's first answer, 20 steps, which the closed form times at the mean context (0.1%).
        const double tolerance = engines::resolve_engine(engine).disagg_stream_interval > 1 ? 1e-3 : 1e-6;
        EXPECT_NEAR(sim.ttft_ms.mean, closed.ttft_ms, tolerance * closed.ttft_ms) << engine;
        EXPECT_NEAR(sim.ttft_ms.max, sim.ttft_ms.min, 1e-9) << engine;
        EXPECT_NEAR(sim.tpot_ms.mean, closed.tpot_ms, 0.01 * closed.tpot_ms) << engine;
        EXPECT_DOUBLE_EQ(sim.queue_ms.mean, 0) << engine;
        // TTFT's parts as the closed form names them: the same transfer, no wait for a decode slot.
        EXPECT_NEAR(sim.transfer_ms.mean, closed.transfer_ms, 1e-9 * closed.transfer_ms) << engine;
        EXPECT_GT(sim.transfer_ms.mean, 0) << engine;
        EXPECT_DOUBLE_EQ(sim.decode_wait_ms.mean, 0) << engine;
    }
}

TEST(DisaggSim, SpeculativeDecodesAdvanceByTheAcceptedTokensAsTheClosedForm) {
    query::Deployment spec;
    spec.tensor_parallel = 2;
    spec.speculation.drafter = query::Drafter::ngram;
    spec.speculation.tokens = 3;
    spec.speculation.acceptance_rate = 0.8;
    const auto p = model(1);
    const roofline::RooflineModel d(config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct")),
                                    gpu::resolve_gpu("H100"), nullptr, spec, engines::resolve_engine("sglang"));
    const serving::DisaggWorkload w = workload(1, 1, 1);
    serving::DisaggResult closed;
    serving::estimate_disagg(p, d, w, closed);
    const Result sim = simulate_disagg_benchmark(p, d, w, 3, 1);
    // A verify step of k+1 tokens keeps (1 - a^(k+1)) / (1 - a) = 2.95 of them on average, in both.
    EXPECT_NEAR(sim.tpot_ms.mean, closed.tpot_ms, 0.05 * closed.tpot_ms);
    EXPECT_LT(sim.tpot_ms.mean, simulate_disagg_benchmark(p, model(2), w, 3, 1).tpot_ms.mean);
}

TEST(DisaggSim, TheDecodeSlotsBoundTheBatchAndClientsQueueForThem) {
    const auto p = model(1), d = model(1);
    // 32 clients, 4 prefill workers, one decode worker of 8 slots: at most 8 decode at once, the rest wait.
    const Result r = simulate_disagg_benchmark(p, d, workload(32, 4, 1, 8), 4, 1);
    ASSERT_EQ(r.completed, 128);
    EXPECT_LE(r.mean_running, 8 + 1e-9);
    EXPECT_GT(r.mean_running, 6);
    // Little's law over the run: clients ~ throughput x request latency (the first and last waves aside).
    EXPECT_NEAR(r.request_throughput * r.e2el_ms.mean / 1000, 32, 32 * 0.15);
    // Waiting for one of the 8 slots: TTFT far above the closed loop's prefill alone.
    serving::DisaggResult alone;
    serving::estimate_disagg(p, d, workload(1, 4, 1, 8), alone);
    EXPECT_GT(r.ttft_ms.mean, 3 * alone.ttft_ms);
}

TEST(DisaggSim, MorePrefillWorkersCutTheQueue) {
    const auto p = model(1), d = model(1);
    const Result one = simulate_disagg_benchmark(p, d, workload(64, 1, 4), 4, 1);
    const Result four = simulate_disagg_benchmark(p, d, workload(64, 4, 4), 4, 1);
    EXPECT_GT(one.queue_ms.mean, 2 * four.queue_ms.mean);
    EXPECT_GT(one.ttft_ms.mean, four.ttft_ms.mean);
    EXPECT_LT(one.output_throughput, four.output_throughput);
}

// Clients exactly filling the decode slots (AIConfigurator's runs: concurrency = decode workers x replicas x batch):
// a router that sees the slots never makes a request wait for one; round robin, blind to them, sends some requests to
// a worker whose slots are all taken while another has one free, and they wait there.
TEST(DisaggSim, RoundRobinMakesRequestsWaitForSlotsALoadAwareRouterWouldFind) {
    const auto p = model(1), d = model(1);
    serving::DisaggWorkload w = workload(4 * 4, 4, 4, 4);
    w.output_len = 128;
    const Result rr = simulate_disagg_benchmark(p, d, w, 6, 0.5, DisaggRouting::round_robin);
    const Result ll = simulate_disagg_benchmark(p, d, w, 6, 0.5, DisaggRouting::least_loaded);
    // SGLang takes the slot before the prefill: the wait is for the slot, not for the prefill worker.
    EXPECT_GT(rr.decode_wait_ms.mean, ll.decode_wait_ms.mean + 1);
    EXPECT_GT(rr.ttft_ms.mean, ll.ttft_ms.mean);
}

// The decode worker's loop polls its KV transfers once per step (engine disagg_decode_step_us; docs/disagg.md,
// section 9): it lengthens every decode step of the disaggregated deployment by exactly that much, in the closed
// form and in the simulation alike, and never an aggregated step, which has no transfers to poll.
TEST(DisaggSim, TheDecodeWorkersTransferPollLengthensEveryDecodeStepAndNoAggregatedOne) {
    // The first token streams at once here (disagg_stream_interval 1), so TPOT is the step itself.
    const auto p0 = model(1, R"({"base": "trtllm", "disagg_decode_step_us": 0, "disagg_stream_interval": 1})");
    const auto d0 = model(2, R"({"base": "trtllm", "disagg_decode_step_us": 0, "disagg_stream_interval": 1})");
    const auto p1 = model(1, R"({"base": "trtllm", "disagg_decode_step_us": 2500, "disagg_stream_interval": 1})");
    const auto d1 = model(2, R"({"base": "trtllm", "disagg_decode_step_us": 2500, "disagg_stream_interval": 1})");
    const serving::DisaggWorkload w = workload(1, 1, 1);
    serving::DisaggResult c0, c1;
    serving::estimate_disagg(p0, d0, w, c0);
    serving::estimate_disagg(p1, d1, w, c1);
    EXPECT_NEAR(c1.tpot_ms - c0.tpot_ms, 2.5, 1e-9);
    EXPECT_NEAR(c1.ttft_ms, c0.ttft_ms, 1e-9 * c0.ttft_ms);  // one client alone: its first token waits for no step
    const Result s0 = simulate_disagg_benchmark(p0, d0, w, 3, 1), s1 = simulate_disagg_benchmark(p1, d1, w, 3, 1);
    EXPECT_NEAR(s1.tpot_ms.mean - s0.tpot_ms.mean, 2.5, 1e-6);
    const mfusim_request decode{1, 2048, 0u, 0u};
    EXPECT_DOUBLE_EQ(d1.step_time_us(&decode, 1), d0.step_time_us(&decode, 1));
    EXPECT_GT(engines::resolve_engine("trtllm").disagg_decode_step_us, 0);
    EXPECT_DOUBLE_EQ(engines::resolve_engine("vllm").disagg_decode_step_us, 0);  // not measured: nothing assumed
}

// The decode worker's API server works per streamed chunk (output_token_us each), as the aggregated simulator's: at
// a stream interval of 1 a server streaming more tokens a second than 1 / output_token_us queues them and slows the
// closed loop down; SGLang's --stream-interval 10, which InferenceX's launches set, sends a tenth of the chunks.
TEST(DisaggSim, TheDecodeWorkersApiServerWorksPerStreamedChunk) {
    const char* per_token = R"({"base": "sglang", "output_token_us": 400, "stream_interval": 1})";
    const char* chunked = R"({"base": "sglang", "output_token_us": 400, "stream_interval": 10})";
    const auto p1 = model(1, per_token), d1 = model(2, per_token);
    const auto p10 = model(1, chunked), d10 = model(2, chunked);
    const char* free_server = R"({"base": "sglang", "output_token_us": 0})";
    const auto p0 = model(1, free_server), d0 = model(2, free_server);
    // 64 requests decoding: a step of about 10 ms streams 64 tokens, 25.6 ms of server work at 400 us each.
    serving::DisaggWorkload w = workload(64, 4, 1, 64);
    w.output_len = 256;
    const Result s0 = simulate_disagg_benchmark(p0, d0, w, 4, 1), s1 = simulate_disagg_benchmark(p1, d1, w, 4, 1),
                 s10 = simulate_disagg_benchmark(p10, d10, w, 4, 1);
    ASSERT_EQ(s1.completed, s10.completed);
    EXPECT_GT(s1.tpot_ms.mean, 1.5 * s0.tpot_ms.mean) << s0.tpot_ms.mean;  // the server's pace, not the GPU's
    // A tenth of the chunks: 2.6 ms of server work a step, under the step, so the GPU sets the pace again.
    EXPECT_LT(s10.tpot_ms.mean, 1.15 * s0.tpot_ms.mean) << s0.tpot_ms.mean;
    EXPECT_LT(s10.ttft_ms.mean, s1.ttft_ms.mean);  // first tokens no longer queue behind the backlog
}

// TensorRT-LLM's generation server answers a generation-only request every stream_interval decode steps, its first
// iteration's answer skipped under the overlap scheduler (PyExecutor._handle_responses; docs/disagg.md, section 10):
// the client's first token, the prefill's, leaves with the answer after that many decode steps. The last token
// leaves when it did, so the request's latency does not move and the TPOT a client measures, (latency - TTFT) /
// (OSL - 1), shrinks by as much; a request shorter than the interval has its first token with its last.
TEST(DisaggSim, TheFirstTokenLeavesWithTheDecodeWorkersFirstAnswer) {
    const auto p = model(1, R"({"base": "trtllm", "disagg_stream_interval": 1})");
    const auto d1 = model(2, R"({"base": "trtllm", "disagg_stream_interval": 1})");
    const auto d20 = model(2, R"({"base": "trtllm", "disagg_stream_interval": 20})");
    const serving::DisaggWorkload w = workload(1, 1, 1);  // OSL 64: 63 decode steps
    serving::DisaggResult c1, c20;
    serving::estimate_disagg(p, d1, w, c1);
    serving::estimate_disagg(p, d20, w, c20);
    EXPECT_NEAR(c20.ttft_ms - c1.ttft_ms, 20 * c1.decode_step_ms, 1e-9 * c1.ttft_ms);
    EXPECT_NEAR(c20.first_answer_ms, 20 * c1.decode_step_ms, 1e-9 * c1.ttft_ms);
    EXPECT_DOUBLE_EQ(c1.first_answer_ms, 0);
    EXPECT_NEAR(c20.e2e_ms, c1.e2e_ms, 1e-9 * c1.e2e_ms);
    EXPECT_NEAR(c20.tpot_ms, c1.tpot_ms * (63.0 - 20.0) / 63.0, 1e-9 * c1.tpot_ms);
    const Result s1 = simulate_disagg_benchmark(p, d1, w, 3, 1), s20 = simulate_disagg_benchmark(p, d20, w, 3, 1);
    EXPECT_NEAR(s20.ttft_ms.mean - s1.ttft_ms.mean, 20 * c1.decode_step_ms, 0.01 * 20 * c1.decode_step_ms);
    EXPECT_NEAR(s20.e2el_ms.mean, s1.e2el_ms.mean, 1e-9 * s1.e2el_ms.mean);
    EXPECT_LT(s20.tpot_ms.mean, s1.tpot_ms.mean);
    // Eight tokens, seven decode steps: no answer before the last.
    serving::DisaggWorkload shortw = w;
    shortw.output_len = 8;
    const Result s = simulate_disagg_benchmark(p, d20, shortw, 3, 1);
    EXPECT_NEAR(s.ttft_ms.mean, s.e2el_ms.mean, 1e-9 * s.e2el_ms.mean);
    serving::DisaggResult cs;
    serving::estimate_disagg(p, d20, shortw, cs);
    EXPECT_NEAR(cs.ttft_ms, cs.e2e_ms, 1e-9 * cs.e2e_ms);
    // The built-in profiles: TensorRT-LLM's generation servers answer every 20 steps as NVIDIA's disaggregated
    // recipes run them; SGLang's prebuilt request streams its first token at once; vLLM assumes nothing.
    EXPECT_EQ(engines::resolve_engine("trtllm").disagg_stream_interval, 20);
    EXPECT_EQ(engines::resolve_engine("sglang").disagg_stream_interval, 1);
    EXPECT_EQ(engines::resolve_engine("vllm").disagg_stream_interval, 1);
    EXPECT_THROW(engines::resolve_engine(R"({"base": "trtllm", "disagg_stream_interval": 0})"), Error);
}

// Where the decode worker admits a request only once it is prefilled (TensorRT-LLM's capacity scheduler, vLLM's
// connector: disagg_slot_before_prefill 0), a slot turns over in transfer + decode and the next request's prefill
// runs while the slot's holder decodes; where the slot is taken before the prefill (SGLang's prealloc), the prefill
// holds the slot too. One decode slot, two clients: the slot is the bottleneck in both.
TEST(DisaggSim, TheDecodeSlotTurnsOverWithoutThePrefillWhereTheEngineAdmitsAfterIt) {
    const auto p = model(1, R"({"base": "sglang", "disagg_slot_before_prefill": 1})");
    const auto before = model(1, R"({"base": "sglang", "disagg_slot_before_prefill": 1})");
    const auto after = model(1, R"({"base": "sglang", "disagg_slot_before_prefill": 0})");
    serving::DisaggWorkload w = workload(2, 1, 1, 1);
    w.input_len = 16384;
    w.output_len = 256;
    serving::DisaggWorkload one = w;
    one.concurrency = 1;
    serving::DisaggResult alone;
    serving::estimate_disagg(p, before, one, alone);
    const double prefill = alone.prefill_ms, transfer = alone.transfer_ms;
    const double decode = static_cast<double>(w.output_len - 1) * alone.decode_step_ms;
    ASSERT_GT(prefill, 0.1 * decode);  // a prefill long enough to matter, shorter than a decode
    ASSERT_LT(prefill, decode);
    const Result b = simulate_disagg_benchmark(p, before, w, 6, 1, DisaggRouting::least_loaded);
    const Result a = simulate_disagg_benchmark(p, after, w, 6, 1, DisaggRouting::least_loaded);
    EXPECT_LE(b.mean_running, 1 + 1e-9);
    EXPECT_LE(a.mean_running, 1 + 1e-9);
    // Requests per second: one slot's turnover, prefill included or not (a step boundary's slack of 5%).
    EXPECT_NEAR(1000 / b.request_throughput, prefill + transfer + decode, 0.05 * (prefill + transfer + decode));
    EXPECT_NEAR(1000 / a.request_throughput, transfer + decode, 0.05 * (transfer + decode));
    // The other client waits for the slot a whole turnover less the overlap: TTFT falls by about the prefill.
    EXPECT_LT(a.ttft_ms.mean, b.ttft_ms.mean - 0.5 * prefill);
    // That wait is the decode-slot wait, before the prefill (b) or with the KV held after it (a); where the slot
    // comes first the prefill worker's queue starts when the slot is granted, so it does not count the wait again.
    EXPECT_GT(a.decode_wait_ms.mean, 0.5 * (transfer + decode - prefill));
    EXPECT_GT(b.decode_wait_ms.mean, 0.5 * (transfer + decode));
    EXPECT_LT(b.queue_ms.mean, 0.1 * prefill);
    EXPECT_LT(a.decode_wait_ms.mean + prefill + transfer, a.ttft_ms.mean + 1e-9);
    // Little's law in both: the two clients are always somewhere.
    EXPECT_NEAR(a.request_throughput * a.e2el_ms.mean / 1000, 2, 0.2);
    EXPECT_NEAR(b.request_throughput * b.e2el_ms.mean / 1000, 2, 0.2);
    // With a slot free for every client nobody waits, so the order makes no difference to one client alone.
    const Result a1 = simulate_disagg_benchmark(p, after, one, 3, 1);
    const Result b1 = simulate_disagg_benchmark(p, before, one, 3, 1);
    EXPECT_NEAR(a1.ttft_ms.mean, b1.ttft_ms.mean, 1e-9 * b1.ttft_ms.mean);
    // The built-in profiles: SGLang preallocates before the prefill; TensorRT-LLM and vLLM admit after it.
    EXPECT_EQ(engines::resolve_engine("sglang").disagg_slot_before_prefill, 1);
    EXPECT_EQ(engines::resolve_engine("trtllm").disagg_slot_before_prefill, 0);
    EXPECT_EQ(engines::resolve_engine("vllm").disagg_slot_before_prefill, 0);
    EXPECT_THROW(engines::resolve_engine(R"({"base": "trtllm", "disagg_slot_before_prefill": 2})"), Error);
}

// More clients than decode slots (the H100 runs' harness: 1.2 clients per slot), the slot taken after the prefill,
// lengths drawn in [0.8 L, L]: given the same drawn lengths (min_length_ratio), the closed form's multi-server
// queue waits for a slot about as long as the simulation's releases make the requests wait (docs/disagg.md,
// section 16: the mean value analysis charges each request ahead a full slot's share, a little more than the
// nearly periodic releases of decodes of similar length).
TEST(DisaggSim, TheClosedFormsDecodeSlotWaitFollowsTheSimulationsGivenTheSameLengths) {
    const auto p = model(1, "trtllm"), d = model(1, "trtllm");
    serving::DisaggWorkload w = workload(40, 1, 4, 8);
    w.output_len = 256;
    const Result sim = simulate_disagg_benchmark(p, d, w, 10, 0.8, DisaggRouting::least_loaded);
    ASSERT_GT(sim.decode_wait_ms.mean, 0);
    serving::DisaggWorkload drawn = w;
    drawn.requests_per_client = 10;
    drawn.min_length_ratio = 0.8;
    serving::DisaggResult closed;
    serving::estimate_disagg(p, d, drawn, closed);
    EXPECT_NEAR(closed.decode_wait_ms, sim.decode_wait_ms.mean, 0.2 * sim.decode_wait_ms.mean);
    EXPECT_NEAR(closed.ttft_ms, sim.ttft_ms.mean, 0.2 * sim.ttft_ms.mean);
}

// A prefill worker's attention-DP replicas step in lockstep, so a prompt that reaches an idle replica of a stepping
// worker waits for the step's end: the gate is the worker's (docs/disagg.md, section 20). 16 clients on one
// attention-DP 8 prefill worker keep each replica idle most of the time but the worker stepping about half of it;
// the closed form that gated each replica alone answered a third of the simulation's prefill wait (7.0 against
// 22.7 ms), the one that gates the worker follows it.
TEST(DisaggSim, TheClosedFormsPrefillWaitGatesTheWholeAttentionDpWorker) {
    const auto p = model(1, "sglang", 8);  // one prefill worker of 8 attention-DP replicas
    const auto d = model(2);
    serving::DisaggWorkload w = workload(16, 1, 4, 64);
    const Result sim = simulate_disagg_benchmark(p, d, w, 10, 0.8, DisaggRouting::least_loaded);
    ASSERT_GT(sim.queue_ms.mean, 0);
    w.requests_per_client = 10;
    w.min_length_ratio = 0.8;
    serving::DisaggResult closed;
    serving::estimate_disagg(p, d, w, closed);
    EXPECT_LT(closed.prefill_utilization, 0.25);  // each replica mostly idle
    EXPECT_NEAR(closed.prefill_queue_ms, sim.queue_ms.mean, 0.35 * sim.queue_ms.mean);
    EXPECT_NEAR(closed.ttft_ms, sim.ttft_ms.mean, 0.2 * sim.ttft_ms.mean);
}

// Least-loaded sends a prompt to an idle replica on the least-loaded prefill worker: with four attention-DP 8
// workers and four clients every prompt finds an idle worker and waits for no one's step. Breaking ties by the
// lowest index sent them all to the first worker, where each waited for the others' lockstep steps (9.3 ms of
// prefill wait a request where blind round robin had none).
TEST(DisaggSim, LeastLoadedPrefillRoutingPrefersAnIdleWorker) {
    const auto p = model(1, "sglang", 8);  // one prefill worker of 8 attention-DP replicas
    const auto d = model(2);
    const serving::DisaggWorkload w = workload(4, 4, 4, 64);
    const Result least = simulate_disagg_benchmark(p, d, w, 10, 0.8, DisaggRouting::least_loaded);
    const Result turn = simulate_disagg_benchmark(p, d, w, 10, 0.8, DisaggRouting::round_robin);
    ASSERT_EQ(least.completed, turn.completed);
    EXPECT_LE(least.queue_ms.mean, turn.queue_ms.mean + 1e-9);
    EXPECT_LT(least.queue_ms.mean, 0.05 * least.ttft_ms.mean);
}

TEST(DisaggSim, IsDeterministicAndRefusesBadPools) {
    const auto p = model(1), d = model(1);
    const Result a = simulate_disagg_benchmark(p, d, workload(16, 2, 2), 3, 0.8);
    const Result b = simulate_disagg_benchmark(p, d, workload(16, 2, 2), 3, 0.8);
    EXPECT_EQ(a.ttft_ms.mean, b.ttft_ms.mean);
    EXPECT_EQ(a.tpot_ms.p90, b.tpot_ms.p90);
    DisaggOptions o;
    o.prefill_workers = 0;
    EXPECT_THROW(simulate_disagg(p, d, o), Error);
    o.prefill_workers = 1;
    o.decode_batch = -1;
    EXPECT_THROW(simulate_disagg(p, d, o), Error);
}

}  // namespace
}  // namespace mfusim::simulate
