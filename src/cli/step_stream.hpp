// JSONL step streams (one engine step per line) parsed with simdjson's On-Demand API: the replay hot path.
#pragma once

#include <mfusim.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mfusim::cli {

// A chunk of parsed steps: step i is requests[offset_i .. offset_i + step_sizes[i]).
struct StepChunk {
    std::vector<mfusim_request> requests;
    std::vector<int64_t> step_sizes;
    std::vector<std::size_t> line_numbers;  // of each step, for messages
    void clear() {
        requests.clear();
        step_sizes.clear();
        line_numbers.clear();
    }
};

// Reads a whole JSONL file. Each non-blank line is a step: {"requests": [...]} or a bare array [...], where a
// request is {"new_tokens": n, "context": c, "no_output": bool} or [n, c]. Error(parse) names file, line, field.
class StepStream {
  public:
    explicit StepStream(const std::string& path);
    // The same format from text in memory (tests, fuzzing); `origin` names it in messages.
    StepStream(std::string origin, std::string_view text);
    ~StepStream();
    StepStream(const StepStream&) = delete;
    StepStream& operator=(const StepStream&) = delete;

    // Appends up to max_steps steps to `chunk`; false at end of file.
    bool next(StepChunk& chunk, std::size_t max_steps);
    std::size_t bytes_total() const;
    std::size_t bytes_read() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mfusim::cli
