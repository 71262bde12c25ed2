// The serving benchmark a closed-loop workload stands for, simulated (docs/simulate.md, section 7): `concurrency`
// clients send requests_per_client x concurrency requests (at least one each) of the workload's lengths (fixed, or
// uniform in [floor(r L), L] by its min_length_ratio r),
// with the engine's scheduler and the workload's overrides; every request counts in the means. So `serve`,
// `sweep`, `plan` and `compare --serving` answer either by the closed form or by this simulation.
#pragma once

#include <mfusim.h>

#include "engines/engine_profile.hpp"
#include "serving/serving.hpp"
#include "simulate/simulator.hpp"

namespace mfusim::simulate {

Options closed_loop_benchmark(const engines::EngineProfile& engine, const serving::Workload& workload);

// The run as a serving answer (means of TTFT, TPOT and E2E; throughputs, output per GPU of `gpus`; mean running
// requests); the step-mix fields of the closed form are 0. struct_size as `struct_size`.
mfusim_serving_result serving_result(const Result& result, int64_t gpus, std::size_t struct_size);

}  // namespace mfusim::simulate
