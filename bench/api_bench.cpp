// The public step path (include/mfusim.h) of this build side by side with a baseline build of the library, in one
// Google Benchmark run: each library is opened with dlopen (RTLD_LOCAL, so the two sets of mfusim_* symbols stay
// apart) and called through the same function pointers. llama-3.1-8b on H100 with the BLIS H100 tables when the
// reference data is present; the 256-request mixed step of roofline_bench (one 512-token chunk over a 1024-token
// prefix, 255 decodes); mfusim_step_time and mfusim_step_time_batch (8 such steps per call, time per step).
// allocs/query counts operator new calls in the timed loop (the binary replaces the global allocator).
//
// Baseline: MFUSIM_BENCH_BASELINE_LIB=<path to another build's libmfusim.so>; without it only this build runs.
// Example (the baseline built from main in a separate tree):
//     MFUSIM_BENCH_BASELINE_LIB=/path/main-build/src/libmfusim.so build/bench/mfusim_bench --benchmark_filter=Api_
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <mfusim.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "support/counting_allocator.hpp"
#include "support/reference.hpp"

namespace {

using mfusim::testing::allocations;
using mfusim::testing::counting;

// The entry points the benchmark calls, from one library.
struct Library {
    decltype(&mfusim_options_init) options_init = nullptr;
    decltype(&mfusim_estimator_create) create = nullptr;
    decltype(&mfusim_step_time) step_time = nullptr;
    decltype(&mfusim_step_time_batch) step_time_batch = nullptr;
    mfusim_estimator* estimator = nullptr;
};

template <typename F>
void resolve(void* handle, const char* name, F& out) {
    out = reinterpret_cast<F>(dlsym(handle, name));
}

Library open_library(const std::string& path) {
    Library lib;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) return lib;
    resolve(handle, "mfusim_options_init", lib.options_init);
    resolve(handle, "mfusim_estimator_create", lib.create);
    resolve(handle, "mfusim_step_time", lib.step_time);
    resolve(handle, "mfusim_step_time_batch", lib.step_time_batch);
    if (!lib.options_init || !lib.create || !lib.step_time || !lib.step_time_batch) return Library{};
    mfusim_options options;
    mfusim_error error;
    lib.options_init(&options, sizeof options, &error);
    options.model = "llama-3.1-8b-instruct";
    options.gpu = "H100";
    static std::string tables;
    if (auto ref = mfusim::testing::reference_dir()) tables = *ref + "/blis-h100/bench_data";
    options.bench_data_dir = tables.empty() ? nullptr : tables.c_str();
    if (lib.create(&options, &lib.estimator, &error) != MFUSIM_OK) return Library{};
    return lib;
}

std::vector<mfusim_request> mixed_step() {
    std::vector<mfusim_request> step;
    step.push_back(mfusim_request{512, 1024, MFUSIM_REQUEST_NO_OUTPUT, 0});
    for (int64_t i = 1; i < 256; ++i) step.push_back(mfusim_request{1, 512 + 37 * i, 0, 0});
    return step;
}

void step_time(benchmark::State& state, const Library& lib) {
    if (!lib.estimator) {
        state.SkipWithError("library not loaded");
        return;
    }
    const std::vector<mfusim_request> step = mixed_step();
    mfusim_error error;
    double t = 0;
    allocations = 0;
    counting = true;
    for (auto _ : state) {
        lib.step_time(lib.estimator, step.data(), step.size(), &t, &error);
        benchmark::DoNotOptimize(t);
    }
    counting = false;
    state.counters["allocs/query"] =
        static_cast<double>(allocations.load()) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}

void step_time_batch(benchmark::State& state, const Library& lib) {
    if (!lib.estimator) {
        state.SkipWithError("library not loaded");
        return;
    }
    constexpr int kSteps = 8;
    const std::vector<mfusim_request> one = mixed_step();
    std::vector<mfusim_request> all;
    for (int i = 0; i < kSteps; ++i) all.insert(all.end(), one.begin(), one.end());
    std::vector<int64_t> sizes(kSteps, static_cast<int64_t>(one.size()));
    std::vector<double> out(kSteps);
    mfusim_error error;
    allocations = 0;
    counting = true;
    for (auto _ : state) {
        lib.step_time_batch(lib.estimator, all.data(), all.size(), sizes.data(), kSteps, out.data(), &error);
        benchmark::DoNotOptimize(out.data());
    }
    counting = false;
    state.counters["allocs/query"] =
        static_cast<double>(allocations.load()) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
    state.SetItemsProcessed(state.iterations() * kSteps);  // items/s: steps per second
}

const Library& current() {
    static const Library lib = open_library(MFUSIM_BENCH_CURRENT_LIB);
    return lib;
}
const Library& baseline() {
    static const Library lib = [] {
        const char* path = std::getenv("MFUSIM_BENCH_BASELINE_LIB");
        return path ? open_library(path) : Library{};
    }();
    return lib;
}

// Registered in alternation so that the two builds run under the same conditions.
const bool registered = [] {
    const bool with_baseline = std::getenv("MFUSIM_BENCH_BASELINE_LIB") != nullptr;
    if (with_baseline)
        benchmark::RegisterBenchmark("Api_StepMixed256/baseline",
                                     [](benchmark::State& s) { step_time(s, baseline()); });
    benchmark::RegisterBenchmark("Api_StepMixed256/current", [](benchmark::State& s) { step_time(s, current()); });
    if (with_baseline)
        benchmark::RegisterBenchmark("Api_BatchMixed256x8/baseline",
                                     [](benchmark::State& s) { step_time_batch(s, baseline()); });
    benchmark::RegisterBenchmark("Api_BatchMixed256x8/current",
                                 [](benchmark::State& s) { step_time_batch(s, current()); });
    return true;
}();

}  // namespace
