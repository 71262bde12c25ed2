// The engine simulator (src/simulate, docs/simulate.md) through the C API: mfusim_simulation in, an owned
// mfusim_simulation_result out. Conversions only; the simulation and its final check live behind the estimator.
#include <mfusim.h>

#include <cmath>
#include <memory>
#include <string>

#include "api/boundary.hpp"
#include "api/handles.hpp"
#include "api/layouts.hpp"
#include "engine/estimator.hpp"

using mfusim::api::guarded;
using mfusim::api::require;
namespace sim = mfusim::simulate;

namespace {

constexpr int32_t kMetricCount = 5;

mfusim_simulation default_simulation() {
    const sim::WorkloadSpec w;
    mfusim_simulation s{};
    s.struct_size = sizeof s;
    s.num_prompts = w.num_prompts;
    s.warmup = w.warmup;
    s.request_rate = w.arrivals.request_rate;
    s.burstiness = w.arrivals.burstiness;
    s.max_concurrency = w.arrivals.max_concurrency;
    s.input_distribution = MFUSIM_LENGTH_FIXED;
    s.output_distribution = MFUSIM_LENGTH_FIXED;
    s.input_len = w.input.mean;
    s.input_spread = w.input.spread;
    s.output_len = w.output.mean;
    s.output_spread = w.output.spread;
    s.num_prefix_prompts = w.num_prefix_prompts;
    s.prefix_len = w.prefix_len;
    s.seed = w.seed;
    s.scheduler = MFUSIM_SCHEDULER_ENGINE;
    return s;
}

[[noreturn]] void bad(const std::string& field, const std::string& what) {
    throw mfusim::Error(mfusim::Status::invalid_argument, "simulation." + field + ": " + what);
}

void flag(int32_t value, const char* field) {
    if (value != 0 && value != 1) bad(field, "must be 0 or 1, got " + std::to_string(value));
}

sim::LengthDistribution length(mfusim_length_distribution kind, double mean, double spread, const char* field) {
    sim::LengthDistribution d;
    switch (kind) {
        case MFUSIM_LENGTH_FIXED:
            d.kind = sim::LengthDistribution::Kind::fixed;
            break;
        case MFUSIM_LENGTH_UNIFORM:
            d.kind = sim::LengthDistribution::Kind::uniform;
            break;
        case MFUSIM_LENGTH_NORMAL:
            d.kind = sim::LengthDistribution::Kind::normal;
            break;
        case MFUSIM_LENGTH_LOGNORMAL:
            d.kind = sim::LengthDistribution::Kind::lognormal;
            break;
        default:
            bad(field, "is no mfusim_length_distribution (0..3), got " + std::to_string(kind));
    }
    d.mean = mean;
    d.spread = spread;
    return d;
}

// Scheduler overrides: 0 keeps the engine's default; a negative value is refused here (the simulator's own check
// would not see it once 0 means "default").
int64_t or_default(int64_t value, int64_t fallback, const char* field) {
    if (value < 0) bad(field, "must be 0 (the engine's default) or positive, got " + std::to_string(value));
    return value == 0 ? fallback : value;
}

double slo(double ms, const char* field) {
    if (!(std::isfinite(ms) && ms >= 0))
        bad(field, "must be 0 (none) or a finite time in ms, got " + std::to_string(ms));
    return ms;
}

sim::Options to_options(const mfusim_simulation& s, const mfusim::roofline::RooflineModel& model) {
    sim::Options o;
    sim::WorkloadSpec& w = o.workload;
    w.num_prompts = s.num_prompts;
    w.warmup = s.warmup;
    w.arrivals.request_rate = s.request_rate;
    w.arrivals.burstiness = s.burstiness;
    flag(s.constant_rate, "constant_rate");
    w.arrivals.constant = s.constant_rate != 0;
    w.arrivals.max_concurrency = s.max_concurrency;
    w.input = length(s.input_distribution, s.input_len, s.input_spread, "input_distribution");
    w.output = length(s.output_distribution, s.output_len, s.output_spread, "output_distribution");
    w.num_prefix_prompts = s.num_prefix_prompts;
    w.prefix_len = s.prefix_len;
    w.seed = s.seed;
    if (s.trace_count > 0) {
        require(s.trace != nullptr, "simulation.trace is NULL but simulation.trace_count > 0");
        w.trace.resize(s.trace_count);
        for (std::size_t i = 0; i < s.trace_count; ++i) {
            const mfusim_trace_request& t = s.trace[i];
            w.trace[i] = sim::TraceRequest{t.arrival_s, t.input_len, t.output_len, t.prefix_id, t.prefix_len};
        }
    }

    sim::SchedulerConfig& c = o.scheduler;
    c = sim::scheduler_config(model.engine());
    switch (s.scheduler) {
        case MFUSIM_SCHEDULER_ENGINE:
            break;
        case MFUSIM_SCHEDULER_VLLM_V1:
            c.policy = sim::Policy::vllm_v1;
            break;
        case MFUSIM_SCHEDULER_SGLANG:
            c.policy = sim::Policy::sglang;
            break;
        case MFUSIM_SCHEDULER_TRTLLM:
            c.policy = sim::Policy::trtllm;
            break;
        case MFUSIM_SCHEDULER_TRTLLM_MAX_UTILIZATION:
            c.policy = sim::Policy::trtllm_max_utilization;
            break;
        default:
            bad("scheduler", "is no mfusim_scheduler_policy (0..4), got " + std::to_string(s.scheduler));
    }
    c.max_batched_tokens = or_default(s.max_batched_tokens, c.max_batched_tokens, "max_batched_tokens");
    c.max_seqs = or_default(s.max_seqs, c.max_seqs, "max_seqs");
    c.block_tokens = or_default(s.block_tokens, c.block_tokens, "block_tokens");
    c.long_prefill_token_threshold =
        or_default(s.long_prefill_token_threshold, c.long_prefill_token_threshold, "long_prefill_token_threshold");
    if (s.gpu_memory_utilization != 0) {
        if (!(s.gpu_memory_utilization > 0 && s.gpu_memory_utilization <= 1)) {
            bad("gpu_memory_utilization",
                "must be 0 (the engine's default) or in (0, 1], got " + std::to_string(s.gpu_memory_utilization));
        }
        c.gpu_memory_utilization = s.gpu_memory_utilization;
    }
    flag(s.disable_chunked_prefill, "disable_chunked_prefill");
    flag(s.disable_prefix_caching, "disable_prefix_caching");
    if (s.disable_chunked_prefill) c.chunked_prefill = false;
    if (s.disable_prefix_caching) c.prefix_caching = false;

    o.slo_ttft_ms = slo(s.slo_ttft_ms, "slo_ttft_ms");
    o.slo_tpot_ms = slo(s.slo_tpot_ms, "slo_tpot_ms");
    o.slo_e2el_ms = slo(s.slo_e2el_ms, "slo_e2el_ms");
    flag(s.record_timeline, "record_timeline");
    o.record_timeline = s.record_timeline != 0;
    if (s.reserved != 0) bad("reserved", "must be 0");
    w.arrivals.ramp_up_s = s.ramp_up_s;  // the simulator refuses a negative, non-finite or open-loop ramp by name
    return o;
}

mfusim_latency_summary to_c(const sim::Summary& s) {
    return mfusim_latency_summary{s.mean, s.median, s.std, s.p90, s.p95, s.p99, s.min, s.max};
}

}  // namespace

extern "C" {

mfusim_status mfusim_simulation_init(mfusim_simulation* simulation, size_t struct_size, mfusim_error* error) {
    return guarded(error,
                   [&] { mfusim::api::init_versioned(simulation, struct_size, default_simulation(), "simulation"); });
}

mfusim_status mfusim_simulate(const mfusim_estimator* estimator, const mfusim_simulation* simulation,
                              mfusim_simulation_result** out, mfusim_error* error) {
    return guarded(error, [&] {
        require(estimator != nullptr, "estimator is NULL");
        require(out != nullptr, "out is NULL");
        const mfusim_simulation s = mfusim::api::read_versioned(simulation, default_simulation(), "simulation");
        const mfusim::roofline::RooflineModel* model = estimator->engine.roofline();
        if (!model) {
            throw mfusim::Error(mfusim::Status::unsupported,
                                "the engine simulator runs on roofline-mode step times; InferSim (compat mode) has "
                                "none");
        }
        auto handle = std::make_unique<mfusim_simulation_result>();
        handle->result = estimator->engine.simulate(to_options(s, *model));
        const sim::Result& r = handle->result;
        handle->requests.reserve(r.requests.size());
        for (const sim::RequestResult& q : r.requests) {
            handle->requests.push_back(mfusim_simulated_request{q.send_ms, q.ttft_ms, q.tpot_ms, q.e2el_ms, q.queue_ms,
                                                                q.input_len, q.output_len, q.preemptions,
                                                                q.prefix_hit_tokens, q.warmup ? 1 : 0, 0});
        }
        handle->timeline.reserve(r.timeline.size());
        for (const sim::StepRecord& step : r.timeline) {
            handle->timeline.push_back(mfusim_simulated_step{step.start_ms, step.duration_ms, step.running,
                                                             step.waiting, step.prefill_tokens, step.decode_tokens,
                                                             step.kv_used});
        }
        static_assert(MFUSIM_METRIC_TTFT == 0 && MFUSIM_METRIC_TPOT == 1 && MFUSIM_METRIC_ITL == 2 &&
                      MFUSIM_METRIC_E2EL == 3 && MFUSIM_METRIC_QUEUE == 4 && kMetricCount == 5);
        for (auto m : {sim::Metric::ttft, sim::Metric::tpot, sim::Metric::itl, sim::Metric::e2el, sim::Metric::queue}) {
            handle->values[static_cast<std::size_t>(m)] = sim::metric_values(r, m);
        }
        *out = handle.release();
    });
}

void mfusim_simulation_result_free(mfusim_simulation_result* result) {
    delete result;
}

mfusim_status mfusim_simulation_summary_init(mfusim_simulation_summary* summary, size_t struct_size,
                                             mfusim_error* error) {
    return guarded(error, [&] {
        mfusim_simulation_summary empty{};
        mfusim::api::init_versioned(summary, struct_size, empty, "simulation_summary");
    });
}

mfusim_status mfusim_simulation_result_summary(const mfusim_simulation_result* result, mfusim_simulation_summary* out,
                                               mfusim_error* error) {
    return guarded(error, [&] {
        require(result != nullptr, "result is NULL");
        require(out != nullptr, "out is NULL");
        mfusim::api::require_released_size<mfusim_simulation_summary>(out->struct_size, "simulation_summary");
        const sim::Result& r = result->result;
        mfusim_simulation_summary s{};
        s.struct_size = sizeof s;
        s.completed = r.completed;
        s.total_input_tokens = r.total_input_tokens;
        s.total_output_tokens = r.total_output_tokens;
        s.duration_s = r.duration_s;
        s.request_throughput = r.request_throughput;
        s.request_goodput = r.request_goodput;
        s.output_throughput = r.output_throughput;
        s.total_token_throughput = r.total_token_throughput;
        s.steps = r.steps;
        s.preemptions = r.preemptions;
        s.prefix_hit_tokens = r.prefix_hit_tokens;
        s.mean_batch_tokens = r.mean_batch_tokens;
        s.mean_running = r.mean_running;
        s.ttft_ms = to_c(r.ttft_ms);
        s.tpot_ms = to_c(r.tpot_ms);
        s.itl_ms = to_c(r.itl_ms);
        s.e2el_ms = to_c(r.e2el_ms);
        s.queue_ms = to_c(r.queue_ms);
        mfusim::api::write_versioned(out, s);
    });
}

const mfusim_simulated_request* mfusim_simulation_result_requests(const mfusim_simulation_result* result,
                                                                  size_t* count) {
    if (count) *count = result ? result->requests.size() : 0;
    return result && !result->requests.empty() ? result->requests.data() : nullptr;
}

const mfusim_simulated_step* mfusim_simulation_result_timeline(const mfusim_simulation_result* result, size_t* count) {
    if (count) *count = result ? result->timeline.size() : 0;
    return result && !result->timeline.empty() ? result->timeline.data() : nullptr;
}

mfusim_status mfusim_simulation_result_percentile(const mfusim_simulation_result* result, mfusim_metric metric,
                                                  double p, double* out, mfusim_error* error) {
    return guarded(error, [&] {
        require(result != nullptr, "result is NULL");
        require(out != nullptr, "out is NULL");
        if (metric < 0 || metric >= kMetricCount) {
            throw mfusim::Error(mfusim::Status::invalid_argument,
                                "metric " + std::to_string(metric) + " is no mfusim_metric (0..4)");
        }
        if (!(p >= 0 && p <= 100)) {
            throw mfusim::Error(mfusim::Status::invalid_argument,
                                "percentile p must be between 0 and 100, got " + std::to_string(p));
        }
        *out = sim::percentile(result->values[static_cast<std::size_t>(metric)], p);
    });
}

}  // extern "C"
