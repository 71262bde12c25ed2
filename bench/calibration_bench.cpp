// Calibration costs (docs/calibration.md): a calibrated estimator's step time next to an uncalibrated one's (the
// multipliers are folded into per-operation constants at load, so the two must match), and fitting 100,000
// measured steps (evaluating each step's breakdown once, then group 5-fold cross-validated box least squares).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "calibrate/step_fit.hpp"
#include "calibrate/step_trace.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engine/estimator.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"

namespace {

using mfusim::roofline::RooflineModel;

RooflineModel make_model(const mfusim::roofline::Efficiency& efficiency) {
    auto config = mfusim::config::parse_model_config(mfusim::config::resolve_model_source("llama-3.1-8b-instruct"));
    return RooflineModel(config, mfusim::gpu::resolve_gpu("H100"), nullptr, mfusim::query::Deployment{},
                         mfusim::engines::builtin_engines().front(), "", efficiency);
}

// 256 requests: one 512-token chunk over a cached prefix, the rest decodes (roofline_bench's mixed step).
std::vector<mfusim_request> mixed_step() {
    std::vector<mfusim_request> step{{512, 1024, MFUSIM_REQUEST_NO_OUTPUT, 0}};
    for (int64_t i = 1; i < 256; ++i) step.push_back({1, 512 + 37 * i, 0, 0});
    return step;
}

void step_time(benchmark::State& state, const RooflineModel& m) {
    const std::vector<mfusim_request> step = mixed_step();
    for (auto _ : state) {
        double t = m.step_time_us(step.data(), step.size());
        benchmark::DoNotOptimize(t);
    }
}

void Calibration_StepMixed256_Uncalibrated(benchmark::State& state) {
    static const RooflineModel m = make_model({});
    step_time(state, m);
}
void Calibration_StepMixed256_Calibrated(benchmark::State& state) {
    mfusim::roofline::Efficiency e;
    e.multiplier = {1.3, 0.8, 1.6, 1.2};
    static const RooflineModel m = make_model(e);
    step_time(state, m);
}
BENCHMARK(Calibration_StepMixed256_Uncalibrated);
BENCHMARK(Calibration_StepMixed256_Calibrated);

// 100,000 steps of 1..64 requests (decode-only, mixed, prefill-only), measured as the model predicts them with
// 3% noise, in 20 named groups.
mfusim::calibrate::StepTrace trace_of_100k(const mfusim::engine::Estimator& estimator) {
    std::mt19937_64 rng(5);
    auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    std::uniform_real_distribution<double> noise(-0.052, 0.052);
    mfusim::calibrate::StepTrace trace;
    trace.origin = "bench";
    for (std::size_t i = 0; i < 100000; ++i) {
        mfusim::calibrate::TraceStep s;
        s.first_request = trace.requests.size();
        const int64_t kind = uniform(0, 2);
        if (kind != 2) {
            for (int64_t d = uniform(1, 64); d > 0; --d) trace.requests.push_back({1, uniform(64, 8192), 0u, 0u});
        }
        if (kind != 0) trace.requests.push_back({uniform(16, 2048), uniform(0, 4096), 0u, 0u});
        s.request_count = trace.requests.size() - s.first_request;
        s.line = i + 1;
        s.group = "g" + std::to_string(i % 20);
        s.measured_us =
            estimator.step_time_us(trace.requests.data() + s.first_request, s.request_count) * (1 + noise(rng));
        trace.steps.push_back(s);
    }
    return trace;
}

void Calibration_Fit100kSteps(benchmark::State& state) {
    mfusim::engine::Options o;
    o.model = "qwen3-8b";
    o.gpu = "H100";
    const mfusim::engine::Estimator estimator(o);
    const mfusim::calibrate::StepTrace trace = trace_of_100k(estimator);
    for (auto _ : state) {
        auto steps = mfusim::calibrate::linearise_steps(trace, estimator);
        auto fit = mfusim::calibrate::fit_steps(steps, "vllm");
        benchmark::DoNotOptimize(fit.coefficients.data());
    }
    state.SetItemsProcessed(state.iterations() * 100000);
}
BENCHMARK(Calibration_Fit100kSteps)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
