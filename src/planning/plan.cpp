#include "planning/plan.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "planning/estimator_cache.hpp"
#include "planning/serving_point.hpp"

namespace mfusim::planning {

namespace {

// The bounds the command's flags enforce, for callers that reach the library directly (the C API).
void check_request(const PlanRequest& r) {
    if (r.gpus.empty() || r.tp_list.empty()) {
        throw Error(Status::invalid_argument, "plan: the GPU and tensor-parallel lists need at least one value");
    }
    if (r.gpus.size() > 64 || r.tp_list.size() > 64 || r.decode_batches.size() > 64) {
        throw Error(Status::invalid_argument, "plan: more than 64 GPUs, degrees or decode batches");
    }
    for (int64_t tp : r.tp_list) {
        if (tp < 1 || tp > 65536)
            throw Error(Status::invalid_argument, "plan: a tensor-parallel degree must be 1 to 65536");
    }
    for (int64_t b : r.decode_batches) {
        if (b < 1 || b > 65536) throw Error(Status::invalid_argument, "plan: a decode batch must be 1 to 65536");
    }
    if (r.max_concurrency < 1 || r.max_concurrency > (int64_t{1} << 20)) {
        throw Error(Status::invalid_argument, "plan: max_concurrency must be 1 to 1048576");
    }
    if (r.gpu_budget < 0 || r.gpu_budget > 65536) {
        throw Error(Status::invalid_argument, "plan: gpu_budget must be 0 (none) to 65536");
    }
    for (const std::optional<double>& limit : {r.max_ttft_ms, r.max_tpot_ms}) {
        if (limit && !(*limit > 0 && *limit < INFINITY)) {
            throw Error(Status::invalid_argument, "plan: a TTFT or TPOT limit must be a finite number above 0");
        }
    }
    if (r.disagg && r.options.mode != engine::Mode::roofline) {
        throw Error(Status::unsupported, "plan --disagg answers in roofline mode only");
    }
    if (r.disagg && r.decode_batches.empty()) {
        throw Error(Status::invalid_argument, "plan: disaggregated search needs at least one decode batch");
    }
}

bool meets(const PlanRequest& r, double ttft_ms, double tpot_ms) {
    return (!r.max_ttft_ms || ttft_ms <= *r.max_ttft_ms) && (!r.max_tpot_ms || tpot_ms <= *r.max_tpot_ms);
}

void consider(GpuPlan& plan, const Candidate& cand) {
    plan.evaluated.push_back(cand);
    if (cand.meets && (!plan.best || cand.tok_s_gpu > plan.best->tok_s_gpu)) plan.best = cand;
}

// The aggregated deployments of one GPU: TP from the list, EP 1 or TP for MoE models, concurrency by doubling.
void search_aggregated(const PlanRequest& r, const engine::Options& base, bool moe, EstimatorCache& cache,
                       GpuPlan& plan, const std::function<void()>& step) {
    for (int64_t tp : r.tp_list) {
        if (r.gpu_budget > 0 && tp > r.gpu_budget) continue;  // a replica larger than the budget
        std::vector<int64_t> eps = moe && tp > 1 ? std::vector<int64_t>{1, tp} : std::vector<int64_t>{1};
        for (int64_t ep : eps) {
            step();
            engine::Options o = base;
            o.deployment.tensor_parallel = tp;
            o.deployment.expert_parallel = ep;
            const engine::Estimator* estimator = nullptr;
            try {
                estimator = &cache.get(o);
            } catch (const Error& e) {
                // An unknown GPU is the user's mistake, not a deployment to skip.
                if (e.status() == Status::unknown_name) throw;
                ++plan.skipped_invalid;
                plan.last_skip = e.what();
                continue;
            }
            for (int64_t c = 1; c <= r.max_concurrency; c *= 2) {
                serving::Workload w = r.workload;
                w.concurrency = c;
                mfusim_serving_result res{};
                res.struct_size = sizeof res;
                try {
                    answer_serving(*estimator, w, r.simulate, res);
                } catch (const Error& e) {
                    // Weights that do not fit do not fit at any concurrency: one skip per deployment.
                    if (e.status() != Status::config && e.status() != Status::unsupported) throw;
                    ++plan.skipped_not_fitting;
                    plan.last_skip = e.what();
                    break;
                }
                Candidate cand{tp,          ep,          estimator->roofline()->memory().gpus, c,
                               res.ttft_ms, res.tpot_ms, res.output_throughput_tok_s_gpu,      false,
                               std::nullopt};
                cand.meets = meets(r, res.ttft_ms, res.tpot_ms);
                consider(plan, cand);
            }
        }
    }
}

}  // namespace

PlanResult plan(const PlanRequest& request, const ProgressFn& progress) {
    check_request(request);
    const bool moe = config::parse_model_config(config::resolve_model_source(request.options.model)).is_moe();
    DisaggSpace space;
    if (request.disagg) {
        space.worker_gpus = request.tp_list;
        space.moe = moe;
        space.gpu_budget = request.gpu_budget > 0 ? request.gpu_budget : 16;
        space.max_concurrency = request.max_concurrency;
        space.simulate = request.simulate;
        space.routing = request.routing;
        space.decode_batches = request.decode_batches;
        std::sort(space.decode_batches.begin(), space.decode_batches.end());
    }
    EstimatorCache cache;
    PlanResult out;
    std::size_t steps = 0;
    const std::size_t total_steps = request.gpus.size() * request.tp_list.size() * (moe ? 2 : 1);
    auto step = [&] {
        ++steps;
        if (progress) progress(steps, total_steps);
    };
    for (const std::string& gpu : request.gpus) {
        GpuPlan plan{gpu, {}, {}, 0, 0, {}};
        engine::Options base = request.options;
        base.gpu = gpu;
        search_aggregated(request, base, moe, cache, plan, step);
        if (request.disagg) {
            DisaggSearch found = search_disagg(base, request.workload, space, cache);
            plan.skipped_not_fitting += found.skipped_not_fitting;
            plan.skipped_invalid += found.skipped_invalid;
            if (!found.last_skip.empty()) plan.last_skip = found.last_skip;
            for (const DisaggPoint& d : found.points) {
                Candidate cand{0, 0, d.gpus, d.concurrency, d.ttft_ms, d.tpot_ms, d.tok_s_gpu, false, d};
                cand.meets = meets(request, d.ttft_ms, d.tpot_ms);
                consider(plan, cand);
            }
        }
        out.gpus.push_back(std::move(plan));
    }
    out.warnings = cache.warnings();
    return out;
}

double tok_s_user(const Candidate& c) {
    return c.tpot_ms > 0 ? 1000 / c.tpot_ms : 0;
}

double limit_ratio(const Candidate& c, const std::optional<double>& max_ttft, const std::optional<double>& max_tpot) {
    return std::max(max_ttft ? c.ttft_ms / *max_ttft : 0.0, max_tpot ? c.tpot_ms / *max_tpot : 0.0);
}

std::vector<Candidate> pareto_front(std::vector<Candidate> points) {
    std::sort(points.begin(), points.end(), [](const Candidate& a, const Candidate& b) {
        return a.tpot_ms != b.tpot_ms ? a.tpot_ms < b.tpot_ms : a.tok_s_gpu > b.tok_s_gpu;
    });
    std::vector<Candidate> front;
    for (const Candidate& c : points) {
        if (front.empty() || c.tok_s_gpu > front.back().tok_s_gpu) front.push_back(c);
    }
    return front;
}

std::optional<Candidate> closest_to_limits(const std::vector<Candidate>& evaluated,
                                           const std::optional<double>& max_ttft,
                                           const std::optional<double>& max_tpot) {
    std::optional<Candidate> best;
    for (const Candidate& c : evaluated) {
        if (!best) {
            best = c;
            continue;
        }
        const double r = limit_ratio(c, max_ttft, max_tpot), b = limit_ratio(*best, max_ttft, max_tpot);
        if (r < b || (r == b && c.tok_s_gpu > best->tok_s_gpu)) best = c;
    }
    return best;
}

std::vector<Candidate> top_candidates(const std::vector<Candidate>& evaluated, std::size_t top) {
    std::vector<Candidate> meeting;
    for (const Candidate& c : evaluated) {
        if (c.meets) meeting.push_back(c);
    }
    std::stable_sort(meeting.begin(), meeting.end(),
                     [](const Candidate& a, const Candidate& b) { return a.tok_s_gpu > b.tok_s_gpu; });
    if (meeting.size() > top) meeting.resize(top);
    return meeting;
}

}  // namespace mfusim::planning
