// The serving-measurement reader's checks of the data (compare/serving_compare.hpp): a row whose run id names
// other parallelism than its columns is refused, unless its columns are the id's GPUs times its EP (the database
// converter's form, read as the id says), and a measurement recorded twice counts once.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "compare/serving_compare.hpp"

namespace mfusim::compare {
namespace {

namespace fs = std::filesystem;

// An empty scratch folder under the system's temporary directory.
fs::path fresh_dir(const char* name) {
    const fs::path dir = fs::temp_directory_path() / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// A four-layer Llama the rows below name as org/Small.
void write_small_model(const fs::path& dir) {
    std::ofstream(dir / "org--Small_config.json")
        << R"({"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
              "num_key_value_heads": 8, "intermediate_size": 2048, "vocab_size": 32000})";
}

// The rows of a CSV of `header` and `body`, read as compare reads a silicon file.
std::vector<ServingRow> read_csv_text(const std::string& name, const std::string& header, const std::string& body) {
    const fs::path path = fs::temp_directory_path() / name;
    std::ofstream(path) << header << "\n" << body;
    std::vector<ServingRow> rows = read_silicon_csv(path.string());
    fs::remove(path);
    return rows;
}

std::vector<ServingRow> read_rows(const std::string& name, const std::string& body) {
    return read_csv_text(name,
                         "id,backend,model_path,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,attention_dp_size,"
                         "moe_ep_size,silicon_ttft_ms,silicon_tpot_ms",
                         body);
}

TEST(ServingRows, RunIdNamingOtherGpusThanTheColumnsIsRefused) {
    auto rows = read_rows("mfusim_serving_rows_id.csv",
                          "a_c4_tp8_ep8_1,trtllm,org/M,agg,1024,1024,fp8,4,64,1,4,494.1,8.58\n"    // 64 != 8
                          "b_c4_tp8_0_ep8_0_2,trtllm,org/M,agg,1024,1024,fp8,4,1,8,8,300.5,9.1\n"  // tp 1 x DP 8
                          "c_c4_tp4_ep4_3,vllm,org/M,agg,1024,1024,fp8,4,4,4,16,200.2,7.7\n"       // 16 != 4
                          "cfg81_tpot,sglang,org/M,agg,1024,1024,fp8,4,8,1,1,260.9,10.3\n");       // names none
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_NE(rows[0].refusal.find("names tp8 (8 GPUs), but tp_size x attention_dp_size is 64"), std::string::npos)
        << rows[0].refusal;
    EXPECT_EQ(rows[1].refusal, "");
    EXPECT_NE(rows[2].refusal.find("is 16"), std::string::npos) << rows[2].refusal;
    EXPECT_EQ(rows[3].refusal, "");
}

TEST(ServingRows, ColumnsThatAreTheIdsGpusTimesItsEpAreReadAsTheIdSays) {
    auto rows = read_rows("mfusim_serving_rows_times_ep.csv",
                          "a_c4_tp8_ep8_1,trtllm,org/M,agg,1024,1024,fp8,4,64,1,8,494.1,8.58\n"    // TP 8, EP 8
                          "b_c4_tp2_ep2_2,trtllm,org/M,agg,1024,1024,fp4,4,4,1,2,80.4,5.9\n"       // TP 2, EP 2
                          "c_c256_tp8_ep8_3,trtllm,org/M,agg,1024,1024,fp8,32,1,64,8,3201,31.5\n"  // DEP 8
                          "d_c4_tp8_ep4_4,trtllm,org/M,agg,1024,1024,fp8,4,64,1,8,494.2,8.58\n"    // EP differs
                          "e_c4_tp4_ep4_5,vllm,org/M,agg,1024,1024,fp8,4,4,4,4,200.2,7.7\n");      // two degrees
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[0].refusal, "");
    EXPECT_EQ(rows[0].tp, 8);
    EXPECT_EQ(rows[0].ep, 8);
    EXPECT_EQ(rows[0].attention_dp, 1);
    EXPECT_EQ(rows[1].refusal, "");
    EXPECT_EQ(rows[1].tp, 2);
    EXPECT_EQ(rows[1].ep, 2);
    EXPECT_EQ(rows[2].refusal, "");
    EXPECT_EQ(rows[2].tp, 1);
    EXPECT_EQ(rows[2].attention_dp, 8);
    EXPECT_EQ(rows[2].ep, 8);
    EXPECT_NE(rows[3].refusal.find("names tp8 (8 GPUs), but tp_size x attention_dp_size is 64"), std::string::npos)
        << rows[3].refusal;
    EXPECT_NE(rows[4].refusal.find("is 16"), std::string::npos) << rows[4].refusal;
}

// The reader takes moe_quant_mode where the file has it: fp8 GEMMs beside fp8_block experts read as fp8_block.
TEST(ServingRows, Fp8GemmsBesideBlockFp8ExpertsReadAsBlockFp8) {
    const std::vector<ServingRow> rows =
        read_csv_text("mfusim_serving_rows_moe_quant.csv",
                      "id,backend,model_path,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,"
                      "attention_dp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms",
                      "a,sglang,org/M,agg,1024,1024,fp8,fp8_block,4,8,1,1,500.5,20.5\n"
                      "b,sglang,org/M,agg,1024,1024,fp8,fp8,4,8,1,1,400.5,10.5\n");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].quant, "fp8_block");
    EXPECT_EQ(rows[1].quant, "fp8");
}

TEST(ServingRows, ARepeatedMeasurementCountsOnce) {
    auto rows =
        read_rows("mfusim_serving_rows_repeat.csv",
                  "a,sglang,org/R1,agg,1024,1024,fp8,4,8,1,1,259.9114292766899,10.29225441516629\n"
                  "b,sglang,org/V3,agg,1024,1024,fp8,4,8,1,1,259.9114292766899,10.29225441516629\n"    // repeat
                  "c,sglang,org/V3,agg,1024,1024,fp8,4,8,1,1,259.9114292766898,10.29225441516627\n"    // an ulp
                  "d,sglang,org/V3,agg,1024,1024,fp8,8,8,1,1,259.9114292766899,10.29225441516629\n"    // c 8
                  "e,sglang,org/V3,agg,1024,1024,fp8,4,8,1,1,259.9114293766899,10.29225441516629\n");  // differs
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[0].refusal, "");
    EXPECT_EQ(rows[1].refusal.rfind("repeats an earlier row", 0), 0u) << rows[1].refusal;
    // One double printed one unit in the last place apart by another converter is the same measurement.
    EXPECT_EQ(rows[2].refusal.rfind("repeats an earlier row", 0), 0u) << rows[2].refusal;
    EXPECT_EQ(rows[3].refusal, "");
    EXPECT_EQ(rows[4].refusal, "");
}

TEST(ServingRows, RefusedRowsAreNotAnswered) {
    auto rows = read_rows("mfusim_serving_rows_refused.csv",
                          "a_c4_tp8_ep8_1,trtllm,org/M,agg,1024,1024,fp8,4,64,1,4,494.1,8.58\n"
                          "b,trtllm,org/M,agg,1024,1024,fp8,4,64,1,4,494.1,8.58\n");
    auto predictions = predict_serving(rows, fs::temp_directory_path().string(), "H100",
                                       [](const std::string& backend) { return engines::resolve_engine(backend); });
    ASSERT_EQ(predictions.size(), 2u);
    EXPECT_FALSE(predictions[0].answered);
    EXPECT_EQ(predictions[0].status, "inconsistent row");
    // The second row does not repeat the first: a refused row is no original.
    EXPECT_NE(predictions[1].status, "repeated measurement");
}

TEST(ServingRows, ConfigFoundUnderARenamedOrganisationOrItsBaseModel) {
    const fs::path dir = fresh_dir("mfusim_serving_rows_configs");
    for (const char* file :
         {"zai-org--GLM-5_config.json", "zai-org--GLM-5-FP8_config.json", "meta-llama--Meta-Llama-3.1-8B_config.json",
          "a--Twice_config.json", "b--Twice_config.json"}) {
        std::ofstream(dir / file) << "{}";
    }
    const std::string d = dir.string();
    EXPECT_EQ(config_for(d, "zai-org/GLM-5"), d + "/zai-org--GLM-5_config.json");
    EXPECT_EQ(config_for(d, "zhipuai/GLM-5"), d + "/zai-org--GLM-5_config.json");          // renamed organisation
    EXPECT_EQ(config_for(d, "zhipuai/GLM-5-FP8"), d + "/zai-org--GLM-5-FP8_config.json");  // its own file first
    EXPECT_EQ(config_for(d, "nvidia/Llama-3.1-8B-Instruct-FP8"), d + "/meta-llama--Meta-Llama-3.1-8B_config.json");
    // A dated revision re-released in NVFP4 (InferenceX's nvidia/DeepSeek-R1-0528-NVFP4-v2) is its base model.
    std::ofstream(dir / "deepseek-ai--DeepSeek-R1_config.json") << "{}";
    EXPECT_EQ(config_for(d, "nvidia/DeepSeek-R1-0528-NVFP4-v2"), d + "/deepseek-ai--DeepSeek-R1_config.json");
    EXPECT_EQ(config_for(d, "nvidia/DeepSeek-R1-0528-FP4-V2"), d + "/deepseek-ai--DeepSeek-R1_config.json");
    EXPECT_EQ(config_for(d, "zai-org/GLM-5-FP8-v2"), d + "/zai-org--GLM-5-FP8_config.json");  // the nearest first
    // A post-training stage keeps the base model's layers: Qwen's 2507 instruct and thinking releases, Meta's own
    // spelling of an instruct checkpoint.
    std::ofstream(dir / "Qwen--Qwen3-235B-A22B_config.json") << "{}";
    EXPECT_EQ(config_for(d, "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"), d + "/Qwen--Qwen3-235B-A22B_config.json");
    EXPECT_EQ(config_for(d, "Qwen/Qwen3-235B-A22B-Thinking-2507"), d + "/Qwen--Qwen3-235B-A22B_config.json");
    EXPECT_EQ(config_for(d, "meta-llama/Meta-Llama-3.1-8B-Instruct"), d + "/meta-llama--Meta-Llama-3.1-8B_config.json");
    EXPECT_EQ(config_for(d, "Qwen/Qwen3-Coder-235B-A22B-Instruct"), "");  // another model's name before the stage
    EXPECT_EQ(config_for(d, "x/DeepSeek-R1-Distill"), "");                // another model's name, not a decoration
    EXPECT_EQ(config_for(d, "c/Twice"), "");                              // two organisations have it: no guess
    EXPECT_EQ(config_for(d, "x/Absent"), "");
    fs::remove_all(dir);
}

// The comparison answers a TensorRT-LLM row with attention DP with balancing on (compare/launch_recipe.hpp): its
// answer is the one a profile with balancing on gives, and not the one of the built-in profile as it stands.
TEST(ServingRows, TrtllmAttentionDpRowsRunWithBalancing) {
    const fs::path dir = fresh_dir("mfusim_serving_rows_adp");
    write_small_model(dir);
    // Eight clients over two ranks with lengths drawn as InferenceX draws them: a prompt arriving at one rank
    // while the other has none waits under balancing.
    auto rows = read_rows("mfusim_serving_rows_adp.csv", "a,trtllm,org/Small,agg,1024,256,,8,1,2,1,100,10\n");
    ASSERT_EQ(rows.size(), 1u);
    rows[0].workload.requests_per_client = 10;
    rows[0].workload.min_length_ratio = 0.8;
    const engines::EngineProfile builtin = engines::resolve_engine("trtllm");
    engines::EngineProfile balanced = builtin;
    balanced.attention_dp_balance = true;
    auto answer = [&](const engines::EngineProfile& profile) {
        auto p = predict_serving(
            rows, dir.string(), "H100", [&](const std::string&) { return profile; }, ServingMethod::simulate);
        EXPECT_TRUE(p.at(0).answered) << p.at(0).message;
        return p.at(0).result.ttft_ms;
    };
    const double as_compared = answer(builtin);
    EXPECT_EQ(as_compared, answer(balanced));
    // The built-in profile as it stands, through the estimator directly: no balancing, shorter waits.
    engine::Options o;
    o.model = (dir / "org--Small_config.json").string();
    o.gpu = "H100";
    o.deployment.attention_data_parallel = 2;
    o.engine_profile = builtin;
    mfusim_serving_result unbalanced{};
    unbalanced.struct_size = sizeof unbalanced;
    engine::Estimator(o).serve_simulated(rows[0].workload, unbalanced);
    EXPECT_GT(as_compared, unbalanced.ttft_ms);
    fs::remove_all(dir);
}

TEST(ServingRows, TheRowsCollectionPicksItsHarnessTerm) {
    const fs::path dir = fresh_dir("mfusim_serving_rows_harness");
    write_small_model(dir);
    const fs::path path = dir / "rows.csv";
    std::ofstream(path)
        << "id,silicon_data_source,backend,model_path,mode,isl,osl,gemm_quant_mode,batch_size,"
           "tp_size,attention_dp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n"
           "a,source_file=/d/aic-auto-gap-analysis/x.csv,trtllm,org/Small,agg,1024,256,,4,1,1,1,100,10\n"
           "b,workflow_run_id=7,trtllm,org/Small,agg,1024,256,,4,1,1,1,101,10\n"
           "c,source_file=/d/aic-auto-gap-analysis/x.csv,vllm,org/Small,agg,1024,256,,4,1,1,1,100,10\n"
           "d,workflow_run_id=7,vllm,org/Small,agg,1024,256,,4,1,1,1,101,10\n";
    const std::vector<ServingRow> rows = read_silicon_csv(path.string());
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].collection, Collection::gap_analysis);
    EXPECT_EQ(rows[1].collection, Collection::other);
    auto p = predict_serving(rows, dir.string(), "H100",
                             [](const std::string& backend) { return engines::resolve_engine(backend); });
    for (const ServingPrediction& x : p) ASSERT_TRUE(x.answered) << x.message;
    // One deployment, two harnesses: the gap-analysis TensorRT-LLM row waits the collection's term longer before
    // its first token (the closed form adds a per-request delay to TTFT one for one). The InferenceX row runs its
    // launches' FP8 KV cache (launch_fp8_kv_cache), which reads less a decode step and moves TTFT by a hair only.
    EXPECT_NEAR(p[0].result.ttft_ms - p[1].result.ttft_ms, gap_analysis_trtllm_admission_us / 1000,
                0.01 * gap_analysis_trtllm_admission_us / 1000);
    EXPECT_LT(p[1].result.tpot_ms, p[0].result.tpot_ms);
    // vLLM's rows of both collections are answered alike.
    EXPECT_EQ(p[2].result.ttft_ms, p[3].result.ttft_ms);
    fs::remove_all(dir);
}

// AIConfigurator's batch_size is one attention-DP replica's batch; the clients the benchmark held are the source's
// silicon_concurrency (every H200 TensorRT-LLM attention-DP row: batch_size x attention_dp_size). A source that
// says neither (no count, or one the columns do not give) leaves the batch column as the clients.
TEST(ServingRows, TheClientsOfAnAttentionDpRowAreItsReplicasBatches) {
    const fs::path path = fs::temp_directory_path() / "mfusim_serving_rows_clients.csv";
    std::ofstream(path) << "id,silicon_data_source,backend,model_path,mode,isl,osl,gemm_quant_mode,batch_size,"
                           "tp_size,attention_dp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n"
                           "a,model=R1; silicon_concurrency=256; measured=x,trtllm,org/M,agg,1024,1024,fp8,32,1,8,8,"
                           "2997.5,37.2\n"
                           "b,workflow_run_id=7,trtllm,org/M,agg,1024,1024,fp8,32,1,8,8,2997.5,37.3\n"
                           "c,silicon_concurrency=192,trtllm,org/M,agg,1024,1024,fp8,48,4,1,1,100,10\n"
                           "d,silicon_concurrency=100,trtllm,org/M,agg,1024,1024,fp8,32,1,8,8,2997.5,37.4\n"
                           // the converter's DEP 8 (attention DP 64 = 8 x EP 8): its replicas are the id's
                           // batch 4 = 256 clients over the converter's 64
                           "e_c256_tp8_ep8_1,silicon_concurrency=256,trtllm,org/M,agg,1024,1024,fp8,4,1,64,8,2997.5,"
                           "37.5\n";
    const std::vector<ServingRow> rows = read_silicon_csv(path.string());
    fs::remove(path);
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[4].workload.concurrency, 256);
    EXPECT_EQ(rows[4].attention_dp, 8);
    EXPECT_EQ(rows[0].workload.concurrency, 256);
    EXPECT_EQ(rows[1].workload.concurrency, 32);  // the source does not say
    EXPECT_EQ(rows[2].workload.concurrency, 48);  // no attention DP: the batch is the clients
    EXPECT_EQ(rows[3].workload.concurrency, 32);  // a count the columns do not give: not guessed
}

// The gap-analysis Llama-3.1-8B TensorRT-LLM runs' TTFT grows with the output length at a fixed concurrency by
// one inter-completion interval (docs/simulate.md, "Which harness a row ran under"): a closed loop of c clients
// against an engine that runs c - 1 at once. By Little's law the one waiting request waits the mean gap between
// completions, E2E / c; the simulator, told max_seqs = c - 1, must show exactly that structure.
TEST(ServingRows, OneSlotFewerThanClientsAddsOneInterCompletionInterval) {
    const fs::path dir = fresh_dir("mfusim_serving_rows_slots");
    write_small_model(dir);
    auto ttft_and_e2e = [&](int64_t max_seqs, int64_t osl) {
        engine::Options o;
        o.model = (dir / "org--Small_config.json").string();
        o.gpu = "H100";
        engines::EngineProfile profile = engines::resolve_engine("trtllm");
        profile.max_seqs = max_seqs;
        // The harness's delay before the engine overlaps the slot wait (a request sent while every slot is taken
        // may find one free when it arrives), so the mechanism is checked with the engine alone.
        profile.admission_us = 0;
        o.engine_profile = profile;
        serving::Workload w;
        w.input_len = 1024;
        w.output_len = osl;
        w.concurrency = 8;
        w.requests_per_client = 10;
        w.min_length_ratio = 0.8;
        mfusim_serving_result r{};
        r.struct_size = sizeof r;
        engine::Estimator(o).serve_simulated(w, r);
        return std::pair{r.ttft_ms, r.e2e_ms};
    };
    for (int64_t osl : {256, 1024}) {
        const auto [free_ttft, free_e2e] = ttft_and_e2e(2048, osl);
        const auto [held_ttft, held_e2e] = ttft_and_e2e(7, osl);
        const double interval = held_e2e / 8;  // the mean gap between completions of 8 clients
        EXPECT_NEAR(held_ttft - free_ttft, interval, 0.25 * interval) << "osl " << osl;
        EXPECT_LT(free_ttft, 0.25 * interval) << "osl " << osl;  // without the limit, no such wait
    }
    fs::remove_all(dir);
}

// The report's columns are as wide as their longest label, and a label of the file's own text longer than the
// column's bound is cut, so every row is whole and ends its line.
TEST(ServingRows, TheReportCutsALongModelPathAndKeepsEveryRowWhole) {
    ServingGroup wide;
    wide.backend = "trtllm";
    wide.model = "deepseek-ai/DeepSeek-R1 (pools not given)";
    ServingGroup huge = wide;
    huge.model = std::string(500, 'm');
    const std::string report = format_serving({wide, huge}, {});
    EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 3);  // the header and two rows
    EXPECT_NE(report.find(std::string(93, 'm') + "..."), std::string::npos);
    EXPECT_EQ(report.find(std::string(94, 'm')), std::string::npos);
    // Each row's count of rows ends where the header's "rows" ends: the cut label sets the width.
    const std::size_t rows_end = report.find("rows") + 4;
    std::size_t line = 0;
    for (int i = 0; i < 3; ++i) {
        const std::size_t next = report.find('\n', line);
        ASSERT_GT(next - line, rows_end) << i;
        if (i > 0) {
            EXPECT_EQ(report.substr(line + rows_end - 2, 2), " 0") << i;
        }
        line = next + 1;
    }
}

}  // namespace
}  // namespace mfusim::compare
