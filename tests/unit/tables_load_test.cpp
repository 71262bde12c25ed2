#include <gtest/gtest.h>

#include "common/error.hpp"
#include "support/reference.hpp"
#include "tables/inspect.hpp"
#include "tables/tables.hpp"

namespace mfusim::tables {
namespace {

std::string fixture_bench_data() {
    return testing::fixtures_dir() + "/bench_data";
}

TEST(TablesLoad, LoadsEveryFamilyOfTheFixtureInFileOrder) {
    BenchData data = load_bench_data(fixture_bench_data());
    ASSERT_EQ(data.gemm.size(), 1u);
    const auto& gemm = data.gemm.at("gemm/h100/data.csv");
    ASSERT_EQ(gemm.rows.size(), 5u);
    EXPECT_EQ(gemm.rows[3].n, 4096);  // file order kept, not sorted
    EXPECT_DOUBLE_EQ(gemm.rows[2].mfu, 0.62);
    EXPECT_TRUE(gemm.info.manifest.present);
    EXPECT_EQ(gemm.info.manifest.peak_dtype, PeakDtype::fp8);
    EXPECT_DOUBLE_EQ(gemm.info.manifest.peak_tflops, 1978.9);

    const auto& prefill = data.attention_prefill.at("mha/prefill/h100/32-8-128.csv");
    EXPECT_EQ(prefill.rows.size(), 3u);  // last line without newline still read
    EXPECT_EQ(prefill.info.shape, (std::vector<int64_t>{32, 8, 128}));
    EXPECT_EQ(prefill.info.tp, 0);
    EXPECT_FALSE(prefill.info.manifest.present);
    EXPECT_EQ(prefill.info.manifest.peak_dtype, PeakDtype::bf16);

    const auto& decode = data.attention_decode.at("mha/decode/h100/32-8-128-tp2.csv");
    EXPECT_FALSE(decode.info.first_line_is_header);  // headerless: the first line is kept as a row
    EXPECT_EQ(decode.rows.size(), 4u);
    EXPECT_EQ(decode.info.tp, 2);
    EXPECT_EQ(decode.rows[0].kv_dtype, "bf16");

    EXPECT_EQ(data.grouped_gemm.at("grouped_gemm/decode/h100/data.csv").rows[1].tokens_per_gpu, 64);
    EXPECT_EQ(data.gdn.at("gdn/decode/h100/4-16-128-32-128.csv").rows[1].latencies_us, (std::vector<double>{9, 71}));
    ASSERT_EQ(data.notes.size(), 1u);
    EXPECT_NE(data.notes[0].find("dsa"), std::string::npos);
}

TEST(TablesLoad, GpuFilterLoadsOnlyThatFolder) {
    EXPECT_EQ(load_bench_data(fixture_bench_data(), "h100").table_count(), 5u);
    EXPECT_EQ(load_bench_data(fixture_bench_data(), "h20").table_count(), 0u);
}

TEST(TablesLoad, PathBuildersMatchTheLayout) {
    EXPECT_EQ(gemm_path("h20"), "gemm/h20/data.csv");
    EXPECT_EQ(attention_path(AttentionFamily::mla, Phase::decode, "h800", "128-512-64"),
              "mla/decode/h800/128-512-64.csv");
    EXPECT_EQ(grouped_gemm_path(Phase::prefill, "h20"), "grouped_gemm/prefill/h20/data.csv");
    EXPECT_EQ(gdn_path(Phase::decode, "h20", "4-16-128-32-128"), "gdn/decode/h20/4-16-128-32-128.csv");
}

TEST(TablesLoad, MissingDirectoryIsAnIoError) {
    try {
        load_bench_data("/nonexistent/bench_data");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::io);
        EXPECT_NE(std::string(e.what()).find("/nonexistent/bench_data"), std::string::npos);
    }
}

TEST(TablesInspect, ReportsCoverageAndProblems) {
    auto summaries = inspect(load_bench_data(fixture_bench_data()));
    ASSERT_EQ(summaries.size(), 5u);
    const TableSummary* decode = nullptr;
    for (const auto& s : summaries) {
        if (s.relative_path == "mha/decode/h100/32-8-128-tp2.csv") decode = &s;
    }
    ASSERT_NE(decode, nullptr);
    EXPECT_NE(decode->coverage.find("tp 2"), std::string::npos);
    ASSERT_FALSE(decode->problems.empty());
    EXPECT_NE(decode->problems[0].find("no header"), std::string::npos);
}

TEST(TablesLoad, LoadsInferSimAndBlisReferenceTables) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    BenchData infersim = load_bench_data(ref + "/infersim/bench_data");
    EXPECT_EQ(infersim.gemm.at("gemm/h20/data.csv").rows.size(), 402u);
    EXPECT_EQ(infersim.gemm.at("gemm/h800/data.csv").rows.size(), 110u);
    EXPECT_FALSE(infersim.attention_decode.at("mha/decode/h20/64-2-128.csv").info.first_line_is_header);
    EXPECT_EQ(infersim.attention_decode.at("mha/decode/h20/32-8-128.csv").rows.size(), 88u);
    EXPECT_EQ(infersim.grouped_gemm.at("grouped_gemm/decode/h20/data.csv").rows.size(), 266u);
    BenchData blis = load_bench_data(ref + "/blis-h100/bench_data");
    EXPECT_EQ(blis.attention_decode.size(), 18u);
    EXPECT_EQ(blis.attention_prefill.size(), 6u);
}

}  // namespace
}  // namespace mfusim::tables
