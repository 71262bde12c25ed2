// SPEC section 5: every lookup rule and quirk on the fixture tables (tests/fixtures/compat/bench_data).
#include <gtest/gtest.h>

#include <functional>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "compat/lookups.hpp"
#include "unit/compat_fixtures.hpp"

namespace mfusim::compat {
namespace {

using tables::Phase;
using testing::fixture_tables;

constexpr double kMu0 = 0.6;  // H20

std::string crash_message(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::compat_crash) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no crash";
    return "";
}

TEST(CompatLookups, R3IsPythonRound3) {
    EXPECT_EQ(round3(0.1235), 0.123);  // the binary value is below the half
    EXPECT_EQ(round3(0.0005), 0.001);  // ... and here above it
    EXPECT_EQ(round3(0.0004), 0.0);
    EXPECT_EQ(round3(0.2999), 0.3);
    EXPECT_EQ(round3(0.6), 0.6);
}

// 5.1: the last row with seq_len <= S before the first larger one (file order); below the first row: mu0;
// missing file: 0.9 and "not exist." (with a period).
TEST(CompatLookups, AttentionPrefillIsAStepFunctionInFileOrder) {
    AttentionPrefillLookup l;
    l.resolve(fixture_tables().get(), "mha/prefill/h20/4-2-64.csv", kMu0);  // 1024, 4096, 2048, 8192
    ASSERT_TRUE(l.present());
    EXPECT_EQ(l.warning(), nullptr);
    Pick p = l.lookup(500);
    EXPECT_EQ(p.value, 0.6);
    EXPECT_EQ(p.source, MFUSIM_SOURCE_DEFAULT);
    EXPECT_EQ(p.table, nullptr);
    p = l.lookup(1024);
    EXPECT_EQ(p.value, 0.51);
    EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_EXACT);
    ASSERT_NE(p.table, nullptr);
    EXPECT_EQ(*p.table, "mha/prefill/h20/4-2-64.csv");
    p = l.lookup(3000);  // stops at 4096: the later 2048 row is never reached
    EXPECT_EQ(p.value, 0.51);
    EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_NEAREST);
    EXPECT_EQ(p.distance, 1976);
    EXPECT_EQ(l.lookup(5000).value, 0.73);  // 1024, 4096, then 2048 <= 5000 overrides; 8192 stops
    EXPECT_EQ(l.lookup(1 << 20).value, 0.84);
}

TEST(CompatLookups, AttentionPrefillMissingIsPointNine) {
    AttentionPrefillLookup l;
    l.resolve(fixture_tables().get(), "mha/prefill/h20/9-9-9.csv", kMu0);
    EXPECT_FALSE(l.present());
    EXPECT_EQ(l.lookup(4096).value, 0.9);
    EXPECT_EQ(l.lookup(4096).source, MFUSIM_SOURCE_DEFAULT);
    ASSERT_NE(l.warning(), nullptr);
    EXPECT_EQ(*l.warning(), "Warning: bench_data/mha/prefill/h20/9-9-9.csv not exist.");
    l.resolve(nullptr, "mha/prefill/h20/4-2-64.csv", kMu0);  // no bench_data at all
    EXPECT_EQ(l.lookup(4096).value, 0.9);
}

// 5.2 / Q17: L1 distance over (batch, kv), earliest row on ties, rows of the KV dtype only.
TEST(CompatLookups, AttentionDecodeIsL1NearestEarliestWins) {
    AttentionDecodeLookup l;
    l.resolve(fixture_tables().get(), "mha/decode/h20/4-2-64.csv", kMu0, false);
    Pick p = l.lookup(1, 1024);
    EXPECT_EQ(p.value, 0.011);
    EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_EXACT);
    p = l.lookup(2, 2560);  // (1,1024) and (1,4096) both at 1 + 1536: the first wins
    EXPECT_EQ(p.value, 0.011);
    EXPECT_EQ(p.distance, 1537);
    EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_NEAREST);
    EXPECT_EQ(l.lookup(3, 4000).value, 0.031);
    EXPECT_EQ(l.lookup(1000, 1).value, 0.021);  // (4,1024): 996 + 1023 is the smallest L1 distance

    AttentionDecodeLookup fp8;
    fp8.resolve(fixture_tables().get(), "mha/decode/h20/4-2-64.csv", kMu0, true);
    EXPECT_EQ(fp8.lookup(4, 4096).value, 0.061);
    EXPECT_EQ(fp8.lookup(1, 1).value, 0.051);
}

TEST(CompatLookups, AttentionDecodeWithoutRowsOfTheKvDtypeIsValueError) {
    AttentionDecodeLookup l;
    l.resolve(fixture_tables().get(), "mha/decode/h20/8-2-64.csv", kMu0, true);
    std::string what = crash_message([&] { l.lookup(1, 1024); });
    EXPECT_EQ(what.rfind("InferSim raises ValueError: min() arg is an empty sequence", 0), 0u) << what;
    EXPECT_NE(what.find("mha/decode/h20/8-2-64.csv"), std::string::npos) << what;
}

TEST(CompatLookups, AttentionDecodeMissingIsMu0) {
    AttentionDecodeLookup l;
    l.resolve(fixture_tables().get(), "mha/decode/h20/4-0-64.csv", kMu0, true);  // missing: no dtype check either
    EXPECT_EQ(l.lookup(1, 1).value, kMu0);
    ASSERT_NE(l.warning(), nullptr);
    EXPECT_EQ(*l.warning(), "Warning: bench_data/mha/decode/h20/4-0-64.csv not exists");
}

// Q16: a headerless table loses its first row, as InferSim always skips the first line.
TEST(CompatLookups, HeaderlessTableLosesItsFirstRow) {
    const auto* table = tables::find_table(fixture_tables()->attention_decode, "mha/decode/h20/8-2-64.csv");
    ASSERT_NE(table, nullptr);
    EXPECT_FALSE(table->info.first_line_is_header);
    EXPECT_EQ(table->rows.size(), 3u);
    EXPECT_EQ(infersim_rows(*table).size(), 2u);
    AttentionDecodeLookup l;
    l.resolve(fixture_tables().get(), "mha/decode/h20/8-2-64.csv", kMu0, false);
    Pick p = l.lookup(1, 1024);  // the (1, 1024, 0.9) line is not seen
    EXPECT_EQ(p.value, 0.2);
    EXPECT_EQ(p.distance, 3072);
}

GemmSite gemm_site(int64_t k, int64_t n) {
    GemmTable t;
    t.resolve(fixture_tables().get(), "gemm/h20/data.csv", kMu0);
    return t.site(k, n);
}

// 5.3 / Q19: nearest (k, n) superset, then the LAST row in file order with m_row <= m.
TEST(CompatLookups, GemmTakesTheLastRowInFileOrder) {
    GemmSite s = gemm_site(256, 512);  // rows m = 16, 64, 32
    ASSERT_TRUE(s.has_group());
    EXPECT_EQ(s.group_k(), 256);
    EXPECT_EQ(s.group_n(), 512);
    EXPECT_EQ(s.lookup(16).value, 0.101);
    EXPECT_EQ(s.lookup(16).source, MFUSIM_SOURCE_TABLE_EXACT);
    EXPECT_EQ(s.lookup(40).value, 0.153);   // 16 and 32 qualify, 32 comes last
    EXPECT_EQ(s.lookup(100).value, 0.153);  // 64 qualifies too but 32 is later in the file
    Pick below = s.lookup(8);               // below the group's smallest m: mu0, silently
    EXPECT_EQ(below.value, kMu0);
    EXPECT_EQ(below.source, MFUSIM_SOURCE_DEFAULT);
}

TEST(CompatLookups, GemmPicksTheNearestSupersetGroup) {
    GemmSite s = gemm_site(256, 1024);  // (300,1024) at 44^2 beats (256,1100) at 76^2
    EXPECT_EQ(s.group_k(), 300);
    EXPECT_EQ(s.group_n(), 1024);
    Pick p = s.lookup(300);
    EXPECT_EQ(p.value, 0.552);
    EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_NEAREST);
    EXPECT_EQ(p.distance, 44 + 0 + 44);  // |dk| + |dn| + (m - m_row)

    GemmSite tie = gemm_site(256, 600);  // (260,600) and (256,604) both at 16: the first in the file wins
    EXPECT_EQ(tie.group_k(), 260);
    EXPECT_EQ(tie.lookup(16).value, 0.611);

    GemmSite smaller = gemm_site(256, 128);  // exact (256,128) although (128,256) is nearer in L2 but not a superset
    EXPECT_EQ(smaller.lookup(16).value, 0.333);
}

TEST(CompatLookups, GemmDuplicateGroupLaterRowsWin) {
    GemmSite s = gemm_site(256, 256);  // rows 8 (0.301), 128 (0.402), ..., 8 (0.351)
    EXPECT_EQ(s.lookup(64).value, 0.351);
    EXPECT_EQ(s.lookup(200).value, 0.351);
}

TEST(CompatLookups, GemmDistanceThresholdIsStrictBelow1e9) {
    GemmSite far = gemm_site(256, 39000);  // only (40000,40000): 39744^2 + 1000^2 >= 1e9
    EXPECT_FALSE(far.has_group());
    EXPECT_EQ(far.lookup(1 << 20).value, kMu0);
    GemmSite near = gemm_site(39500, 39500);
    EXPECT_TRUE(near.has_group());
    EXPECT_EQ(near.lookup(16).value, 0.9);
    GemmSite none = gemm_site(50000, 16);  // no superset at all
    EXPECT_FALSE(none.has_group());
    EXPECT_EQ(none.lookup(16).value, kMu0);
}

TEST(CompatLookups, GemmMfusAreRoundedTo3Decimals) {
    GemmSite s = gemm_site(1024, 1024);
    EXPECT_EQ(s.lookup(16).value, 0.123);
    EXPECT_EQ(s.lookup(32).value, 0.0);  // 0.0004 rounds to 0: the GEMM then divides by zero
}

TEST(CompatLookups, GemmMissingTable) {
    GemmTable t;
    t.resolve(fixture_tables().get(), "gemm/h200/data.csv", 0.4);
    EXPECT_FALSE(t.present());
    ASSERT_NE(t.warning(), nullptr);
    EXPECT_EQ(*t.warning(), "Warning: bench_data/gemm/h200/data.csv not exists");
    Pick p = t.site(256, 512).lookup(1024);
    EXPECT_EQ(p.value, 0.4);
    EXPECT_EQ(p.source, MFUSIM_SOURCE_DEFAULT);
}

GroupedGemmLookup grouped(Phase phase, int64_t ws, int64_t ep, const char* gpu = "h20") {
    GroupedGemmLookup l;
    GroupedGemmLookup::Key key{8, ws, ep, 2, 256, 128};
    l.resolve(fixture_tables().get(), phase, tables::grouped_gemm_path(phase, gpu), key, kMu0);
    return l;
}

// 5.4 / Q18 / Q20: prefill is a step function over the matching rows in file order; MFU = max(r3(up), r3(down)).
TEST(CompatLookups, GroupedPrefillStepFunction) {
    GroupedGemmLookup l = grouped(Phase::prefill, 1, 1);  // rows 1024, 4096, 2048
    EXPECT_EQ(l.warning(), nullptr);
    EXPECT_EQ(l.lookup(500).value, kMu0);
    EXPECT_EQ(l.lookup(500).source, MFUSIM_SOURCE_DEFAULT);
    EXPECT_EQ(l.lookup(1024).value, 0.311);  // max(0.311, 0.3)
    EXPECT_EQ(l.lookup(1024).source, MFUSIM_SOURCE_TABLE_EXACT);
    EXPECT_EQ(l.lookup(3000).value, 0.311);  // 4096 stops the scan
    EXPECT_EQ(l.lookup(5000).value, 0.9);    // 4096 then 2048
}

TEST(CompatLookups, GroupedKeyUsesWorldSizeAndLocalExperts) {
    EXPECT_EQ(grouped(Phase::prefill, 2, 2).lookup(1024).value, 0.6);  // num_gpus 2, local 8 // 2
    EXPECT_EQ(grouped(Phase::prefill, 4, 2).lookup(1024).value, 0.7);  // tp 2: num_gpus = ws 4, local = 8 // 2
    GroupedGemmLookup none = grouped(Phase::prefill, 4, 4);            // local 2: no row
    ASSERT_NE(none.warning(), nullptr);
    EXPECT_EQ(*none.warning(), "Warning: grouped_gemm prefill mfu not found, will use default mfu.");
    EXPECT_EQ(none.lookup(1024).value, kMu0);
    GroupedGemmLookup dnone = grouped(Phase::decode, 4, 4);
    ASSERT_NE(dnone.warning(), nullptr);
    EXPECT_EQ(*dnone.warning(), "Warning: grouped_gemm decode mfu not found, will use default mfu.");
}

// 5.5: decode picks the nearest batch, earliest on ties.
TEST(CompatLookups, GroupedDecodeNearestBatch) {
    GroupedGemmLookup l = grouped(Phase::decode, 1, 1);  // rows 16, 64, 32
    EXPECT_EQ(l.lookup(1).value, 0.102);
    EXPECT_EQ(l.lookup(40).value, 0.302);
    Pick tie = l.lookup(48);  // 64 and 32 both 16 away: 64 comes first
    EXPECT_EQ(tie.value, 0.201);
    EXPECT_EQ(tie.distance, 16);
}

TEST(CompatLookups, GroupedMissingFileWarnings) {
    GroupedGemmLookup p = grouped(Phase::prefill, 1, 1, "h800");
    ASSERT_NE(p.warning(), nullptr);
    EXPECT_EQ(*p.warning(), "Warning: bench_data/grouped_gemm/prefill/h800/data.csv not exists");
    GroupedGemmLookup d = grouped(Phase::decode, 1, 1, "h800");
    ASSERT_NE(d.warning(), nullptr);
    EXPECT_EQ(*d.warning(), "warning: bench_data/grouped_gemm/decode/h800/data.csv not exists");  // lower-case
    EXPECT_EQ(d.lookup(7).value, kMu0);
}

TEST(CompatLookups, GroupedWithZeroExpertParallelRanksCrashesWhenTheFileExists) {
    GroupedGemmLookup l = grouped(Phase::prefill, 1, 0);
    std::string what = crash_message([&] { l.lookup(1024); });
    EXPECT_EQ(what.rfind("InferSim raises ZeroDivisionError", 0), 0u) << what;
    EXPECT_EQ(grouped(Phase::prefill, 1, 0, "h800").lookup(1024).value, kMu0);  // no file: no key computed
}

// 5.6 / 5.7 / Q30: nearest row, each latency divided by x_row / x, then summed.
TEST(CompatLookups, GdnNearestRowScaled) {
    GdnLookup p;
    p.resolve(fixture_tables().get(), "gdn/prefill/h20/4-2-32-4-32.csv");
    EXPECT_EQ(p.lookup(4096).value, 210.0);
    EXPECT_EQ(p.lookup(4096).source, MFUSIM_SOURCE_TABLE_EXACT);
    EXPECT_EQ(p.lookup(2048).value, 105.0);
    EXPECT_EQ(p.lookup(3000).value, 153.80859375);
    GdnLookup d;
    d.resolve(fixture_tables().get(), "gdn/decode/h20/4-2-32-4-32.csv");
    EXPECT_EQ(d.lookup(8).value, 80.0);   // row 1: (3 + 7) * 8
    EXPECT_EQ(d.lookup(40).value, 30.0);  // rows 16 and 64 both 24 away: 16 first; (4 + 8) / 0.4
    EXPECT_EQ(d.lookup(40).distance, 24);
}

TEST(CompatLookups, GdnCrashes) {
    GdnLookup missing;
    missing.resolve(fixture_tables().get(), "gdn/prefill/h800/4-2-32-4-32.csv");
    EXPECT_EQ(crash_message([&] { missing.lookup(4096); }),
              "InferSim raises AssertionError: Error: bench_data/gdn/prefill/h800/4-2-32-4-32.csv not exist.");
    GdnLookup d;
    d.resolve(fixture_tables().get(), "gdn/decode/h20/4-2-32-4-32.csv");
    EXPECT_EQ(crash_message([&] { d.lookup(0); }).rfind("InferSim raises ZeroDivisionError", 0), 0u);
}

}  // namespace
}  // namespace mfusim::compat
