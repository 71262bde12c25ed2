// A step result for people (a table) and for scripts (JSON with total_us and breakdown).
#pragma once

#include <mfusim.h>

#include <nlohmann/json.hpp>

namespace mfusim::cli {

nlohmann::ordered_json step_result_json(const mfusim_step_result& result);
void print_step_table(const mfusim_step_result& result);

}  // namespace mfusim::cli
