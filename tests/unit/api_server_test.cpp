// The API server's intake (src/simulate/api_server.hpp, docs/simulate.md "The API server's intake"): requests taken
// in one at a time in the order they were sent, only while the server is not streaming; a server that streams all
// the time takes nothing in, so a closed loop of many clients runs fewer of them in the engine. Pinned on the serving
// runs that identify it: InferenceX's H100 gpt-oss-120b vLLM runs at 512 clients.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "compare/serving_compare.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/query.hpp"
#include "roofline/roofline_model.hpp"
#include "simulate/api_server.hpp"
#include "simulate/simulator.hpp"
#include "support/reference.hpp"

namespace mfusim::simulate {
namespace {

std::vector<std::pair<std::size_t, double>> taken_in_until(ApiServer& server, double until) {
    std::vector<std::pair<std::size_t, double>> taken;
    server.serve_until(until, [&](std::size_t request, double at) { taken.emplace_back(request, at); });
    return taken;
}

TEST(ApiServer, TakesRequestsInOneAtATimeInTheOrderSent) {
    ApiServer server(0, 10);
    ASSERT_TRUE(server.takes_requests_in());
    server.arrive(0, 0);
    server.arrive(1, 0);
    server.arrive(2, 25);
    EXPECT_EQ(server.next_taken_in(), 10);
    const auto taken = taken_in_until(server, 100);
    ASSERT_EQ(taken.size(), 3u);
    EXPECT_EQ(taken[0], std::make_pair(std::size_t{0}, 10.0));
    EXPECT_EQ(taken[1], std::make_pair(std::size_t{1}, 20.0));
    EXPECT_EQ(taken[2], std::make_pair(std::size_t{2}, 35.0));  // sent after the server went idle
    EXPECT_TRUE(std::isinf(server.next_taken_in()));
    EXPECT_FALSE(ApiServer(35, 0).takes_requests_in());
}

TEST(ApiServer, StreamingComesFirstAndTheIntakeWaitsForIt) {
    ApiServer server(2, 10);  // 2 us a chunk
    server.arrive(0, 0);
    EXPECT_TRUE(taken_in_until(server, 4).empty());  // 4 of its 10 us done
    EXPECT_EQ(server.stream(5, 5), 15);              // a step ends at 5: its 5 chunks stream until 15
    EXPECT_EQ(server.stream(12, 1), 17);             // the next step's chunk waits for them
    EXPECT_EQ(server.next_taken_in(), 22);           // 1 us before the streaming at 5, the other 5 after it ends at 17
    EXPECT_TRUE(taken_in_until(server, 21.5).empty());
    const auto taken = taken_in_until(server, 30);
    ASSERT_EQ(taken.size(), 1u);
    EXPECT_EQ(taken[0].second, 22);
}

TEST(ApiServer, ServingUpToTheAnnouncedTimeTakesTheRequestIn) {
    // Awkward binary fractions: the time next_taken_in announces is the one serve_until reaches, bit for bit, so the
    // simulator's clock never stalls short of it.
    ApiServer server(0.1, 17762.9);
    double t = 0.3;
    for (std::size_t i = 0; i < 50; ++i) {
        server.arrive(i, t);
        t += 1234.567;
        server.stream(t, 7);
    }
    std::size_t taken = 0;
    while (!std::isinf(server.next_taken_in())) {
        const double at = server.next_taken_in();
        const auto now = taken_in_until(server, at);
        ASSERT_FALSE(now.empty()) << "stalled at " << at;
        EXPECT_EQ(now.front().second, at);
        taken += now.size();
    }
    EXPECT_EQ(taken, 50u);
}

// A request whose serial work is too small to move the clock (1e-300 us after 1e6 us) is taken in where the clock
// stands, also when that is exactly the time served up to: the simulator's clock never waits on it (a fuzzed
// profile once hung the simulation there).
TEST(ApiServer, WorkTooSmallToMoveTheClockIsDoneWhereItStands) {
    ApiServer server(0, 1e-300);
    server.arrive(0, 1e6);
    EXPECT_EQ(server.next_taken_in(), 1e6);
    const auto taken = taken_in_until(server, 1e6);
    ASSERT_EQ(taken.size(), 1u);
    EXPECT_EQ(taken[0].second, 1e6);
}

// The server keeps only the streaming that a waiting request could still meet: with nobody in the intake, the spans
// of past steps go as time passes (a long run's memory is the requests in flight, not its steps).
TEST(ApiServer, KeepsNoStreamingHistoryWhileNobodyWaits) {
    ApiServer server(1, 10);
    for (int step = 0; step < 100000; ++step) {
        server.stream(10.0 * step, 3);
        taken_in_until(server, 10.0 * step + 5);
    }
    EXPECT_LE(server.spans_held(), 1u);
    server.arrive(0, 1e6);  // after every span: taken in on its own time
    EXPECT_EQ(server.next_taken_in(), 1e6 + 10);
}

// Below saturation a request's time before its first step is admission_us whether its serial part queues or not:
// one client at a time never finds the server busy with another request.
TEST(ApiServer, ALoneClientPaysTheAdmissionAsALatency) {
    const auto model = [](const std::string& engine) {
        return roofline::RooflineModel(
            config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct")), gpu::resolve_gpu("H100"),
            nullptr, query::Deployment{}, engines::resolve_engine(engine));
    };
    const auto ttft = [](const roofline::RooflineModel& m) {
        Options o;
        o.scheduler = scheduler_config(m.engine());
        o.workload.arrivals.max_concurrency = 1;
        o.workload.num_prompts = 20;
        o.workload.input.mean = 1024;
        o.workload.output.mean = 64;
        return simulate(m, o).ttft_ms.mean;
    };
    const auto queued = model("vllm");
    ASSERT_GT(queued.engine().admission_server_us, 0);
    EXPECT_NEAR(ttft(queued) / ttft(model(R"({"base": "vllm", "admission_server_us": 0})")), 1, 1e-9);
}

}  // namespace
}  // namespace mfusim::simulate

namespace mfusim::compare {
namespace {

// InferenceX's H100 gpt-oss-120b vLLM runs at 512 clients (December 2025, vLLM 0.11.2 and the image before it) read a
// first token after 20-460 s and a TPOT of 4-27 ms, smaller than the same deployments' at 64 clients: their output
// rate is capped near 19k tokens/s at every TP and prompt length, and the requests waited before the engine. The
// intake with the built-in vLLM profile answers the TP 8 runs (whose engine outruns the server) within a third of
// their TTFT; without it they are answered a tenth of it or less. At TP 2 and 4 the simulated step is too slow at
// 512 requests for the server to bind (docs/simulate.md, "The API server's intake").
TEST(ApiServerSilicon, InferencexVllmRunsAt512ClientsWaitForTheServer) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    const std::string path = testing::silicon_rows_csv(reference, "silicon_h100_agg.csv",
                                                       {",vllm,", "silicon_concurrency=512;", "gpt-oss-120b"});
    std::vector<ServingRow> rows = read_silicon_csv(path);
    std::filesystem::remove(path);
    ASSERT_EQ(rows.size(), 9u);
    set_benchmark(rows, std::nullopt, 10, 0.8);
    const auto answer = [&](const char* engine) {
        return predict_serving(
            rows, reference + "/model_configs_aic", "H100",
            [&](const std::string&) { return engines::resolve_engine(engine); }, ServingMethod::simulate);
    };
    const auto with_intake = answer("vllm");
    const auto without = answer(R"({"base": "vllm", "admission_server_us": 0, "output_token_us": 0})");
    ASSERT_EQ(with_intake.size(), rows.size());
    std::vector<double> tp8;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        ASSERT_TRUE(with_intake[k].answered && without[k].answered) << "line " << rows[k].line;
        const double measured = rows[k].ttft_ms;
        std::printf(
            "H100 vLLM gpt-oss-120b TP %lld %lld/%lld c 512: TTFT measured %.0f ms, intake %.0f ms, none %.0f ms\n",
            static_cast<long long>(rows[k].tp), static_cast<long long>(rows[k].workload.input_len),
            static_cast<long long>(rows[k].workload.output_len), measured, with_intake[k].result.ttft_ms,
            without[k].result.ttft_ms);
        if (rows[k].tp != 8) continue;  // at TP 2 and 4 the step bounds these runs before the server does
        EXPECT_LT(without[k].result.ttft_ms, 0.12 * measured) << "line " << rows[k].line;
        tp8.push_back(with_intake[k].result.ttft_ms / measured);
    }
    ASSERT_EQ(tp8.size(), 3u);
    std::sort(tp8.begin(), tp8.end());
    EXPECT_NEAR(tp8[1], 1, 0.33);  // the median of the three
    EXPECT_GT(tp8[0], 0.5);
}

}  // namespace
}  // namespace mfusim::compare
