// Step-time cost of the roofline model: llama-3.1-8b on H100 with the BLIS H100 tables when the reference data is
// present (else no tables: the analytical model), for steps of 1, 16 and 256 requests: decode-only, prefill-only
// (512-token chunks over a 1024-token prefix) and mixed (one 512-token chunk, the rest decodes).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"
#include "support/reference.hpp"
#include "tables/tables.hpp"

namespace {

using mfusim::roofline::RooflineModel;

const RooflineModel& model() {
    static const RooflineModel instance = [] {
        auto config = mfusim::config::parse_model_config(mfusim::config::resolve_model_source("llama-3.1-8b-instruct"));
        auto gpu = mfusim::gpu::resolve_gpu("H100");
        std::shared_ptr<const mfusim::tables::BenchData> tables;
        if (auto ref = mfusim::testing::reference_dir()) {
            tables = std::make_shared<mfusim::tables::BenchData>(
                mfusim::tables::load_bench_data(*ref + "/blis-h100/bench_data", "h100"));
        }
        return RooflineModel(config, gpu, tables, mfusim::query::Deployment{});
    }();
    return instance;
}

enum Kind { kDecode, kPrefill, kMixed };

std::vector<mfusim_request> make_step(int64_t n, Kind kind) {
    std::vector<mfusim_request> step;
    for (int64_t i = 0; i < n; ++i) {
        bool chunk = kind == kPrefill || (kind == kMixed && i == 0);
        if (chunk) {
            step.push_back(mfusim_request{512, 1024 + 64 * i, MFUSIM_REQUEST_NO_OUTPUT, 0});
        } else {
            step.push_back(mfusim_request{1, 512 + 37 * i, 0, 0});
        }
    }
    return step;
}

void run(benchmark::State& state, Kind kind) {
    const RooflineModel& m = model();
    std::vector<mfusim_request> step = make_step(state.range(0), kind);
    for (auto _ : state) {
        double t = m.step_time_us(step.data(), step.size());
        benchmark::DoNotOptimize(t);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void Roofline_StepDecode(benchmark::State& state) {
    run(state, kDecode);
}
void Roofline_StepPrefill(benchmark::State& state) {
    run(state, kPrefill);
}
void Roofline_StepMixed(benchmark::State& state) {
    run(state, kMixed);
}

// The same step with its requests validated in the evaluator's pass (the public path's call).
void Roofline_StepMixedChecked(benchmark::State& state) {
    const RooflineModel& m = model();
    std::vector<mfusim_request> step = make_step(state.range(0), kMixed);
    for (auto _ : state) {
        double t = m.checked_step_time_us(step.data(), step.size());
        benchmark::DoNotOptimize(t);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void Roofline_StepDetailMixed(benchmark::State& state) {
    const RooflineModel& m = model();
    std::vector<mfusim_request> step = make_step(state.range(0), kMixed);
    mfusim_step_result result;
    result.struct_size = sizeof result;
    for (auto _ : state) {
        m.step_detail(step.data(), step.size(), result);
        benchmark::DoNotOptimize(result.total_us);
    }
}

void Roofline_Build(benchmark::State& state) {
    auto config = mfusim::config::parse_model_config(mfusim::config::resolve_model_source("llama-3.1-8b-instruct"));
    auto gpu = mfusim::gpu::resolve_gpu("H100");
    std::shared_ptr<const mfusim::tables::BenchData> tables;
    if (auto ref = mfusim::testing::reference_dir()) {
        tables = std::make_shared<mfusim::tables::BenchData>(
            mfusim::tables::load_bench_data(*ref + "/blis-h100/bench_data", "h100"));
    }
    for (auto _ : state) {
        RooflineModel m(config, gpu, tables, mfusim::query::Deployment{});
        benchmark::DoNotOptimize(&m);
    }
}

}  // namespace

BENCHMARK(Roofline_StepDecode)->Arg(1)->Arg(16)->Arg(256);
BENCHMARK(Roofline_StepPrefill)->Arg(1)->Arg(16)->Arg(256);
BENCHMARK(Roofline_StepMixed)->Arg(1)->Arg(16)->Arg(256);
BENCHMARK(Roofline_StepMixedChecked)->Arg(256);
BENCHMARK(Roofline_StepDetailMixed)->Arg(256);
BENCHMARK(Roofline_Build)->Unit(benchmark::kMillisecond);
