// What a serving benchmark sends (docs/simulate.md, "Workload"): how many requests, when they are sent, how long
// their prompts and outputs are, and which share a prefix. Named as vLLM's `bench serve` and AIPerf name them.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mfusim::simulate {

// A length in tokens: `mean` exactly (fixed), uniform integers in [mean - spread, mean + spread] (vLLM bench's
// --random-range-ratio r is spread = r x mean), normal with standard deviation `spread` (AIPerf's --isl-stddev),
// or log-normal with that mean and standard deviation. Draws are rounded and clamped to [1, 2^24].
struct LengthDistribution {
    enum class Kind : uint8_t { fixed, uniform, normal, lognormal };
    Kind kind = Kind::fixed;
    double mean = 1024;
    double spread = 0;
};

// How requests are sent. Arrivals at `request_rate` per second with gamma-distributed gaps of shape `burstiness`
// (vLLM bench: 1 is Poisson, < 1 burstier, > 1 steadier; `constant` sends at exact intervals); an infinite rate
// sends every request at time 0. At most `max_concurrency` requests are in flight (0: no limit): a request waits
// for a slot as vLLM bench's semaphore makes it, so rate infinity with max_concurrency c is c closed-loop clients.
struct Arrivals {
    double request_rate = std::numeric_limits<double>::infinity();
    double burstiness = 1;
    bool constant = false;
    int64_t max_concurrency = 0;
    // Closed-loop clients (infinite rate, max_concurrency c) that start one after another, evenly over ramp_up_s
    // seconds, instead of all at once; afterwards each sends its next request when its last one completes.
    double ramp_up_s = 0;
};

// One request of a trace, or one generated: send time (seconds from the start), lengths, and a shared prefix.
struct TraceRequest {
    double arrival_s = 0;
    int64_t input_len = 0;
    int64_t output_len = 0;
    int64_t prefix_id = -1;  // requests with the same id share their first prefix_len prompt tokens
    int64_t prefix_len = 0;
};

struct WorkloadSpec {
    int64_t num_prompts = 1000;
    int64_t warmup = 0;  // the first requests sent, left out of the statistics
    Arrivals arrivals;
    LengthDistribution input;
    LengthDistribution output{LengthDistribution::Kind::fixed, 128, 0};
    // AIPerf's shared system prompts: request i starts with prefix i mod num_prefix_prompts, of prefix_len tokens
    // (counted within its input length). 0: none.
    int64_t num_prefix_prompts = 0;
    int64_t prefix_len = 0;
    uint64_t seed = 0;
    // A trace replaces the generated requests (its arrival times, lengths and prefixes; `arrivals.max_concurrency`
    // still applies).
    std::vector<TraceRequest> trace;
};

// Error(invalid_argument) naming the field (workload.<name>) for a value out of range.
void validate(const WorkloadSpec& spec);

// The requests in send order (arrival_s non-decreasing): the trace as given (validated), or num_prompts drawn from
// the distributions with Rng(seed): for each request its input, then its output length, then its gap.
std::vector<TraceRequest> requests(const WorkloadSpec& spec);

// "fixed", "uniform", "normal", "lognormal"; Error(invalid_argument) for another word.
LengthDistribution::Kind length_kind(const std::string& name);
const char* length_kind_name(LengthDistribution::Kind kind);

}  // namespace mfusim::simulate
