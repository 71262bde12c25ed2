// One serving point of a plan or sweep: the estimator's answer for a workload, closed form or simulated.
#pragma once

#include <mfusim.h>

#include "engine/estimator.hpp"
#include "serving/serving.hpp"

namespace mfusim::planning {

// The serving answer for `w`: the closed form, or (`simulated`) the workload's benchmark run by the engine
// simulator (docs/simulate.md). Both through the estimator's final check.
void answer_serving(const engine::Estimator& estimator, const serving::Workload& w, bool simulated,
                    mfusim_serving_result& out);
// "token_budget", "max_seqs", "kv_capacity" or "none": what limited the running requests.
const char* limit_name(mfusim_serving_limit limit);

}  // namespace mfusim::planning
