// The serving-measurement reader's checks of the data (compare/serving_compare.hpp): a row whose run id names
// other parallelism than its columns is refused, and a measurement recorded twice counts once.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compare/serving_compare.hpp"

namespace mfusim::compare {
namespace {

namespace fs = std::filesystem;

std::vector<ServingRow> read_rows(const std::string& name, const std::string& body) {
    const fs::path path = fs::temp_directory_path() / name;
    {
        std::ofstream f(path);
        f << "id,backend,model_path,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,attention_dp_size,moe_ep_size,"
             "silicon_ttft_ms,silicon_tpot_ms\n"
          << body;
    }
    std::vector<ServingRow> rows = read_silicon_csv(path.string());
    fs::remove(path);
    return rows;
}

TEST(ServingRows, RunIdNamingOtherGpusThanTheColumnsIsRefused) {
    auto rows = read_rows("mfusim_serving_rows_id.csv",
                          "a_c4_tp8_ep8_1,trtllm,org/M,agg,1024,1024,fp8,4,64,1,8,494.1,8.58\n"    // 64 != 8
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

TEST(ServingRows, ARepeatedMeasurementCountsOnce) {
    auto rows = read_rows("mfusim_serving_rows_repeat.csv",
                          "a,sglang,org/R1,agg,1024,1024,fp8,4,8,1,1,259.9114292766899,10.29225441516629\n"
                          "b,sglang,org/V3,agg,1024,1024,fp8,4,8,1,1,259.9114292766899,10.29225441516629\n"  // repeat
                          "c,sglang,org/V3,agg,1024,1024,fp8,4,8,1,1,259.9114292766898,10.29225441516629\n"  // differs
                          "d,sglang,org/V3,agg,1024,1024,fp8,8,8,1,1,259.9114292766899,10.29225441516629\n");  // c 8
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].refusal, "");
    EXPECT_EQ(rows[1].refusal.rfind("repeats an earlier row", 0), 0u) << rows[1].refusal;
    EXPECT_EQ(rows[2].refusal, "");
    EXPECT_EQ(rows[3].refusal, "");
}

TEST(ServingRows, RefusedRowsAreNotAnswered) {
    auto rows = read_rows("mfusim_serving_rows_refused.csv",
                          "a_c4_tp8_ep8_1,trtllm,org/M,agg,1024,1024,fp8,4,64,1,8,494.1,8.58\n"
                          "b,trtllm,org/M,agg,1024,1024,fp8,4,64,1,8,494.1,8.58\n");
    auto predictions = predict_serving(rows, fs::temp_directory_path().string(), "H100",
                                       [](const std::string& backend) { return engines::resolve_engine(backend); });
    ASSERT_EQ(predictions.size(), 2u);
    EXPECT_FALSE(predictions[0].answered);
    EXPECT_EQ(predictions[0].status, "inconsistent row");
    // The second row does not repeat the first: a refused row is no original.
    EXPECT_NE(predictions[1].status, "repeated measurement");
}

}  // namespace
}  // namespace mfusim::compare

namespace mfusim::compare {
namespace {

TEST(ServingRows, ConfigFoundUnderARenamedOrganisationOrItsBaseModel) {
    const fs::path dir = fs::temp_directory_path() / "mfusim_serving_rows_configs";
    fs::remove_all(dir);
    fs::create_directories(dir);
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
    EXPECT_EQ(config_for(d, "c/Twice"), "");  // two organisations have it: no guess
    EXPECT_EQ(config_for(d, "x/Absent"), "");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace mfusim::compare
