// The parameters `mfusim sweep` can vary, and their value lists: "1,2,4", "1..512" (powers of two), "0..8192:1024"
// (a linear step), or names "H100,H200" for GPUs and models.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planning/sweep_params.hpp"

namespace mfusim::cli {

using planning::SweepAxis;
using planning::SweepParam;

// "PARAM=VALUES"; UsageError naming `flag` for an unknown parameter, malformed or empty values, a value above the
// parameter's bound (sweep_param_max), or over kMaxSweepValues values.
SweepAxis parse_sweep_axis(const std::string& spec, const std::string& flag);

}  // namespace mfusim::cli
