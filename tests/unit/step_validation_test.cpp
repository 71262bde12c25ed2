// The public step path validates requests in the evaluator's own pass (RooflineModel::checked_step_time_us); it
// must accept and refuse exactly what query::validate_requests does, with its message, at every edge of the ranges.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"
#include "support/reference.hpp"

namespace mfusim {
namespace {

constexpr int64_t kMax = int64_t{1} << 40;

// The message validate_requests gives, or "" when it accepts the step.
std::string careful(const std::vector<mfusim_request>& step) {
    try {
        query::validate_requests(step.data(), step.size());
        return "";
    } catch (const Error& e) {
        return e.what();
    }
}

std::string folded(const roofline::RooflineModel& m, const std::vector<mfusim_request>& step) {
    try {
        double t = m.checked_step_time_us(step.data(), step.size());
        EXPECT_EQ(t, m.step_time_us(step.data(), step.size()));  // accepted: the unchecked number
        return "";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::invalid_argument);
        return e.what();
    }
}

TEST(StepValidation, FoldedChecksMatchValidateRequests) {
    const std::string path = testing::fixtures_dir() + "/models/tiny_gqa.json";
    roofline::RooflineModel m(config::parse_model_config(config::resolve_model_source(path)), gpu::resolve_gpu("H100"),
                              nullptr, query::Deployment{});
    const mfusim_request decode{1, 100, 0u, 0u}, chunk{512, 1000, MFUSIM_REQUEST_NO_OUTPUT, 0u};
    std::vector<std::vector<mfusim_request>> steps = {
        {},
        {decode, chunk},
        {{1, kMax, 0u, 0u}},                                     // at the bound: accepted
        {{1, kMax + 1, 0u, 0u}},                                 // one past
        {{kMax, 0, 0u, 0u}},                                     // a chunk at the bound
        {{kMax + 1, 0, 0u, 0u}},                                 //
        {{2, kMax + 1, 0u, 0u}},                                 // a chunk over a context past the bound
        {{1, -1, 0u, 0u}},                                       // negative decode context (wraps to 2^64 - 1)
        {{1, -1, 0u, 0u}, {1, 1, 0u, 0u}},                       // ... whose key count wraps back to 1
        {{0, -5, 0u, 0u}},                                       // an idle request's negative context
        {{0, kMax, 0u, 0u}, {1, 1, 0u, 0u}},                     // contexts adding up past the bound
        {{-1, 0, 0u, 0u}},                                       // negative tokens
        {{64, INT64_MIN, 0u, 0u}},                               // most negative context in a chunk
        {{INT64_MAX, 0, 0u, 0u}},                                //
        {{1, 10, 2u, 0u}},                                       // unknown flag bit
        {{1, 10, 0u, 1u}},                                       // reserved set
        {{1, 10, 0x80000000u, 0u}},                              // the highest flag bit
        {{1, 10, 0u, 0x80000000u}},                              // the highest reserved bit
        {{0, 10, 3u, 0u}, {1, 1, 0u, 0u}},                       // an idle request's unknown flag bit
        {{0, 10, MFUSIM_REQUEST_NO_OUTPUT, 0u}, chunk, decode},  // idle, chunk and decode: accepted
        {decode, {kMax / 2, 0, 0u, 0u}, {kMax / 2, 0, 0u, 0u}, {1, 0, 0u, 0u}},  // new tokens past the bound
    };
    for (std::size_t i = 0; i < steps.size(); ++i) {
        SCOPED_TRACE("step " + std::to_string(i));
        EXPECT_EQ(folded(m, steps[i]), careful(steps[i]));
    }
    EXPECT_FALSE(careful(steps[3]).empty());  // the table above holds refusals, not only acceptances
    EXPECT_TRUE(careful(steps[2]).empty());
}

}  // namespace
}  // namespace mfusim
