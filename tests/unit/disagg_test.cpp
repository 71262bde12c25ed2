// The disaggregated serving estimate (src/serving/disagg.*): its parts add up, the closed loop obeys Little's law,
// the pools' sizes move the figures the way they must, and the KV transfer takes the link the pools share.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "serving/disagg.hpp"
#include "serving/step_mix.hpp"

namespace mfusim::serving {
namespace {

roofline::RooflineModel model(int64_t tp, const std::string& engine = "vllm") {
    query::Deployment d;
    d.tensor_parallel = tp;
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct")),
                                   gpu::resolve_gpu("H100"), nullptr, d, engines::resolve_engine(engine));
}

DisaggResult serve(const roofline::RooflineModel& p, const roofline::RooflineModel& d, int64_t concurrency,
                   int64_t prefill_workers = 1, int64_t decode_workers = 1) {
    DisaggWorkload w;
    w.input_len = 2048;
    w.output_len = 256;
    w.concurrency = concurrency;
    w.prefill_workers = prefill_workers;
    w.decode_workers = decode_workers;
    DisaggResult r;
    estimate_disagg(p, d, w, r);
    return r;
}

TEST(Disagg, OneClientWaitsForNothingAndTtftIsItsParts) {
    const auto p = model(1), d = model(1);
    const DisaggResult r = serve(p, d, 1);
    EXPECT_EQ(r.prefill_queue_ms, 0);
    EXPECT_EQ(r.decode_wait_ms, 0);
    EXPECT_DOUBLE_EQ(r.ttft_ms, r.admission_ms + r.prefill_ms + r.transfer_ms);
    // The prefill is the model's own step of one 2048-token prompt; TPOT its decode step of one request.
    EXPECT_NEAR(r.prefill_ms * 1000, step_us(p, 0, 0, 1, 2048, 0), 1e-9);
    EXPECT_NEAR(r.tpot_ms * 1000, step_us(d, 1, 2048 + 255 / 2, 0, 0, 0), 1e-9);
}

TEST(Disagg, TheClosedLoopObeysLittlesLaw) {
    const auto p = model(1), d = model(2);
    for (int64_t c : {1, 8, 64, 512}) {
        const DisaggResult r = serve(p, d, c, 2, 3);
        // Every client is always somewhere in its request: concurrency = throughput x request latency.
        EXPECT_NEAR(r.request_throughput_req_s * r.e2e_ms / 1000, static_cast<double>(c), 1e-6 * static_cast<double>(c))
            << c;
        EXPECT_NEAR(r.output_throughput_tok_s_gpu, r.request_throughput_req_s * 256 / (2 * 1 + 3 * 2), 1e-9) << c;
    }
}

TEST(Disagg, MorePrefillWorkersCutTheQueueMoreDecodeWorkersTheBatch) {
    const auto p = model(1), d = model(1);
    const DisaggResult base = serve(p, d, 256);
    EXPECT_GT(base.prefill_queue_ms, 0);
    const DisaggResult more_prefill = serve(p, d, 256, 4, 1);
    EXPECT_LT(more_prefill.prefill_queue_ms, base.prefill_queue_ms);
    EXPECT_LT(more_prefill.ttft_ms, base.ttft_ms);
    const DisaggResult more_decode = serve(p, d, 256, 1, 4);
    EXPECT_LT(more_decode.decode_batch, base.decode_batch);
    EXPECT_LT(more_decode.tpot_ms, base.tpot_ms);
    // Concurrency fills the decode batch and slows its steps.
    EXPECT_GT(serve(p, d, 64).tpot_ms, serve(p, d, 4).tpot_ms);
}

TEST(Disagg, KvTravelsOverNvlinkWhenBothWorkersFitOneDomain) {
    const auto p4 = model(4), d4 = model(4), p8 = model(8), d8 = model(8);
    const DisaggResult inside = serve(p4, d4, 1), across = serve(p8, d8, 1);
    EXPECT_FALSE(inside.transfer_over_network);
    EXPECT_TRUE(across.transfer_over_network);
    // The bytes one GPU link carries are the library's KV accounting of one prompt.
    EXPECT_DOUBLE_EQ(inside.kv_transfer_bytes, p4.memory().request_bytes(2048));
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    EXPECT_NEAR(across.transfer_ms * 1000,
                h100.network_latency_us + p8.memory().request_bytes(2048) / (h100.network_bandwidth_gbs * 1e3), 1e-9);
}

// The planner's capacities (disagg_capacity) are the rates the closed loop saturates at: a pool with many workers
// on the other side is the bottleneck, and a saturated loop completes requests at that pool's capacity.
TEST(Disagg, CapacitiesAreTheRatesTheSaturatedLoopReaches) {
    const auto p = model(1), d = model(1);
    DisaggWorkload w;
    w.input_len = 2048;
    w.output_len = 256;
    w.decode_batch = 16;
    const DisaggCapacity cap = disagg_capacity(p, d, w);
    ASSERT_GT(cap.prefill_req_s, 0);
    ASSERT_GT(cap.decode_req_s, 0);
    EXPECT_EQ(cap.decode_slots, 16);

    DisaggResult r;
    w.prefill_workers = 1;  // prefill-bound: eight decode workers, far more clients than either pool holds
    w.decode_workers = 8;
    w.concurrency = 8 * 16;
    estimate_disagg(p, d, w, r);
    EXPECT_LE(r.request_throughput_req_s, cap.prefill_req_s * (1 + 1e-9));
    EXPECT_GT(r.request_throughput_req_s, 0.95 * cap.prefill_req_s);

    w.prefill_workers = 8;  // decode-bound: every slot of the one decode worker taken, clients queue for them
    w.decode_workers = 1;
    w.concurrency = 64;
    estimate_disagg(p, d, w, r);
    EXPECT_NEAR(r.decode_batch, 16, 1e-6);
    EXPECT_LE(r.request_throughput_req_s, cap.decode_req_s * (1 + 1e-9));
    EXPECT_GT(r.request_throughput_req_s, 0.95 * cap.decode_req_s);
}

// One request per client is the first wave alone: the clients' prompts, sent at once, run in one batch (four
// 2048-token prompts in the engine's token budget), so each first token waits for that batch and the transfer.
TEST(Disagg, TheFirstWaveIsOneBatchOfEveryClientsPrompt) {
    const auto p = model(1), d = model(1);
    DisaggWorkload w;
    w.input_len = 2048;
    w.output_len = 256;
    w.concurrency = 4;
    ASSERT_GE(p.engine().max_batched_tokens, 4 * 2048);
    DisaggResult steady, first, many;
    estimate_disagg(p, d, w, steady);
    w.requests_per_client = 1;
    estimate_disagg(p, d, w, first);
    EXPECT_NEAR(first.ttft_ms, first.admission_ms + step_us(p, 0, 0, 4, 2048, 0, 4) / 1000 + first.transfer_ms, 1e-9);
    EXPECT_EQ(first.tpot_ms, steady.tpot_ms);
    // Over many requests per client the first wave fades into the steady state.
    w.requests_per_client = 1e6;
    estimate_disagg(p, d, w, many);
    EXPECT_NEAR(many.ttft_ms, steady.ttft_ms, 1e-5 * steady.ttft_ms);
    w.requests_per_client = 0.5;
    EXPECT_THROW(estimate_disagg(p, d, w, many), Error);
}

// The benchmark draws each length uniformly from [floor(r L), L]; the closed form answers at the drawn lengths' mean
// (docs/disagg.md, section 16): r 0.8 on ISL 2,000 and OSL 200 is the workload of ISL 1,800 and OSL 180, the slots
// at that mean context included. The longest request must still fit: r does not shrink the KV check.
TEST(Disagg, DrawnLengthsAreAnsweredAtTheirMean) {
    const auto p = model(1), d = model(1);
    DisaggWorkload drawn;
    drawn.input_len = 2000;
    drawn.output_len = 200;
    drawn.concurrency = 48;
    drawn.decode_batch = 32;
    drawn.min_length_ratio = 0.8;
    DisaggWorkload mean = drawn;
    mean.input_len = 1800;
    mean.output_len = 180;
    mean.min_length_ratio = 1;
    DisaggResult a, b, stated;
    estimate_disagg(p, d, drawn, a);
    estimate_disagg(p, d, mean, b);
    DisaggWorkload fixed = drawn;
    fixed.min_length_ratio = 1;
    estimate_disagg(p, d, fixed, stated);
    EXPECT_DOUBLE_EQ(a.ttft_ms, b.ttft_ms);
    EXPECT_DOUBLE_EQ(a.tpot_ms, b.tpot_ms);
    EXPECT_DOUBLE_EQ(a.decode_wait_ms, b.decode_wait_ms);
    EXPECT_DOUBLE_EQ(a.kv_transfer_bytes, b.kv_transfer_bytes);
    EXPECT_LT(a.ttft_ms, stated.ttft_ms);  // shorter requests free their slots sooner
    DisaggWorkload bad = drawn;
    bad.min_length_ratio = 0;
    EXPECT_THROW(estimate_disagg(p, d, bad, a), Error);
}

TEST(Disagg, RefusesPoolsWithoutWorkers) {
    const auto p = model(1), d = model(1);
    DisaggWorkload w;
    w.decode_workers = 0;
    DisaggResult r;
    try {
        estimate_disagg(p, d, w, r);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("decode_workers"), std::string::npos);
    }
}

}  // namespace
}  // namespace mfusim::serving
