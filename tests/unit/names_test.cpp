// Name resolution: HF repo ids find catalogue entries, near misses get suggestions, inline GPU JSON is a profile.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/suggest.hpp"
#include "config/catalogue.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"

namespace mfusim {
namespace {

TEST(Names, EditDistanceIsCaseInsensitiveLevenshtein) {
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
    EXPECT_EQ(edit_distance("H100", "h100"), 0u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Names, SuggestsOnlyCloseNamesNearestFirst) {
    std::vector<std::string> names = {"qwen3-8b", "qwen3-14b", "llama-3.1-8b-instruct"};
    EXPECT_EQ(closest_names("qwen3-8bb", names), (std::vector<std::string>{"qwen3-8b", "qwen3-14b"}));
    EXPECT_TRUE(closest_names("totally-unrelated", names).empty());
    EXPECT_EQ(did_you_mean("qwen3-7b", {"qwen3-8b"}), "; did you mean 'qwen3-8b'?");
    EXPECT_EQ(did_you_mean("zzz", {"qwen3-8b"}), "");
}

TEST(Names, AbbreviatedNamesSuggestTheNamesThatContainThem) {
    std::vector<std::string> names = {"llama-3.1-70b-instruct", "llama-3.1-8b-instruct", "qwen3-8b"};
    // Too far for a typo (the "-instruct" suffix left out), but its letters and digits appear in order.
    EXPECT_EQ(did_you_mean("llama-3.1-8b", names), "");
    EXPECT_EQ(did_you_mean_abbreviated("llama-3.1-8b", names), "; did you mean 'llama-3.1-8b-instruct'?");
    EXPECT_EQ(did_you_mean_abbreviated("llama3-8b", names), "; did you mean 'llama-3.1-8b-instruct'?");
    // A typo's distance still wins, and short or unrelated names suggest nothing.
    EXPECT_EQ(did_you_mean_abbreviated("qwen3-7b", names), "; did you mean 'qwen3-8b'?");
    EXPECT_EQ(did_you_mean_abbreviated("8b", names), "");
    EXPECT_EQ(did_you_mean_abbreviated("mistral", names), "");
}

TEST(Names, HuggingFaceIdsFindCatalogueEntries) {
    EXPECT_EQ(std::string(config::match_catalogue_model("meta-llama/Llama-3.1-70B-Instruct")->name),
              "llama-3.1-70b-instruct");
    EXPECT_EQ(std::string(config::match_catalogue_model("Qwen/Qwen3_8B")->name), "qwen3-8b");
    // Paths are not ids: a missing folder stays an error instead of quietly becoming a catalogue model.
    EXPECT_FALSE(config::match_catalogue_model("./models/qwen3-8b"));
    EXPECT_FALSE(config::match_catalogue_model("/models/qwen3-8b"));
    EXPECT_EQ(config::resolve_model_source("Qwen/Qwen3-8B").origin, "catalogue model 'qwen3-8b'");
}

TEST(Names, UnknownNamesSuggestTheClosest) {
    try {
        config::resolve_model_source("llama-3.1-80b-instruct");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unknown_name);
        EXPECT_NE(std::string(e.what()).find("did you mean 'llama-3.1-70b-instruct'"), std::string::npos);
    }
    try {
        gpu::resolve_gpu("H10");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("(built-in: "), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("did you mean 'H20', 'H100' or 'A10'?"), std::string::npos);
    }
}

TEST(Names, InlineGpuJsonIsAProfile) {
    gpu::GpuProfile g = gpu::resolve_gpu(R"( {"base": "H100", "memory_gb": 94})");
    EXPECT_EQ(g.memory_gb, 94);
    EXPECT_EQ(g.peak_bf16_tflops, gpu::resolve_gpu("H100").peak_bf16_tflops);
    EXPECT_THROW(gpu::resolve_gpu(R"({"base": "H100", "memory_gbb": 94})"), Error);
}

}  // namespace
}  // namespace mfusim
