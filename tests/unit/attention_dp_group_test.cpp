// Attention-DP groups (docs/simulate.md, "Attention-DP groups"): a replica's step inside its expert-parallel
// group's lockstep step, the routed experts timed on the tokens present over the group (an idle replica's dummy
// batch: one token), not replicas x the timed replica's batch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"
#include "simulate/dp_group.hpp"

namespace mfusim {
namespace {

roofline::RooflineModel dep(int64_t dp, int64_t ep, const std::string& name = "qwen3-30b-a3b") {
    query::Deployment d;
    d.attention_data_parallel = dp;
    d.expert_parallel = ep;
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source(name)),
                                   gpu::resolve_gpu("H100"), nullptr, d);
}

struct Replica {
    std::vector<mfusim_request> batch;
};

const std::vector<mfusim_request> kPrompt{{1024, 0, 0u, 0u}};
const std::vector<mfusim_request> kDecodes(16, mfusim_request{1, 2000, 0u, 0u});

// Every replica holding the timed batch is the two-argument step, exactly; one replica alone is cheaper (its
// experts see its tokens and seven dummy ones, not eight prompts).
TEST(AttentionDpGroup, EqualBatchesAreTheOldStepAndOneBusyReplicaCostsLess) {
    const roofline::RooflineModel m = dep(8, 8);
    for (const std::vector<mfusim_request>* batch : {&kPrompt, &kDecodes}) {
        const int64_t tokens = simulate::batch_tokens(*batch);
        const double all = m.step_time_us(batch->data(), batch->size());
        EXPECT_EQ(m.step_time_us(batch->data(), batch->size(), 7 * tokens), all);
        const double alone = m.step_time_us(batch->data(), batch->size(), 7);
        EXPECT_LT(alone, all);
        EXPECT_GT(alone, 0.0);
        // More peer tokens never make the step cheaper.
        double last = alone;
        for (int64_t peers : {3 * tokens, 20 * tokens, 100 * tokens}) {
            const double t = m.step_time_us(batch->data(), batch->size(), peers);
            EXPECT_GE(t, last) << peers;
            last = t;
        }
    }
    // The 1,024-token prompt: the experts' share is most of the step when eight prompts are timed.
    const double all = m.step_time_us(kPrompt.data(), 1), alone = m.step_time_us(kPrompt.data(), 1, 7);
    EXPECT_LT(alone, 0.8 * all);
    EXPECT_THROW(m.step_time_us(kPrompt.data(), 1, -1), Error);
}

// Without attention DP there are no peers: the group form with none is the step.
TEST(AttentionDpGroup, OneReplicaHasNoPeers) {
    const roofline::RooflineModel m = dep(1, 1);
    EXPECT_EQ(m.step_time_us(kPrompt.data(), 1, 0), m.step_time_us(kPrompt.data(), 1));
    EXPECT_EQ(m.step_time_us(kDecodes.data(), kDecodes.size(), 0), m.step_time_us(kDecodes.data(), kDecodes.size()));
}

// The simulator's lockstep step: the slowest busy replica with the group's real tokens, idle replicas counted as
// one dummy token each; equal batches are the old step; nothing to run is 0.
TEST(AttentionDpGroup, LockstepTakesTheGroupsRealTokens) {
    const roofline::RooflineModel m = dep(8, 8);
    std::vector<Replica> replicas(8);
    EXPECT_EQ(simulate::lockstep_step_us(m, replicas), 0.0);
    replicas[3].batch = kPrompt;
    EXPECT_EQ(simulate::lockstep_step_us(m, replicas), m.step_time_us(kPrompt.data(), 1, 7));
    replicas[5].batch = kDecodes;
    const double mixed = simulate::lockstep_step_us(m, replicas);
    EXPECT_EQ(mixed, std::max(m.step_time_us(kPrompt.data(), 1, 16 + 6),
                              m.step_time_us(kDecodes.data(), kDecodes.size(), 1024 + 6)));
    for (Replica& r : replicas) r.batch = kDecodes;
    EXPECT_EQ(simulate::lockstep_step_us(m, replicas), m.step_time_us(kDecodes.data(), kDecodes.size()));
}

// The closed form's mixes: busy_replicas 0 or all of them is the old mix; fewer busy replicas cost less.
TEST(AttentionDpGroup, MixWithFewerBusyReplicasCostsLess) {
    const roofline::RooflineModel m = dep(8, 8);
    roofline::StepMix mix;
    mix.chunks = 1;
    mix.chunk_tokens = 1024;
    const double all = m.mix_time_us(mix);
    mix.busy_replicas = 8;
    EXPECT_EQ(m.mix_time_us(mix), all);
    mix.busy_replicas = 1;
    EXPECT_EQ(m.mix_time_us(mix), m.step_time_us(kPrompt.data(), 1, 7));
    EXPECT_LT(m.mix_time_us(mix), all);
}

// SGLang's DpPaddingMode: prefill gathers the tokens present (one per idle replica); a decode-only step pads every
// replica to the busiest one's tokens unless the tokens present are at most half of that.
TEST(AttentionDpGroup, DecodePadsToTheBusiestReplicaPrefillGathersWhatIsThere) {
    EXPECT_EQ(roofline::dp_group_tokens(true, 1024 + 16, 1024, 2, 8), 1024 + 16 + 6);
    EXPECT_EQ(roofline::dp_group_tokens(false, 5 * 16, 16, 5, 8), 8 * 16);  // 160 > 128: padded
    EXPECT_EQ(roofline::dp_group_tokens(false, 4 * 16, 16, 4, 8), 64 + 4);  // 128 = 128: gathered
    EXPECT_EQ(roofline::dp_group_tokens(false, 16, 16, 1, 8), 16 + 7);
    const roofline::RooflineModel m = dep(8, 8);
    std::vector<Replica> replicas(8);
    for (int i = 0; i < 5; ++i) replicas[i].batch = kDecodes;
    EXPECT_EQ(simulate::lockstep_step_us(m, replicas), m.step_time_us(kDecodes.data(), kDecodes.size()));
    replicas[0].batch.pop_back();
    EXPECT_EQ(simulate::lockstep_step_us(m, replicas),
              m.step_time_us(kDecodes.data(), kDecodes.size(), 7 * static_cast<int64_t>(kDecodes.size())));
}

}  // namespace
}  // namespace mfusim
