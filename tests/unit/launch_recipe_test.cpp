// The launch flags a row's facts imply (src/compare/launch_recipe.hpp, docs/simulate.md section 7): the
// InferenceX TensorRT-LLM templates turn attention-DP balancing on exactly when attention DP is on; the wait
// lengths and everything else stay the profile's.
#include <gtest/gtest.h>

#include "compare/launch_recipe.hpp"
#include "engines/engine_profile.hpp"

namespace mfusim::compare {
namespace {

TEST(LaunchRecipe, TrtllmAttentionDpTurnsBalancingOnWithTheProfilesWaits) {
    const engines::EngineProfile base = engines::resolve_engine("trtllm");
    ASSERT_FALSE(base.attention_dp_balance);  // the engine's default, kept by the built-in profile
    const engines::EngineProfile p = launch_recipe(base, 8);
    EXPECT_TRUE(p.attention_dp_balance);
    EXPECT_EQ(p.attention_dp_timeout_iters, 50);  // TensorRT-LLM's AttentionDpConfig defaults
    EXPECT_EQ(p.attention_dp_batching_wait_iters, 10);
    EXPECT_EQ(p.max_batched_tokens, base.max_batched_tokens);  // nothing else moves
    EXPECT_EQ(p.batch_wait_timeout_iters, base.batch_wait_timeout_iters);
}

TEST(LaunchRecipe, WithoutAttentionDpOrOnOtherEnginesNothingChanges) {
    const engines::EngineProfile trt = engines::resolve_engine("trtllm");
    EXPECT_FALSE(launch_recipe(trt, 1).attention_dp_balance);
    for (const char* name : {"vllm", "sglang"}) {
        const engines::EngineProfile e = engines::resolve_engine(name);
        EXPECT_EQ(launch_recipe(e, 8).attention_dp_balance, e.attention_dp_balance) << name;
    }
}

TEST(LaunchRecipe, TheProfilesWaitLengthsAreKept) {
    engines::EngineProfile mine = engines::resolve_engine("trtllm");
    mine.attention_dp_timeout_iters = 7;
    mine.attention_dp_batching_wait_iters = 3;
    const engines::EngineProfile p = launch_recipe(mine, 8);
    EXPECT_TRUE(p.attention_dp_balance);
    EXPECT_EQ(p.attention_dp_timeout_iters, 7);
    EXPECT_EQ(p.attention_dp_batching_wait_iters, 3);
}

}  // namespace
}  // namespace mfusim::compare
