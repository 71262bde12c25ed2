// Compat (InferSim) queries and bench_data loading. InferSim's own Python takes ~1.25 ms per query.
#include <benchmark/benchmark.h>

#include "engine/estimator.hpp"
#include "support/reference.hpp"
#include "tables/tables.hpp"

namespace {

using mfusim::engine::Estimator;

std::string infersim_tables() {
    auto ref = mfusim::testing::reference_dir();
    return ref ? *ref + "/infersim/bench_data" : "";
}

Estimator compat_estimator(const char* model, const char* gpu) {
    mfusim::engine::Options options;
    options.model = model;
    options.gpu = gpu;
    options.mode = mfusim::engine::Mode::infersim;
    options.bench_data_dir = infersim_tables();
    return Estimator(options);
}

void run_query(benchmark::State& state, const char* model, mfusim::query::Phases phases) {
    Estimator estimator = compat_estimator(model, "H20");
    mfusim::query::Scenario scenario;
    scenario.phases = phases;
    scenario.decode_batch = 64;
    for (auto _ : state) benchmark::DoNotOptimize(estimator.estimate(scenario));
    state.SetLabel(infersim_tables().empty() ? "no tables (reference absent)" : "InferSim tables");
}

void BM_CompatTtftDense(benchmark::State& state) {
    run_query(state, "qwen3-8b", mfusim::query::Phases::prefill_only);
}
void BM_CompatTpotDense(benchmark::State& state) {
    run_query(state, "qwen3-8b", mfusim::query::Phases::decode_only);
}
void BM_CompatTpotMoe(benchmark::State& state) {
    run_query(state, "qwen3-30b-a3b", mfusim::query::Phases::decode_only);
}
BENCHMARK(BM_CompatTtftDense);
BENCHMARK(BM_CompatTpotDense);
BENCHMARK(BM_CompatTpotMoe);

void BM_CompatDecodeStep(benchmark::State& state) {
    Estimator estimator = compat_estimator("qwen3-8b", "H20");
    std::vector<mfusim_request> requests(64, mfusim_request{1, 5120, 0, 0});
    for (auto _ : state) benchmark::DoNotOptimize(estimator.step_time_us(requests.data(), requests.size()));
}
BENCHMARK(BM_CompatDecodeStep);

void load_dir(benchmark::State& state, const std::string& subdir) {
    auto ref = mfusim::testing::reference_dir();
    if (!ref) {
        state.SkipWithError("reference data absent (../shared/reference)");
        return;
    }
    std::size_t tables = 0;
    for (auto _ : state) {
        auto data = mfusim::tables::load_bench_data(*ref + subdir);
        tables = data.table_count();
        benchmark::DoNotOptimize(data);
    }
    state.counters["tables"] = static_cast<double>(tables);
}

void BM_LoadInferSimBenchData(benchmark::State& state) {
    load_dir(state, "/infersim/bench_data");
}
void BM_LoadBlisH100BenchData(benchmark::State& state) {
    load_dir(state, "/blis-h100/bench_data");
}
BENCHMARK(BM_LoadInferSimBenchData)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadBlisH100BenchData)->Unit(benchmark::kMillisecond);

}  // namespace
