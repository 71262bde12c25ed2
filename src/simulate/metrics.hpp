// Summaries of a simulated benchmark, named and computed as vLLM's `bench serve` computes them
// (vllm/benchmarks/serve.py calculate_metrics): means, medians, population standard deviations and
// percentiles with linear interpolation (NumPy's default), per request for TTFT, TPOT and E2E latency and per
// streamed chunk for ITL (one token, or the tokens one speculative verify step accepted).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace mfusim::simulate {

struct Summary {
    double mean = 0, median = 0, std = 0, p90 = 0, p95 = 0, p99 = 0, min = 0, max = 0;
    int64_t count = 0;
};

// Values with multiplicities (value, count), in any order; sorted and merged in place. Empty: all zeros.
Summary summarize(std::vector<std::pair<double, int64_t>>& weighted);
Summary summarize(std::vector<double> values);
// The p-th percentile (0..100) of sorted, merged weighted values, NumPy's linear interpolation over the expanded
// list.
double percentile(const std::vector<std::pair<double, int64_t>>& sorted, double p);

}  // namespace mfusim::simulate
