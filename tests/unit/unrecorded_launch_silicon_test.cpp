// Runs launched otherwise than their rows record, found from the recipes in force on their measurement day
// (SemiAnalysisAI/InferenceX history). The rows keep being answered as recorded (compare's headline); these tests
// answer them as launched and pin what that explains and what it does not.
// - MTP (docs/speculative.md, section 5): the H200 DeepSeek-R1 TensorRT-LLM rows measured on 2026-01-14 are
//   InferenceX's dsr1-fp8-h200-trt-mtp configuration (three drafts at TP 8 / EP 8). Answered with that drafter at
//   AIConfigurator's default acceptance, nothing fitted, their TPOT must be near the measurement where plain
//   decoding is far above it; their TTFT must not be what moves.
// - Expert parallelism (docs/simulate.md, "Rows that ran expert parallelism and record EP 1"): the H200
//   TensorRT-LLM rows measured on 2025-11-02 at TP above 1 record `moe_ep_size` 1, but the templates of that day
//   launched `--ep_size` = TP ("For all sequence lengths, EP=TP"). Answered at EP = TP their TPOT must come closer;
//   their TTFT must not be what moves. The example launch file states that launch (`expert_parallel: "all"` for
//   those scripts' dates), so `compare --launches` answers the rows as recorded the same way, row for row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare/launch_file.hpp"
#include "compare/serving_compare.hpp"
#include "support/reference.hpp"

namespace mfusim::compare {
namespace {

// The "(all)" group of serving_groups.
ServingGroup all_rows(const std::vector<ServingGroup>& groups) {
    for (const ServingGroup& g : groups) {
        if (g.model == "(all)") return g;
    }
    throw std::runtime_error("no (all) group");
}

const auto engine_for = [](const std::string& backend) { return engines::resolve_engine(backend); };

TEST(SpeculativeSilicon, TheH200DeepseekRowsOfJanuaryAreAnsweredByTheirMtp) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    // The rows whose source names that measurement day (the configuration's MTP 3 rows at TP 8 / EP 8, and its MTP 1
    // rows under attention DP, dropped below).
    const std::string path = testing::silicon_rows_csv(reference, "silicon_h200_agg.csv",
                                                       {"measured=2026-01-14", ",trtllm,", "deepseek-ai/DeepSeek-R1,"});
    std::vector<ServingRow> rows = read_silicon_csv(path);
    std::filesystem::remove(path);
    std::erase_if(rows, [](const ServingRow& r) { return r.attention_dp != 1; });
    // InferenceX's protocol, as compare --serving runs it: ten requests a client, lengths drawn from [0.8 L, L].
    set_benchmark(rows, std::nullopt, 10, 0.8);
    query::Speculation mtp;
    mtp.drafter = query::Drafter::mtp;
    mtp.tokens = 3;
    mtp.mean_accepted_length = 1 + 0.85 + 0.85 * 0.3;  // AIConfigurator's DEFAULT_NEXTN_ACCEPT_RATES [0.85, 0.3]
    const auto plain = serving_groups(
        predict_serving(rows, reference + "/model_configs_aic", "H200", engine_for, ServingMethod::simulate));
    const auto drafted = serving_groups(
        predict_serving(rows, reference + "/model_configs_aic", "H200", engine_for, ServingMethod::simulate, mtp));
    const ServingGroup p = all_rows(plain), d = all_rows(drafted);
    std::printf(
        "H200 DeepSeek-R1 TensorRT-LLM rows of 2026-01-14, TP 8 / EP 8 (%zu answered): TPOT plain %.1f%% / "
        "%+.1f%%, MTP 3 at L 2.105 %.1f%% / %+.1f%%; TTFT %.1f%% -> %.1f%%\n",
        d.ttft.count, 100 * p.tpot.median_abs, 100 * p.tpot.median_signed, 100 * d.tpot.median_abs,
        100 * d.tpot.median_signed, 100 * p.ttft.median_abs, 100 * d.ttft.median_abs);
    ASSERT_EQ(d.ttft.count, 15u);           // the others repeat a row (the converter's TP x EP rows among them)
    EXPECT_GT(p.tpot.median_signed, 0.15);  // plain decoding is too slow for these runs
    EXPECT_LT(d.tpot.median_abs, 0.15);
    EXPECT_LT(std::abs(d.tpot.median_signed), 0.10);
    EXPECT_LT(std::abs(d.ttft.median_abs - p.ttft.median_abs), 0.10);  // the drafter is not the first-token excess
}

TEST(ExpertParallelSilicon, TheH200TrtllmRowsOfNovemberRanTheirExpertsOnEveryRank) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    const std::string path =
        testing::silicon_rows_csv(reference, "silicon_h200_agg.csv", {"measured=2025-11-02", ",trtllm,"});
    std::vector<ServingRow> recorded = read_silicon_csv(path);
    std::filesystem::remove(path);
    std::erase_if(recorded, [](const ServingRow& r) { return r.tp == 1; });  // EP = TP = 1: nothing to change
    // The same deployments measured again on 2025-12-15 and recorded with their experts read the same TPOT point by
    // point: a run at EP = TP. The gpt-oss rows' ids name their GPUs (tp2, tp4, tp8), so the reader takes them at
    // TP = EP (read_silicon_csv: columns that are the id's GPUs times its EP); the DeepSeek rows (the db dump's
    // config_id=181) name none and stay as the converter wrote them, tp_size 64 = TP 8 x EP 8.
    const std::string later =
        testing::silicon_rows_csv(reference, "silicon_h200_agg.csv", {"measured=2025-12-15", ",trtllm,"});
    const std::vector<ServingRow> with_experts = read_silicon_csv(later);
    std::filesystem::remove(later);
    std::size_t twins = 0;
    for (const ServingRow& a : recorded) {
        for (const ServingRow& b : with_experts) {
            if (b.model_path != a.model_path || b.ep != a.tp || (b.tp != a.tp && b.tp != a.tp * b.ep) ||
                b.workload.input_len != a.workload.input_len || b.workload.output_len != a.workload.output_len ||
                b.workload.concurrency != a.workload.concurrency) {
                continue;
            }
            EXPECT_NEAR(b.tpot_ms / a.tpot_ms, 1.0, 0.04) << "line " << a.line << " and line " << b.line;
            ++twins;
        }
    }
    EXPECT_EQ(twins, 49u);  // DeepSeek-V3 TP 8: 14; gpt-oss-120b TP 2, 4, 8: 35
    ASSERT_TRUE(std::all_of(recorded.begin(), recorded.end(),
                            [](const ServingRow& r) { return r.ep == 1 && r.attention_dp == 1; }));
    set_benchmark(recorded, std::nullopt, 10, 0.8);
    std::vector<ServingRow> launched = recorded;
    for (ServingRow& r : launched)
        r.ep = r.tp;  // `--ep_size=$TP` (dsr1_fp8_h200_trt_slurm.sh, gptoss_fp4_h200_trt_slurm.sh)
    const std::vector<ServingPrediction> as_launched =
        predict_serving(launched, reference + "/model_configs_aic", "H200", engine_for, ServingMethod::simulate);
    // The rows as recorded with the example launch file's entries that state the experts' layout: the same
    // deployments, the same answers. (Its other entries, the DeepSeek templates' token budget, move some of them
    // further.)
    LaunchFile launches = read_launch_file(testing::example_launch_file());
    std::erase_if(launches.entries, [](const LaunchEntry& e) { return !e.expert_parallel_all; });
    ASSERT_GE(launches.entries.size(), 2u);  // the gpt-oss and DeepSeek H200 scripts of 2025 among them
    const std::vector<ServingPrediction> from_file = predict_serving(
        recorded, reference + "/model_configs_aic", "H200", engine_for, ServingMethod::simulate, {}, &launches);
    ASSERT_EQ(from_file.size(), as_launched.size());
    for (std::size_t k = 0; k < from_file.size(); ++k) {
        ASSERT_EQ(from_file[k].answered, as_launched[k].answered) << "line " << recorded[k].line;
        if (!from_file[k].answered) continue;  // a repeat of an earlier row, refused alike
        EXPECT_EQ(from_file[k].result.tpot_ms, as_launched[k].result.tpot_ms) << "line " << recorded[k].line;
        EXPECT_EQ(from_file[k].result.ttft_ms, as_launched[k].result.ttft_ms) << "line " << recorded[k].line;
    }
    const ServingGroup rec = all_rows(serving_groups(
        predict_serving(recorded, reference + "/model_configs_aic", "H200", engine_for, ServingMethod::simulate)));
    const ServingGroup ep = all_rows(serving_groups(as_launched));
    std::printf(
        "H200 TensorRT-LLM rows of 2025-11-02 at TP 2-8 (%zu answered): TPOT as recorded (EP 1) %.1f%% / %+.1f%%, "
        "as launched (EP = TP) %.1f%% / %+.1f%%; TTFT %.1f%% / %+.1f%% -> %.1f%% / %+.1f%%\n",
        ep.ttft.count, 100 * rec.tpot.median_abs, 100 * rec.tpot.median_signed, 100 * ep.tpot.median_abs,
        100 * ep.tpot.median_signed, 100 * rec.ttft.median_abs, 100 * rec.ttft.median_signed, 100 * ep.ttft.median_abs,
        100 * ep.ttft.median_signed);
    ASSERT_EQ(ep.ttft.count, 60u);  // gpt-oss-120b TP 2, 4, 8 (45) and DeepSeek-V3 TP 8 (15); R1's repeat V3's
    EXPECT_LT(ep.tpot.median_abs, rec.tpot.median_abs - 0.04);
    EXPECT_GT(ep.tpot.median_signed, rec.tpot.median_signed + 0.04);
    // What is left is not the layout: TPOT stays short by a fifth, TTFT by nearly half, as recorded or launched.
    EXPECT_LT(ep.tpot.median_signed, -0.10);
    EXPECT_LT(std::abs(ep.ttft.median_signed - rec.ttft.median_signed), 0.05);
}

}  // namespace
}  // namespace mfusim::compare
