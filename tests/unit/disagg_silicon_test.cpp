// Disaggregated serving against the 291 real disaggregated runs (../shared/reference/measured/silicon/
// silicon_{h100,h200}_disagg.csv): how the files are read (distinct runs, the per-replica batch), and every run
// answered by the built-in engine profiles with nothing fitted on them. Prints the tables docs/disagg.md quotes.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "compare/disagg_compare.hpp"
#include "support/reference.hpp"

namespace mfusim::compare {
namespace {

std::vector<DisaggRow> runs(const std::string& reference, const std::string& gpu) {
    return read_silicon_disagg_csv(reference + "/measured/silicon/silicon_" + gpu + "_disagg.csv");
}

TEST(DisaggSilicon, TheFilesHold205DistinctRunsWhoseBatchIsPerReplica) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    // 107 + 184 rows; the dumps repeat runs (the same measurement under DeepSeek-R1 and DeepSeek-V3).
    const auto h100 = runs(reference, "h100"), h200 = runs(reference, "h200");
    EXPECT_EQ(h100.size(), 75u);
    EXPECT_EQ(h200.size(), 130u);
    // Where a row gives both its clients and its decode pool, the clients are exactly decode workers x attention
    // replicas x per-replica batch: the batch is per replica, as the library reads --decode-batch.
    std::size_t checked = 0;
    for (const auto* set : {&h100, &h200}) {
        for (const DisaggRow& r : *set) {
            if (!r.pools_given || r.workload.decode_batch == 0) continue;
            EXPECT_EQ(r.workload.concurrency,
                      r.workload.decode_workers * r.decode.attention_dp * r.workload.decode_batch)
                << "line " << r.line;
            ++checked;
        }
    }
    EXPECT_GE(checked, 30u);
}

TEST(DisaggSilicon, BuiltinProfilesAnswerEveryDeepSeekRun) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    for (const auto& [file, gpu] : {std::pair<std::string, std::string>{"h100", "H100"}, {"h200", "H200"}}) {
        const auto rows = runs(reference, file);
        const auto predictions = predict_disagg(rows, reference + "/model_configs_aic", gpu,
                                                [](const std::string& b) { return engines::resolve_engine(b); });
        std::printf("%s (nothing fitted on these runs):\n%s\n", gpu.c_str(),
                    format_disagg(disagg_groups(predictions), predictions).c_str());
        for (const DisaggPrediction& p : predictions) {
            if (p.row->model_path.find("DeepSeek") == std::string::npos) continue;
            EXPECT_TRUE(p.answered) << "line " << p.row->line << ": " << p.message;
            // Little's law holds on every answer: the clients are all somewhere in their requests.
            const double c = static_cast<double>(p.row->workload.concurrency);
            EXPECT_NEAR(p.result.request_throughput_req_s * p.result.e2e_ms / 1000, c, 1e-6 * c);
        }
    }
}

}  // namespace
}  // namespace mfusim::compare
