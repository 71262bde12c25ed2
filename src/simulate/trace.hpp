// Request traces for the simulator: CSV with a header naming the columns arrival_s, input_len, output_len and,
// optionally, prefix_id and prefix_len (in any order; other columns are refused so a misspelling cannot pass).
#pragma once

#include <string>
#include <vector>

#include "simulate/workload.hpp"

namespace mfusim::simulate {

// Error(io) for an unreadable file; Error(parse) naming file, line, column and field for anything else.
std::vector<TraceRequest> read_trace_csv(const std::string& path);

}  // namespace mfusim::simulate
