// Planning as a library function: for a model and a list of GPUs, every deployment (TP, EP, concurrency; with
// `disagg` also prefill/decode pools) evaluated by the serving estimate, which meet TTFT/TPOT limits, and per GPU
// the one with the most output tokens/s per GPU among them. Returns data; `mfusim plan` and mfusim_plan format it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/estimator.hpp"
#include "planning/disagg_search.hpp"
#include "serving/serving.hpp"
#include "simulate/disagg_sim.hpp"

namespace mfusim::planning {

// Called after each step of a long search with (done, total); a progress bar, or nothing.
using ProgressFn = std::function<void(std::size_t done, std::size_t total)>;

struct PlanRequest {
    engine::Options options;     // model, engine, quantization, mode; the GPU and parallelism are searched
    serving::Workload workload;  // lengths and engine limits; its concurrency is searched
    std::optional<double> max_ttft_ms, max_tpot_ms;  // mean limits; none: unlimited
    std::vector<std::string> gpus{"H100", "H200", "B200"};
    std::vector<int64_t> tp_list{1, 2, 4, 8};  // tensor-parallel degrees (with `disagg`, GPUs per worker too)
    int64_t max_concurrency = 512;             // powers of two from 1 up to it
    int64_t gpu_budget = 0;                    // most GPUs of a deployment; 0: no limit (with `disagg`: 16)
    bool simulate = false;                     // answer each point by the simulated benchmark
    bool disagg = false;                       // also search disaggregated deployments (roofline mode only)
    std::vector<int64_t> decode_batches{1, 2, 4, 8, 16, 32, 64, 128, 256};   // with `disagg`
    simulate::DisaggRouting routing = simulate::DisaggRouting::round_robin;  // with `disagg` and `simulate`
};

// One deployment evaluated: aggregated (tp, ep) or disaggregated (`disagg`; tp and ep 0).
struct Candidate {
    int64_t tp = 1, ep = 1, gpus = 1, concurrency = 1;
    double ttft_ms = 0, tpot_ms = 0, tok_s_gpu = 0;
    bool meets = false;  // within both limits
    std::optional<DisaggPoint> disagg;
};

struct GpuPlan {
    std::string gpu;
    std::vector<Candidate> evaluated;  // in search order
    std::optional<Candidate> best;     // the most tokens/s per GPU among those meeting the limits
    int64_t skipped_not_fitting = 0;   // deployments (TP, EP), not points
    int64_t skipped_invalid = 0;
    // The last skip's message: the deployment with the most GPUs that still did not fit, the one closest to
    // fitting, so its numbers tell the user how far off the search was.
    std::string last_skip;
};

struct PlanResult {
    std::vector<GpuPlan> gpus;          // in the request's order
    std::vector<std::string> warnings;  // every estimator's load warnings, once each
};

// Throws Error for a request out of bounds (no GPU or degree, a degree or budget out of range), an unknown GPU or
// model, or `disagg` outside roofline mode; deployments that do not fit or cannot be sharded are counted, not
// thrown.
PlanResult plan(const PlanRequest& request, const ProgressFn& progress = {});

// Output tokens/s one user sees while decoding: 1000 / TPOT (ms).
double tok_s_user(const Candidate& c);
// How far a candidate is from the limits: the larger of TTFT / limit and TPOT / limit (<= 1 meets them both).
double limit_ratio(const Candidate& c, const std::optional<double>& max_ttft, const std::optional<double>& max_tpot);
// The points no other point beats on both TPOT (lower) and throughput (higher), by increasing TPOT.
std::vector<Candidate> pareto_front(std::vector<Candidate> points);
// Where nothing meets the limits, the candidate nearest to meeting them (ties: the most tokens/s per GPU).
std::optional<Candidate> closest_to_limits(const std::vector<Candidate>& evaluated,
                                           const std::optional<double>& max_ttft,
                                           const std::optional<double>& max_tpot);
// The `top` best deployments meeting the limits, most tokens/s per GPU first (stable: search order on ties).
std::vector<Candidate> top_candidates(const std::vector<Candidate>& evaluated, std::size_t top);

}  // namespace mfusim::planning
