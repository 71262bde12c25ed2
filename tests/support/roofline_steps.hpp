// Steps for the roofline model's unit tests: a batch of decodes, and a step's breakdown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mfusim.h"
#include "roofline/roofline_model.hpp"

namespace mfusim::testing {

// `count` decodes over `context` cached tokens each.
inline std::vector<mfusim_request> decodes(int64_t count, int64_t context) {
    return std::vector<mfusim_request>(static_cast<std::size_t>(count), mfusim_request{1, context, 0u, 0u});
}

// The step's breakdown by operation (RooflineModel::step_detail).
inline mfusim_step_result step_detail(const roofline::RooflineModel& m, const std::vector<mfusim_request>& step) {
    mfusim_step_result r{};
    r.struct_size = sizeof r;
    m.step_detail(step.data(), step.size(), r);
    return r;
}

}  // namespace mfusim::testing
