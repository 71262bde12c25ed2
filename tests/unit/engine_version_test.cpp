// An engine's release as data (engines/engine_version.hpp): release numbers read and ordered as PEP 440 orders
// them, the defaults that changed between releases picked by a profile's version (vLLM's async scheduling, on by
// default from 0.14.0, PR 27614), explicit fields winning over them, a bad version refused naming the field, and
// the serving rows' backend_version column answering each row at its release.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "compare/serving_compare.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "engines/engine_version.hpp"
#include "roofline/roofline_model.hpp"

namespace mfusim::engines {
namespace {

EngineVersion v(const char* text) {
    auto parsed = parse_engine_version(text);
    EXPECT_TRUE(parsed.has_value()) << text;
    return parsed.value_or(EngineVersion{});
}

TEST(EngineVersion, ReadsTheEnginesReleaseNumbers) {
    EXPECT_EQ(v("0.14.0").release, (std::array<int64_t, 4>{0, 14, 0, 0}));
    EXPECT_EQ(v("v0.18.0"), v("0.18.0"));
    EXPECT_EQ(v("0.14"), v("0.14.0"));
    EXPECT_EQ(v("0.10.1.1").release[3], 1);
    EXPECT_EQ(v("0.5.1.post1").post, 1);
    const EngineVersion trt = v("1.2.0rc6.post1");
    EXPECT_EQ(trt.pre_kind, 3);
    EXPECT_EQ(trt.pre, 6);
    EXPECT_EQ(trt.post, 1);
    // Image tags and malformed text are not releases.
    for (const char* text : {"", "v", "gpt-oss-dev", "glm5-hopper", "0..1", "0.14.0rc", "0.14.0-rc1", "latest",
                             "0.14.0.post", "1.2.3.4.5", "0.14.0 ", "1234567890.0"}) {
        EXPECT_FALSE(parse_engine_version(text).has_value()) << "'" << text << "'";
    }
}

TEST(EngineVersion, OrdersReleasesAsPep440) {
    EXPECT_LT(v("0.13.9"), v("0.14.0.dev3"));
    EXPECT_LT(v("0.14.0.dev3"), v("0.14.0a1"));
    EXPECT_LT(v("0.14.0a1"), v("0.14.0b1"));
    EXPECT_LT(v("0.14.0b1"), v("0.14.0rc1"));
    EXPECT_LT(v("0.14.0rc1"), v("0.14.0"));
    EXPECT_LT(v("0.14.0"), v("0.14.0.post1"));
    EXPECT_LT(v("0.14.0.post1"), v("0.14.1"));
    EXPECT_LT(v("0.9.2"), v("0.10.0"));  // numerically, not as text
    EXPECT_LT(v("1.2.0rc6"), v("1.2.0rc6.post1"));
}

// vLLM's async scheduling (its overlap scheduler) is an opt-in before 0.14.0 and on by default from it.
TEST(EngineVersion, VllmAsyncSchedulingFollowsTheRelease) {
    for (const char* before : {"0.11.2", "0.12.0", "0.13.0"}) {
        EXPECT_FALSE(overlap_scheduler_of(resolve_engine("vllm", before))) << before;
    }
    for (const char* from : {"0.14.0", "0.16.0", "0.18.0", "1.0.0"}) {
        EXPECT_TRUE(overlap_scheduler_of(resolve_engine("vllm", from))) << from;
    }
    // No release named: the built-in profile's own value, off.
    EXPECT_FALSE(overlap_scheduler_of(resolve_engine("vllm")));
    EXPECT_EQ(resolve_engine("vllm", "0.18.0").version, "0.18.0");
    // The other engines' overlap loops are one default across the releases read: no row moves them.
    for (const char* name : {"sglang", "trtllm"}) {
        EXPECT_TRUE(overlap_scheduler_of(resolve_engine(name, "0.1.0"))) << name;
        EXPECT_TRUE(overlap_scheduler_of(resolve_engine(name, "9.0.0"))) << name;
    }
}

TEST(EngineVersion, ExplicitFieldsAndNamedVersionsWin) {
    EXPECT_FALSE(overlap_scheduler_of(resolve_engine(R"({"base":"vllm","overlap_scheduler":false})", "0.18.0")));
    EXPECT_TRUE(overlap_scheduler_of(resolve_engine(R"({"base":"vllm","overlap_scheduler":true})", "0.12.0")));
    // A profile's own version wins over the caller's (a row's), and a JSON version alone selects the default.
    const EngineProfile named = resolve_engine(R"({"base":"vllm","version":"0.12.0"})", "0.18.0");
    EXPECT_EQ(named.version, "0.12.0");
    EXPECT_FALSE(overlap_scheduler_of(named));
    EXPECT_TRUE(overlap_scheduler_of(resolve_engine(R"({"base":"vllm","version":"0.16.0"})")));
    EXPECT_EQ(at_version(named, "0.18.0").version, "0.12.0");
    // A renamed profile keeps its base's rows.
    EXPECT_TRUE(overlap_scheduler_of(resolve_engine(R"({"base":"vllm","name":"mine","version":"0.18.0"})")));
}

TEST(EngineVersion, ABadVersionIsRefusedNamingTheField) {
    try {
        resolve_engine(R"({"base":"vllm","version":"0.x"})");
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::config);
        EXPECT_NE(std::string(e.what()).find("'version'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("0.x"), std::string::npos) << e.what();
    }
    try {
        resolve_engine("vllm", "latest");
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::config);
        EXPECT_NE(std::string(e.what()).find("engine version"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("latest"), std::string::npos) << e.what();
    }
}

TEST(EngineVersion, TheStepModelRunsTheVersionsLoop) {
    auto model = [](const std::string& version) {
        return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source("qwen3-8b")),
                                       gpu::resolve_gpu("H100"), nullptr, query::Deployment{},
                                       resolve_engine("vllm", version));
    };
    EXPECT_FALSE(model("0.12.0").overlaps_scheduling());
    EXPECT_TRUE(model("0.18.0").overlaps_scheduling());
}

// Each serving row is answered at its own release: a vLLM 0.18.0 row waits one step more for its first token than
// the same deployment's 0.12.0 row (an arrival during a step joins the step after next), and a tag that is not a
// release is answered unversioned, as 0.12.0 is.
TEST(EngineVersion, ServingRowsAreAnsweredAtTheirRelease) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "mfusim_engine_version_rows";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "org--Small_config.json")
        << R"({"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
              "num_key_value_heads": 8, "intermediate_size": 2048, "vocab_size": 32000})";
    const fs::path path = dir / "rows.csv";
    std::ofstream(path) << "backend,backend_version,model_path,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,"
                           "attention_dp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n"
                           "vllm,0.12.0,org/Small,agg,1024,256,,8,1,1,1,100,10\n"
                           "vllm,0.18.0,org/Small,agg,1024,256,,8,1,1,1,101,10\n"
                           "vllm,dev-build,org/Small,agg,1024,256,,8,1,1,1,102,10\n";
    std::vector<compare::ServingRow> rows = compare::read_silicon_csv(path.string());
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1].backend_version, "0.18.0");
    for (compare::ServingRow& r : rows) {
        r.workload.requests_per_client = 10;
        r.workload.min_length_ratio = 0.8;
    }
    auto p = compare::predict_serving(
        rows, dir.string(), "H100", [](const std::string& backend) { return resolve_engine(backend); },
        compare::ServingMethod::simulate);
    for (const compare::ServingPrediction& x : p) ASSERT_TRUE(x.answered) << x.message;
    EXPECT_GT(p[1].result.ttft_ms, p[0].result.ttft_ms);
    EXPECT_NEAR(p[1].result.tpot_ms / p[0].result.tpot_ms, 1, 0.03);
    EXPECT_EQ(p[2].result.ttft_ms, p[0].result.ttft_ms);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace mfusim::engines
