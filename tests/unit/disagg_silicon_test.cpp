// Disaggregated serving against the 291 real disaggregated runs (../shared/reference/measured/silicon/
// silicon_{h100,h200}_disagg.csv): how the files are read (distinct runs, the per-replica batch), and every run
// answered by the built-in engine profiles with nothing fitted on them. Prints the tables docs/disagg.md quotes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "compare/disagg_compare.hpp"
#include "support/reference.hpp"

namespace mfusim::compare {
namespace {

std::vector<DisaggRow> runs(const std::string& reference, const std::string& gpu) {
    return read_silicon_disagg_csv(reference + "/measured/silicon/silicon_" + gpu + "_disagg.csv");
}

TEST(DisaggSilicon, TheFilesHold184DistinctRunsWhoseBatchIsPerReplica) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    // 107 + 184 rows; the dumps repeat runs (the same measurement under DeepSeek-R1 and DeepSeek-V3, its figures
    // printed once with a different last digit now and then).
    const auto h100 = runs(reference, "h100"), h200 = runs(reference, "h200");
    EXPECT_EQ(h100.size(), 65u);
    EXPECT_EQ(h200.size(), 119u);
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

// A run printed in two dumps with its figures' last digit apart (13.382413802501596 and ...597) is one run, kept
// from the row that gives its pools; a figure that differs in the 12th significant digit or before is another run.
TEST(DisaggSilicon, ARunPrintedTwiceWithADifferentLastDigitIsOneRun) {
    const std::filesystem::path path = std::filesystem::temp_directory_path() / "mfusim_disagg_dedup.csv";
    {
        const std::string pools = ",1,1,8,1,8,4,9,8,1,8,";  // prefill batch, workers, TP, DP, EP; decode alike
        const std::string none = ",,,8,1,8,,,8,1,8,";
        std::ofstream f(path);
        f << "silicon_data_source,backend,model_path,mode,isl,osl,gemm_quant_mode,prefill_batch_size,"
             "prefill_num_workers,prefill_tp_size,prefill_attention_dp_size,prefill_moe_ep_size,decode_batch_size,"
             "decode_num_workers,decode_tp_size,decode_attention_dp_size,decode_moe_ep_size,silicon_ttft_ms,"
             "silicon_tpot_ms\n"
          << "silicon_concurrency=36,trtllm,org/R1,disagg,1024,1024,fp8" << none
          << "622.8887425593308,13.382413802501596\n"
          << "silicon_concurrency=36,trtllm,org/V3,disagg,1024,1024,fp8" << pools
          << "622.8887425593308,13.382413802501597\n"
          << "silicon_concurrency=36,trtllm,org/R1,disagg,1024,1024,fp8" << none << "622.8887425593308,13.3824138026\n";
    }
    const auto rows = read_silicon_disagg_csv(path.string());
    std::filesystem::remove(path);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_TRUE(rows[0].pools_given);
    EXPECT_EQ(rows[0].model_path, "org/V3");
    EXPECT_EQ(rows[0].workload.decode_workers, 9);
    EXPECT_FALSE(rows[1].pools_given);
}

// The file's prefill_batch_size is read but not applied: a prefill replica batches prompts up to its engine's token
// budget unless the harness capped its context servers at the file's count (use_file_prefill_batch).
TEST(DisaggSilicon, ThePrefillBatchColumnCapsThePromptsPerStepOnlyWhenAsked) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    auto rows = runs(reference, "h200");
    std::size_t given = 0;
    for (const DisaggRow& r : rows) {
        if (!r.pools_given) continue;
        ++given;
        EXPECT_EQ(r.workload.prefill_batch, 0) << "line " << r.line;
        EXPECT_EQ(r.file_prefill_batch, 1) << "line " << r.line;  // every run with its pools says 1
    }
    EXPECT_EQ(given, 28u);
    use_file_prefill_batch(rows);
    for (const DisaggRow& r : rows) EXPECT_EQ(r.workload.prefill_batch, r.file_prefill_batch) << "line " << r.line;
}

// compare --clients-per-decode-slot: the harness's clients per decode slot recovers the engine's max_batch_size from
// the file's decode_batch_size (clients / decode workers). The InferenceX H100 TensorRT-LLM runs, whose srt-slurm
// recipes give max_batch_size 1, 2, 8, 16 and 64 at 6, 9, 30, 60 and 154 clients on 3, 3, 3, 3 and 2 TP 16 workers.
TEST(DisaggSilicon, ClientsPerDecodeSlotRecoverTheRecipesMaxBatchSize) {
    auto row = [](int64_t clients, int64_t workers, int64_t replicas) {
        DisaggRow r;
        r.workload.concurrency = clients;
        r.workload.decode_workers = workers;
        r.decode.attention_dp = replicas;
        r.workload.decode_batch = clients / (workers * replicas);
        return r;
    };
    std::vector<DisaggRow> rows = {row(6, 3, 1),   row(9, 3, 1),    row(30, 3, 1), row(60, 3, 1),
                                   row(154, 2, 1), row(308, 1, 16), row(6, 3, 1)};
    rows.back().pools_given = false;
    std::vector<DisaggRow> same = rows;
    set_decode_slots(same, 1);  // 1: the rows as read
    for (std::size_t i = 0; i < rows.size(); ++i)
        EXPECT_EQ(same[i].workload.decode_batch, rows[i].workload.decode_batch);
    set_decode_slots(rows, 1.2);
    const int64_t expected[] = {1, 2, 8, 16, 64, 16, 2};  // the last gives no pools: untouched
    for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].workload.decode_batch, expected[i]) << i;
    EXPECT_THROW(set_decode_slots(rows, 0.5), Error);
    EXPECT_THROW(set_decode_slots(rows, std::nan("")), Error);
}

// The H100 TensorRT-LLM runs' recipes set the generation servers' stream_interval to 100 (docs/disagg.md, section
// 13). Their own throughput says the first token does not wait 100 decode steps. With more clients than decode
// slots, a request is outside a slot for at least W = (1 - slots / clients) x L of its latency L (Little's law on
// the slots: at most `slots` of the clients hold one); its first token leaves at least N steps after it took its
// slot, so TTFT >= W + N x step >= W + N x TPOT (the client's TPOT is at most the step). L = TTFT + (OSL - 1) x TPOT
// with the output length at InferenceX's shortest draw (0.8 x OSL), which makes L and W smallest. A run whose
// TTFT - W is under 100 TPOTs cannot have waited 100 steps; where the prefill pool is the queue (154 clients on one
// prefill worker) the bound says nothing. Measured against measured: no model is involved.
TEST(DisaggSilicon, TheFirstTokenDoesNotWaitTheRecipesStreamIntervalOnTheH100Runs) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    auto rows = runs(reference, "h100");
    set_decode_slots(rows, 1.2);  // the recipes' max_batch_size (section 11)
    std::size_t oversubscribed = 0, refuting = 0;
    for (const DisaggRow& r : rows) {
        if (r.backend != "trtllm" || !r.pools_given) continue;
        const double clients = static_cast<double>(r.workload.concurrency);
        const double slots =
            static_cast<double>(r.workload.decode_workers * r.decode.attention_dp * r.workload.decode_batch);
        if (clients <= slots) continue;
        ++oversubscribed;
        const double latency = r.ttft_ms + (0.8 * static_cast<double>(r.workload.output_len) - 1) * r.tpot_ms;
        const double outside_slot = (1 - slots / clients) * latency;
        if (r.ttft_ms - outside_slot < 100 * r.tpot_ms) ++refuting;
    }
    EXPECT_GE(oversubscribed, 6u);
    EXPECT_GT(2 * refuting, oversubscribed) << refuting << " of " << oversubscribed;
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
            if (!p.row->pools_given) {  // refused, not answered with a guess of the pools
                EXPECT_FALSE(p.answered) << "line " << p.row->line;
                EXPECT_NE(p.message.find("pool sizes are not given"), std::string::npos) << p.message;
                continue;
            }
            EXPECT_TRUE(p.answered) << "line " << p.row->line << ": " << p.message;
            // Little's law holds on every answer: the clients are all somewhere in their requests.
            const double c = static_cast<double>(p.row->workload.concurrency);
            EXPECT_NEAR(p.result.request_throughput_req_s * p.result.e2e_ms / 1000, c, 1e-6 * c);
        }
    }
}

}  // namespace
}  // namespace mfusim::compare
