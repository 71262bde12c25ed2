// Table lookup indexes: measured curves (merging, skipping, envelope), brackets, interpolation, nearest shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/gpu_profile.hpp"
#include "support/reference.hpp"
#include "tables/lookup_index.hpp"
#include "tables/tables.hpp"

namespace mfusim::tables {
namespace {

std::string fixture(const std::string& name) {
    return testing::fixtures_dir() + "/roofline/" + name;
}

TEST(RooflineLookup, CurveMergesDuplicatesIntoTheMeanAndSkipsZeroTimes) {
    MeasuredCurve c = MeasuredCurve::build({{16, 4.0}, {8, 2.0}, {16, 6.0}, {32, 0.0}, {64, 10.0}});
    ASSERT_EQ(c.x.size(), 3u);
    EXPECT_EQ(c.x[0], 8);
    EXPECT_EQ(c.x[1], 16);
    EXPECT_EQ(c.x[2], 64);
    EXPECT_DOUBLE_EQ(std::exp(c.log_time[1]), 5.0);  // mean of 4 and 6, whatever their file order
    EXPECT_EQ(c.merged, 1);
    EXPECT_EQ(c.skipped, 1);
    EXPECT_EQ(c.raised, 0);
    // Order of the input rows does not matter.
    MeasuredCurve d = MeasuredCurve::build({{64, 10.0}, {16, 6.0}, {32, 0.0}, {16, 4.0}, {8, 2.0}});
    EXPECT_EQ(c.log_time, d.log_time);
}

TEST(RooflineLookup, CurveIsMadeNonDecreasing) {
    MeasuredCurve c = MeasuredCurve::build({{8, 9.0}, {16, 8.8}, {32, 9.5}});
    EXPECT_EQ(c.raised, 1);
    EXPECT_DOUBLE_EQ(std::exp(c.log_time[1]), 9.0);
    EXPECT_DOUBLE_EQ(std::exp(c.log_time[2]), 9.5);
}

TEST(RooflineLookup, BracketIsExactAtRowsInterpolatesBetweenAndClampsOutside) {
    MeasuredCurve c = MeasuredCurve::build({{8, 2.0}, {32, 8.0}, {128, 8.0}});
    CurveBracket b = bracket(c, 32);
    EXPECT_TRUE(b.exact);
    EXPECT_FALSE(b.clamped);
    EXPECT_DOUBLE_EQ(std::exp(interpolate_log_time(c, b)), 8.0);

    // Halfway in log2 between 8 and 32 is 16; ln t is linear there: a power law t ~ m gives exactly 4.
    b = bracket(c, 16);
    EXPECT_FALSE(b.exact);
    EXPECT_DOUBLE_EQ(b.fraction, 0.5);
    EXPECT_NEAR(std::exp(interpolate_log_time(c, b)), 4.0, 1e-12);

    b = bracket(c, 2);
    EXPECT_TRUE(b.clamped);
    EXPECT_DOUBLE_EQ(b.outside_octaves, 2.0);
    EXPECT_DOUBLE_EQ(std::exp(interpolate_log_time(c, b)), 2.0);
    b = bracket(c, 1024);
    EXPECT_TRUE(b.clamped);
    EXPECT_DOUBLE_EQ(b.outside_octaves, 3.0);
}

TEST(RooflineLookup, InterpolationIsMonotoneBetweenRows) {
    MeasuredCurve c = MeasuredCurve::build({{8, 9.0}, {16, 9.5}, {64, 12.0}, {256, 30.0}, {1024, 110.0}});
    double previous = 0;
    for (int64_t m = 8; m <= 1024; ++m) {
        double t = std::exp(interpolate_log_time(c, bracket(c, static_cast<double>(m))));
        ASSERT_GE(t, previous) << "m = " << m;
        previous = t;
    }
}

TEST(RooflineLookup, GemmNearestGroupReportsOctavesAndBreaksTiesDeterministically) {
    GemmTableIndex index;
    index.groups.push_back({1024, 4096, MeasuredCurve::build({{8, 1.0}})});
    index.groups.push_back({4096, 1024, MeasuredCurve::build({{8, 1.0}})});
    index.groups.push_back({4096, 4096, MeasuredCurve::build({{8, 1.0}})});
    double d = -1;
    const GemmGroup* g = index.nearest(4096, 4096, &d);
    EXPECT_EQ(g->k, 4096);
    EXPECT_EQ(g->n, 4096);
    EXPECT_EQ(d, 0);
    g = index.nearest(8192, 4096, &d);
    EXPECT_EQ(g->k, 4096);
    EXPECT_DOUBLE_EQ(d, 1.0);
    // (2048, 2048) is two octaves from all three groups: the first in (k, n) order wins.
    g = index.nearest(2048, 2048, &d);
    EXPECT_EQ(g->k, 1024);
    EXPECT_DOUBLE_EQ(d, 2.0);
}

TEST(RooflineLookup, IndexOfTheFixtureTables) {
    BenchData data = load_bench_data(fixture("bench_bf16"));
    gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    TableIndex index = build_table_index(data, h100, "bf16");
    ASSERT_TRUE(index.has_gemm);
    EXPECT_EQ(index.gemm.manifest.peak_dtype, PeakDtype::bf16);
    EXPECT_DOUBLE_EQ(index.gemm.peak_flops, h100.peak_bf16_tflops * 1e12);
    EXPECT_EQ(index.gemm.groups.size(), 3u);
    bool zero_note = false, duplicate_note = false, dtype_rows_ignored = true;
    for (const std::string& n : index.notes) {
        zero_note = zero_note || n.find("MFU 0 skipped") != std::string::npos;
        duplicate_note = duplicate_note || n.find("duplicate") != std::string::npos;
    }
    EXPECT_TRUE(zero_note);
    EXPECT_TRUE(duplicate_note);
    // Decode: the fp8 row is filtered out; per-GPU shapes divide the -tp<N> heads.
    const AttentionTableEntry* e = nullptr;
    for (const auto& entry : index.attention.entries) {
        if (entry.path == "mha/decode/h100/32-8-128-tp2.csv") e = &entry;
    }
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->tp, 2);
    EXPECT_EQ(e->per_gpu, (std::array<int64_t, 3>{16, 4, 128}));
    ASSERT_EQ(e->decode.batch.size(), 3u);
    for (const MeasuredCurve& c : e->decode.by_batch) dtype_rows_ignored = dtype_rows_ignored && c.x.size() == 3;
    EXPECT_TRUE(dtype_rows_ignored);
    // Another GPU folder sees nothing.
    gpu::GpuProfile h20 = gpu::resolve_gpu("H20");
    EXPECT_TRUE(build_table_index(data, h20, "bf16").empty());
}

TEST(RooflineLookup, NearestAttentionShapePrefersTheModelsOwnTpFileThenNearestTp) {
    BenchData data = load_bench_data(fixture("bench_bf16"));
    TableIndex index = build_table_index(data, gpu::resolve_gpu("H100"), "bf16");
    double d = -1;
    // Model 32-8-128 at TP 2: per GPU 16-4-128, exactly the -tp2 file.
    const AttentionTableEntry* e =
        index.attention.nearest(AttentionFamily::mha, Phase::decode, {16, 4, 128}, {32, 8, 128}, 2, &d);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->path, "mha/decode/h100/32-8-128-tp2.csv");
    EXPECT_EQ(d, 0);
    // Model 64-8-128 at TP 4: per GPU 16-2-128. Candidates: 32-8-128-tp2 (16-4: 1 octave), 64-8-128-tp2 (32-4:
    // 2 octaves), 32-8-128-tp1 (32-8: 3 octaves): the nearest per-GPU kernel wins.
    e = index.attention.nearest(AttentionFamily::mha, Phase::decode, {16, 2, 128}, {64, 8, 128}, 4, &d);
    EXPECT_EQ(e->path, "mha/decode/h100/32-8-128-tp2.csv");
    EXPECT_DOUBLE_EQ(d, 1.0);
    // Model 64-8-128 at TP 1 (per GPU 64-8): 64-8-128-tp2 (32-4) and 32-8-128-tp1 (32-8) are 2 and 1 octaves away.
    e = index.attention.nearest(AttentionFamily::mha, Phase::decode, {64, 8, 128}, {64, 8, 128}, 1, &d);
    EXPECT_EQ(e->path, "mha/decode/h100/32-8-128-tp1.csv");
    EXPECT_DOUBLE_EQ(d, 1.0);
    // Relative distance in head dim counts too; MLA tables are never used for MHA.
    e = index.attention.nearest(AttentionFamily::mha, Phase::prefill, {32, 8, 64}, {32, 8, 64}, 1, &d);
    EXPECT_EQ(e->path, "mha/prefill/h100/32-8-128.csv");
    EXPECT_DOUBLE_EQ(d, 1.0);
    EXPECT_EQ(index.attention.nearest(AttentionFamily::mla, Phase::prefill, {16, 128, 64}, {16, 128, 64}, 1, &d),
              nullptr);
}

TEST(RooflineLookup, TablePeakFollowsTheManifest) {
    gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    Manifest m;
    m.peak_dtype = PeakDtype::fp8;
    EXPECT_DOUBLE_EQ(table_peak_flops(m, h100), h100.peak_fp8_tflops * 1e12);
    m.peak_tflops = 1000;
    EXPECT_DOUBLE_EQ(table_peak_flops(m, h100), 1e15);
    m.peak_tflops = 0;
    EXPECT_EQ(table_peak_flops(m, gpu::resolve_gpu("A100")), 0.0);  // no FP8 peak: the table is unusable
}

}  // namespace
}  // namespace mfusim::tables
