// planning::plan and planning::sweep, the library functions behind `mfusim plan`, `mfusim sweep` and mfusim_plan:
// the search's bookkeeping (limits, best, skips) and the sweep's rows, from built-in models and GPUs.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "planning/plan.hpp"
#include "planning/sweep.hpp"

namespace mfusim::planning {
namespace {

PlanRequest small_plan() {
    PlanRequest r;
    r.options.model = "llama-3.1-8b-instruct";
    r.workload.input_len = 1024;
    r.workload.output_len = 128;
    r.gpus = {"H100", "H200"};
    r.tp_list = {1, 2};
    r.max_concurrency = 64;
    r.max_tpot_ms = 12;
    return r;
}

TEST(Plan, BestIsTheFastestPointWithinTheLimits) {
    const PlanRequest request = small_plan();
    const PlanResult result = plan(request);
    ASSERT_EQ(result.gpus.size(), 2u);
    for (const GpuPlan& g : result.gpus) {
        // Two degrees x seven concurrencies (1..64 doubling), a dense model: no EP, nothing skipped.
        ASSERT_EQ(g.evaluated.size(), 14u) << g.gpu;
        EXPECT_EQ(g.skipped_not_fitting + g.skipped_invalid, 0) << g.gpu;
        double best = -1;
        for (const Candidate& c : g.evaluated) {
            EXPECT_TRUE(std::isfinite(c.ttft_ms) && std::isfinite(c.tpot_ms) && c.tok_s_gpu > 0);
            EXPECT_EQ(c.meets, c.tpot_ms <= *request.max_tpot_ms) << g.gpu << " c" << c.concurrency;
            EXPECT_EQ(c.gpus, c.tp);
            if (c.meets) best = std::max(best, c.tok_s_gpu);
        }
        ASSERT_TRUE(g.best.has_value()) << g.gpu;
        EXPECT_EQ(g.best->tok_s_gpu, best);
        // Some point breaks the limit (concurrency 64 at 12 ms), so the limit is what picked the best.
        EXPECT_LT(top_candidates(g.evaluated, 100).size(), g.evaluated.size()) << g.gpu;
    }
}

TEST(Plan, WeightsThatDoNotFitAreSkippedOncePerDeployment) {
    PlanRequest r = small_plan();
    r.options.model = "llama-3.1-70b-instruct";  // 141 GB of BF16 weights: not on one 80 GB H100
    r.gpus = {"H100"};
    r.tp_list = {1, 2, 4};
    const PlanResult result = plan(r);
    const GpuPlan& g = result.gpus.at(0);
    EXPECT_EQ(g.skipped_not_fitting, 1);
    EXPECT_FALSE(g.last_skip.empty());
    ASSERT_FALSE(g.evaluated.empty());
    for (const Candidate& c : g.evaluated) EXPECT_GE(c.tp, 2);
}

TEST(Plan, BadRequestsThrowAndUnknownGpusAreNotSkipped) {
    PlanRequest r = small_plan();
    r.gpus = {};
    EXPECT_THROW(plan(r), Error);
    r = small_plan();
    r.tp_list = {0};
    EXPECT_THROW(plan(r), Error);
    r = small_plan();
    r.max_tpot_ms = -1;
    EXPECT_THROW(plan(r), Error);
    r = small_plan();
    r.gpus = {"H100", "no-such-gpu"};
    try {
        plan(r);
        FAIL() << "an unknown GPU was skipped";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unknown_name);
    }
}

TEST(Plan, ParetoFrontIsNotDominated) {
    const PlanResult result = plan(small_plan());
    const std::vector<Candidate>& all = result.gpus.at(0).evaluated;
    const std::vector<Candidate> front = pareto_front(all);
    ASSERT_FALSE(front.empty());
    for (const Candidate& f : front) {
        for (const Candidate& c : all) {
            EXPECT_FALSE(c.tpot_ms < f.tpot_ms && c.tok_s_gpu > f.tok_s_gpu) << "front point c" << f.concurrency;
        }
    }
}

SweepRequest step_sweep() {
    SweepRequest r;
    r.options.model = "llama-3.1-8b-instruct";
    r.options.gpu = "H100";
    r.vary = {SweepParam::decode_batch, "decode-batch", {"1", "8", "64", "256"}};
    return r;
}

TEST(Sweep, StepTimeGrowsWithTheDecodeBatch) {
    const SweepResult result = sweep(step_sweep());
    ASSERT_EQ(result.points.size(), 4u);
    EXPECT_EQ(result.failed, 0u);
    for (std::size_t i = 1; i < result.points.size(); ++i) {
        ASSERT_EQ(result.points[i].metrics.size(), 1u);
        EXPECT_GE(result.points[i].metrics[0], result.points[i - 1].metrics[0]) << result.points[i].x;
    }
}

TEST(Sweep, RefusedPointsKeepTheirRowWithTheReason) {
    SweepRequest r = step_sweep();
    r.series = SweepAxis{SweepParam::model, "model", {"llama-3.1-8b-instruct", "no-such-model"}};
    const SweepResult result = sweep(r);
    ASSERT_EQ(result.points.size(), 8u);
    EXPECT_EQ(result.failed, 4u);
    for (std::size_t i = 4; i < 8; ++i) {
        EXPECT_EQ(result.points[i].series, "no-such-model");
        EXPECT_TRUE(result.points[i].metrics.empty());
        EXPECT_FALSE(result.points[i].error.empty());
    }
}

TEST(Sweep, ServingSweepReportsEveryMetric) {
    SweepRequest r = step_sweep();
    r.step_kind = false;
    r.vary = {SweepParam::concurrency, "concurrency", {"1", "16"}};
    const SweepResult result = sweep(r);
    ASSERT_EQ(result.points.size(), 2u);
    for (const SweepPoint& p : result.points) ASSERT_EQ(p.metrics.size(), sweep_metrics(false).size());
    // More requests in flight: more throughput per GPU, a slower decode step.
    EXPECT_GT(result.points[1].metrics[2], result.points[0].metrics[2]);
    EXPECT_GT(result.points[1].metrics[1], result.points[0].metrics[1]);
}

TEST(Sweep, BadRequestsThrow) {
    SweepRequest r = step_sweep();
    r.vary.values = {"-1"};
    EXPECT_THROW(sweep(r), Error);
    r = step_sweep();
    r.vary = {SweepParam::concurrency, "concurrency", {"1"}};  // a serving parameter in a step sweep
    EXPECT_THROW(sweep(r), Error);
    r = step_sweep();
    r.series = r.vary;
    EXPECT_THROW(sweep(r), Error);
    r = step_sweep();
    r.vary.values.clear();
    EXPECT_THROW(sweep(r), Error);
}

}  // namespace
}  // namespace mfusim::planning
