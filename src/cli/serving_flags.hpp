// The serving-workload flags `serve`, `sweep` and `plan` share, and the names of the results they print.
#pragma once

#include <mfusim.h>

#include <vector>

#include "cli/args.hpp"
#include "engine/estimator.hpp"
#include "serving/serving.hpp"

namespace mfusim::cli {

// --isl, --osl, --max-batched-tokens, --max-seqs, --gpu-memory-utilization, --requests-per-client; with
// --concurrency when `with_concurrency` (plan searches it instead).
std::vector<FlagSpec> serving_flags(bool with_concurrency = true);
serving::Workload serving_workload(const ParsedArgs& args);
// --min-length-ratio [1]; refused without --simulate, since only the simulated benchmark draws lengths.
double min_length_ratio(const ParsedArgs& args);
// The serving answer for `w`: the closed form, or with --simulate (`simulated`) the workload's benchmark run by
// the engine simulator (docs/simulate.md). Both through the estimator's final check.
void answer_serving(const engine::Estimator& estimator, const serving::Workload& w, bool simulated,
                    mfusim_serving_result& out);
const char* limit_name(mfusim_serving_limit limit);

}  // namespace mfusim::cli
