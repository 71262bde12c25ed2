#include "compare/launch_recipe.hpp"

namespace mfusim::compare {

engines::EngineProfile launch_recipe(engines::EngineProfile profile, int64_t attention_dp) {
    const bool trtllm = profile.scheduler == engines::SchedulerPolicy::trtllm ||
                        profile.scheduler == engines::SchedulerPolicy::trtllm_max_utilization;
    if (!trtllm || attention_dp <= 1 || profile.attention_dp_balance) return profile;
    // The templates' values (InferenceX benchmarks/*_trt*.sh, `if [[ "$DP_ATTENTION" == "true" ]]`).
    profile.attention_dp_balance = true;
    profile.attention_dp_timeout_iters = 60;
    profile.attention_dp_batching_wait_iters = 0;
    return profile;
}

}  // namespace mfusim::compare
