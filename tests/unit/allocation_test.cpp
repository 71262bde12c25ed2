// The step path allocates nothing (DESIGN.md: "allocation-free, and fast"): counted with a replaced global
// operator new, in both modes, with and without tables, for step_time and step_detail.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "engine/estimator.hpp"
#include "support/counting_allocator.hpp"
#include "support/reference.hpp"

namespace mfusim {
namespace {

using testing::allocations;
using testing::counting;

std::vector<mfusim_request> mixed_step() {
    std::vector<mfusim_request> step;
    step.push_back({512, 1024, MFUSIM_REQUEST_NO_OUTPUT, 0});
    step.push_back({300, 0, 0, 0});
    for (int i = 0; i < 64; ++i) step.push_back({1, 100 + 37 * i, 0, 0});
    return step;
}

long allocations_during(const engine::Estimator& estimator, const std::vector<mfusim_request>& step) {
    mfusim_step_result result{};
    result.struct_size = sizeof result;
    // The batch call too: the step three times over (a roofline batch short enough to be staged on the stack) and
    // 70 times over (one too long for it: validated first, then answered in place).
    std::vector<mfusim_request> many;
    for (int i = 0; i < 70; ++i) many.insert(many.end(), step.begin(), step.end());
    const std::vector<int64_t> sizes(70, static_cast<int64_t>(step.size()));
    double batch[3] = {};
    std::vector<double> long_batch(70);
    allocations = 0;
    counting = true;
    double t = estimator.step_time_us(step.data(), step.size());
    estimator.step_detail(step.data(), step.size(), result);
    estimator.step_time_batch(many.data(), 3 * step.size(), sizes.data(), 3, batch);
    estimator.step_time_batch(many.data(), many.size(), sizes.data(), 70, long_batch.data());
    counting = false;
    EXPECT_GT(t, 0);
    EXPECT_EQ(result.total_us, t);
    for (double b : batch) EXPECT_EQ(b, t);
    for (double b : long_batch) EXPECT_EQ(b, t);
    return allocations.load();
}

engine::Estimator make(engine::Mode mode, const char* model, const char* gpu, const std::string& tables) {
    engine::Options options;
    options.mode = mode;
    options.model = model;
    options.gpu = gpu;
    options.bench_data_dir = tables;
    return engine::Estimator(options);
}

TEST(Allocation, RooflineStepPathAllocatesNothing) {
    EXPECT_EQ(allocations_during(make(engine::Mode::roofline, "llama-3.1-8b-instruct", "H100", ""), mixed_step()), 0);
    EXPECT_EQ(allocations_during(
                  make(engine::Mode::roofline, "qwen3-30b-a3b", "H100", testing::fixtures_dir() + "/bench_data"),
                  mixed_step()),
              0);
}

// Heterogeneous blocks (block_configs): the dense MLPs of several widths are looped over, still without allocating.
TEST(Allocation, RooflineStepPathOfHeterogeneousBlocksAllocatesNothing) {
    const std::string model = testing::fixtures_dir() + "/models/heterogeneous_blocks.json";
    EXPECT_EQ(allocations_during(make(engine::Mode::roofline, model.c_str(), "H100", ""), mixed_step()), 0);
}

TEST(Allocation, RooflineStepPathWithMeasuredTablesAllocatesNothing) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    EXPECT_EQ(
        allocations_during(make(engine::Mode::roofline, "llama-3.1-8b-instruct", "H100", ref + "/blis-h100/bench_data"),
                           mixed_step()),
        0);
}

TEST(Allocation, CompatStepPathAllocatesNothing) {
    EXPECT_EQ(allocations_during(make(engine::Mode::infersim, "qwen3-8b", "H20", ""), mixed_step()), 0);
    EXPECT_EQ(allocations_during(make(engine::Mode::infersim, "qwen3-30b-a3b", "H20", ""), mixed_step()), 0);
}

TEST(Allocation, CounterSeesAllocations) {
    counting = true;
    allocations = 0;
    auto* p = new std::vector<int>(100);
    counting = false;
    delete p;
    EXPECT_GE(allocations.load(), 2);  // the guard against a counter that never counts
}

}  // namespace
}  // namespace mfusim
