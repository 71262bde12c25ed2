// Sweeping as a library function: one or two parameters varied (planning/sweep_params.hpp), and at every point
// either the time of one step (decodes at a context plus a prefill chunk) or the serving metrics of
// 'mfusim serve'. Returns the points as data; `mfusim sweep` writes them as CSV, JSON and charts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/estimator.hpp"
#include "planning/plan.hpp"
#include "planning/sweep_params.hpp"
#include "serving/serving.hpp"

namespace mfusim::planning {

// The timed step of a step sweep: `decode_batch` decodes of `context` cached tokens each, and one prefill chunk of
// `chunk` new tokens (none at 0).
struct StepShape {
    int64_t decode_batch = 32, context = 2048, chunk = 0;
};

struct SweepRequest {
    engine::Options options;     // the deployment every point starts from
    serving::Workload workload;  // serving sweeps: the workload every point starts from
    StepShape step;              // step sweeps: the step every point starts from
    bool step_kind = true;       // step time (metric step_ms) or the serving metrics
    bool simulate = false;       // serving sweeps: the simulated benchmark instead of the closed form
    SweepAxis vary;
    std::optional<SweepAxis> series;  // a second parameter, one line per value
};

struct SweepPoint {
    std::string x, series;        // the values of the varied parameters (series empty without one)
    std::vector<double> metrics;  // in the order of sweep_metrics(step_kind); empty on error
    std::string detail;           // step: the bound; serving: what limited the running requests
    std::string error;            // why the library refused the point (weights that do not fit, ...)
};

struct SweepResult {
    std::vector<SweepPoint> points;     // series-major: every x of the first series value, then the next
    std::vector<std::string> warnings;  // every estimator's load warnings, once each
    std::size_t failed = 0;             // points with an error
};

// The metrics a sweep reports: {"step_ms"} for steps; ttft_ms, tpot_ms, output_tok_s_gpu, e2e_ms and
// request_throughput_req_s for serving.
const std::vector<std::string>& sweep_metrics(bool step_kind);

// Throws Error for a request that mixes step and serving parameters, a serving sweep outside roofline mode, or a
// value out of its parameter's bound; a point the library refuses keeps its row with the reason in `error`.
SweepResult sweep(const SweepRequest& request, const ProgressFn& progress = {});

}  // namespace mfusim::planning
