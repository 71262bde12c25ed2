// Runs that decoded with MTP although their rows do not say so (docs/speculative.md, section 5): the H200
// DeepSeek-R1 TensorRT-LLM rows measured on 2026-01-14 are InferenceX's dsr1-fp8-h200-trt-mtp configuration (three
// drafts at TP 8 / EP 8). Answered with that drafter at AIConfigurator's default acceptance, nothing fitted, their
// TPOT must be near the measurement where plain decoding is far above it; their TTFT must not be what moves.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare/serving_compare.hpp"
#include "support/reference.hpp"

namespace mfusim::compare {
namespace {

// The file's header and its rows whose source names that measurement day, TP 8 / EP 8 without attention DP (the
// configuration's MTP 3 rows), written where read_silicon_csv can read them.
std::string mtp_rows_csv(const std::string& reference) {
    std::ifstream in(reference + "/measured/silicon/silicon_h200_agg.csv");
    const std::filesystem::path out =
        std::filesystem::temp_directory_path() / ("mfusim_mtp_rows_" + std::to_string(::getpid()) + ".csv");
    std::ofstream o(out);
    std::string line;
    std::getline(in, line);
    o << line << '\n';
    while (std::getline(in, line)) {
        if (line.find("measured=2026-01-14") != std::string::npos && line.find(",trtllm,") != std::string::npos &&
            line.find("deepseek-ai/DeepSeek-R1,") != std::string::npos) {
            o << line << '\n';
        }
    }
    return out.string();
}

TEST(SpeculativeSilicon, TheH200DeepseekRowsOfJanuaryAreAnsweredByTheirMtp) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    const std::string path = mtp_rows_csv(reference);
    std::vector<ServingRow> rows = read_silicon_csv(path);
    std::filesystem::remove(path);
    std::erase_if(rows, [](const ServingRow& r) { return r.attention_dp != 1; });
    // InferenceX's protocol, as compare --serving runs it: ten requests a client, lengths drawn from [0.8 L, L].
    set_benchmark(rows, std::nullopt, 10, 0.8);
    const auto engine_for = [](const std::string& backend) { return engines::resolve_engine(backend); };
    query::Speculation mtp;
    mtp.drafter = query::Drafter::mtp;
    mtp.tokens = 3;
    mtp.mean_accepted_length = 1 + 0.85 + 0.85 * 0.3;  // AIConfigurator's DEFAULT_NEXTN_ACCEPT_RATES [0.85, 0.3]
    const auto plain = serving_groups(
        predict_serving(rows, reference + "/model_configs_aic", "H200", engine_for, ServingMethod::simulate));
    const auto drafted = serving_groups(
        predict_serving(rows, reference + "/model_configs_aic", "H200", engine_for, ServingMethod::simulate, mtp));
    auto all = [](const std::vector<ServingGroup>& groups) {
        for (const ServingGroup& g : groups) {
            if (g.model == "(all)") return g;
        }
        throw std::runtime_error("no (all) group");
    };
    const ServingGroup p = all(plain), d = all(drafted);
    std::printf(
        "H200 DeepSeek-R1 TensorRT-LLM rows of 2026-01-14, TP 8 / EP 8 (%zu answered): TPOT plain %.1f%% / "
        "%+.1f%%, MTP 3 at L 2.105 %.1f%% / %+.1f%%; TTFT %.1f%% -> %.1f%%\n",
        d.ttft.count, 100 * p.tpot.median_abs, 100 * p.tpot.median_signed, 100 * d.tpot.median_abs,
        100 * d.tpot.median_signed, 100 * p.ttft.median_abs, 100 * d.ttft.median_abs);
    ASSERT_EQ(d.ttft.count, 15u);           // the others repeat a row or name other GPUs than their columns
    EXPECT_GT(p.tpot.median_signed, 0.15);  // plain decoding is too slow for these runs
    EXPECT_LT(d.tpot.median_abs, 0.15);
    EXPECT_LT(std::abs(d.tpot.median_signed), 0.10);
    EXPECT_LT(std::abs(d.ttft.median_abs - p.ttft.median_abs), 0.10);  // the drafter is not the first-token excess
}

}  // namespace
}  // namespace mfusim::compare
