// Every real config of ../shared/reference (model_configs_aic/, model_configs/) either gets an answer on H100 that
// behaves like a step time (finite, positive, growing with tokens) or is refused by name: Error(unsupported)
// naming the config key of the feature that is not modelled. Nothing is approximated silently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"
#include "support/reference.hpp"

namespace mfusim {
namespace {

namespace fs = std::filesystem;

using testing::reference_configs;

// The key a refusal names: "...: field '<key>': ...".
std::string refused_key(const std::string& message) {
    std::size_t open = message.find("field '");
    if (open == std::string::npos) return "";
    open += 7;
    return message.substr(open, message.find('\'', open) - open);
}

double decode_us(const roofline::RooflineModel& m, int64_t batch) {
    std::vector<mfusim_request> step(static_cast<std::size_t>(batch), mfusim_request{1, 1024, 0u, 0u});
    return m.step_time_us(step.data(), step.size());
}

double prefill_us(const roofline::RooflineModel& m, int64_t tokens) {
    mfusim_request r{tokens, 0, 0u, 0u};
    return m.step_time_us(&r, 1);
}

struct Tally {
    int answered = 0, too_large = 0, sparse = 0, mamba = 0, blocks = 0, split_heads = 0;
    std::map<std::string, int> refused;
};

// Each config answers on H100 like a step time or is refused by name; counted into `t`.
void answer_or_refuse(const std::vector<std::string>& paths, Tally& tally) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const double usable = h100.memory_gb * 1024.0 * 1024.0 * 1024.0 * 0.9;
    int& answered = tally.answered;
    int& too_large = tally.too_large;
    int& sparse = tally.sparse;
    int& mamba = tally.mamba;
    int& blocks = tally.blocks;
    std::map<std::string, int>& refused = tally.refused;
    for (const std::string& path : paths) {
        SCOPED_TRACE(path);
        config::ModelConfig model;
        try {
            model = config::parse_model_config(config::resolve_model_source(path));
        } catch (const Error& e) {
            ASSERT_EQ(e.status(), Status::unsupported) << e.what();
            std::string key = refused_key(e.what());
            ASSERT_FALSE(key.empty()) << "a refusal must name the config key: " << e.what();
            ++refused[key];
            continue;
        }
        // The smallest TP in 1, 2, 4, 8 that shards the heads and holds the weights; 8 when none holds them.
        std::optional<roofline::RooflineModel> chosen;
        for (int64_t tp : {1, 2, 4, 8}) {
            query::Deployment d;
            d.tensor_parallel = tp;
            try {
                roofline::RooflineModel m(model, h100, nullptr, d);
                bool fits = m.memory().weight_bytes < usable;
                if (fits || tp == 8) {
                    if (!fits) ++too_large;
                    chosen.emplace(std::move(m));
                    break;
                }
            } catch (const Error& e) {
                ASSERT_EQ(e.status(), Status::config) << e.what();
            }
        }
        ASSERT_TRUE(chosen.has_value()) << "no TP in 1, 2, 4, 8 shards this model";
        const roofline::RooflineModel& m = *chosen;
        double d1 = decode_us(m, 1), d8 = decode_us(m, 8), d64 = decode_us(m, 64);
        double p128 = prefill_us(m, 128), p1024 = prefill_us(m, 1024);
        for (double t : {d1, d8, d64, p128, p1024}) EXPECT_TRUE(std::isfinite(t) && t > 0) << t;
        EXPECT_LT(d1, d8);
        EXPECT_LT(d8, d64);
        EXPECT_LT(p128, p1024);
        ++answered;
        sparse += model.sparse_attention() ? 1 : 0;
        mamba += model.mamba_layer_count > 0 ? 1 : 0;
        blocks += model.dense_ffn_widths.empty() ? 0 : 1;
        tally.split_heads += model.windowed_heads.heads > 0 ? 1 : 0;
    }
}

TEST(ArchitecturesReference, EveryConfigAnswersOrIsRefusedByName) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    Tally t;
    answer_or_refuse(reference_configs(ref), t);
    const int answered = t.answered, too_large = t.too_large, sparse = t.sparse, mamba = t.mamba, blocks = t.blocks;
    const std::map<std::string, int>& refused = t.refused;
    std::string summary = "answered " + std::to_string(answered) + " (" + std::to_string(too_large) +
                          " of them beyond 8 H100s' memory, timed at TP 8; " + std::to_string(sparse) +
                          " with DeepSeek Sparse Attention, " + std::to_string(mamba) + " with Mamba2 blocks, " +
                          std::to_string(blocks) + " with heterogeneous block_configs); refused";
    int total_refused = 0;
    for (const auto& [key, n] : refused) {
        summary += " " + key + ":" + std::to_string(n);
        total_refused += n;
    }
    std::printf("[ reference configs ] %s (%d refused)\n", summary.c_str(), total_refused);
    EXPECT_GT(answered, 0);
    // DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5) is timed, no longer refused.
    EXPECT_EQ(refused.count("index_topk"), 0u);
    EXPECT_GT(sparse, 0);
    // Nemotron-H block patterns (Mamba2, attention, MLP and MoE blocks, latent MoE) are timed, no longer refused.
    EXPECT_EQ(refused.count("hybrid_override_pattern"), 0u);
    EXPECT_EQ(refused.count("moe_latent_size"), 0u);
    EXPECT_GE(mamba, 4);
    // DeciLM / Llama-Nemotron NAS heterogeneous blocks (Llama-3.3-Nemotron-Super-49B) are timed, no longer refused:
    // with them, every reference config answers.
    EXPECT_EQ(refused.count("block_configs"), 0u);
    EXPECT_GE(blocks, 1);
    EXPECT_EQ(total_refused, 0);
}

// The 2026 fixtures (tests/fixtures/arch2026): the same check; every one answers (DeepSeek-V4's compressed attention
// included).
TEST(ArchitecturesReference, Fixtures2026AnswerOrAreRefusedByName) {
    std::vector<std::string> paths;
    for (const auto& entry : fs::directory_iterator(testing::fixtures_dir() + "/arch2026")) {
        if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
    }
    std::sort(paths.begin(), paths.end());
    ASSERT_GE(paths.size(), 3u);
    Tally t;
    answer_or_refuse(paths, t);
    EXPECT_GE(t.answered, 3);
    EXPECT_GE(t.split_heads, 2);  // MiMo-V2 (swa_*) and Gemma-4 (global_*) time their windowed layers apart
    EXPECT_EQ(t.refused.size(), 0u);
}

}  // namespace
}  // namespace mfusim
