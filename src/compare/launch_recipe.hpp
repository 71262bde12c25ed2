// The launch flags a measured run used that its row states through its own facts (docs/simulate.md, section 8:
// "Launch flags the rows imply"). The aggregated InferenceX runs (../shared/reference/measured/silicon, the H200
// file: run ids, workflow_run_id, bench_serving with --random-range-ratio 0.8 and 10 prompts per client) launch
// TensorRT-LLM from one template per recipe, and every one of those templates, whatever the model or GPU, adds
// the same block when attention DP is on (InferenceX benchmarks/dsr1_fp8_h200_trt_slurm.sh and its gpt-oss and
// DeepSeek-V4 siblings; NVIDIA's DeepSeek trtllm-bench recipe sets the same three values):
//     attention_dp_config: {enable_balance: true, timeout_iters: 60, batching_wait_iters: 0}
// The row's attention_dp_size says whether attention DP was on, so the flags follow from the row. Nothing here
// reads a model, GPU or version name.
#pragma once

#include <cstdint>

#include "engines/engine_profile.hpp"

namespace mfusim::compare {

// The profile a row of `attention_dp` replicas ran: under TensorRT-LLM's schedulers with attention DP, the
// recipes' balancing block (unless the profile already turns balancing on, whose values are kept); otherwise the
// profile unchanged.
engines::EngineProfile launch_recipe(engines::EngineProfile profile, int64_t attention_dp);

}  // namespace mfusim::compare
