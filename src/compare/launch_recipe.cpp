#include "compare/launch_recipe.hpp"

namespace mfusim::compare {

engines::EngineProfile launch_recipe(engines::EngineProfile profile, int64_t attention_dp) {
    const bool trtllm = profile.scheduler == engines::SchedulerPolicy::trtllm ||
                        profile.scheduler == engines::SchedulerPolicy::trtllm_max_utilization;
    if (!trtllm || attention_dp <= 1) return profile;
    // What every template sets under `if [[ "$DP_ATTENTION" == "true" ]]`; the wait lengths stay the profile's
    // (TensorRT-LLM's defaults 50 and 10 unless `--engine` says otherwise), since the templates differ there.
    profile.attention_dp_balance = true;
    return profile;
}

}  // namespace mfusim::compare
