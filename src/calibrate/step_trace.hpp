// Measured engine steps for calibration (docs/calibration.md): a JSONL file, one step per line,
//   {"requests": [{"new_tokens": n, "context": c, "flags": bits}, ...], "measured_us": t, "group": "name"}
// optionally preceded by one header line {"model": ..., "gpu": ..., "tp": N, "engine": ..., "group": ...} naming
// the deployment the steps were measured on. "group" names the configuration or workload a step belongs to (the
// cross-validation holds out whole groups); a line's group overrides the header's.
#pragma once

#include <mfusim.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mfusim::calibrate {

struct TraceStep {
    std::size_t first_request = 0;  // into StepTrace::requests
    std::size_t request_count = 0;
    double measured_us = 0;
    std::size_t line = 0;  // 1-based, for messages
    std::optional<std::string> group;
};

struct TraceHeader {
    std::optional<std::string> model, gpu, engine, group;
    std::optional<int64_t> tp;
};

struct StepTrace {
    std::string origin;  // the file's path, for messages
    TraceHeader header;
    std::vector<mfusim_request> requests;
    std::vector<TraceStep> steps;
};

// Reads a whole trace, bounded like every step stream (common/files.hpp). Error(io) for a file that cannot be read;
// Error(parse) "<file>:<line>:<col>: invalid JSON ..." for a line that is not JSON; Error(config)
// "<file>:<line>: field '<path>': <what>" for a missing, mistyped, out-of-range or unknown field.
StepTrace read_step_trace(const std::string& path);
// The same from text in memory (tests); `origin` names it in messages.
StepTrace parse_step_trace(const std::string& origin, std::string_view text);

}  // namespace mfusim::calibrate
