// `compare` against AIConfigurator-format measurements: statistics, the small fixture set, and the shared H100
// measurements with the accuracy thresholds measured when the model was fitted (docs/roofline.md).
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <memory>

#include "common/error.hpp"
#include "compare/compare.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/kernels.hpp"
#include "support/reference.hpp"
#include "tables/tables.hpp"

namespace mfusim::compare {
namespace {

std::string fixture(const std::string& name) {
    return testing::fixtures_dir() + "/roofline/" + name;
}

const FamilyReport* family(const CompareReport& r, const std::string& name) {
    for (const FamilyReport& f : r.families) {
        if (f.family == name) return &f;
    }
    return nullptr;
}

TEST(CompareStats, MedianAndNearestRankP90) {
    ErrorStats s = error_stats({0.1, -0.3, 0.2, -0.05});
    EXPECT_EQ(s.count, 4u);
    EXPECT_DOUBLE_EQ(s.median_abs, (0.1 + 0.2) / 2);
    EXPECT_DOUBLE_EQ(s.p90_abs, 0.3);
    EXPECT_DOUBLE_EQ(s.median_signed, (-0.05 + 0.1) / 2);
    std::vector<double> ten;
    for (int i = 1; i <= 10; ++i) ten.push_back(i / 100.0);
    EXPECT_DOUBLE_EQ(error_stats(ten).p90_abs, 0.09);
    EXPECT_EQ(error_stats({}).count, 0u);
    EXPECT_DOUBLE_EQ(error_stats({-0.5}).median_abs, 0.5);
}

TEST(CompareFixture, EveryFamilyPredictedThroughTheStepFunctions) {
    gpu::GpuProfile gpu = gpu::resolve_gpu("H100");
    auto tables = std::make_shared<tables::BenchData>(tables::load_bench_data(fixture("bench_bf16")));
    CompareReport r = compare_aic(fixture("aic"), gpu, tables);
    ASSERT_EQ(r.families.size(), 4u);
    EXPECT_EQ(family(r, "gemm")->all.count, 5u);
    EXPECT_EQ(family(r, "context_attention")->all.count, 2u);
    EXPECT_EQ(family(r, "generation_attention")->all.count, 2u);
    EXPECT_EQ(family(r, "nccl_all_reduce")->all.count, 2u);  // the all_gather row is not modelled
    bool skipped_note = false;
    for (const std::string& n : r.notes) skipped_note = skipped_note || n.find("all_gather") != std::string::npos;
    EXPECT_TRUE(skipped_note);
    // The fixture GEMM rows at measured shapes are covered; the gemm prediction equals the site's own.
    const FamilyReport* g = family(r, "gemm");
    EXPECT_EQ(g->covered.count, 4u);  // all but the 333 x 1000 x 3000 shape
    roofline::KernelModel k(gpu, tables, roofline::GemmDtype::bf16, false);
    double site_time = k.gemm_site(4096, 6144).time_us(1024);
    bool found = false;
    for (const CompareRow& row : g->worst) {
        if (row.shape == "m=1024 n=6144 k=4096") {
            EXPECT_DOUBLE_EQ(row.predicted_us, site_time);
            EXPECT_EQ(row.source, "exact");
            found = true;
        }
    }
    EXPECT_TRUE(found);
    std::string text = format_compare(r);
    EXPECT_NE(text.find("generation_attention"), std::string::npos);
    EXPECT_NE(text.find("worst gemm"), std::string::npos);
}

TEST(CompareFixture, ContextRowsRunByADecodeKernelAreTimedAsDecodes) {
    // B200's vLLM sends 1-token chunks to FlashInfer's TRT-LLM decode kernel; the prefill-kernel row stays prefill.
    gpu::GpuProfile gpu = gpu::resolve_gpu("B200");
    CompareReport r = compare_aic(fixture("aic-trtllm"), gpu, nullptr);
    const FamilyReport* f = family(r, "context_attention");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->rows.size(), 2u);
    roofline::KernelModel k(gpu, nullptr, roofline::GemmDtype::bf16, false);
    roofline::AttentionGeometry g{32, 8, 128, 128, 2.0 * 8 * 128 * 2, 2};
    EXPECT_DOUBLE_EQ(f->rows[0].predicted_us,
                     k.decode_site(g, tables::AttentionFamily::mha, {32, 8, 128}, 1).time_us({8, 8}));
    roofline::PrefillAttentionSite prefill = k.prefill_site(g, tables::AttentionFamily::mha, {32, 8, 128}, 1);
    roofline::PrefillWork work;
    for (int i = 0; i < 8; ++i) prefill.add_chunk(work, 1, 0);
    EXPECT_DOUBLE_EQ(f->rows[1].predicted_us, prefill.time_us(work));
}

TEST(CompareFixture, MissingDirectoryIsAnIoError) {
    try {
        compare_aic(fixture("no-such-dir"), gpu::resolve_gpu("H100"), nullptr);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::io);
    }
}

// Thresholds: the medians measured on ../shared/reference/measured/aic-h100 when the constants were fitted
// (docs/roofline.md, "Accuracy"), plus a margin of about 30% of their value.
TEST(CompareReference, AnalyticalModelAgainstAicH100) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    CompareReport r = compare_aic(ref + "/measured/aic-h100", gpu::resolve_gpu("H100"), nullptr);
    std::cout << format_compare(r);
    EXPECT_LT(family(r, "gemm")->all.median_abs, 0.10);                  // measured 7.6%; target < 15%
    EXPECT_LT(family(r, "context_attention")->all.median_abs, 0.11);     // measured 8.3%
    EXPECT_LT(family(r, "generation_attention")->all.median_abs, 0.11);  // measured 7.8%
    EXPECT_LT(family(r, "nccl_all_reduce")->all.median_abs, 0.12);       // measured 9.4%
    EXPECT_GT(family(r, "gemm")->all.count, 30000u);
}

// The held-out half of every measured file (compare::Split::test: shapes the architecture constants were not
// fitted on), per GPU and family: the medians and biases reached when the constants were fitted
// (docs/roofline.md section 5), each bound about 20-30% above its measured value so a regression fails.
struct HeldOutBound {
    const char* family;
    double median, bias;  // bounds on median |error| and |median signed error|
};

void expect_held_out(const std::string& dir, const char* gpu, std::initializer_list<HeldOutBound> bounds) {
    CompareReport r = compare_aic(dir, gpu::resolve_gpu(gpu), nullptr, Split::test);
    std::cout << format_compare(r);
    for (const HeldOutBound& b : bounds) {
        const FamilyReport* f = family(r, b.family);
        ASSERT_NE(f, nullptr) << gpu << " " << b.family;
        EXPECT_GT(f->all.count, 20u) << gpu << " " << b.family;
        EXPECT_LT(f->all.median_abs, b.median) << gpu << " " << b.family;
        EXPECT_LT(std::fabs(f->all.median_signed), b.bias) << gpu << " " << b.family;
    }
}

TEST(CompareReference, HeldOutHalfH100) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    expect_held_out(ref + "/measured/aic-h100", "H100",
                    {{"gemm", 0.09, 0.055},                  // measured 7.4%, bias -4.2%
                     {"context_attention", 0.105, 0.02},     // 8.2%, -0.6% (overlapped new-token traffic: 10.9%, -2.6%)
                     {"generation_attention", 0.095, 0.03},  // 7.7%, -1.9%
                     {"nccl_all_reduce", 0.11, 0.03}});      // 8.9%, -0.6%
    expect_held_out(ref + "/measured/aic-h100-custom-allreduce", "H100",
                    {{"custom_all_reduce", 0.11, 0.03}});  // 8.8%, -0.1%
}

TEST(CompareReference, HeldOutHalfA100) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    expect_held_out(ref + "/measured/aic-a100", "A100",
                    {{"gemm", 0.135, 0.03},                // 11.3%, -1.5%
                     {"context_attention", 0.09, 0.025},   // 6.9%, -1.6% (before issue #12: 14.5%, -0.2%)
                     {"generation_attention", 0.1, 0.01},  // 8.1%, -0.2% (16.8%, -4.8%)
                     {"nccl_all_reduce", 0.09, 0.055}});   // 7.1%, +4.6% (18.9%, +11.7%; 58 rows)
    expect_held_out(ref + "/measured/aic-a100-custom-allreduce", "A100",
                    {{"custom_all_reduce", 0.06, 0.03}});  // 3.0%, +0.4%
}

TEST(CompareReference, HeldOutHalfB200) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    expect_held_out(ref + "/measured/aic-b200", "B200",
                    {{"gemm", 0.115, 0.035},                 // 9.4%, -1.7%
                     {"context_attention", 0.115, 0.02},     // 9.2%, -0.6% (before: 13.1%, -1.9%)
                     {"generation_attention", 0.13, 0.045},  // 10.6%, +2.4%
                     {"nccl_all_reduce", 0.09, 0.05}});      // 6.7%, +3.2%
    expect_held_out(ref + "/measured/aic-b200-custom-allreduce", "B200",
                    {{"custom_all_reduce", 0.10, 0.03}});  // 7.8%, -0.4%
}

TEST(CompareSplit, HalvesAreDisjointDeterministicAndCoverEveryRow) {
    // Same key, same half, every time; the two halves of the fixture together are all its rows.
    EXPECT_EQ(split_of("gemm", "n=4096 k=4096"), split_of("gemm", "n=4096 k=4096"));
    gpu::GpuProfile gpu = gpu::resolve_gpu("H100");
    CompareReport all = compare_aic(fixture("aic"), gpu, nullptr);
    CompareReport train = compare_aic(fixture("aic"), gpu, nullptr, Split::train);
    CompareReport test = compare_aic(fixture("aic"), gpu, nullptr, Split::test);
    for (const FamilyReport& f : all.families) {
        const FamilyReport* a = family(train, f.family);
        const FamilyReport* b = family(test, f.family);
        std::size_t halves = (a ? a->all.count : 0) + (b ? b->all.count : 0);
        EXPECT_EQ(halves, f.all.count) << f.family;
    }
}

TEST(CompareReference, BlisH100TablesAgainstAicH100) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    auto tables = std::make_shared<tables::BenchData>(tables::load_bench_data(ref + "/blis-h100/bench_data", "h100"));
    CompareReport r = compare_aic(ref + "/measured/aic-h100", gpu::resolve_gpu("H100"), tables);
    std::cout << format_compare(r);
    const FamilyReport* gemm = family(r, "gemm");
    const FamilyReport* context = family(r, "context_attention");
    const FamilyReport* generation = family(r, "generation_attention");
    EXPECT_LT(gemm->all.median_abs, 0.10);            // measured 7.7%
    EXPECT_LT(gemm->covered.median_abs, 0.07);        // measured 4.4% (FP8 table converted to BF16)
    EXPECT_LT(generation->all.median_abs, 0.11);      // measured 7.8%
    EXPECT_LT(generation->covered.median_abs, 0.09);  // measured 6.2%
    EXPECT_LT(context->all.median_abs, 0.13);         // measured 10.1%
    // The BLIS prefill tables themselves are 10-30% faster than these measurements (another harness, no
    // KV-cache write): reproducing the tables cannot be closer than that. Measured 16.3%.
    EXPECT_LT(context->covered.median_abs, 0.21);
    EXPECT_GT(gemm->covered.count, 200u);
    EXPECT_GT(generation->covered.count, 100u);
}

}  // namespace
}  // namespace mfusim::compare
