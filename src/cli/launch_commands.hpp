// Ready launch command lines for a deployment `plan` chose, one per engine (vLLM, SGLang, TensorRT-LLM), so that a
// user can start what was estimated. Only the flags the estimate depends on are set: tensor and expert parallelism,
// the concurrency as the engine's cap on running requests, and the context length the workload needs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mfusim::cli {

struct LaunchDeployment {
    std::string model;  // as the user gave it: a Hugging Face id or path is used as is, a built-in name is shown as
                        // a placeholder for the checkpoint's id (the catalogue keeps configs, not repository ids)
    int64_t tp = 1, ep = 1, concurrency = 1;
    int64_t max_context = 0;   // prompt + output tokens of the workload
    std::string drafter;       // speculative decoding: "mtp", "eagle", "ngram", "draft_model"; "" none
    int64_t draft_tokens = 0;  // its num_speculative_tokens
    std::string draft_model;   // draft_model: the draft model as the user gave it (shown as `model` is)
};

// (engine, command line) for vllm, sglang and trtllm, in that order.
std::vector<std::pair<std::string, std::string>> launch_commands(const LaunchDeployment& d);

}  // namespace mfusim::cli
