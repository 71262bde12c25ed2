// Cost of one serving estimate (src/serving): llama-3.1-8b on H100, vLLM profile, analytical efficiencies, at a
// low and a high concurrency (steady state), and with a first wave (requests_per_client 6). Target: under 20 us,
// so a sweep of 10,000 configurations takes well under a second.
#include <benchmark/benchmark.h>

#include "bench_model.hpp"
#include "serving/serving.hpp"

namespace {

const mfusim::roofline::RooflineModel& model() {
    return mfusim::bench::llama8b_h100();
}

void Serving_Estimate(benchmark::State& state) {
    mfusim::serving::Workload w;
    w.input_len = 2048;
    w.output_len = 256;
    w.concurrency = state.range(0);
    w.requests_per_client = static_cast<double>(state.range(1));
    mfusim_serving_result r{};
    r.struct_size = sizeof r;
    for (auto _ : state) {
        mfusim::serving::estimate(model(), w, r);
        benchmark::DoNotOptimize(r.ttft_ms);
    }
}

}  // namespace

BENCHMARK(Serving_Estimate)->Args({8, 0})->Args({256, 0})->Args({64, 6});
