// The serving-workload flags `serve`, `sweep` and `plan` share, and the names of the results they print.
#pragma once

#include <mfusim.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "cli/args.hpp"
#include "engine/estimator.hpp"
#include "planning/serving_point.hpp"
#include "serving/serving.hpp"

namespace mfusim::cli {

// --isl, --osl, --max-batched-tokens, --max-seqs, --gpu-memory-utilization, --requests-per-client; with
// --concurrency when `with_concurrency` (plan searches it instead).
std::vector<FlagSpec> serving_flags(bool with_concurrency = true);
serving::Workload serving_workload(const ParsedArgs& args);
// --min-length-ratio [1]; refused without --simulate, since only the simulated benchmark draws lengths.
double min_length_ratio(const ParsedArgs& args);

// compare --serving and calibrate --serving answer each row on the GPU its `system` column names
// (compare/row_gpu.hpp): a UsageError naming `path` where none of its rows names one (`any_system` false) and
// --gpu names none either.
void require_gpu_for_rows(const ParsedArgs& args, const std::string& path, bool any_system);
// compare's and calibrate's --serving: --num-prompts N (a run's requests in all, whatever its concurrency), or
// nothing when absent; a UsageError when --requests-per-client says the same thing too.
std::optional<int64_t> num_prompts(const ParsedArgs& args);
using planning::answer_serving;  // planning/serving_point.hpp
using planning::limit_name;

}  // namespace mfusim::cli
