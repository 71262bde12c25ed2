// The launch flags a measured run used that its row states through its own facts (docs/simulate.md, section 7:
// "Launch flags the rows imply"). The aggregated InferenceX runs (../shared/reference/measured/silicon, the H200
// file: run ids, workflow_run_id, bench_serving with --random-range-ratio 0.8 and 10 prompts per client) launch
// TensorRT-LLM from one template per recipe, and every template that can run attention DP turns attention-DP
// balancing on exactly when attention DP is on (SemiAnalysisAI/InferenceX benchmarks/dsr1_fp8_h200_trt_slurm.sh:
// `attention_dp_config: {enable_balance: true, timeout_iters: 60, batching_wait_iters: 0}`;
// gptoss_fp4_b200_trt_slurm.sh: `attention_dp_config: {enable_balance: true}`, the engine's waits). The row's
// attention_dp_size says whether attention DP was on, so the flag follows from the row. The wait lengths differ
// between templates, so they stay the profile's. Nothing here reads a model, GPU or version name.
#pragma once

#include <cstdint>

#include "engines/engine_profile.hpp"

namespace mfusim::compare {

// The profile a row of `attention_dp` replicas ran: under TensorRT-LLM's schedulers with attention DP,
// balancing on with the profile's wait lengths; otherwise the profile unchanged.
engines::EngineProfile launch_recipe(engines::EngineProfile profile, int64_t attention_dp);

}  // namespace mfusim::compare
