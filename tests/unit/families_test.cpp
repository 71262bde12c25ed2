// The kernel models of the large-model families (src/roofline/families.hpp): how each scales with its work, and,
// with ../shared/reference, the held-out half of the measured families (docs/kernel-families.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "compare/compare.hpp"
#include "compare/families.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/analytical.hpp"
#include "roofline/families.hpp"
#include "support/reference.hpp"

namespace mfusim::roofline {
namespace {

MoeShape deepseek_moe(double tokens, double alpha = 0, int64_t ep = 1) {
    MoeShape s;
    s.tokens = tokens;
    s.hidden = 7168;
    s.inter = 2048;
    s.topk = 8;
    s.experts = 256;
    s.ep = ep;
    s.routing_alpha = alpha;
    return s;
}

double total_rows(const MoeLoad& load) {
    double rows = 0;
    for (const ExpertClass& c : load.classes) rows += c.count * c.tokens;
    return rows;
}

TEST(MoeLoad, BalancedSpreadsThePairsOverTheRanksExperts) {
    MoeLoad one = moe_rank_load(deepseek_moe(1));
    EXPECT_DOUBLE_EQ(one.rows, 8);  // one token, eight experts, one pair each
    EXPECT_DOUBLE_EQ(total_rows(one), one.rows);
    MoeLoad many = moe_rank_load(deepseek_moe(4096, 0, 8));
    EXPECT_DOUBLE_EQ(many.rows, 4096.0 * 8 / 8);
    ASSERT_EQ(many.classes.size(), 1u);
    EXPECT_DOUBLE_EQ(many.classes[0].count, 32);  // 256 experts / EP 8
}

// The benchmark's balanced_logits through vLLM's grouped top-k (DeepSeek-V3: 8 groups, 4 kept): every group holds
// one of a token's experts, so the groups kept are 0-3 and the other four picks are the lowest-numbered experts
// there (ties to the lower index). 32 tokens on one GPU: 128 experts, not 256; one token on EP 64 (rank 0: experts
// 0-3): four experts, not one; on EP 8 at 4,096 tokens rank 0 (group 0) gets each token's group-0 expert and four
// of experts 0-4.
TEST(MoeLoad, BalancedRoutingThroughGroupedTopKUsesTheKeptGroupsOnly) {
    MoeShape plain = deepseek_moe(32), grouped = deepseek_moe(32);
    grouped.expert_groups = 8;
    grouped.topk_groups = 4;
    EXPECT_DOUBLE_EQ(moe_rank_load(plain).active_experts(), 256);
    EXPECT_DOUBLE_EQ(moe_rank_load(grouped).active_experts(), 128);
    EXPECT_DOUBLE_EQ(moe_rank_load(grouped).rows, 32.0 * 8);
    MoeShape one = deepseek_moe(1, 0, 64);
    EXPECT_DOUBLE_EQ(moe_rank_load(one).active_experts(), 1);
    one.expert_groups = 8;
    one.topk_groups = 4;
    EXPECT_DOUBLE_EQ(moe_rank_load(one).active_experts(), 4);
    MoeShape many = deepseek_moe(4096, 0, 8);
    many.expert_groups = 8;
    many.topk_groups = 4;
    const MoeLoad load = moe_rank_load(many);
    EXPECT_DOUBLE_EQ(load.active_experts(), 32);
    EXPECT_DOUBLE_EQ(total_rows(load), load.rows);
    EXPECT_NEAR(load.rows, 4096.0 * 5, 4096.0 * 0.05);  // not the plain spread's 4,096
    // Fewer tokens than the stride (256 / 8): token t's experts are offset by t x 32 / tokens, each on its own.
    const MoeLoad few = moe_rank_load(deepseek_moe(4));
    EXPECT_DOUBLE_EQ(few.active_experts(), 32);
    EXPECT_DOUBLE_EQ(few.rows, 32);
}

// Served routing: the busiest rank's distinct experts, E[max of ep Binomial(local, p)], against a Monte Carlo of
// independent uniform top-8 routing over 256 experts on EP 8 (300 trials per point, computed outside the library:
// 4 tokens 6.6 experts, 8 tokens 10.8, 16 tokens 16.7, 32 tokens 24.0, 64 tokens 30.3).
TEST(MoeLoad, RandomRoutingLoadsTheBusiestRankAsSampledRoutingDoes) {
    const std::pair<double, double> sampled[] = {{4, 6.6}, {8, 10.8}, {16, 16.7}, {32, 24.0}, {64, 30.3}};
    for (const auto& [tokens, experts] : sampled) {
        MoeShape s = deepseek_moe(tokens, 0, 8);
        s.random_routing = true;
        const MoeLoad load = moe_rank_load(s);
        ASSERT_EQ(load.classes.size(), 1u);
        EXPECT_NEAR(load.classes[0].count, experts, 0.5) << tokens;
        EXPECT_DOUBLE_EQ(total_rows(load), load.rows) << tokens;
        EXPECT_GE(load.rows, tokens * 8 / 8) << tokens;  // at least the mean rank's pairs
    }
    // Small batches: above the balanced spread (pairs / ep experts); moderate ones below every local expert.
    MoeShape few = deepseek_moe(4, 0, 8), moderate = deepseek_moe(32, 0, 8), many = deepseek_moe(4096, 0, 8);
    few.random_routing = moderate.random_routing = many.random_routing = true;
    EXPECT_GT(moe_rank_load(few).classes[0].count, moe_rank_load(deepseek_moe(4, 0, 8)).classes[0].count + 2);
    EXPECT_LT(moe_rank_load(moderate).classes[0].count, 28);
    EXPECT_DOUBLE_EQ(moe_rank_load(many).classes[0].count, 32);  // prefill: every local expert, as balanced
    EXPECT_DOUBLE_EQ(moe_rank_load(many).rows, 4096.0 * 8 / 8);
    // One rank: the expected distinct experts of uniform routing (analytical.hpp).
    MoeShape one = deepseek_moe(16, 0, 1);
    one.random_routing = true;
    EXPECT_NEAR(moe_rank_load(one).classes[0].count, expected_active_experts(256, 8, 16), 1e-6);
}

TEST(MoeLoad, PowerLawLoadsTheMostLoadedRankMore) {
    for (int64_t ep : {1, 8, 64}) {
        MoeLoad balanced = moe_rank_load(deepseek_moe(4096, 0, ep));
        MoeLoad skewed = moe_rank_load(deepseek_moe(4096, 1.2, ep));
        EXPECT_DOUBLE_EQ(total_rows(skewed), skewed.rows) << ep;
        if (ep == 1) {
            EXPECT_DOUBLE_EQ(skewed.rows, 4096.0 * 8);  // every pair routed, none lost to rounding
        } else {
            EXPECT_GT(skewed.rows, balanced.rows) << ep;  // the hot rank holds the most popular expert
        }
        double hottest = 0;
        for (const ExpertClass& c : skewed.classes) hottest = std::max(hottest, c.tokens);
        EXPECT_GT(hottest, 4096.0 * 8 / 256) << ep;  // above the balanced share
    }
}

TEST(MoeLoad, PowerLawCapsAnExpertAtOnePairPerToken) {
    // 8 experts, top-2, one per rank: the power law's hottest expert would take ~70% of the 2 x 16384 pairs, but a
    // token picks an expert at most once (AIConfigurator clamps every expert to num_tokens).
    MoeShape s = deepseek_moe(16384, 1.2, 8);
    s.experts = 8;
    s.topk = 2;
    MoeLoad load = moe_rank_load(s);
    ASSERT_EQ(load.classes.size(), 1u);
    EXPECT_DOUBLE_EQ(load.classes[0].tokens, 16384.0);
    EXPECT_DOUBLE_EQ(load.rows, 16384.0);
    // With many experts per rank the overflow goes to the rank's least loaded experts, none above the bound.
    MoeShape wide = deepseek_moe(64, 1.2, 8);
    MoeLoad w = moe_rank_load(wide);
    for (const ExpertClass& c : w.classes) EXPECT_LE(c.tokens, 64.0);
    EXPECT_DOUBLE_EQ(total_rows(w), w.rows);
}

TEST(MoeLoad, PowerLawOverflowGoesOutInWholePairs) {
    // One token, top-2 of 8 experts (Mixtral): the power law's hottest expert takes both pairs, the cap leaves it
    // one and the other pair goes to one more expert: 2 experts active, not 8 with a fraction of a pair each
    // (which read all 8 experts' weights: A100 `t=1 h=4096 i=14336 k=2/8`, 456 us measured, 2,155 us predicted).
    MoeShape s = deepseek_moe(1, 1.2, 1);
    s.experts = 8;
    s.topk = 2;
    MoeLoad load = moe_rank_load(s);
    double active = 0;
    for (const ExpertClass& c : load.classes) {
        active += c.count;
        EXPECT_DOUBLE_EQ(c.tokens, 1.0);
    }
    EXPECT_DOUBLE_EQ(active, 2.0);
    EXPECT_DOUBLE_EQ(load.rows, 2.0);
}

TEST(MoeLoad, PowerLawRoundingShortfallGoesToIdleExpertsOnePairEach) {
    // Two tokens, top-8 of 160 (h 6144, i 2560): the 16 pairs spread over 160 experts round to a pair on a handful of
    // them; the benchmark hands the shortfall to each rank's least loaded expert in turn (_round_robin_adjust_per_rank
    // with torch.argmin), i.e. to idle experts: 16 experts of one pair, as balanced routing has (B200 220 us against
    // balanced 221 us), not 8 popular experts of two pairs each.
    MoeShape s = deepseek_moe(2, 1.2, 1);
    s.experts = 160;
    const MoeLoad load = moe_rank_load(s);
    EXPECT_DOUBLE_EQ(load.active_experts(), 16);
    for (const ExpertClass& c : load.classes) EXPECT_DOUBLE_EQ(c.tokens, 1.0);
    EXPECT_DOUBLE_EQ(load.rows, 16);
    // Under EP the measured rank receives its share: more experts than the popular ones it holds, none above the
    // bound, and never fewer pairs than the mean rank's.
    for (int64_t ep : {2, 8}) {
        MoeShape r = s;
        r.ep = ep;
        const MoeLoad rank = moe_rank_load(r);
        EXPECT_GE(rank.rows, 16.0 / static_cast<double>(ep)) << ep;
        for (const ExpertClass& c : rank.classes) EXPECT_LE(c.tokens, 2.0) << ep;
        EXPECT_DOUBLE_EQ(total_rows(rank), rank.rows) << ep;
    }
}

TEST(MoeLoad, TheEarlierCollectorsRoundingShortfallCrowdsOntoTheRankTimed) {
    // Two tokens, top-8 of 256 on EP 8 (MoeShape::power_law_global_fill): most experts round to no pair and the
    // shortfall goes one pair each to the highest-numbered idle experts, all on the last rank, which becomes the
    // busiest and the one timed (A100 `t=2 h=7168 i=2048 k=8/256 ep=8`: 941 us measured, ~16 experts' weights).
    MoeShape s = deepseek_moe(2, 1.2, 8);
    const MoeLoad per_rank = moe_rank_load(s);
    s.power_law_global_fill = true;
    const MoeLoad global = moe_rank_load(s);
    EXPECT_GE(global.active_experts(), 3.0 * per_rank.active_experts());
    EXPECT_GE(global.active_experts(), 10.0);
    EXPECT_LE(global.active_experts(), 16.0);                              // at most the 16 pairs, one expert each
    for (const ExpertClass& c : global.classes) EXPECT_LE(c.tokens, 2.0);  // one pair per token at most
    EXPECT_NEAR(total_rows(global), global.rows, 1e-9);
    // On one GPU every pair is the rank's, whatever the placement: the rows are the pairs, none above the bound.
    MoeShape one = deepseek_moe(64, 1.01, 1);
    one.power_law_global_fill = true;
    const MoeLoad all = moe_rank_load(one);
    EXPECT_NEAR(all.rows, 64.0 * 8.0, 1e-9);
    for (const ExpertClass& c : all.classes) EXPECT_LE(c.tokens, 64.0);
    // 8 experts on EP 8, 16,384 tokens: the clamp's overflow fills the least loaded experts to the bound, the rank
    // timed holds one expert of at most 16,384 rows.
    MoeShape mixtral = deepseek_moe(16384, 1.2, 8);
    mixtral.experts = 8;
    mixtral.topk = 2;
    mixtral.power_law_global_fill = true;
    const MoeLoad m = moe_rank_load(mixtral);
    EXPECT_NEAR(m.active_experts(), 1.0, 1e-9);
    EXPECT_LE(m.rows, 16384.0);
    EXPECT_GE(m.rows, 2.0 * 16384.0 / 8.0);  // the busiest of 8 experts holds at least the mean
}

TEST(FusedMoe, WarmExpertWeightsThatFitTheL2AreL2HitsInTheBenchmarkOnly) {
    // One token, top-6 of 128 experts split over TP 2 (h 2688, i 1856): 6 experts' bf16 weights, 90 MB, fit the
    // L40S's 96 MB L2; the benchmark calls the kernel with the same routing again and again (measured 28-34 us,
    // where GDDR6 needs ~120 us for the weights alone). The step's experts (fused_moe_projection_us) stay cold.
    const gpu::GpuProfile l40s = gpu::resolve_gpu("L40S");
    MoeShape s = deepseek_moe(1, 0, 1);
    s.hidden = 2688;
    s.inter = 1856;
    s.topk = 6;
    s.experts = 128;
    s.tp = 2;
    const MoeLoad load = moe_rank_load(s);
    const int64_t inter = s.inter / s.tp;
    const double weights = 6.0 * 2688 * 3 * static_cast<double>(inter) * 2;
    ASSERT_LT(weights, l40s.l2_cache_mb * 1024 * 1024);
    const double memory_us = weights / bandwidth_bytes_per_us(l40s);
    const GemmPrecision p = moe_precision(l40s, s.format);
    const double cold = fused_moe_projection_us(l40s, p, load, 1, s.hidden, 2 * inter, false, true, true) +
                        fused_moe_projection_us(l40s, p, load, 1, inter, s.hidden, true, true, false);
    EXPECT_GT(cold, memory_us);
    EXPECT_LT(fused_moe_us(l40s, s), l40s.moe_overhead_us + 0.5 * memory_us);
    // Twice the experts' width (180 MB) does not fit: memory, the kernel as cold as the step's.
    s.inter *= 2;
    const MoeLoad wide = moe_rank_load(s);
    const double wide_cold =
        fused_moe_projection_us(l40s, p, wide, 1, s.hidden, 2 * s.inter / s.tp, false, true, true) +
        fused_moe_projection_us(l40s, p, wide, 1, s.inter / s.tp, s.hidden, true, true, false);
    EXPECT_DOUBLE_EQ(fused_moe_us(l40s, s), wide_cold);
}

// gpt-oss-120b's MXFP4 experts (hidden 2880, intermediate 2880, top-4 of 128) for `tokens` tokens.
MoeShape gpt_oss_moe(double tokens) {
    MoeShape s = deepseek_moe(tokens);
    s.hidden = 2880;
    s.inter = 2880;
    s.topk = 4;
    s.experts = 128;
    s.format = config::WeightFormat::mxfp4;
    return s;
}

// A kernel file's row: `experts` ungrouped experts of hidden x inter, top-k, balanced.
MoeShape ungrouped_moe(double tokens, int64_t hidden, int64_t inter, int64_t topk, int64_t experts,
                       config::WeightFormat format) {
    MoeShape s = deepseek_moe(tokens);
    s.hidden = hidden;
    s.inter = inter;
    s.topk = topk;
    s.experts = experts;
    s.expert_groups = 0;
    s.topk_groups = 0;
    s.format = format;
    return s;
}

TEST(FusedMoe, W4a8RunsOnFp8TensorCoresWithFourBitWeights) {
    // B200 `w4a8_mxfp4_mxfp8`, 16k tokens of gpt-oss-120b's MoE (h 2880, i 2880, top-4 of 128): compute-bound, the
    // MXF8F6F4 MMA at FP8 rate: faster than the weight-only MXFP4 path's BF16 compute (measured 4x faster than
    // that path predicted), while one token reads the same 4-bit weights either way.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    MoeShape s = gpt_oss_moe(16384);
    MoeShape w4a8 = s;
    w4a8.fp8_activations = true;
    EXPECT_LT(fused_moe_us(b200, w4a8), 0.7 * fused_moe_us(b200, s));
    // One token reads the same 4-bit weights either way; the weight-only path also widens them to BF16 first
    // (moe_mxfp4_convert_per_sm_gws), so it is no faster, and without that floor the two read alike.
    s.tokens = w4a8.tokens = 1;
    EXPECT_LE(fused_moe_us(b200, w4a8), fused_moe_us(b200, s));
    gpu::GpuProfile no_floor = b200;
    no_floor.moe_mxfp4_convert_per_sm_gws = 0;
    EXPECT_NEAR(fused_moe_us(no_floor, w4a8), fused_moe_us(no_floor, s), 0.1 * fused_moe_us(no_floor, s));
}

// TRT-LLM-gen's MXFP4 x BF16 MoE widens every tile's E2M1 weights to BF16 before the MMA, whatever its tokens: at
// gpt-oss-120b's decode sizes (64 tokens, every expert active, one token tile each) the kernel takes at least its
// experts' weights over the SMs' conversion rate, and more than their HBM stream alone (B200 measures 382 us at
// 64 tokens, 0.54 of 8 TB/s, where the W4A8 kernel, which takes E2M1 on the MMA, streams at 0.81). The rate moves
// the W4A16 time only, not W4A8's.
TEST(FusedMoe, Mxfp4TimesBf16WidensEachTilesWeights) {
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    ASSERT_GT(b200.moe_mxfp4_convert_per_sm_gws, 0);
    const MoeShape s = gpt_oss_moe(64);
    const double weights = 128.0 * 2880 * (2 * 2880 + 2880);
    const double floor_us = weights / (b200.sm_count * b200.moe_mxfp4_convert_per_sm_gws * 1e3);
    EXPECT_GE(fused_moe_us(b200, s), floor_us);
    gpu::GpuProfile no_floor = b200;
    no_floor.moe_mxfp4_convert_per_sm_gws = 0;
    EXPECT_GT(fused_moe_us(b200, s), 1.15 * fused_moe_us(no_floor, s));  // 303 -> 390 us
    MoeShape w4a8 = s;
    w4a8.fp8_activations = true;
    EXPECT_DOUBLE_EQ(fused_moe_us(b200, w4a8), fused_moe_us(no_floor, w4a8));
}

// vLLM and SGLang pad MXFP4 experts to FlashInfer's TRT-LLM-gen layout on Blackwell (moe_weight_padding): each
// rank's intermediate shard and the hidden size to multiples of 256. gpt-oss-120b's 2,880 split over MoE TP 16 (180
// per rank) and 32 (90) both run 256-wide, so the two take the same time, as the B200 kernel file measures them
// (w4a16 at 1,024 tokens: 130 and 114 us); unpadded, TP 32 would take less. Hopper's path is not padded here.
TEST(FusedMoe, Mxfp4ExpertsRunPaddedToTheTrtllmGenLayoutOnBlackwell) {
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const MoeWeightPadding pad = moe_weight_padding(b200, config::WeightFormat::mxfp4, false, false);
    EXPECT_EQ(pad.padded_inter(2880 / 8), 512);
    EXPECT_EQ(pad.padded_hidden(2880), 3072);
    EXPECT_EQ(moe_weight_padding(b200, config::WeightFormat::mxfp4, true, false).padded_inter(360), 384);
    EXPECT_EQ(moe_weight_padding(b200, config::WeightFormat::mxfp4, false, true).padded_inter(360), 360);
    EXPECT_EQ(moe_weight_padding(b200, config::WeightFormat::nvfp4, false, false).padded_inter(360), 360);
    EXPECT_EQ(moe_weight_padding(h100, config::WeightFormat::mxfp4, false, false).padded_inter(360), 360);
    MoeShape tp16 = gpt_oss_moe(1024);
    tp16.tp = 16;
    MoeShape tp32 = tp16;
    tp32.tp = 32;
    EXPECT_DOUBLE_EQ(fused_moe_us(b200, tp16), fused_moe_us(b200, tp32));
    MoeShape tp8 = tp16;
    tp8.tp = 8;
    EXPECT_GT(fused_moe_us(b200, tp8), fused_moe_us(b200, tp16));
    EXPECT_GT(fused_moe_us(h100, tp16), fused_moe_us(h100, tp32));
}

// A TRT-LLM-gen tile takes at least moe_tile_min_us whatever its K. Under MoE TP 16 the down projection's K is the
// rank's 64-wide shard and its tiles are many (512 experts x 32 hidden tiles): the floor binds there, and B200
// measures TP 16 about as slow as TP 8 (NVFP4 h 4096, i 1024, top-10 of 512, 1,024 tokens: 202 and 216 us). Under EP
// the K of every tile is the expert's whole 1,024, and the floor does not bind.
TEST(FusedMoe, TrtllmGenTilesTakeAtLeastTheirFloorWhateverTheirK) {
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    ASSERT_GT(b200.moe_tile_min_us, 0);
    gpu::GpuProfile no_floor = b200;
    no_floor.moe_tile_min_us = 0;
    const MoeShape s = ungrouped_moe(1024, 4096, 1024, 10, 512, config::WeightFormat::nvfp4);
    MoeShape tp16 = s;
    tp16.tp = 16;
    EXPECT_GT(fused_moe_us(b200, tp16), 1.3 * fused_moe_us(no_floor, tp16));
    MoeShape ep16 = s;
    ep16.ep = 16;
    EXPECT_NEAR(fused_moe_us(b200, ep16), fused_moe_us(no_floor, ep16), 0.02 * fused_moe_us(no_floor, ep16));
    // Hopper's tiles keep their own terms.
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    EXPECT_EQ(h100.moe_tile_min_us, 0);
}

// A kernel file's CUTLASS MoE row: `experts` ungrouped experts of hidden x inter, top-k, balanced.
MoeShape cutlass_moe(double tokens, int64_t hidden, int64_t inter, int64_t topk, int64_t experts,
                     config::WeightFormat format) {
    MoeShape s = ungrouped_moe(tokens, hidden, inter, topk, experts, format);
    s.cutlass = true;
    return s;
}

// The B200 kernel file's CUTLASS BF16 shape the two tests below pin: h 6144, i 3072, top-4 of 128.
MoeShape cutlass_bf16_moe(double tokens) {
    return cutlass_moe(tokens, 6144, 3072, 4, 128, config::WeightFormat::bf16);
}

TEST(FusedMoe, UntunedCutlassMoeOnBlackwellRunsOneTileOf128Tokens) {
    // B200's kernel benchmark runs FlashInfer's CUTLASS MoE untuned too: tactic 0 of the SM100 grouped candidates,
    // 128 tokens on tcgen05's M by 128 weight columns (64 for NVFP4). Every expert's rows are padded to 128, so
    // from one row per expert to 128 the grouped GEMMs do the same MMAs, and past 128 a second tile row doubles
    // them.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    MoeShape s = cutlass_bf16_moe(32);  // balanced: 1 row per expert
    MoeShape full = s, over = s;
    full.tokens = 4096;  // 128 rows per expert
    over.tokens = 6144;  // 192
    const double few_us = fused_moe_us(b200, s), full_us = fused_moe_us(b200, full), over_us = fused_moe_us(b200, over);
    EXPECT_LT(full_us, 1.15 * few_us);
    EXPECT_GT(over_us, 1.4 * full_us);
    // NVFP4's tile has 64 weight columns, its MMAs at the FP4 rate and its weights a quarter of the bytes: at one
    // row per expert it is well under BF16's time.
    MoeShape fp4 = s;
    fp4.format = config::WeightFormat::nvfp4;
    EXPECT_LT(fused_moe_us(b200, fp4), 0.6 * few_us);
}

TEST(FusedMoe, CutlassMoeStreamsTheWeightsUnderItsMmas) {
    // The CUTLASS MoE's warp-specialized grouped GEMM loads the experts' weights by TMA into a ring of shared-memory
    // stages ahead of its MMA warp: the weight stream and the padded MMAs overlap, and the time is the slower of
    // the two, not their soft maximum. B200, h 6144, i 3072, top-4 of 128, BF16, 32 balanced tokens: the 128
    // experts' 14.5 GB of weights take about as long as the 128-token tiles' MMAs, and the measured layer (2.3 ms)
    // is one of them, where a soft maximum of two near-equal times is 1.4x either.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    MoeShape s = cutlass_bf16_moe(32);
    const double weights = 128.0 * 6144.0 * 3.0 * 3072.0 * 2.0;
    const double stream_us = weights / (b200.streaming_bandwidth_gbs() * 1e3 * b200.moe_weight_stream_efficiency);
    const double us = fused_moe_us(b200, s);
    EXPECT_GT(us, stream_us);
    EXPECT_LT(us, 1.25 * stream_us);
}

TEST(FusedMoe, UntunedCutlassMoeOnHopperRunsOneTileOf128Tokens) {
    // A kernel benchmark's FlashInfer CUTLASS MoE (no autotuning) runs its fallback tactic on Hopper for BF16 and
    // per-tensor FP8: 128 tokens on M by 16 weight columns. Each tile loads the whole token box, so up to 128 rows
    // per expert the time does not grow with the rows, and past them a second box doubles the GEMM. Block FP8
    // keeps its own tile; no other architecture takes the path, nor a row without the CUTLASS backend.
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    EXPECT_TRUE(moe_runs_cutlass_fallback(h100, config::WeightFormat::fp8, true));
    EXPECT_TRUE(moe_runs_cutlass_fallback(h100, config::WeightFormat::bf16, true));
    EXPECT_FALSE(moe_runs_cutlass_fallback(h100, config::WeightFormat::fp8_block, true));
    EXPECT_FALSE(moe_runs_cutlass_fallback(h100, config::WeightFormat::fp8, false));
    for (const char* other : {"B200", "A100", "L40S"}) {  // Blackwell's fallback: fused_moe_us (test below)
        EXPECT_FALSE(moe_runs_cutlass_fallback(gpu::resolve_gpu(other), config::WeightFormat::fp8, true)) << other;
    }
    // Mixtral's experts (h 4096, i 14336, top-2 of 8), balanced: 16 tokens give 4 rows per expert, 512 give 128,
    // 768 give 192.
    MoeShape s = cutlass_moe(16, 4096, 14336, 2, 8, config::WeightFormat::fp8);
    MoeShape full = s, over = s;
    full.tokens = 512;
    over.tokens = 768;
    const double few_us = fused_moe_us(h100, s), full_us = fused_moe_us(h100, full), over_us = fused_moe_us(h100, over);
    EXPECT_LT(full_us, 1.15 * few_us);
    EXPECT_GT(over_us, 1.7 * full_us);
    // The fixed time per tile counts: without it the same rows take less.
    gpu::GpuProfile no_tile = h100;
    no_tile.moe_fallback_tile_us = 0;
    ASSERT_GT(h100.moe_fallback_tile_us, 0);
    EXPECT_LT(fused_moe_us(no_tile, s), few_us);
    // The tuned CUTLASS tiles (tokens on N from 16) grow with the rows instead: cheaper at a few rows per expert.
    MoeShape block = s;
    block.format = config::WeightFormat::fp8_block;
    EXPECT_LT(fused_moe_us(h100, block), 0.7 * few_us);
}

TEST(FusedMoe, WeightOnlyInt4RunsMarlinAtTheWarpMmaRate) {
    // INT4 weight-only experts run vLLM's Marlin MoE (warp-level mma.sync), MXFP4 on Blackwell FlashInfer's TRT-LLM
    // MXFP4 x BF16 kernel (tcgen05); quantised-activation formats never run Marlin.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200"), h100 = gpu::resolve_gpu("H100");
    EXPECT_TRUE(moe_runs_marlin(b200, config::WeightFormat::int4_wo));
    EXPECT_FALSE(moe_runs_marlin(b200, config::WeightFormat::mxfp4));
    // Hopper's MXFP4 (gpt-oss) runs OpenAI's Triton matmul_ogs on wgmma, not Marlin.
    EXPECT_FALSE(moe_runs_marlin(h100, config::WeightFormat::mxfp4));
    EXPECT_FALSE(moe_runs_marlin(b200, config::WeightFormat::nvfp4));
    EXPECT_FALSE(moe_runs_marlin(b200, config::WeightFormat::fp8_block));
    EXPECT_FALSE(moe_runs_marlin(b200, config::WeightFormat::bf16));
    // Compute-bound (16k tokens): on Blackwell mma.sync is held to warp_mma_tflops_per_sm, well under the tcgen05
    // peak, so Marlin's time follows that per-SM rate (B200 measures Marlin at about H100's rate per SM, 2.2x
    // slower than the BF16 peak predicted); a GPU that states no rate (0) keeps the BF16 peak.
    MoeShape s = deepseek_moe(16384);
    s.format = config::WeightFormat::int4_wo;
    ASSERT_GT(b200.warp_mma_tflops_per_sm, 0);
    ASSERT_LT(b200.warp_mma_tflops_per_sm * b200.sm_count, b200.peak_bf16_tflops);
    gpu::GpuProfile no_rate = b200;
    no_rate.warp_mma_tflops_per_sm = 0;
    EXPECT_GT(fused_moe_us(b200, s), 1.5 * fused_moe_us(no_rate, s));
    gpu::GpuProfile twice = b200;
    twice.warp_mma_tflops_per_sm = 2 * b200.warp_mma_tflops_per_sm;
    EXPECT_LT(fused_moe_us(twice, s), 0.7 * fused_moe_us(b200, s));
    // The step's experts take the same path: a grouped GEMM of the served model at that precision is Marlin's.
    GemmPrecision p = moe_precision(b200, config::WeightFormat::int4_wo);
    EXPECT_TRUE(p.marlin);
    GemmPrecision tensor_core = p;
    tensor_core.marlin = false;
    const MoeLoad load = moe_rank_load(s);
    EXPECT_GT(
        fused_moe_projection_us(b200, p, load, s.tokens, s.hidden, 2 * s.inter, false, true, false),
        1.5 * fused_moe_projection_us(b200, tensor_core, load, s.tokens, s.hidden, 2 * s.inter, false, true, false));
    // Hopper states its mma.sync rate too (Triton's tiles of fewer than 64 rows run it, next test); Ampere's
    // mma.sync is its full tensor rate, so it states none.
    EXPECT_GT(h100.warp_mma_tflops_per_sm, 0);
    EXPECT_LT(h100.warp_mma_tflops_per_sm * h100.sm_count, h100.peak_bf16_tflops);
    EXPECT_EQ(gpu::resolve_gpu("A100").warp_mma_tflops_per_sm, 0);
}

TEST(FusedMoe, HopperTilesOfFewerThanAWarpgroupsRowsRunWarpLevelMma) {
    // Triton lowers tl.dot to wgmma only for BLOCK_SIZE_M a multiple of 64; a 16- or 32-row tile runs mma.sync at
    // warp_mma_tflops_per_sm. At a few rows per expert the best tile is such a small one (padding a 64-row tile
    // wastes more), so the warp rate sets part of the time; at thousands of rows per expert every tile is a wgmma
    // one and the warp rate does not matter. Ampere (mma.sync is its full rate) has no such split.
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100"), a100 = gpu::resolve_gpu("A100");
    ASSERT_GT(h100.warp_mma_tflops_per_sm, 0);
    gpu::GpuProfile slow_warp = h100;
    slow_warp.warp_mma_tflops_per_sm = h100.warp_mma_tflops_per_sm / 4;
    const MoeShape few = deepseek_moe(512), many = deepseek_moe(32768);  // 16 and 1,024 rows per expert
    EXPECT_GT(fused_moe_us(slow_warp, few), fused_moe_us(h100, few));
    EXPECT_DOUBLE_EQ(fused_moe_us(slow_warp, many), fused_moe_us(h100, many));
    gpu::GpuProfile a100_warp = a100;
    a100_warp.warp_mma_tflops_per_sm = 0.5;
    EXPECT_DOUBLE_EQ(fused_moe_us(a100_warp, few), fused_moe_us(a100, few));
}

TEST(FusedMoe, HopperCutlassTilesPutTheTokensOnWgmmasN) {
    // The CUTLASS MoE's SM90 grouped GEMM swaps its operands (weights on wgmma's M, tokens on N): a few rows per
    // expert still run wgmma, so the warp-level rate that Triton's small tiles pay does not touch it, and it has its
    // own efficiency. Only Hopper runs it, and only for the formats it takes. Block FP8: the kernel benchmark's BF16
    // and per-tensor FP8 rows run the untuned fallback tile instead (previous test).
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    ASSERT_GT(h100.warp_mma_tflops_per_sm, 0);
    gpu::GpuProfile slow_warp = h100;
    slow_warp.warp_mma_tflops_per_sm = h100.warp_mma_tflops_per_sm / 4;
    MoeShape few = deepseek_moe(512);  // 16 rows per expert
    few.format = config::WeightFormat::fp8_block;
    MoeShape few_cutlass = few;
    few_cutlass.cutlass = true;
    EXPECT_GT(fused_moe_us(slow_warp, few), fused_moe_us(h100, few));
    EXPECT_DOUBLE_EQ(fused_moe_us(slow_warp, few_cutlass), fused_moe_us(h100, few_cutlass));
    // At thousands of rows per expert the GEMM is the time: a lower CUTLASS efficiency slows the CUTLASS rows only.
    MoeShape many = deepseek_moe(32768);
    many.format = config::WeightFormat::fp8_block;
    MoeShape many_cutlass = many;
    many_cutlass.cutlass = true;
    gpu::GpuProfile slow_cutlass = h100;
    slow_cutlass.moe_cutlass_gemm_efficiency = h100.moe_cutlass_gemm_efficiency / 2;
    ASSERT_GT(h100.moe_cutlass_gemm_efficiency, 0);
    EXPECT_GT(fused_moe_us(slow_cutlass, many_cutlass), 1.3 * fused_moe_us(h100, many_cutlass));
    EXPECT_DOUBLE_EQ(fused_moe_us(slow_cutlass, many), fused_moe_us(h100, many));
    EXPECT_TRUE(moe_runs_cutlass_sm90(h100, config::WeightFormat::fp8_block, true));
    EXPECT_FALSE(moe_runs_cutlass_sm90(h100, config::WeightFormat::fp8_block, false));
    EXPECT_FALSE(moe_runs_cutlass_sm90(h100, config::WeightFormat::int4_wo, true));
    for (const char* other : {"A100", "B200", "L40S"}) {
        EXPECT_FALSE(moe_runs_cutlass_sm90(gpu::resolve_gpu(other), config::WeightFormat::fp8, true)) << other;
    }
}

TEST(FusedMoe, BlackwellBlockFp8PaysOneRoundTripPerKBlockOfScales) {
    // Block FP8 promotes each tile's partial accumulator once per 128-wide K block outside the MMA: with few tiles
    // (one token, one expert per rank) the tile's round trips, not its bytes, set the time, and they grow with K.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200"), h100 = gpu::resolve_gpu("H100");
    ASSERT_GT(b200.moe_scale_block_step_us, 0);
    EXPECT_EQ(h100.moe_scale_block_step_us, 0);  // Hopper's block FP8 (Triton, CUTLASS) was fitted without it
    EXPECT_EQ(moe_precision(b200, config::WeightFormat::fp8_block).scale_block_k, 128);
    EXPECT_EQ(moe_precision(b200, config::WeightFormat::fp8).scale_block_k, 0);
    MoeShape s = deepseek_moe(1, 0, 256);
    s.format = config::WeightFormat::fp8_block;
    gpu::GpuProfile none = b200;
    none.moe_scale_block_step_us = 0;
    // Up (K = 7168: 56 blocks) and down (K = 2048: 16 blocks) each take at least their round trips.
    const double floor_us = (56 + 16) * b200.moe_scale_block_step_us;
    EXPECT_GE(fused_moe_us(b200, s), b200.moe_overhead_us + floor_us);
    EXPECT_LT(fused_moe_us(none, s), b200.moe_overhead_us + floor_us);
    // The round trips run in series with the MMAs, so at a large batch too block FP8 costs well above the FP8
    // rate (measured on B200 above 2,048 tokens: 2.2x per-tensor FP8 at the same shape).
    MoeShape large = deepseek_moe(16384);
    large.format = config::WeightFormat::fp8_block;
    EXPECT_GT(fused_moe_us(b200, large), 1.2 * fused_moe_us(none, large));
}

TEST(FusedMoe, BlackwellTrtllmGenTilesFromEightTokens) {
    // FlashInfer's TRT-LLM-gen MoE puts the tokens on tcgen05's N (8-64 per tile): at 4 rows per expert a tile
    // pads to 8, not 16, so the grouped GEMM's padded FLOPs halve; Marlin and the other architectures keep 16.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200"), h100 = gpu::resolve_gpu("H100");
    EXPECT_GT(moe_precision(b200, config::WeightFormat::bf16).tokens_on_mma_n, 0);
    EXPECT_EQ(moe_precision(b200, config::WeightFormat::int4_wo).tokens_on_mma_n, 0);
    EXPECT_EQ(moe_precision(h100, config::WeightFormat::bf16).tokens_on_mma_n, 0);
    const MoeShape s = deepseek_moe(128);  // 128 x 8 / 256 = 4 rows per expert
    const MoeLoad load = moe_rank_load(s);
    GemmPrecision eight = moe_precision(b200, config::WeightFormat::bf16);
    GemmPrecision sixteen = eight;
    sixteen.tokens_on_mma_n = 0;
    EXPECT_LT(fused_moe_projection_us(b200, eight, load, s.tokens, s.hidden, 2 * s.inter, false, true, false),
              fused_moe_projection_us(b200, sixteen, load, s.tokens, s.hidden, 2 * s.inter, false, true, false));
}

TEST(FusedMoe, BlackwellTokenTilesStopAtTheLaunchersLadder) {
    // FlashInfer's TRT-LLM-gen launchers offer token tiles up to 128 (BF16, FP8, block FP8), 256 (NVFP4, MXFP4 x
    // MXFP8) and 64 (MXFP4 x BF16); the experts of other kernels keep the tokens on M.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200"), h100 = gpu::resolve_gpu("H100");
    EXPECT_EQ(moe_token_tile_max(b200, config::WeightFormat::bf16, false), 128);
    EXPECT_EQ(moe_token_tile_max(b200, config::WeightFormat::fp8_block, false), 128);
    EXPECT_EQ(moe_token_tile_max(b200, config::WeightFormat::nvfp4, false), 256);
    EXPECT_EQ(moe_token_tile_max(b200, config::WeightFormat::mxfp4, false), 64);
    EXPECT_EQ(moe_token_tile_max(b200, config::WeightFormat::mxfp4, true), 256);
    EXPECT_EQ(moe_token_tile_max(b200, config::WeightFormat::int4_wo, false), 0);  // Marlin
    EXPECT_EQ(moe_token_tile_max(h100, config::WeightFormat::bf16, false), 0);
    EXPECT_EQ(moe_precision(b200, config::WeightFormat::mxfp4).tokens_on_mma_n, 64);
}

TEST(FusedMoe, BlackwellCutlassShapePaysItsPermutePassOnEveryTpRank) {
    // FlashInfer's CUTLASS MoE (a B200 shape TRT-LLM-gen's launchers do not take) permutes every routed pair's
    // hidden row in a kernel of its own (expandInputRowsKernel): BF16 read, the GEMM's type written, on the rank's
    // own rows, whatever the MoE TP.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200"), h100 = gpu::resolve_gpu("H100");
    const MoeShape s = deepseek_moe(16384);
    const MoeLoad load = moe_rank_load(s);
    GemmPrecision permuted = moe_precision(b200, config::WeightFormat::bf16);
    permuted.tokens_on_mma_n = 0;
    GemmPrecision fused = permuted;
    permuted.expands_rows = true;
    const double bytes = load.rows * static_cast<double>(s.hidden) * (2.0 + permuted.a_bytes);
    const double up =
        fused_moe_projection_us(b200, permuted, load, s.tokens, s.hidden, 2 * s.inter, false, true, false);
    EXPECT_NEAR(up - fused_moe_projection_us(b200, fused, load, s.tokens, s.hidden, 2 * s.inter, false, true, false),
                bytes / bandwidth_bytes_per_us(b200), 1e-6 * up);
    // TP does not divide it: at TP 32 the CUTLASS shape stays above its permute bytes at bandwidth, EP divides it.
    MoeShape cutlass = s;
    cutlass.cutlass = true;
    cutlass.tp = 32;
    EXPECT_GE(fused_moe_us(b200, cutlass), bytes / bandwidth_bytes_per_us(b200));
    // (Less the other ranks' down rows every FlashInfer row pays under EP, GemmPrecision::finalize_all_pairs.)
    cutlass.tp = 1;
    cutlass.ep = 64;
    const MoeLoad ep64 = moe_rank_load(cutlass);
    const double others = (ep64.pairs - ep64.rows) * 2.0 * static_cast<double>(s.hidden);
    EXPECT_LT(fused_moe_us(b200, cutlass) - others / bandwidth_bytes_per_us(b200),
              bytes / bandwidth_bytes_per_us(b200));
    // On Hopper the flag selects CUTLASS's SM90 grouped GEMM (HopperCutlassTilesPutTheTokensOnWgmmasN); where no
    // CUTLASS MoE kernel is modelled (Ampere) it changes nothing.
    MoeShape hopper = deepseek_moe(16384);
    hopper.format = config::WeightFormat::fp8;
    const double plain = fused_moe_us(h100, hopper);
    hopper.cutlass = true;
    EXPECT_NE(fused_moe_us(h100, hopper), plain);
    const gpu::GpuProfile a100 = gpu::resolve_gpu("A100");
    MoeShape ampere = deepseek_moe(16384);
    const double ampere_plain = fused_moe_us(a100, ampere);
    ampere.cutlass = true;
    EXPECT_EQ(fused_moe_us(a100, ampere), ampere_plain);
}

TEST(FusedMoe, BlackwellMxfp4WeightsRunAtTheirOwnEfficiency) {
    // TRT-LLM-gen's MXFP4-weight MoE levels off well below the BF16 / FP8 kernels' rate (measured MXFP4 x BF16
    // 0.54 PFLOP/s from 128 rows per expert on): at a large batch its grouped GEMM runs at moe_mxfp4_gemm_efficiency.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200"), h100 = gpu::resolve_gpu("H100");
    EXPECT_TRUE(moe_precision(b200, config::WeightFormat::mxfp4).mxfp4_weights);
    EXPECT_FALSE(moe_precision(b200, config::WeightFormat::nvfp4).mxfp4_weights);
    EXPECT_FALSE(moe_precision(h100, config::WeightFormat::mxfp4).mxfp4_weights);
    ASSERT_GT(b200.moe_mxfp4_gemm_efficiency, 0.0);
    ASSERT_LT(b200.moe_mxfp4_gemm_efficiency, b200.moe_gemm_efficiency);
    const MoeShape s = deepseek_moe(16384);
    const MoeLoad load = moe_rank_load(s);
    GemmPrecision mxfp4 = moe_precision(b200, config::WeightFormat::mxfp4);
    GemmPrecision as_bf16 = mxfp4;
    as_bf16.mxfp4_weights = false;
    const double slow = fused_moe_projection_us(b200, mxfp4, load, s.tokens, s.hidden, 2 * s.inter, false, true, false);
    const double fast =
        fused_moe_projection_us(b200, as_bf16, load, s.tokens, s.hidden, 2 * s.inter, false, true, false);
    EXPECT_GT(slow, 0.8 * fast * b200.moe_gemm_efficiency / b200.moe_mxfp4_gemm_efficiency);
}

TEST(FusedMoe, AShapeThatNamesMarlinRunsMarlin) {
    // A kernel file's rows that ran Marlin (compressed-tensors MXFP4 on a GPU whose MXFP4 default is another
    // kernel) are timed at the warp-level mma.sync rate; without the flag at the format's default kernel's.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    ASSERT_GT(b200.warp_mma_tflops_per_sm, 0);
    MoeShape s = deepseek_moe(16384);
    s.format = config::WeightFormat::mxfp4;
    MoeShape marlin = s;
    marlin.marlin = true;
    EXPECT_GT(fused_moe_us(b200, marlin), 1.2 * fused_moe_us(b200, s));
    // A format whose activations are quantised never runs Marlin, flag or not.
    s.format = marlin.format = config::WeightFormat::fp8_block;
    EXPECT_DOUBLE_EQ(fused_moe_us(b200, marlin), fused_moe_us(b200, s));
}

TEST(FusedMoe, AMarlinRowRunsMarlinsTilesRateAndAllPairPasses) {
    // A Marlin row of an MXFP4 shape on Blackwell is not TRT-LLM-gen's kernel: 16 rows on M, moe_gemm_efficiency.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    MoeShape s = deepseek_moe(16384);
    s.format = config::WeightFormat::mxfp4;
    s.marlin = true;
    gpu::GpuProfile same_rate = b200;
    same_rate.moe_mxfp4_gemm_efficiency = 0;  // 0: moe_gemm_efficiency for every MXFP4 path
    EXPECT_DOUBLE_EQ(fused_moe_us(b200, s), fused_moe_us(same_rate, s));
    // Under EP, _fused_marlin_moe's activation (over all of intermediate_cache1), its zeroing of the down output
    // and its top-k sum cover every pair of the layer, the other ranks' too; at EP 1 nothing changes.
    s.ep = 8;
    const MoeLoad load = moe_rank_load(s);
    ASSERT_GT(load.pairs, load.rows);
    GemmPrecision own = moe_precision(b200, config::WeightFormat::int4_wo);
    ASSERT_TRUE(own.marlin);
    GemmPrecision all = own;
    all.marlin_all_pairs = true;
    const double h = static_cast<double>(s.hidden), up = 2.0 * static_cast<double>(s.inter);
    const double bw = bandwidth_bytes_per_us(b200);
    auto pass = [&](const GemmPrecision& p, bool down) {
        return down ? fused_moe_projection_us(b200, p, load, s.tokens, s.inter, s.hidden, true, true, false)
                    : fused_moe_projection_us(b200, p, load, s.tokens, s.hidden, 2 * s.inter, false, true, false);
    };
    EXPECT_NEAR(pass(all, false) - pass(own, false), (load.pairs - load.rows) * 3.0 * up / bw, 1e-6 * pass(all, false));
    EXPECT_NEAR(pass(all, true) - pass(own, true), (2.0 * load.pairs - load.rows) * 2.0 * h / bw,
                1e-6 * pass(all, true));
    s.ep = 1;
    const MoeLoad whole = moe_rank_load(s);
    EXPECT_DOUBLE_EQ(fused_moe_projection_us(b200, all, whole, s.tokens, s.hidden, 2 * s.inter, false, true, false),
                     fused_moe_projection_us(b200, own, whole, s.tokens, s.hidden, 2 * s.inter, false, true, false));
    // The step's Marlin experts do not take the passes (the flag comes from a kernel file's kernel_source only).
    EXPECT_FALSE(moe_precision(b200, config::WeightFormat::int4_wo).marlin_all_pairs);
}

TEST(FusedMoe, BlackwellFlashInferRowsPayTheDownRowsOfEveryPairUnderEp) {
    // A kernel row on FlashInfer's Blackwell MoE pays, under EP, the BF16 down rows of every pair of the layer, the
    // other ranks' too: the down pass differs from the rank's own by exactly (pairs - rows) x 2 x hidden bytes.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    MoeShape s = deepseek_moe(16384);
    s.format = config::WeightFormat::nvfp4;
    s.ep = 8;
    const MoeLoad load = moe_rank_load(s);
    ASSERT_GT(load.pairs, load.rows);
    const GemmPrecision own = moe_precision(b200, s.format);
    EXPECT_FALSE(own.finalize_all_pairs);  // the step's experts keep their own pairs
    GemmPrecision all = own;
    all.finalize_all_pairs = true;
    auto down = [&](const GemmPrecision& p, const MoeLoad& l) {
        return fused_moe_projection_us(b200, p, l, s.tokens, s.inter, s.hidden, true, true, false);
    };
    const double h = static_cast<double>(s.hidden);
    EXPECT_NEAR(down(all, load) - down(own, load), (load.pairs - load.rows) * 2.0 * h / bandwidth_bytes_per_us(b200),
                1e-6 * down(all, load));
    // The up pass and EP 1 are unchanged.
    EXPECT_DOUBLE_EQ(fused_moe_projection_us(b200, all, load, s.tokens, s.hidden, 2 * s.inter, false, true, false),
                     fused_moe_projection_us(b200, own, load, s.tokens, s.hidden, 2 * s.inter, false, true, false));
    MoeShape one = s;
    one.ep = 1;
    const MoeLoad whole = moe_rank_load(one);
    EXPECT_DOUBLE_EQ(down(all, whole), down(own, whole));
    // The kernel row takes it: its time grows by those bytes with the other ranks' pairs.
    MoeLoad own_pairs = load;
    own_pairs.pairs = load.rows;
    EXPECT_NEAR(fused_moe_us(b200, s, load) - fused_moe_us(b200, s, own_pairs),
                (load.pairs - load.rows) * 2.0 * h / bandwidth_bytes_per_us(b200), 1e-6 * fused_moe_us(b200, s, load));
}

TEST(FusedMoe, BlackwellKernelRowsStreamTheExpertsWeightsAtTheirOwnRate) {
    // One token, top-22 of 512 (h 2048, i 5120, BF16): 1.38 GB of experts, well past B200's L2, whose stream sets the
    // time (measured 186 us, 7.4 TB/s). The kernel row streams them at moe_weight_stream_efficiency of HBM, not the
    // dense kernels' memory_efficiency; the step's experts (fused_moe_projection_us) keep memory_efficiency.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    ASSERT_GT(b200.moe_weight_stream_efficiency, b200.memory_efficiency);
    gpu::GpuProfile dense = b200;
    dense.moe_weight_stream_efficiency = 0;
    MoeShape s = deepseek_moe(1);
    s.hidden = 2048;
    s.inter = 5120;
    s.topk = 22;
    s.experts = 512;
    const MoeLoad load = moe_rank_load(s);
    const double weights = 22.0 * 2048 * 3 * 5120 * 2;
    ASSERT_GT(weights, b200.l2_cache_mb * 1024 * 1024);
    const double hbm = b200.streaming_bandwidth_gbs() * 1e3;
    const double saved = weights / (hbm * b200.memory_efficiency) - weights / (hbm * b200.moe_weight_stream_efficiency);
    EXPECT_NEAR(fused_moe_us(dense, s, load) - fused_moe_us(b200, s, load), saved, 0.02 * saved);
    const GemmPrecision p = moe_precision(b200, s.format);
    EXPECT_DOUBLE_EQ(fused_moe_projection_us(b200, p, load, 1, s.hidden, 2 * s.inter, false, true, true),
                     fused_moe_projection_us(dense, p, load, 1, s.hidden, 2 * s.inter, false, true, true));
    // Other architectures state none: their kernel rows stream at memory_efficiency.
    EXPECT_DOUBLE_EQ(gpu::resolve_gpu("H100").moe_weight_stream_efficiency, 0);
}

TEST(FusedMoe, W4a8RunsAtTheFp8GroupedGemmRateNotMxfp4xBf16s) {
    // MXFP4 weights with MXFP8 activations run tcgen05's MXF8F6F4 MMA on FP8 cores: moe_gemm_efficiency, not the
    // MXFP4 x BF16 kernels' moe_mxfp4_gemm_efficiency.
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200");
    ASSERT_GT(b200.moe_mxfp4_gemm_efficiency, 0);
    MoeShape s = deepseek_moe(16384);
    s.format = config::WeightFormat::mxfp4;
    s.fp8_activations = true;
    EXPECT_FALSE(moe_precision(b200, s.format, true).mxfp4_weights);
    gpu::GpuProfile other = b200;
    other.moe_mxfp4_gemm_efficiency = b200.moe_mxfp4_gemm_efficiency / 2;
    EXPECT_DOUBLE_EQ(fused_moe_us(other, s), fused_moe_us(b200, s));
    s.fp8_activations = false;  // MXFP4 x BF16 keeps its own rate
    EXPECT_GT(fused_moe_us(other, s), fused_moe_us(b200, s));
}

TEST(FusedMoe, TileOperandLoadsCostMostWhereABlockHoldsFewRows) {
    // Every BLOCK_SIZE_M block of an expert's rows loads that expert's weights again: with a per-SM load rate
    // the time added per (token, expert) pair is far larger at one row per expert (decode), where a block holds
    // one row, than at thousands of rows per expert, whose full blocks share each load; 0 leaves the MMA alone.
    gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    h100.moe_tile_load_per_sm_gbs = 0;
    gpu::GpuProfile loaded = h100;
    loaded.moe_tile_load_per_sm_gbs = 20;
    MoeShape few = deepseek_moe(32), many = deepseek_moe(32768);
    const double few_added = fused_moe_us(loaded, few) - fused_moe_us(h100, few);
    const double many_added = fused_moe_us(loaded, many) - fused_moe_us(h100, many);
    EXPECT_GT(few_added, 0.0);
    EXPECT_GT(many_added, 0.0);
    EXPECT_GT(few_added / few.tokens, 10 * many_added / many.tokens);
    gpu::GpuProfile faster = loaded;
    faster.moe_tile_load_per_sm_gbs = 40;
    EXPECT_LT(fused_moe_us(faster, few), fused_moe_us(loaded, few));
}

TEST(FusedMoe, TritonUnderExpertParallelismPassesOverEveryPair) {
    // vLLM's Triton fused_moe (Ampere, Ada; BF16 on Hopper) writes zeros for the other ranks' pairs and runs its
    // activation and top-k sum over all of them; FlashInfer's CUTLASS / TRT-LLM MoE (Hopper FP8, Blackwell) and
    // Marlin permute only the rank's own pairs.
    const gpu::GpuProfile l40s = gpu::resolve_gpu("L40S"), h100 = gpu::resolve_gpu("H100"),
                          b200 = gpu::resolve_gpu("B200"), a100 = gpu::resolve_gpu("A100");
    EXPECT_TRUE(moe_runs_triton(l40s, config::WeightFormat::bf16));
    EXPECT_TRUE(moe_runs_triton(l40s, config::WeightFormat::fp8_block));
    EXPECT_FALSE(moe_runs_triton(l40s, config::WeightFormat::int4_wo));  // Marlin
    EXPECT_TRUE(moe_runs_triton(a100, config::WeightFormat::bf16));
    EXPECT_TRUE(moe_runs_triton(h100, config::WeightFormat::bf16));
    EXPECT_FALSE(moe_runs_triton(h100, config::WeightFormat::fp8_block));
    EXPECT_FALSE(moe_runs_triton(b200, config::WeightFormat::bf16));
    EXPECT_FALSE(moe_passes_all_pairs(b200, config::WeightFormat::fp8));
    EXPECT_TRUE(moe_passes_all_pairs(b200, config::WeightFormat::fp8_block));
    EXPECT_TRUE(moe_precision(l40s, config::WeightFormat::bf16).all_pairs);
    EXPECT_FALSE(moe_precision(h100, config::WeightFormat::fp8).all_pairs);
    // Under EP 64 at a large batch the rank computes 1/64 of the pairs but passes over all of them: far slower
    // than a kernel that permutes only its own; without EP the two are the same kernel.
    GemmPrecision triton = moe_precision(l40s, config::WeightFormat::bf16), own = triton;
    own.all_pairs = false;
    const MoeShape ep64 = deepseek_moe(16384, 0, 64), ep1 = deepseek_moe(16384);
    const MoeLoad wide = moe_rank_load(ep64), whole = moe_rank_load(ep1);
    EXPECT_DOUBLE_EQ(wide.pairs, 16384.0 * static_cast<double>(ep64.topk));
    EXPECT_LT(wide.rows, wide.pairs / 32);
    auto up = [&](const GemmPrecision& p, const MoeLoad& load, const MoeShape& s) {
        return fused_moe_projection_us(l40s, p, load, s.tokens, s.hidden, 2 * s.inter, false, true, false);
    };
    EXPECT_GT(up(triton, wide, ep64), 2 * up(own, wide, ep64));
    EXPECT_DOUBLE_EQ(up(triton, whole, ep1), up(own, whole, ep1));
}

TEST(FusedMoe, TimeGrowsWithTokensAndSkewAndShrinksWithNarrowerWeights) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    double last = 0;
    for (double t : {1.0, 8.0, 64.0, 512.0, 4096.0, 16384.0}) {
        double us = fused_moe_us(h100, deepseek_moe(t));
        EXPECT_GE(us, last) << t;
        last = us;
    }
    // Prefill-sized batches: the most loaded rank of a skewed routing computes more than a balanced one.
    EXPECT_GT(fused_moe_us(h100, deepseek_moe(8192, 1.2, 8)), fused_moe_us(h100, deepseek_moe(8192, 0, 8)));
    // Decode: weight-bound, so FP8 weights (half the bytes) take less time than bf16.
    MoeShape fp8 = deepseek_moe(8);
    fp8.format = config::WeightFormat::fp8_block;
    EXPECT_LT(fused_moe_us(h100, fp8), fused_moe_us(h100, deepseek_moe(8)));
}

MlaShape deepseek_mla(int64_t heads, bool sparse) {
    MlaShape s{7168, 1536, 512, 64, 128, 128, heads};
    if (sparse) {
        s.index_heads = 64;
        s.index_dim = 128;
        s.index_topk = 2048;
    }
    return s;
}

TEST(Mla, DecodeGrowsWithContextAndSparseAttentionStopsAtTopK) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const MlaShape dense = deepseek_mla(128, false), sparse = deepseek_mla(128, true);
    auto decode = [&](const MlaShape& s, int64_t context) {
        return mla_module_us(h100, s, MlaBatch{64, 1, context, true});
    };
    EXPECT_LT(decode(dense, 1024), decode(dense, 65536));
    // Past index_topk keys the sparse attention reads the same keys; only the indexer still grows (slowly).
    const double at_topk = decode(sparse, 4096), far = decode(sparse, 65536);
    EXPECT_LT(far - at_topk, decode(dense, 65536) - decode(dense, 4096));
    // The absorbed decode costs the kernel file's backend overhead on top of its products.
    EXPECT_GT(mla_attention_us(h100, dense, MlaBatch{1, 1, 0, true}), h100.mla_backend_overhead_us);
}

// The MLA kernel files time the backend's forward eagerly: its host work is a floor (mla_backend_host_us) the
// kernels run under, plus mla_backend_overhead_us that they do not hide. A short request costs exactly overhead +
// floor whatever its size, a long one overhead + its kernels; the floor never adds to a long one.
TEST(Mla, KernelFilesTakeTheLongerOfTheHostFloorAndTheKernels) {
    for (const char* name : {"H100", "A100", "L40S"}) {
        const gpu::GpuProfile gpu = gpu::resolve_gpu(name);
        ASSERT_GT(gpu.mla_backend_host_us, 0) << name;
        gpu::GpuProfile no_floor = gpu;
        no_floor.mla_backend_host_us = 0;
        const MlaShape s = deepseek_mla(16, false);
        const MlaBatch one_token{1, 1, 16, true}, small{1, 16, 0, false}, large{4, 16384, 0, false};
        const double overhead = gpu.mla_backend_overhead_us, floor = gpu.mla_backend_host_us;
        for (const MlaBatch& b : {one_token, small}) {
            ASSERT_LT(mla_attention_us(no_floor, s, b) - overhead, floor) << name;    // kernels under the floor ...
            EXPECT_DOUBLE_EQ(mla_attention_us(gpu, s, b), overhead + floor) << name;  // ... hidden by it
        }
        const double long_kernels = mla_attention_us(no_floor, s, large);
        ASSERT_GT(long_kernels - overhead, 2 * floor) << name;
        EXPECT_DOUBLE_EQ(mla_attention_us(gpu, s, large), long_kernels) << name;
    }
}

TEST(Mla, SparsePrefillPadsTheHeadsOfATpRank) {
    // FlashMLA's sparse kernels run blocks of 64 heads on Hopper: 8 heads per GPU cost as much attention as 64.
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const MlaBatch b{1, 8192, 0, false};
    MlaShape eight = deepseek_mla(8, true), sixty_four = deepseek_mla(64, true);
    const double t8 = mla_module_us(h100, eight, b), t64 = mla_module_us(h100, sixty_four, b);
    EXPECT_GT(t8, 0.7 * t64);  // the projections shrink with the heads, the padded attention does not
    EXPECT_LT(t8, t64);
}

// The module's projections run at its own efficiencies, not the dense GEMM files' plateau: 131,072 prompt tokens
// on one head are almost all the fused q_a+kv_a GEMM (7168 -> 2112), whose FLOPs at mla_gemm_efficiency of the BF16
// peak bound the module from below and, with the rest of the module, from above; block FP8 at
// mla_quant_gemm_efficiency of the FP8 peak (on H100 no faster than BF16 in this module: measured 84 against 76 ns
// per token at one head).
TEST(Mla, ModuleProjectionsRunAtTheModulesOwnEfficiency) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    MlaShape s = deepseek_mla(1, false);
    const MlaBatch b{256, 512, 0, false};
    const double tokens = 256.0 * 512, flops = 2.0 * tokens * 7168 * 2112;
    const double bf16 = mla_module_us(h100, s, b);
    const double at_module = flops / (h100.peak_bf16_tflops * 1e6 * h100.mla_gemm_efficiency);
    const double at_dense = flops / (h100.peak_bf16_tflops * 1e6 * h100.gemm_max_efficiency);
    EXPECT_GT(bf16, at_module);
    EXPECT_LT(bf16, 1.3 * at_module);
    EXPECT_GT(bf16, 1.2 * at_dense);  // the dense plateau would make it a third faster
    // Halving the module's BF16 efficiency nearly doubles it; the block-FP8 module does not move.
    gpu::GpuProfile slow = h100;
    slow.mla_gemm_efficiency /= 2;
    EXPECT_GT(mla_module_us(slow, s, b), 1.8 * bf16);
    s.gemm = config::WeightFormat::fp8_block;
    const double fp8 = mla_module_us(h100, s, b);
    EXPECT_DOUBLE_EQ(mla_module_us(slow, s, b), fp8);
    EXPECT_GT(fp8, flops / (h100.peak_fp8_tflops * 1e6 * h100.mla_quant_gemm_efficiency));
    EXPECT_GT(fp8, 0.9 * bf16);  // measured 11.0 ms against 10.0 ms (bf16) at this shape
}

// Block-FP8 on Ada runs vLLM's Triton block-scaled GEMM, one program per 128 output columns walking all of K: a
// one-token decode's fused q_a/kv_a projection (17 programs) streams its weights at one SM's rate, so the block-FP8
// module is slower than the BF16 one at few heads (measured on L40S ~140 us against ~70 us); slowing that per-SM rate
// slows it further, and Hopper's block-FP8 module does not use the rule. The benchmark's warm weights and cache are
// L2 hits where they fit: the BF16 module at one head is faster than its weights read from memory.
TEST(Mla, AdaBlockFp8ProgramsStreamAtOneSmsRateAndWarmModulesHitTheL2) {
    const gpu::GpuProfile l40s = gpu::resolve_gpu("L40S");
    MlaShape s = deepseek_mla(1, false);
    const MlaBatch b{1, 1, 2, true};
    const double bf16 = mla_module_us(l40s, s, b);
    s.gemm = config::WeightFormat::fp8_block;
    const double fp8 = mla_module_us(l40s, s, b);
    EXPECT_GT(fp8, bf16 + 7168.0 * 128 / (l40s.l2_stream_bandwidth_per_sm_gbs * 1e3) * 0.5);
    gpu::GpuProfile slow = l40s;
    slow.l2_stream_bandwidth_per_sm_gbs /= 2;
    EXPECT_GT(mla_module_us(slow, s, b), fp8 + 30);
    gpu::GpuProfile hopper = l40s;
    hopper.architecture = gpu::Architecture::hopper;
    hopper.l2_cache_mb = 0;  // no warm hits either: only the Triton rule differs from the cold Ada GEMMs below
    gpu::GpuProfile cold = l40s;
    cold.l2_cache_mb = 0;
    EXPECT_LT(mla_module_us(hopper, s, b), mla_module_us(cold, s, b));
    // BF16 at one head: ~30 MB of weights, from GDDR 40 us; warm in the 96 MB L2 they take less.
    s.gemm = config::WeightFormat::bf16;
    EXPECT_LT(bf16, mla_module_us(cold, s, b));
    // A cache past the L2 (64 x 131,072 keys of 1,152 bytes) is cold again.
    const MlaBatch big{64, 1, 131072, true};
    EXPECT_DOUBLE_EQ(mla_module_us(l40s, s, big), mla_module_us(cold, s, big));
}

// FlashAttention 2 (Ampere, Ada) runs one head dim for Q, K and V: vLLM pads MLA's 128-wide V to the 192 of Q/K
// (MLACommonImpl._pad_v), FA3 on Hopper does not. A long prefill's kernel is then (192 + 192) / (192 + 128) = 1.2x
// the P.V-at-128 time, less the share of the kv_b GEMM and the K assembly, which do not change.
TEST(Mla, FlashAttention2PrefillPadsVToTheQueryHeadDim) {
    const gpu::GpuProfile a100 = gpu::resolve_gpu("A100");
    ASSERT_EQ(a100.attention_kernel, gpu::AttentionKernel::fa2);
    gpu::GpuProfile unpadded = a100;
    unpadded.attention_kernel = gpu::AttentionKernel::fa3;
    const MlaShape s = deepseek_mla(128, false);
    const MlaBatch b{1, 16384, 0, false};
    const double padded = mla_attention_us(a100, s, b), plain = mla_attention_us(unpadded, s, b);
    EXPECT_GT(padded, 1.1 * plain);
    EXPECT_LT(padded, 1.2 * plain);
}

// Around the padded kernel, vLLM copies: F.pad writes every key's V per head at 192 (reads 128), and the output,
// sliced back to 128 (`output[..., :v]`), is no longer contiguous, so `flatten` copies it
// (MLACommonImpl._flash_attn_varlen_diff_headdims, _forward_prefill). 256 requests of 256 tokens on 16 heads:
// 1.2 GB, ~0.85 ms of A100 HBM (the A100 kernel file: 4.9 ms measured, 3.4 ms timed without them). FA3 on Hopper
// copies neither, and the kernel's own 1.2x at this length is a small part of the difference.
TEST(Mla, FlashAttention2PrefillCopiesItsPaddedVAndItsSlicedOutput) {
    const gpu::GpuProfile a100 = gpu::resolve_gpu("A100");
    gpu::GpuProfile unpadded = a100;
    unpadded.attention_kernel = gpu::AttentionKernel::fa3;
    const MlaShape s = deepseek_mla(16, false);
    const MlaBatch b{256, 256, 0, false};
    const double keys = 256.0 * 256.0, heads = 16.0;
    const double bytes = keys * heads * 2.0 * (128 + 192) + keys * heads * 2.0 * (2 * 128);
    const double copies_us = bytes / bandwidth_bytes_per_us(a100);
    const double extra = mla_attention_us(a100, s, b) - mla_attention_us(unpadded, s, b);
    EXPECT_GT(extra, copies_us);
    EXPECT_LT(extra, 1.25 * copies_us);
}

// vLLM's FlashMLA (reorder_batch_threshold 128) and FlashAttention MLA (512) backends run requests of up to that
// many new tokens on their absorbed decode path: the H100 kernel file's 64-token FlashMLA prefills of 256 requests
// on 128 heads take 9.3 ms against 12.0 ms for 256 tokens, which the prefill path cannot give (it grows with the
// tokens). A small prefill is then timed as the decode path with its queries, a longer one is not touched, and a
// backend without it (threshold 1: Triton MLA) keeps the prefill path.
TEST(Mla, SmallPrefillsTakeTheBackendsDecodePath) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    MlaShape flashmla = deepseek_mla(128, false), triton = flashmla;
    flashmla.decode_path_max_tokens = 128;
    const MlaBatch small{256, 64, 0, false}, small_as_decode{256, 64, 0, true}, long_prefill{256, 256, 0, false};
    EXPECT_DOUBLE_EQ(mla_attention_us(h100, flashmla, small), mla_attention_us(h100, flashmla, small_as_decode));
    EXPECT_NE(mla_attention_us(h100, flashmla, small), mla_attention_us(h100, triton, small));
    EXPECT_DOUBLE_EQ(mla_attention_us(h100, flashmla, long_prefill), mla_attention_us(h100, triton, long_prefill));
    EXPECT_DOUBLE_EQ(mla_attention_us(h100, flashmla, MlaBatch{256, 128, 0, false}),
                     mla_attention_us(h100, flashmla, MlaBatch{256, 128, 0, true}));
    // On the decode path the queries of a request see their cached keys and, causally, each other: more queries or
    // more cached keys cost more, and a one-token request is the plain decode.
    EXPECT_LT(mla_attention_us(h100, flashmla, MlaBatch{256, 32, 0, false}), mla_attention_us(h100, flashmla, small));
    EXPECT_LT(mla_attention_us(h100, flashmla, small),
              mla_attention_us(h100, flashmla, MlaBatch{256, 64, 4096, false}));
    EXPECT_DOUBLE_EQ(mla_attention_us(h100, flashmla, MlaBatch{8, 1, 100, false}),
                     mla_attention_us(h100, triton, MlaBatch{8, 1, 100, true}));
    // The module benchmark (vLLM 0.24) keeps its small prefills on the prefill path: the default threshold, 1.
    EXPECT_EQ(MlaShape{}.decode_path_max_tokens, 1);
    // FlashMLA's decode path (the FP8-cache rows) costs flashmla_decode_overhead_us more; its prefill path does not.
    MlaShape fa_mla = flashmla;
    fa_mla.flashmla = false;
    flashmla.flashmla = true;
    EXPECT_GT(h100.flashmla_decode_overhead_us, 0);
    EXPECT_DOUBLE_EQ(mla_attention_us(h100, flashmla, small) - mla_attention_us(h100, fa_mla, small),
                     h100.flashmla_decode_overhead_us);
    EXPECT_DOUBLE_EQ(mla_attention_us(h100, flashmla, long_prefill), mla_attention_us(h100, fa_mla, long_prefill));
}

// DSA prefill (vLLM's FlashMLA sparse backend, timed eagerly): the prefill path's host work is a floor the kernels
// hide behind, so the module takes the longer of the two, not their sum. With the floor at zero the module is its
// kernels alone; with it, a short input takes exactly the floor, a long one exactly its kernels, and the time never
// steps where the kernels overtake the floor.
TEST(Dsa, PrefillIsTheLongerOfTheHostFloorAndTheKernels) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    ASSERT_GT(h100.dsa_prefill_overhead_us, 0);
    gpu::GpuProfile no_floor = h100;
    no_floor.dsa_prefill_overhead_us = 0;
    const MlaShape s = deepseek_mla(16, true);
    auto module = [&](const gpu::GpuProfile& g, int64_t tokens) {
        return mla_module_us(g, s, MlaBatch{1, tokens, 0, false});
    };
    const double floor = h100.dsa_prefill_overhead_us;
    EXPECT_LT(module(no_floor, 16), floor);     // a short input's kernels are well under the floor ...
    EXPECT_DOUBLE_EQ(module(h100, 16), floor);  // ... and hide behind it: not floor + kernels
    const double long_kernels = module(no_floor, 65536);
    EXPECT_GT(long_kernels, 2 * floor);                   // a long input's kernels outgrow the floor ...
    EXPECT_DOUBLE_EQ(module(h100, 65536), long_kernels);  // ... and the floor adds nothing to them
    // Across the crossing the module is max(floor, kernels) at every size: flat, then the kernels' growth, no step.
    bool crossed = false;
    double previous = module(h100, 64), previous_kernels = module(no_floor, 64);
    for (int64_t tokens = 128; tokens <= 65536; tokens += 64) {
        const double kernels = module(no_floor, tokens), t = module(h100, tokens);
        EXPECT_DOUBLE_EQ(t, std::max(floor, kernels)) << tokens;
        EXPECT_GE(t, previous) << tokens;
        // 64 more tokens move the module by at most their kernels' work: no step where the kernels overtake.
        EXPECT_LE(t - previous, kernels - previous_kernels + 1e-9) << tokens;
        crossed = crossed || (previous_kernels < floor && kernels > floor);
        previous = t;
        previous_kernels = kernels;
    }
    EXPECT_TRUE(crossed);
}

// A block-FP8 module quantizes the activations of its five projections (fused q_a / kv_a, q_b, o_proj, the
// indexer's wq_b and wk) in separate host-issued ops before each GEMM: its floor is dsa_quant_projection_host_us
// higher per projection. Its long inputs are still its kernels alone.
TEST(Dsa, BlockFp8ProjectionsRaiseTheFloorByTheirQuantizationOps) {
    for (const char* name : {"H100", "B200"}) {
        const gpu::GpuProfile gpu = gpu::resolve_gpu(name);
        ASSERT_GT(gpu.dsa_quant_projection_host_us, 0) << name;
        MlaShape bf16 = deepseek_mla(16, true), fp8 = bf16;
        fp8.gemm = config::WeightFormat::fp8_block;
        const MlaBatch short_input{1, 16, 0, false};
        EXPECT_DOUBLE_EQ(mla_module_us(gpu, bf16, short_input), gpu.dsa_prefill_overhead_us) << name;
        EXPECT_DOUBLE_EQ(mla_module_us(gpu, fp8, short_input),
                         gpu.dsa_prefill_overhead_us + 5 * gpu.dsa_quant_projection_host_us)
            << name;
        gpu::GpuProfile no_quant_ops = gpu;
        no_quant_ops.dsa_quant_projection_host_us = 0;
        EXPECT_DOUBLE_EQ(mla_module_us(no_quant_ops, fp8, short_input), gpu.dsa_prefill_overhead_us) << name;
        gpu::GpuProfile no_floor = gpu;
        no_floor.dsa_prefill_overhead_us = 0;
        no_floor.dsa_quant_projection_host_us = 0;
        const MlaBatch long_input{1, 65536, 0, false};
        EXPECT_DOUBLE_EQ(mla_module_us(gpu, fp8, long_input), mla_module_us(no_floor, fp8, long_input)) << name;
    }
}

// An NVFP4 module's projections each add dsa_nvfp4_projection_host_us to the floor (its FP4 quantization and GEMM
// dispatch, measured on B200 at about three times block FP8's), and an FP8 latent cache adds dsa_fp8_cache_host_us
// whatever the projections (FlashMLA sparse's FP8 metadata). Both are floor only: a long input's kernels are
// unchanged, and a profile with the two at zero has the BF16-cache, block-FP8 floors of the test above.
TEST(Dsa, Nvfp4ProjectionsAndAnFp8CacheRaiseOnlyTheFloor) {
    for (const char* name : {"H100", "B200"}) {
        const gpu::GpuProfile gpu = gpu::resolve_gpu(name);
        ASSERT_GT(gpu.dsa_nvfp4_projection_host_us, gpu.dsa_quant_projection_host_us) << name;
        ASSERT_GT(gpu.dsa_fp8_cache_host_us, 0) << name;
        MlaShape bf16 = deepseek_mla(64, true), nvfp4 = bf16;
        nvfp4.gemm = config::WeightFormat::nvfp4;
        MlaShape nvfp4_fp8_cache = nvfp4, bf16_fp8_cache = bf16;
        nvfp4_fp8_cache.fp8_kv = bf16_fp8_cache.fp8_kv = true;
        const MlaBatch short_input{1, 16, 0, false};
        const double floor = gpu.dsa_prefill_overhead_us;
        EXPECT_DOUBLE_EQ(mla_module_us(gpu, nvfp4, short_input), floor + 5 * gpu.dsa_nvfp4_projection_host_us) << name;
        EXPECT_DOUBLE_EQ(mla_module_us(gpu, bf16_fp8_cache, short_input), floor + gpu.dsa_fp8_cache_host_us) << name;
        EXPECT_DOUBLE_EQ(mla_module_us(gpu, nvfp4_fp8_cache, short_input),
                         floor + 5 * gpu.dsa_nvfp4_projection_host_us + gpu.dsa_fp8_cache_host_us)
            << name;
        gpu::GpuProfile no_floor = gpu;
        no_floor.dsa_prefill_overhead_us = no_floor.dsa_nvfp4_projection_host_us = no_floor.dsa_fp8_cache_host_us = 0;
        const MlaBatch long_input{1, 65536, 0, false};
        EXPECT_DOUBLE_EQ(mla_module_us(gpu, nvfp4_fp8_cache, long_input),
                         mla_module_us(no_floor, nvfp4_fp8_cache, long_input))
            << name;
    }
}

// vLLM's FlashMLA sparse backend with an FP8 cache and fewer than MIN_HEADS_FOR_BF16_PREFILL = 32 heads per rank
// ("mixed batch mode", flashmla_sparse.py) runs every prefill token through the FP8 sparse decode kernel: on Hopper
// each token is a decode query over its whole top-k list, so n prefill tokens cost what n one-token decode requests
// over index_topk keys cost (at dsa_fp8_decode_efficiency 1), whatever their context. At 32 heads, or with a
// BF16 cache, the prefill kernel runs: its work grows with the keys each query reads.
TEST(Dsa, FewHeadsOnAnFp8CacheTakeTheSparseDecodeKernel) {
    gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    h100.dsa_fp8_decode_efficiency = 1;
    auto attention = [&](int64_t heads, bool fp8_kv, const MlaBatch& b) {
        MlaShape s = deepseek_mla(heads, true);
        s.fp8_kv = fp8_kv;
        return mla_attention_us(h100, s, b);
    };
    const int64_t tokens = 1024, topk = deepseek_mla(1, true).index_topk;
    const MlaBatch fresh{1, tokens, 0, false}, after_context{1, tokens, 32768, false};
    const MlaBatch as_decode{tokens, 1, 4 * topk, true};  // each query over a full top-k list
    for (int64_t heads : {1, 16, 31}) {
        EXPECT_DOUBLE_EQ(attention(heads, true, fresh), attention(heads, true, as_decode)) << heads;
        EXPECT_DOUBLE_EQ(attention(heads, true, after_context), attention(heads, true, fresh)) << heads;
        EXPECT_LT(attention(heads, false, fresh), attention(heads, false, after_context)) << heads;
    }
    for (int64_t heads : {32, 64}) {
        EXPECT_NE(attention(heads, true, fresh), attention(heads, true, as_decode)) << heads;
        EXPECT_LT(attention(heads, true, fresh), attention(heads, true, after_context)) << heads;
    }
    // Each path runs at its own kernel's efficiency: the FP8 decode kernel's slows the mixed batch only, the sparse
    // prefill kernel's the prefill path only (whose FLOPs the gathers bound from below: at 0.1 the FLOPs lead).
    MlaShape s16 = deepseek_mla(16, true);
    s16.fp8_kv = true;
    const MlaShape s128 = deepseek_mla(128, true);
    const MlaBatch long_prefill{1, 16384, 0, false};
    gpu::GpuProfile slow_decode = h100, slow_prefill = h100;
    slow_decode.dsa_fp8_decode_efficiency = 0.5;
    slow_prefill.dsa_sparse_prefill_efficiency = 0.1;
    EXPECT_GT(mla_attention_us(slow_decode, s16, fresh), mla_attention_us(h100, s16, fresh));
    EXPECT_DOUBLE_EQ(mla_attention_us(slow_prefill, s16, fresh), mla_attention_us(h100, s16, fresh));
    EXPECT_GT(mla_attention_us(slow_prefill, s128, long_prefill), mla_attention_us(h100, s128, long_prefill));
    EXPECT_DOUBLE_EQ(mla_attention_us(slow_decode, s128, long_prefill), mla_attention_us(h100, s128, long_prefill));
}

TEST(Recurrent, DecodeIsLinearInRequestsAndPrefillInTokens) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    LinearAttentionGeometry g{16, 32, 128, 128, 4};
    const double one = recurrent_scan_us(h100, g, 64, 1, true), two = recurrent_scan_us(h100, g, 128, 1, true);
    EXPECT_NEAR(two - h100.recurrent_launch_us, 2 * (one - h100.recurrent_launch_us), 1e-9);
    EXPECT_LT(recurrent_scan_us(h100, g, 1, 4096, false), recurrent_scan_us(h100, g, 1, 8192, false));
    EXPECT_LT(causal_conv_us(h100, g, 1, 1024, false), causal_conv_us(h100, g, 1, 8192, false));
}

// A benchmark's GDN decode kernel re-reads the same states: those of a batch that fits the L2 are L2 hits at
// l2_bandwidth_per_sm_gbs x SMs (L40S: 96 MB); a batch beyond it, a profile without an L2 size, and the step
// model's decode (every other layer runs between two calls of one layer) stream the states from memory.
TEST(Recurrent, DecodeStatesThatFitTheL2AreL2HitsInABenchmarkOnly) {
    gpu::GpuProfile l40s = gpu::resolve_gpu("L40S");
    ASSERT_EQ(l40s.l2_cache_mb, 96);
    ASSERT_GT(l40s.l2_bandwidth_per_sm_gbs, 0);
    LinearAttentionGeometry g{4, 16, 128, 128, 4};
    const double memory = bandwidth_bytes_per_us(l40s);
    const double l2 = l40s.l2_bandwidth_per_sm_gbs * 1e3 * l40s.sm_count;
    ASSERT_GT(l2, memory);
    auto streamed = [&](double requests) {
        return l40s.recurrent_launch_us + linear_attention_bytes(g, LinearAttentionWork{0, 0, requests}) / memory;
    };
    // 64 requests x 16 heads x 64 KiB fp32 states = 64 MiB: read and written in the L2.
    const double states = 64.0 * 16 * 128 * 128 * 4;
    const double hits = l40s.recurrent_launch_us +
                        (linear_attention_bytes(g, LinearAttentionWork{0, 0, 64}) - 2 * states) / memory +
                        2 * states / l2;
    EXPECT_NEAR(recurrent_scan_us(l40s, g, 64, 1, true), hits, 1e-9);
    EXPECT_LT(recurrent_scan_us(l40s, g, 64, 1, true), 0.5 * streamed(64));
    // 128 MiB of states do not fit: memory.
    EXPECT_NEAR(recurrent_scan_us(l40s, g, 128, 1, true), streamed(128), 1e-9);
    // The step's decode streams them, and its conv update's state, at any batch.
    const double conv_bytes = (2.0 * 4 * 128 + 16 * 128) * (4.0 * 64 + 2.0 * 4 + 4.0 * 4 * 64);
    EXPECT_NEAR(recurrent_core_decode_us(l40s, g, 64), l40s.recurrent_launch_us + conv_bytes / memory + streamed(64),
                1e-9);
    // The benchmark's conv update re-reads the same conv states: L2 hits too.
    EXPECT_NEAR(causal_conv_us(l40s, g, 64, 1, true), l40s.recurrent_launch_us + conv_bytes / l2, 1e-9);
    // No L2 size known: memory.
    gpu::GpuProfile unknown = l40s;
    unknown.l2_cache_mb = 0;
    EXPECT_NEAR(recurrent_scan_us(unknown, g, 64, 1, true), streamed(64), 1e-9);
}

// A benchmark's prefill conv streams the same bf16 inputs and outputs every call: where they fit the L2 (L40S: 96
// MB) they are hits at l2_stream_bandwidth_per_sm_gbs x SMs (aic-l40s-families: 16-64 MB stream at 2.4-2.6 TB/s,
// past 128 MB at 0.58 TB/s), never faster than memory (H100's 50 MB L2 streams at HBM speed), and the step model's
// conv (every other layer between two calls) streams from memory at any size.
TEST(Recurrent, PrefillConvStreamsWarmBuffersFromTheL2InABenchmarkOnly) {
    const gpu::GpuProfile l40s = gpu::resolve_gpu("L40S");
    ASSERT_EQ(l40s.l2_cache_mb, 96);
    ASSERT_GT(l40s.l2_stream_bandwidth_per_sm_gbs, 0);
    const double memory = bandwidth_bytes_per_us(l40s);
    const double stream = l40s.l2_stream_bandwidth_per_sm_gbs * 1e3 * l40s.sm_count;
    ASSERT_GT(stream, memory);
    gpu::GpuProfile from_memory = l40s;  // no streaming rate in the L2: every byte from memory
    from_memory.l2_stream_bandwidth_per_sm_gbs = 0;
    LinearAttentionGeometry g{16, 32, 128, 128, 4};  // 8192 conv channels
    const double channels = 2.0 * 16 * 128 + 32 * 128;
    auto bytes = [&](double tokens) { return channels * (4.0 * tokens + 2.0 * 4 + 4.0 * 4); };
    // One sequence of 1024 tokens, 32 MiB of bf16 in and out: the same waves, the bytes at the L2's streaming rate.
    EXPECT_NEAR(causal_conv_us(from_memory, g, 1, 1024, false) - causal_conv_us(l40s, g, 1, 1024, false),
                bytes(1024) * (1 / memory - 1 / stream), 1e-9);
    // 8192 tokens, 256 MiB: past the L2, from memory.
    EXPECT_DOUBLE_EQ(causal_conv_us(l40s, g, 1, 8192, false), causal_conv_us(from_memory, g, 1, 8192, false));
    // The step model's conv streams from memory at any size (every other layer runs between two calls).
    EXPECT_DOUBLE_EQ(recurrent_core_prefill_us(l40s, g, 1024, 1, 1024),
                     recurrent_core_prefill_us(from_memory, g, 1024, 1, 1024));
    // No L2 size known: memory.
    gpu::GpuProfile unknown = l40s;
    unknown.l2_cache_mb = 0;
    EXPECT_DOUBLE_EQ(causal_conv_us(unknown, g, 1, 1024, false), causal_conv_us(from_memory, g, 1, 1024, false));
    // H100: the rate in its L2 (x 132 SMs) is below what it streams HBM at, so its conv does not change.
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    gpu::GpuProfile h100_memory = h100;
    h100_memory.l2_stream_bandwidth_per_sm_gbs = 0;
    ASSERT_LT(h100.l2_stream_bandwidth_per_sm_gbs * 1e3 * h100.sm_count, bandwidth_bytes_per_us(h100));
    EXPECT_DOUBLE_EQ(causal_conv_us(h100, g, 1, 1024, false), causal_conv_us(h100_memory, g, 1, 1024, false));
}

// FlashInfer's fused chunked prefill (Hopper, Blackwell) runs one program per (sequence, value head) on one SM,
// walking the sequence's chunks in order: time is flat in the batch and the heads until the pairs outnumber the SMs,
// then grows by one program's time per wave (H100, 32768 tokens: 1 to 128 pairs 1.50-1.71 ms, 192 and 256 pairs
// about twice, 512 four times; aic-h100-families).
TEST(Recurrent, FusedPrefillIsFlatUntilTheSequenceHeadPairsExceedTheSms) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    ASSERT_EQ(h100.sm_count, 132);
    LinearAttentionGeometry g{1, 2, 128, 128, 4};  // 2 value heads: 66 sequences fill the 132 SMs
    g.flashinfer_prefill = true;
    const double one = recurrent_scan_us(h100, g, 1, 32768, false);
    EXPECT_NEAR(recurrent_scan_us(h100, g, 8, 32768, false), one, 1e-9);
    EXPECT_NEAR(recurrent_scan_us(h100, g, 66, 32768, false), one, 1e-9);
    const double two_waves = recurrent_scan_us(h100, g, 67, 32768, false);
    EXPECT_NEAR(two_waves - h100.recurrent_launch_us, 2 * (one - h100.recurrent_launch_us), 1e-9);
    EXPECT_NEAR(recurrent_scan_us(h100, g, 132, 32768, false), two_waves, 1e-9);
    // One program: its fixed time and its 512 chunks' FLOPs at the efficiency on one SM's share of the peak;
    // measured 1.50 ms for one sequence of 32768 tokens.
    EXPECT_GT(one, 0.85 * 1502.0);
    EXPECT_LT(one, 1.15 * 1502.0);
    // A sequence shorter than a chunk still computes a whole chunk.
    EXPECT_NEAR(recurrent_scan_us(h100, g, 1, 1, false), recurrent_scan_us(h100, g, 1, 64, false), 1e-9);
    // Mamba2's SSD and KDA's chunk_kda (Triton) spread the chunks over the SMs on Hopper too: no such floor.
    LinearAttentionGeometry triton = g;
    triton.flashinfer_prefill = false;
    EXPECT_GT(recurrent_scan_us(h100, triton, 8, 32768, false), 4 * recurrent_scan_us(h100, triton, 1, 32768, false));
    // fla's Triton pipeline (Ada, Ampere) spreads the chunks over the SMs: no such floor, it grows with the batch.
    const gpu::GpuProfile l40s = gpu::resolve_gpu("L40S");
    EXPECT_GT(recurrent_scan_us(l40s, g, 8, 32768, false), 4 * recurrent_scan_us(l40s, g, 1, 32768, false));
}

// fla's chunked GDN prefill (Triton, Ada and Ampere) is its intermediates' bytes: per token and value head 14 dk +
// 12 dv + 12 BT + 4 dk dv / BT (5120 at 128 / 128 / 64), read in the L2 where half of them fit it, else streamed at
// `recurrent_memory_efficiency` of memory (L40S: 1 sequence x 32768 tokens x 32 heads, 5.4 GB, measured 8.6 ms;
// 16 sequences x 32 tokens x 32 heads, 151 MB, measured 147 us where streaming them would take 280).
TEST(Recurrent, TritonPrefillStreamsItsIntermediatesAndReadsThemInTheL2WhereTheyFit) {
    const gpu::GpuProfile l40s = gpu::resolve_gpu("L40S");
    ASSERT_GT(l40s.recurrent_memory_efficiency, 0);
    LinearAttentionGeometry g{16, 32, 128, 128, 4};
    g.flashinfer_prefill = true;
    const double dram = l40s.streaming_bandwidth_gbs() * 1e3 * l40s.recurrent_memory_efficiency;
    const double per_token_head = 14 * 128 + 12 * 128 + 12 * 64 + 4 * 128 * 128 / 64;
    ASSERT_EQ(per_token_head, 5120);
    // 5.4 GB: 1/28 of it L2 hits; memory bounds it, within 10% of the measurement.
    const double big = recurrent_scan_us(l40s, g, 1, 32768, false);
    const double bytes = 32768.0 * 32 * per_token_head + 32 * 8.0 * 128 * 128;
    EXPECT_GT(big, l40s.gdn_pipeline_us + 0.9 * bytes / dram);
    EXPECT_LT(big, l40s.gdn_pipeline_us + bytes / dram);
    EXPECT_NEAR(big, 8627.5, 0.1 * 8627.5);
    // Every byte an L2 hit: far under what streaming them would take.
    const double small = recurrent_scan_us(l40s, g, 16, 32, false);
    const double small_bytes = 16 * 32.0 * 32 * per_token_head + 16 * 32 * 8.0 * 128 * 128;
    ASSERT_LT(small_bytes, 2 * l40s.l2_cache_mb * 1024 * 1024);
    EXPECT_LT(small, 0.5 * (l40s.gdn_pipeline_us + small_bytes / dram));
    // Hopper runs FlashInfer's fused kernel instead: none of these constants move it.
    gpu::GpuProfile h100 = gpu::resolve_gpu("H100"), moved = h100;
    moved.gdn_pipeline_us = 1000;
    moved.recurrent_memory_efficiency = 0.1;
    EXPECT_EQ(recurrent_scan_us(h100, g, 16, 32, false), recurrent_scan_us(moved, g, 16, 32, false));
}

TEST(Recurrent, ChannelCtaConvPaysAWavePerResidentCtasAtShortInputs) {
    // TensorRT-LLM's CUDA conv runs one CTA per (sequence, channel): 64 one-token Nemotron-H sequences (20480 conv
    // channels) are 1.3 million CTAs, ~620 waves of H100's 132 x 16 resident CTAs (measured 1.47 ms, where the bytes
    // alone take ~15 us); vLLM's Triton conv tiles 8 tokens x 256 channels per program: one wave.
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    LinearAttentionGeometry g{8, 256, 256, 64, 4};  // 2 x 8 x 256 + 256 x 64 = 20480 channels
    const double ctas = causal_conv_us(h100, g, 64, 1, false, ConvKernel::channel_ctas);
    const double blocks = causal_conv_us(h100, g, 64, 1, false, ConvKernel::token_blocks);
    const double cta_waves = std::ceil(64.0 * 20480 / (132 * 16));
    const double block_waves = std::ceil(64.0 * 1 * (20480 / 256) / (132 * 16));  // 5120 programs: 3 waves
    // One token per sequence is not a whole 8-token vector: the CUDA kernel's unaligned (transposing) wave.
    const double cta_wave = h100.conv_cta_wave_us * h100.conv_unaligned_wave_factor;
    EXPECT_NEAR(ctas - blocks, cta_waves * cta_wave - block_waves * h100.recurrent_launch_us, 1e-6);
    EXPECT_GT(ctas, 0.7 * 1468.0);
    EXPECT_LT(ctas, 1.3 * 1468.0);
    // Long inputs stream either way; the Triton kernel's many 8-token programs pay more waves (vLLM's GDN conv is
    // measured 1.3x its bytes' time at 32768 tokens), the CUDA kernel's few long CTAs fewer.
    const double long_ctas = causal_conv_us(h100, g, 1, 32768, false, ConvKernel::channel_ctas);
    const double long_blocks = causal_conv_us(h100, g, 1, 32768, false, ConvKernel::token_blocks);
    EXPECT_LT(long_ctas, long_blocks);
    EXPECT_LT(long_blocks, 1.4 * long_ctas);
}

// TensorRT-LLM's Mamba2 conv (causal_conv1d_fwd, grid (batch, dim)) has a wave time of its own, 1.4x where the
// sequence is not whole 8-token vectors (no vectorised loads; L40S: 4 x 10240 channels, 40.1-40.5 us at 1-4 tokens,
// 27.1-27.6 us at 8-16), and runs in place: only its input must stay in the L2 between calls (L40S, 1 x 18432
// channels x 2048 tokens, 151 MB of traffic, measured 2.4 TB/s). vLLM's Triton conv walks each program's tokens (at
// most 8) one after another: its wave grows with them up to 8 (L40S: 2.0 us at 1 token, 2.9-3.3 from 8 on).
TEST(Recurrent, ConvKernelsWavesAndTheInPlaceCudaConvsL2Footprint) {
    const gpu::GpuProfile l40s = gpu::resolve_gpu("L40S");
    ASSERT_GT(l40s.conv_cta_wave_us, 0);
    ASSERT_GT(l40s.conv_unaligned_wave_factor, 1);
    ASSERT_GT(l40s.conv_token_latency_us, 0);
    LinearAttentionGeometry g{8, 128, 128, 64, 4};  // 2 x 8 x 128 + 128 x 64 = 10240 channels
    const double channels = 10240;
    const double resident = l40s.sm_count * 12.0;
    // Short inputs: the waves. 4 sequences x 10240 channels = 40960 CTAs.
    const double waves = std::ceil(4 * channels / resident);
    auto bytes = [&](double tokens, double sequences) { return channels * (4 * tokens + 8 + 16 * sequences); };
    const double stream = l40s.l2_stream_bandwidth_per_sm_gbs * 1e3 * l40s.sm_count;
    EXPECT_NEAR(causal_conv_us(l40s, g, 4, 8, false, ConvKernel::channel_ctas),
                waves * l40s.conv_cta_wave_us + bytes(32, 4) / stream, 1e-9);
    EXPECT_NEAR(causal_conv_us(l40s, g, 4, 4, false, ConvKernel::channel_ctas),
                waves * l40s.conv_cta_wave_us * l40s.conv_unaligned_wave_factor + bytes(16, 4) / stream, 1e-9);
    EXPECT_GT(causal_conv_us(l40s, g, 4, 4, false, ConvKernel::channel_ctas),
              causal_conv_us(l40s, g, 4, 8, false, ConvKernel::channel_ctas));
    // 1 x 2048 tokens of 18432 channels: 151 MB of traffic, 75 MB of input: in the 96 MB L2 for the in-place CUDA
    // conv, not for the Triton conv, which writes a separate output.
    LinearAttentionGeometry big{8, 128, 128, 128, 4};  // 2 x 8 x 128 + 128 x 128 = 18432 channels
    const double in_out = 18432.0 * 4 * 2048;
    ASSERT_GT(in_out, l40s.l2_cache_mb * 1024 * 1024);
    ASSERT_LT(in_out / 2, l40s.l2_cache_mb * 1024 * 1024);
    const double cuda = causal_conv_us(l40s, big, 1, 2048, false, ConvKernel::channel_ctas);
    const double triton = causal_conv_us(l40s, big, 1, 2048, false, ConvKernel::token_blocks);
    EXPECT_LT(cuda, in_out / stream + 100);
    EXPECT_GT(triton, in_out / bandwidth_bytes_per_us(l40s));
    // The Triton conv's wave: the launch plus a time per token up to BLOCK_M = 8 (one wave of programs here).
    gpu::GpuProfile no_latency = l40s;
    no_latency.conv_token_latency_us = 0;
    for (int tokens : {1, 4, 8, 64}) {
        EXPECT_NEAR(causal_conv_us(l40s, g, 1, tokens, false) - causal_conv_us(no_latency, g, 1, tokens, false),
                    l40s.conv_token_latency_us * std::min(tokens, 8), 1e-9);
    }
}

TEST(DeepEp, LowLatencyAndNormalGrowWithTokens) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    for (bool ll : {true, false}) {
        DeepEpShape s{128, 7168, 8, 256, 8, ll};
        DeepEpShape twice = s;
        twice.tokens = 256;
        const double fixed = ll ? h100.deepep_ll_latency_us : h100.deepep_normal_latency_us;
        EXPECT_GT(deepep_us(h100, s), fixed);
        EXPECT_NEAR(deepep_us(h100, twice) - fixed, 2 * (deepep_us(h100, s) - fixed), 1e-9);
    }
    EXPECT_EQ(deepep_us(h100, DeepEpShape{128, 7168, 8, 256, 1, true}), 0);
}

// DeepEP over two HGX nodes (16 GPUs, NVLink domains of 8) against the same GPUs in one larger NVLink domain: the
// messages for the other node leave through the NIC (50 GB/s against NVLink's 900) and both kernels cross the
// fabric, so spanning domains is never faster, at any batch, in either mode.
TEST(DeepEp, AcrossNvlinkDomainsThePeersOutsideGoThroughTheNic) {
    const gpu::GpuProfile hgx = gpu::resolve_gpu("B200");
    gpu::GpuProfile one_domain = hgx;
    one_domain.nvlink_domain_gpus = 72;
    ASSERT_TRUE(hgx.spans_domains(16));
    ASSERT_FALSE(one_domain.spans_domains(16));
    for (bool ll : {true, false}) {
        for (double tokens : {1.0, 8.0, 64.0, 512.0, 4096.0}) {
            const DeepEpShape s{tokens, 7168, 8, 256, 16, ll};
            EXPECT_GT(deepep_us(hgx, s), deepep_us(one_domain, s)) << ll << " " << tokens;
            // Eight GPUs stay inside the node: the same as inside any domain.
            const DeepEpShape node{tokens, 7168, 8, 256, 8, ll};
            EXPECT_EQ(deepep_us(hgx, node), deepep_us(one_domain, node));
        }
    }
    // Low latency, where the NIC's share sets the time: every (token, expert) message goes to its expert's GPU, half
    // of which sit in the other node; FP8 out with a scale per 128, BF16 back.
    const double tokens = 512, h = 7168;
    const double over_nic = tokens * 8 * ((h + h / 128 * 4) + 2 * h) * (8.0 / 16) / (hgx.network_bandwidth_gbs * 1e3);
    EXPECT_NEAR(deepep_us(hgx, DeepEpShape{tokens, 7168, 8, 256, 16, true}),
                hgx.deepep_ll_latency_us + 2 * hgx.network_latency_us + over_nic, 1e-9 * over_nic);
    // Normal mode stores and forwards: a token crosses the fabric once per other domain holding one of its experts,
    // whatever the GPUs per domain, so two domains of 8 and two of 16 send the NIC the same bytes.
    gpu::GpuProfile wide = hgx;
    wide.nvlink_domain_gpus = 16;
    const DeepEpShape two_of_8{4096, 7168, 8, 256, 16, false}, two_of_16{4096, 7168, 8, 256, 32, false};
    const double other_domain = 1 - std::pow(0.5, 8);
    const double nic_us = 4096 * other_domain * 2 * h * 2 / (hgx.network_bandwidth_gbs * 1e3);
    const double fixed = hgx.deepep_normal_latency_us + 2 * hgx.network_latency_us;
    EXPECT_NEAR(deepep_us(hgx, two_of_8), fixed + nic_us, 1e-9 * nic_us);
    EXPECT_NEAR(deepep_us(wide, two_of_16), fixed + nic_us, 1e-9 * nic_us);
}

TEST(PcieAllReduce, WithoutNvlinkTheGpusShareTheHostBridges) {
    const gpu::GpuProfile l40s = gpu::resolve_gpu("L40S");
    const double bytes = 256e6;
    auto transfer = [&](int64_t t) {
        const double n = static_cast<double>(t);
        const double latency = l40s.allreduce_latency_us + 2.0 * (n - 1) * l40s.allreduce_hop_latency_us;
        return nccl_allreduce_us(l40s, bytes, t) - latency;
    };
    EXPECT_NEAR(transfer(4) / transfer(2), 6, 1e-9);  // pairs of GPUs: 1 : 6 : 28
    EXPECT_NEAR(transfer(8) / transfer(2), 28, 1e-9);
    // An NVLink GPU beyond its domain keeps the ring (2 (t-1) / t of the message), through the NICs across the
    // scale-out network (two HGX nodes: two fabric crossings; tests/unit/scale_out_test.cpp).
    gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const double ring16 =
        nccl_allreduce_us(h100, bytes, 16) - h100.allreduce_latency_us - 30 * h100.allreduce_hop_latency_us;
    const double ring_bytes = bytes * 2 * 15 / 16;
    const double slower = std::max(ring_bytes / (8 * h100.network_bandwidth_gbs * 1e3),
                                   ring_bytes / (h100.nvlink_bandwidth_gbs / 2 * 1e3 * h100.nvlink_efficiency));
    EXPECT_NEAR(ring16, 2 * h100.network_latency_us + slower, 1e-6);
}

// The held-out half of each measured families directory with the built-in constants: bounds about 25% above the
// figures of docs/kernel-families.md, so a regression fails.
struct Bound {
    const char* family;
    double median;
};

void expect_families(const std::string& dir, const char* gpu, std::initializer_list<Bound> bounds) {
    compare::CompareReport r = compare::compare_aic(dir, gpu::resolve_gpu(gpu), nullptr, compare::Split::test);
    std::cout << compare::format_compare(r);
    for (const Bound& b : bounds) {
        const compare::FamilyReport* f = nullptr;
        for (const compare::FamilyReport& x : r.families) {
            if (x.family == b.family) f = &x;
        }
        ASSERT_NE(f, nullptr) << gpu << " " << b.family;
        EXPECT_GT(f->all.count, 20u) << gpu << " " << b.family;
        EXPECT_LT(f->all.median_abs, b.median) << gpu << " " << b.family;
    }
}

TEST(FamiliesReference, HeldOutHalfOnH100B200A100L40S) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    const std::string m = ref + "/measured/";
    expect_families(m + "aic-h100-families", "H100",
                    {{"moe", 0.22},
                     {"mla_generation", 0.09},
                     {"mla_context_kernel", 0.15},     // 14.2% before the backends' decode path
                     {"mla_generation_kernel", 0.13},  // 16.5% before FlashMLA's decode overhead
                     {"mla_context", 0.13},            // 21.3% before the module's own GEMM efficiencies
                     {"dsa_generation", 0.16},
                     {"dsa_context", 0.08},  // 15.7% before the host floor and the FP8 mixed batch
                     {"gdn_context", 0.20},
                     {"causal_conv", 0.10},  // 23.9% before the conv kernels' waves, 10.0% before their own wave times
                     {"deepep_low_latency", 0.08},
                     {"deepep_normal", 0.08}});
    expect_families(m + "aic-b200-families", "B200",
                    {{"moe", 0.22},  // 20.6% before Marlin's warp-level MMA rate
                     {"mla_generation", 0.12},
                     {"mla_context", 0.10},  // 12.0% before
                     {"dsa_generation", 0.13},
                     {"dsa_context", 0.14},  // 22.6% before the host floor
                     {"causal_conv", 0.08},  // 41.8% before the conv kernels' waves, 6.6% before their own wave times
                     {"deepep_low_latency", 0.14},
                     {"deepep_normal", 0.10}});
    expect_families(m + "aic-a100-families", "A100",
                    {{"moe", 0.27},
                     {"mla_context_kernel", 0.13},  // 17.2% before FA2's V-padding copies, 20.2% before V padded
                     {"mla_generation_kernel", 0.12}});
    expect_families(m + "aic-l40s-families", "L40S",
                    {{"moe", 0.23},
                     {"mla_generation", 0.21},
                     {"mla_context", 0.17},         // 24.8% before the module's GEMM efficiencies
                     {"mla_context_kernel", 0.20},  // 22.3% before FA2's V-padding copies, 27.2% before V padded
                     {"causal_conv", 0.14}});       // 24.6% before the L2 streaming rate, 15.8% before the conv waves
}

// The collector's models (model_configs_aic) route DeepSeek-V3's shape with 8 groups, 4 kept, and no other shape
// with groups (Kimi-K2 and GLM-5 state n_group 1). The test half of its balanced rows on B200 and L40S, which the
// router groups move and nothing was fitted to: plain top-k 28.1% / 25.3% median, the benchmark's grouped top-k
// 13.1% / 8.4%.
TEST(FamiliesReference, BalancedMoeRowsRouteThroughTheirModelsGroupedTopK) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    std::vector<compare::MoeRouter> routers;
    for (const compare::MoeRouter& r : compare::read_moe_routers(ref + "/model_configs_aic")) {
        if (r.groups > 1) routers.push_back(r);
    }
    ASSERT_EQ(routers.size(), 1u);
    EXPECT_EQ(routers[0].hidden, 7168);
    EXPECT_EQ(routers[0].experts, 256);
    EXPECT_EQ(routers[0].groups, 8);
    EXPECT_EQ(routers[0].topk_groups, 4);
    EXPECT_TRUE(routers[0].gated);
    for (const char* g : {"b200", "l40s"}) {
        const std::string dir = ref + "/measured/aic-" + std::string(g) + "-families";
        const gpu::GpuProfile gpu = gpu::resolve_gpu(g);
        auto median = [&](const std::string& configs) {
            compare::CompareReport r = compare::compare_aic(dir, gpu, nullptr, compare::Split::test, configs);
            std::vector<double> errors;
            for (const compare::FamilyReport& f : r.families) {
                for (const compare::CompareRow& row : f.rows) {
                    if (f.family == "moe" && row.shape.find("h=7168 i=2048 k=8/256") != std::string::npos &&
                        row.shape.find("balanced") != std::string::npos) {
                        errors.push_back(row.error);
                    }
                }
            }
            return compare::error_stats(errors).median_abs;
        };
        const double plain = median(""), grouped = median(ref + "/model_configs_aic");
        EXPECT_LT(grouped, 0.16) << g;
        EXPECT_LT(grouped, plain - 0.1) << g;
    }
}

// Nemotron-H's squared-ReLU experts (mlp_hidden_act relu2) have no gate: vLLM 0.24's collector builds them with
// `relu2_no_mul` (an up projection of inter rows), keyed by the expert's width (Super's moe_latent_size 1024). The
// rows of vLLM 0.24's FusedMoE layer (kernel_source naming the experts class) take it: Nemotron-3 Nano on B200 and
// L40S was +35% / +32% (test half) with a gate; A100's file (vLLM 0.14's collector, which built gate and up weights
// for every model, kernel_source vllm_fused_moe) does not move.
TEST(FamiliesReference, UngatedExpertsOfNemotronRowsTakeOneUpProjection) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    const std::vector<compare::MoeRouter> routers = compare::read_moe_routers(ref + "/model_configs_aic");
    auto find = [&](int64_t hidden, int64_t inter, int64_t topk, int64_t experts) {
        for (const compare::MoeRouter& r : routers) {
            if (r.hidden == hidden && r.inter == inter && r.topk == topk && r.experts == experts) return &r;
        }
        return static_cast<const compare::MoeRouter*>(nullptr);
    };
    const compare::MoeRouter* nano = find(2688, 1856, 6, 128);
    const compare::MoeRouter* super = find(1024, 2688, 22, 512);
    ASSERT_NE(nano, nullptr);
    ASSERT_NE(super, nullptr);
    EXPECT_FALSE(nano->gated);
    EXPECT_FALSE(super->gated);
    auto nano_rows = [&](const std::string& gpu_dir, const char* gpu, const std::string& configs) {
        compare::CompareReport r = compare::compare_aic(ref + "/measured/" + gpu_dir, gpu::resolve_gpu(gpu), nullptr,
                                                        compare::Split::test, configs);
        std::vector<double> errors;
        for (const compare::FamilyReport& f : r.families) {
            for (const compare::CompareRow& row : f.rows) {
                if (f.family == "moe" && row.shape.find("h=2688 i=1856 k=6/128") != std::string::npos) {
                    errors.push_back(row.error);
                }
            }
        }
        return errors;
    };
    for (const char* g : {"b200", "l40s"}) {
        const std::string dir = "aic-" + std::string(g) + "-families";
        const double gated = compare::error_stats(nano_rows(dir, g, "")).median_abs;
        const double ungated = compare::error_stats(nano_rows(dir, g, ref + "/model_configs_aic")).median_abs;
        EXPECT_LT(ungated, 0.15) << g;
        EXPECT_LT(ungated, gated - 0.15) << g;
    }
    const std::vector<double> before = nano_rows("aic-a100-families", "a100", "");
    EXPECT_FALSE(before.empty());
    EXPECT_EQ(nano_rows("aic-a100-families", "a100", ref + "/model_configs_aic"), before);
}

TEST(FamiliesReference, L40sKernelsAfterTheAdaFit) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    compare::CompareReport r =
        compare::compare_aic(ref + "/measured/aic-l40s", gpu::resolve_gpu("L40S"), nullptr, compare::Split::test);
    for (const compare::FamilyReport& f : r.families) {
        const double bound = f.family == "gemm"                   ? 0.16
                             : f.family == "context_attention"    ? 0.22
                             : f.family == "generation_attention" ? 0.19
                                                                  : 0.18;  // nccl_all_reduce
        EXPECT_LT(f.all.median_abs, bound) << f.family;                    // before the fit: 22%, 20%, 42%, 49%
    }
}

}  // namespace
}  // namespace mfusim::roofline
