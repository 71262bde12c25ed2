// Cost of a simulated benchmark (src/simulate): 1,000 requests from 64 closed-loop clients, ISL 1024 and OSL 1024,
// llama-3.1-8b on H100 with the vLLM scheduler and analytical efficiencies (about 16,000 engine steps of ~64
// requests each). Target (issue #24): under 20 ms on one core. The Poisson variant sends the same requests at a
// rate instead, with lengths drawn from log-normal distributions.
#include <benchmark/benchmark.h>

#include <cmath>

#include "bench_model.hpp"
#include "simulate/simulator.hpp"

namespace {

const mfusim::roofline::RooflineModel& model() {
    return mfusim::bench::llama8b_h100();
}

mfusim::simulate::Options options(bool poisson) {
    mfusim::simulate::Options o;
    o.scheduler = mfusim::simulate::scheduler_config(model().engine());
    o.workload.num_prompts = 1000;
    o.workload.input.mean = 1024;
    o.workload.output.mean = 1024;
    if (poisson) {
        o.workload.arrivals.request_rate = 4;
        o.workload.input = {mfusim::simulate::LengthDistribution::Kind::lognormal, 1024, 256};
        o.workload.output = {mfusim::simulate::LengthDistribution::Kind::lognormal, 1024, 256};
    } else {
        o.workload.arrivals.max_concurrency = 64;
    }
    return o;
}

void Simulate_1000Requests(benchmark::State& state) {
    const mfusim::simulate::Options o = options(state.range(0) != 0);
    int64_t steps = 0;
    for (auto _ : state) {
        const mfusim::simulate::Result r = mfusim::simulate::simulate(model(), o);
        steps = r.steps;
        benchmark::DoNotOptimize(r.ttft_ms.mean);
    }
    state.counters["steps"] = static_cast<double>(steps);
}

}  // namespace

BENCHMARK(Simulate_1000Requests)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
