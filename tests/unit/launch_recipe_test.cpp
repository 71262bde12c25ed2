// The launch flags a row's facts imply (src/compare/launch_recipe.hpp, docs/simulate.md section 7): the
// InferenceX TensorRT-LLM templates turn attention-DP balancing on exactly when attention DP is on; the wait
// lengths and everything else stay the profile's. The gap-analysis collection's harness adds its per-request time to
// that collection's TensorRT-LLM rows only, chosen by the row's silicon_data_source, never by GPU or model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compare/launch_recipe.hpp"
#include "compare/serving_compare.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"
#include "serving/serving.hpp"
#include "support/reference.hpp"

namespace mfusim::compare {
namespace {

TEST(LaunchRecipe, TrtllmAttentionDpTurnsBalancingOnWithTheProfilesWaits) {
    const engines::EngineProfile base = engines::resolve_engine("trtllm");
    ASSERT_FALSE(base.attention_dp_balance);  // the engine's default, kept by the built-in profile
    const engines::EngineProfile p = launch_recipe(base, 8);
    EXPECT_TRUE(p.attention_dp_balance);
    EXPECT_EQ(p.attention_dp_timeout_iters, 50);  // TensorRT-LLM's AttentionDpConfig defaults
    EXPECT_EQ(p.attention_dp_batching_wait_iters, 10);
    EXPECT_EQ(p.max_batched_tokens, base.max_batched_tokens);  // nothing else moves
    EXPECT_EQ(p.batch_wait_timeout_iters, base.batch_wait_timeout_iters);
}

TEST(LaunchRecipe, WithoutAttentionDpOrOnOtherEnginesNothingChanges) {
    const engines::EngineProfile trt = engines::resolve_engine("trtllm");
    EXPECT_FALSE(launch_recipe(trt, 1).attention_dp_balance);
    for (const char* name : {"vllm", "sglang"}) {
        const engines::EngineProfile e = engines::resolve_engine(name);
        EXPECT_EQ(launch_recipe(e, 8).attention_dp_balance, e.attention_dp_balance) << name;
    }
}

// SGLang's single-node launches name no --moe-a2a-backend: its default gathers the group's tokens under attention DP;
// the disaggregated recipes' DeepEP stays the profile's. No other engine moves.
TEST(LaunchRecipe, SglangOnOneNodeGathersTheMoesTokensAndItsDisaggregatedPoolsDispatch) {
    const engines::EngineProfile sglang = engines::resolve_engine("sglang");
    ASSERT_EQ(sglang.moe_gather_within_domain, 0);
    EXPECT_EQ(launch_recipe(sglang, 8).moe_gather_within_domain, 1);
    EXPECT_EQ(launch_recipe(sglang, 8, Collection::gap_analysis).moe_gather_within_domain, 1);
    EXPECT_EQ(launch_recipe(sglang, 8, Collection::other, Launch::disaggregated).moe_gather_within_domain, 0);
    const engines::EngineProfile trt = engines::resolve_engine("trtllm");
    EXPECT_EQ(launch_recipe(trt, 8).moe_gather_within_domain, trt.moe_gather_within_domain);
}

// InferenceX's Blackwell vLLM template for an MXFP4 checkpoint exports VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1: its
// single-node vLLM launches run MXFP4 experts with MXFP8 activations (the field acts on Blackwell only,
// EngineProfile.Mxfp4ExpertsTakeFp8ActivationsWhereTheEngineQuantisesThem); the gap-analysis collection's launches
// and the disaggregated recipes are not InferenceX's single-node template and keep vLLM's default.
TEST(LaunchRecipe, InferencexVllmRunsMxfp4ExpertsWithFp8Activations) {
    const engines::EngineProfile vllm = engines::resolve_engine("vllm");
    ASSERT_EQ(vllm.mxfp4_moe_fp8_activations, 0);
    EXPECT_EQ(launch_recipe(vllm, 1).mxfp4_moe_fp8_activations, 1);
    EXPECT_EQ(launch_recipe(vllm, 8).mxfp4_moe_fp8_activations, 1);
    EXPECT_EQ(launch_recipe(vllm, 1, Collection::gap_analysis).mxfp4_moe_fp8_activations, 0);
    EXPECT_EQ(launch_recipe(vllm, 1, Collection::other, Launch::disaggregated).mxfp4_moe_fp8_activations, 0);
    const engines::EngineProfile launched = launch_recipe(vllm, 1);
    EXPECT_EQ(launched.max_batched_tokens, vllm.max_batched_tokens);  // nothing else moves
    EXPECT_EQ(launched.stream_interval, vllm.stream_interval);
    EXPECT_EQ(launched.admission_us, vllm.admission_us);
}

TEST(LaunchRecipe, TheProfilesWaitLengthsAreKept) {
    engines::EngineProfile mine = engines::resolve_engine("trtllm");
    mine.attention_dp_timeout_iters = 7;
    mine.attention_dp_batching_wait_iters = 3;
    const engines::EngineProfile p = launch_recipe(mine, 8);
    EXPECT_TRUE(p.attention_dp_balance);
    EXPECT_EQ(p.attention_dp_timeout_iters, 7);
    EXPECT_EQ(p.attention_dp_batching_wait_iters, 3);
}

TEST(LaunchRecipe, CollectionIsReadFromTheRowsSource) {
    // The two collections of ../shared/reference/measured/silicon, as their rows spell their sources.
    EXPECT_EQ(collection_of("source_file=/Users/x/projects/aic-auto-gap-analysis/data/h100_sxm/trtllm/1.0.0rc3/"
                            "Qwen_Qwen3-32B.csv; silicon_concurrency=16"),
              Collection::gap_analysis);
    EXPECT_EQ(collection_of("db-dump/2026-04-27; config_id=81; silicon_concurrency=4; workflow_run_id=337"),
              Collection::other);
    EXPECT_EQ(collection_of("source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency=4"), Collection::other);
    EXPECT_EQ(collection_of(""), Collection::other);
}

// The rows' own spellings (../shared/reference/measured/silicon): Dynamo's runtime tag written as the version is
// Dynamo's release; the engine's release beside a Dynamo image, and the engine's own image tag, are the engine's.
TEST(LaunchRecipe, AVersionThatIsDynamosImageTagIsNotTheEngines) {
    EXPECT_FALSE(
        version_names_wrapper("db-dump/2026-04-27; ; ; measured=2026-02-14T00:00:00.000Z; ; "
                              "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1",
                              "0.8.1.post1"));  // no `image=` key: nothing is read
    EXPECT_TRUE(
        version_names_wrapper("source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=4; "
                              "measured=2026-02-14T06:57:35Z; wip=False; "
                              "image=nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1",
                              "0.8.1.post1"));
    EXPECT_FALSE(
        version_names_wrapper("source_file=/x/aic-auto-gap-analysis/data/h100_sxm/trtllm/1.2.0rc6.post1/"
                              "qwen3_32b.csv; measured=2026-01-23; "
                              "image=nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.0; dynamo_version=0.8.0",
                              "1.2.0rc6.post1"));
    EXPECT_FALSE(
        version_names_wrapper("source_file=2026-04-06.csv; wip=False; "
                              "image=nvcr.io/nvidia/tensorrt-llm/release:1.1.0rc2.post2",
                              "1.1.0rc2.post2"));
    EXPECT_FALSE(version_names_wrapper("image=nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1", ""));
    EXPECT_FALSE(version_names_wrapper("image=ai-dynamo-runtime", "ai-dynamo-runtime"));  // no tag
}

TEST(LaunchRecipe, EachCollectionHasItsOwnRowsName) {
    // `compare --serving --rows` writes this name, so per-collection figures need no join back to the input file.
    EXPECT_STREQ(collection_name(Collection::gap_analysis), "gap_analysis");
    EXPECT_STREQ(collection_name(Collection::other), "other");
    EXPECT_STRNE(collection_name(Collection::gap_analysis), collection_name(Collection::other));
}

TEST(LaunchRecipe, ConcurrencyIsReadFromTheRowsSource) {
    EXPECT_EQ(concurrency_of("source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=256; measured=x"),
              256);
    EXPECT_EQ(concurrency_of("db-dump/2026-04-27; config_id=81; silicon_concurrency=4; workflow_run_id=337"), 4);
    EXPECT_EQ(concurrency_of("workflow_run_id=337"), 0);
    EXPECT_EQ(concurrency_of("silicon_concurrency=0"), 0);
    EXPECT_EQ(concurrency_of("silicon_concurrency=x"), 0);
    EXPECT_EQ(concurrency_of("silicon_concurrency=99999999999999999999999"), 0);  // overflows: not a count
}

TEST(LaunchRecipe, AnFp8RowOfABlockFp8CheckpointServesTheCheckpoint) {
    config::Quantization block;
    block.attention = block.mlp = block.experts = config::WeightFormat::fp8_block;
    config::Quantization experts_only;
    experts_only.experts = config::WeightFormat::fp8_block;
    const config::Quantization bf16;  // an unquantized checkpoint: the row's format is imposed (online quantization)
    EXPECT_EQ(served_quant("fp8", block), "");
    EXPECT_EQ(served_quant("fp8", experts_only), "");
    EXPECT_EQ(served_quant("fp8", bf16), "fp8");
    EXPECT_EQ(served_quant("fp8_block", block), "fp8_block");
    EXPECT_EQ(served_quant("nvfp4", block), "nvfp4");
    EXPECT_EQ(served_quant("", block), "");
    // AIConfigurator's per-tensor FP8 labels are FP8, and like fp8 a block-FP8 checkpoint is served as it is.
    EXPECT_EQ(served_quant("fp8_static", bf16), "fp8");
    EXPECT_EQ(served_quant("fp8_ootb", bf16), "fp8");
    EXPECT_EQ(served_quant("fp8_static", block), "");
    EXPECT_EQ(served_quant("sq", bf16), "sq");  // no such format here: the estimator refuses it by name
}

// `fp8` GEMMs beside `fp8_block` experts is a block-FP8 checkpoint named by its base model; any other pair is the
// GEMMs' label.
TEST(LaunchRecipe, AnFp8RowWithBlockFp8ExpertsServedABlockFp8Checkpoint) {
    EXPECT_EQ(row_quant_label("fp8", "fp8_block"), "fp8_block");
    EXPECT_EQ(row_quant_label("fp8", "fp8"), "fp8");
    EXPECT_EQ(row_quant_label("fp8", ""), "fp8");  // a file without the column
    EXPECT_EQ(row_quant_label("nvfp4", "nvfp4"), "nvfp4");
    EXPECT_EQ(row_quant_label("int4_wo", "int4_wo"), "int4_wo");
    EXPECT_EQ(row_quant_label("", "fp8_block"), "");  // no GEMM label: the checkpoint's own, as before
}

// A row labelled 16-bit on a quantized checkpoint is served as the checkpoint: imposing BF16 would widen gpt-oss's
// MXFP4 experts (Quantization::overridden), which no engine does. On a 16-bit checkpoint the label stands.
TEST(LaunchRecipe, ASixteenBitRowOfAQuantizedCheckpointServesTheCheckpoint) {
    config::Quantization mxfp4_experts;
    mxfp4_experts.experts = config::WeightFormat::mxfp4;
    const config::Quantization bf16;
    for (const char* label : {"float16", "bfloat16", "bf16", "fp16"}) {
        EXPECT_EQ(served_quant(label, mxfp4_experts), "") << label;
        EXPECT_EQ(served_quant(label, bf16), label) << label;
        EXPECT_EQ(served_weights(label, mxfp4_experts).main, config::WeightFormat::mxfp4) << label;
    }
    // AIConfigurator's MoE label for gpt-oss's experts is MXFP4, and on an MXFP4 checkpoint the checkpoint.
    EXPECT_EQ(served_quant("w4a16_mxfp4", mxfp4_experts), "");
    EXPECT_EQ(served_quant("w4a16_mxfp4", bf16), "mxfp4");
    // The precision column's fp4 is NVFP4, and on an FP4 checkpoint the checkpoint.
    EXPECT_EQ(served_quant("fp4", bf16), "nvfp4");
    EXPECT_EQ(served_quant("fp4", mxfp4_experts), "");
}

// A row that names a base MoE model and NVFP4 served NVIDIA's NVFP4 checkpoint of it, whose attention (and
// recurrent mixers) stay 16-bit; a dense model, another label or a checkpoint already in FP4 keeps its reading.
TEST(LaunchRecipe, ABaseMoeRowInNvfp4ServedNvidiasCheckpointWithSixteenBitAttention) {
    using config::WeightFormat;
    const config::ModelConfig moe = config::parse_model_config(config::resolve_model_source("deepseek-v3"));
    ASSERT_TRUE(moe.is_moe());
    ASSERT_EQ(moe.quant.attention, WeightFormat::fp8_block);  // the base checkpoint quantizes its attention
    const auto served = launch_checkpoint("nvfp4", moe);
    ASSERT_TRUE(served.has_value());
    EXPECT_EQ(served->attention, WeightFormat::bf16);
    EXPECT_EQ(served->recurrent, WeightFormat::bf16);
    EXPECT_EQ(served->experts, WeightFormat::nvfp4);
    EXPECT_EQ(served->mlp, WeightFormat::nvfp4);
    EXPECT_TRUE(served->kv_cache_fp8);
    EXPECT_FALSE(launch_checkpoint("fp8", moe).has_value());
    EXPECT_FALSE(launch_checkpoint("", moe).has_value());
    const config::ModelConfig dense = config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct"));
    EXPECT_FALSE(launch_checkpoint("nvfp4", dense).has_value());  // imposed as before
    config::ModelConfig mxfp4 = moe;
    mxfp4.quant = config::Quantization{};
    mxfp4.quant.experts = WeightFormat::mxfp4;
    EXPECT_FALSE(launch_checkpoint("nvfp4", mxfp4).has_value());  // the checkpoint's own FP4 (served_quant)
}

// The rule is what NVIDIA's NVFP4 checkpoints of MoE models state: read with their hf_quant_config.json, those in
// the reference configs time their attention in 16 bits and their routed experts in NVFP4, all but Qwen3-235B-A22B.
TEST(LaunchRecipe, NvidiasNvfp4MoeCheckpointsKeepTheirAttentionInSixteenBits) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    const std::string dir = reference + "/model_configs_aic/";
    for (const char* name :
         {"nvidia--DeepSeek-V3.1-NVFP4", "nvidia--DeepSeek-V3.2-NVFP4", "nvidia--GLM-5-NVFP4",
          "nvidia--Kimi-K2.6-NVFP4", "nvidia--MiniMax-M2.5-NVFP4", "nvidia--Qwen3.5-397B-A17B-NVFP4"}) {
        const config::ModelConfig m =
            config::parse_model_config(config::resolve_model_source(dir + name + "_config.json"));
        EXPECT_EQ(m.quant.attention, config::WeightFormat::bf16) << name;
        EXPECT_EQ(m.quant.experts, config::WeightFormat::nvfp4) << name;
    }
    const config::ModelConfig qwen3 =
        config::parse_model_config(config::resolve_model_source(dir + "nvidia--Qwen3-235B-A22B-NVFP4_config.json"));
    EXPECT_EQ(qwen3.quant.attention, config::WeightFormat::nvfp4);  // the one that quantizes it
}

// Through compare: a B200 row naming the base DeepSeek-V3 and NVFP4 is answered exactly as the same row naming
// NVIDIA's DeepSeek-V3.1-NVFP4 checkpoint (the same architecture, read with its hf_quant_config.json).
TEST(LaunchRecipe, ABaseMoeRowInNvfp4IsAnsweredAsNvidiasCheckpoint) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    const std::filesystem::path path = std::filesystem::temp_directory_path() / "mfusim_launch_checkpoint.csv";
    {
        std::ofstream f(path);
        f << "id,backend,model_path,system,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,attention_dp_size,"
             "moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n"
             "base,trtllm,deepseek-ai/DeepSeek-V3,b200_sxm,agg,1024,1024,nvfp4,32,1,8,8,900.5,20.5\n"
             "nvidia,trtllm,nvidia/DeepSeek-V3.1-NVFP4,b200_sxm,agg,1024,1024,nvfp4,32,1,8,8,901.5,20.5\n";
    }
    const std::vector<ServingRow> rows = read_silicon_csv(path.string());
    std::filesystem::remove(path);
    const auto p = predict_serving(rows, reference + "/model_configs_aic", "",
                                   [](const std::string& b) { return engines::resolve_engine(b); });
    ASSERT_EQ(p.size(), 2u);
    ASSERT_TRUE(p[0].answered) << p[0].message;
    ASSERT_TRUE(p[1].answered) << p[1].message;
    EXPECT_DOUBLE_EQ(p[0].result.tpot_ms, p[1].result.tpot_ms);
    EXPECT_DOUBLE_EQ(p[0].result.ttft_ms, p[1].result.ttft_ms);
}

// Where the configs folder holds NVIDIA's NVFP4 checkpoint of the row's model itself, its own exclusions are taken:
// Qwen3-235B-A22B's quantizes its attention (the one of the ten), so a base row labelled nvfp4 is answered as the
// row naming that checkpoint. DeepSeek-R1 has no such file here, and the rule answers it.
TEST(LaunchRecipe, NvidiasOwnNvfp4ConfigOfTheRowsModelIsReadWhereTheFolderHoldsIt) {
    MFUSIM_REQUIRE_REFERENCE(reference);
    const std::string dir = reference + "/model_configs_aic";
    EXPECT_EQ(nvidia_nvfp4_config_for(dir, "Qwen/Qwen3-235B-A22B"), dir + "/nvidia--Qwen3-235B-A22B-NVFP4_config.json");
    EXPECT_EQ(nvidia_nvfp4_config_for(dir, "Qwen/Qwen3-235B-A22B-FP8"),
              dir + "/nvidia--Qwen3-235B-A22B-NVFP4_config.json");  // the name less its decorations
    EXPECT_EQ(nvidia_nvfp4_config_for(dir, "deepseek-ai/DeepSeek-R1"), "");
    const config::ModelConfig base =
        config::parse_model_config(config::resolve_model_source(dir + "/Qwen--Qwen3-235B-A22B_config.json"));
    const auto served = served_checkpoint(dir, "Qwen/Qwen3-235B-A22B", "nvfp4", base);
    ASSERT_TRUE(served.has_value());
    EXPECT_EQ(served->attention, config::WeightFormat::nvfp4);
    EXPECT_EQ(served->experts, config::WeightFormat::nvfp4);
    EXPECT_FALSE(served_checkpoint(dir, "Qwen/Qwen3-235B-A22B", "fp8", base).has_value());

    const std::filesystem::path path = std::filesystem::temp_directory_path() / "mfusim_nvidia_sibling.csv";
    std::ofstream(path)
        << "id,backend,model_path,system,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,"
           "attention_dp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n"
           "base,vllm,Qwen/Qwen3-235B-A22B,b200_sxm,agg,1024,1024,nvfp4,16,4,1,1,300.5,12.5\n"
           "nvidia,vllm,nvidia/Qwen3-235B-A22B-NVFP4,b200_sxm,agg,1024,1024,nvfp4,16,4,1,1,301.5,12.5\n";
    const std::vector<ServingRow> rows = read_silicon_csv(path.string());
    std::filesystem::remove(path);
    const auto p = predict_serving(rows, dir, "", [](const std::string& b) { return engines::resolve_engine(b); });
    ASSERT_TRUE(p.at(0).answered) << p.at(0).message;
    ASSERT_TRUE(p.at(1).answered) << p.at(1).message;
    EXPECT_DOUBLE_EQ(p[0].result.tpot_ms, p[1].result.tpot_ms);
    EXPECT_DOUBLE_EQ(p[0].result.ttft_ms, p[1].result.ttft_ms);
}

TEST(LaunchRecipe, InferenceXSglangLaunchesStreamInChunks) {
    const engines::EngineProfile sglang = engines::resolve_engine("sglang");
    ASSERT_EQ(sglang.stream_interval, 1);  // SGLang's own default
    EXPECT_EQ(launch_recipe(sglang, 1, Collection::other).stream_interval, inferencex_sglang_stream_interval);
    EXPECT_EQ(launch_recipe(sglang, 1, Collection::gap_analysis).stream_interval, 1);  // that harness's own launch
    engines::EngineProfile mine = sglang;
    mine.stream_interval = 4;  // a profile that names its interval keeps it
    EXPECT_EQ(launch_recipe(mine, 1, Collection::other).stream_interval, 4);
    for (const char* name : {"vllm", "trtllm"}) {
        const engines::EngineProfile e = engines::resolve_engine(name);
        EXPECT_EQ(launch_recipe(e, 1, Collection::other).stream_interval, e.stream_interval) << name;
    }
}

TEST(LaunchRecipe, InferenceXLaunchesRunAnFp8KvCacheWhereTheirTemplatesSetIt) {
    using config::WeightFormat;
    const auto trt = engines::resolve_engine("trtllm"), sglang = engines::resolve_engine("sglang"),
               vllm = engines::resolve_engine("vllm");
    for (bool blackwell : {false, true}) {
        EXPECT_TRUE(launch_fp8_kv_cache(trt, Collection::other, blackwell, WeightFormat::fp8));
        EXPECT_TRUE(launch_fp8_kv_cache(trt, Collection::other, blackwell, WeightFormat::bf16));
        EXPECT_FALSE(launch_fp8_kv_cache(trt, Collection::gap_analysis, blackwell, WeightFormat::fp8));
    }
    // SGLang: on Blackwell at quantized weights, not at BF16 and not on Hopper.
    EXPECT_TRUE(launch_fp8_kv_cache(sglang, Collection::other, true, WeightFormat::nvfp4));
    EXPECT_TRUE(launch_fp8_kv_cache(sglang, Collection::other, true, WeightFormat::fp8_block));
    EXPECT_FALSE(launch_fp8_kv_cache(sglang, Collection::other, true, WeightFormat::bf16));
    EXPECT_FALSE(launch_fp8_kv_cache(sglang, Collection::other, false, WeightFormat::fp8));
    EXPECT_FALSE(launch_fp8_kv_cache(sglang, Collection::gap_analysis, true, WeightFormat::fp8));
    // vLLM: on Blackwell at FP8, NVFP4 or MXFP4 (gpt-oss's config.yaml) weights; not at INT4 (Kimi-K2.5), not on
    // Hopper.
    for (WeightFormat w : {WeightFormat::fp8, WeightFormat::fp8_block, WeightFormat::nvfp4, WeightFormat::mxfp4}) {
        EXPECT_TRUE(launch_fp8_kv_cache(vllm, Collection::other, true, w));
        EXPECT_FALSE(launch_fp8_kv_cache(vllm, Collection::other, false, w));
        EXPECT_FALSE(launch_fp8_kv_cache(vllm, Collection::gap_analysis, true, w));
    }
    for (WeightFormat w : {WeightFormat::int4_wo, WeightFormat::bf16}) {
        EXPECT_FALSE(launch_fp8_kv_cache(vllm, Collection::other, true, w));
    }
}

// The weights a row runs: an FP4 label on gpt-oss's MXFP4 checkpoint serves the checkpoint, MXFP4; a label that
// imposes a format runs in it; the checkpoint's routed experts are its main weights.
TEST(LaunchRecipe, ServedWeightsFollowTheCheckpointWhereTheEngineServesIt) {
    using config::WeightFormat;
    config::Quantization mxfp4;
    mxfp4.experts = WeightFormat::mxfp4;
    EXPECT_EQ(served_quant("nvfp4", mxfp4), "");
    EXPECT_EQ(served_quant("mxfp4", mxfp4), "");
    EXPECT_EQ(served_weights("nvfp4", mxfp4).main, WeightFormat::mxfp4);
    config::Quantization bf16;
    EXPECT_EQ(served_quant("nvfp4", bf16), "nvfp4");
    EXPECT_EQ(served_weights("nvfp4", bf16).main, WeightFormat::nvfp4);
    EXPECT_EQ(served_weights("", bf16).main, WeightFormat::bf16);
    config::Quantization block;
    block.experts = block.mlp = block.attention = WeightFormat::fp8_block;
    EXPECT_EQ(served_weights("fp8", block).main, WeightFormat::fp8_block);
}

TEST(LaunchRecipe, InferenceXSglangLaunchesStateTheirMemoryShare) {
    const engines::EngineProfile sglang = engines::resolve_engine("sglang");
    ASSERT_EQ(sglang.gpu_memory_utilization, 0);  // derived from SGLang's reserve rule unless stated
    EXPECT_EQ(launch_recipe(sglang, 1, Collection::other).gpu_memory_utilization,
              inferencex_sglang_mem_fraction_static);
    EXPECT_EQ(launch_recipe(sglang, 8, Collection::other, Launch::disaggregated).gpu_memory_utilization,
              srt_slurm_sglang_mem_fraction_static);
    EXPECT_EQ(launch_recipe(sglang, 1, Collection::gap_analysis).gpu_memory_utilization, 0);
    engines::EngineProfile mine = sglang;
    mine.gpu_memory_utilization = 0.7;  // a profile that states its share keeps it
    EXPECT_EQ(launch_recipe(mine, 1, Collection::other).gpu_memory_utilization, 0.7);
    const engines::EngineProfile vllm = engines::resolve_engine("vllm");
    EXPECT_EQ(launch_recipe(vllm, 1, Collection::other).gpu_memory_utilization, vllm.gpu_memory_utilization);
}

// srt-slurm's SGLang prefill workers take 16,384 prompt tokens a batch (the median of their recipes), where SGLang's
// Hopper default cuts at 8,192; only in a disaggregated launch outside the gap-analysis collection, and a profile that
// states its budget keeps it.
TEST(LaunchRecipe, SrtSlurmSglangPrefillWorkersBatchTheirRecipesTokens) {
    const engines::EngineProfile sglang = engines::resolve_engine("sglang");
    ASSERT_EQ(sglang.max_batched_tokens, 0);  // by the GPU's memory tier unless stated
    EXPECT_EQ(launch_recipe(sglang, 1, Collection::other, Launch::disaggregated).max_batched_tokens,
              srt_slurm_sglang_prefill_batch_tokens);
    EXPECT_EQ(launch_recipe(sglang, 1, Collection::other).max_batched_tokens, 0);
    EXPECT_EQ(launch_recipe(sglang, 1, Collection::gap_analysis, Launch::disaggregated).max_batched_tokens, 0);
    engines::EngineProfile mine = sglang;
    mine.max_batched_tokens = 4096;
    EXPECT_EQ(launch_recipe(mine, 1, Collection::other, Launch::disaggregated).max_batched_tokens, 4096);
    const engines::EngineProfile trt = engines::resolve_engine("trtllm");
    EXPECT_EQ(launch_recipe(trt, 1, Collection::other, Launch::disaggregated).max_batched_tokens,
              trt.max_batched_tokens);
}

TEST(LaunchRecipe, GapAnalysisHarnessAddsItsTimeToTrtllmRowsOnly) {
    const engines::EngineProfile trt = engines::resolve_engine("trtllm");
    // The engine keeps the OpenAI-server path; the collection's rows get the fit's 100 ms back in all, so the
    // H100 rows (all from that collection) are answered exactly as before the split.
    EXPECT_LT(trt.admission_us, 50000.0);
    EXPECT_DOUBLE_EQ(launch_recipe(trt, 1, Collection::gap_analysis).admission_us, 100000.0);
    EXPECT_EQ(launch_recipe(trt, 1, Collection::other).admission_us, trt.admission_us);
    // Added, not set: a profile's own value still moves the rows.
    engines::EngineProfile mine = trt;
    mine.admission_us = 5000;
    EXPECT_DOUBLE_EQ(launch_recipe(mine, 1, Collection::gap_analysis).admission_us,
                     5000 + gap_analysis_trtllm_admission_us);
    // The same collection's vLLM and SGLang rows fit their engines' own terms (docs/simulate.md): untouched.
    for (const char* name : {"vllm", "sglang"}) {
        const engines::EngineProfile e = engines::resolve_engine(name);
        EXPECT_EQ(launch_recipe(e, 1, Collection::gap_analysis).admission_us, e.admission_us) << name;
    }
    // Attention-DP balancing and the harness are independent facts of the row.
    const engines::EngineProfile both = launch_recipe(trt, 8, Collection::gap_analysis);
    EXPECT_TRUE(both.attention_dp_balance);
    EXPECT_DOUBLE_EQ(both.admission_us, 100000.0);
}

// TensorRT-LLM does not chunk prompts, so InferenceX's templates size max_num_tokens to hold a whole prompt beside
// every client's decode token and drafts, at least 8192: (CONC x (1 + drafts) + ISL + 64) rounded up to 64. Only
// TensorRT-LLM rows outside the gap-analysis collection take it, and never below the profile's own budget.
TEST(LaunchRecipe, InferenceXTrtllmLaunchesHoldAWholePromptBesideTheDecodes) {
    const engines::EngineProfile trt = engines::resolve_engine("trtllm");
    ASSERT_FALSE(trt.chunked_prefill);
    using config::WeightFormat;
    for (bool blackwell : {false, true}) {
        const WeightFormat w = WeightFormat::fp8_block;
        EXPECT_EQ(launch_token_budget(trt, Collection::other, blackwell, w, 4, 1024, 0), 8192);
        // (256 + 8192 + 127) / 64 x 64
        EXPECT_EQ(launch_token_budget(trt, Collection::other, blackwell, w, 256, 8192, 0), 8512);
        EXPECT_EQ(launch_token_budget(trt, Collection::other, blackwell, w, 64, 8192, 0), 8320);
        engines::EngineProfile big = trt;
        big.max_batched_tokens = 20000;  // gpt-oss's template states 20000
        EXPECT_EQ(launch_token_budget(big, Collection::other, blackwell, w, 256, 8192, 0), 20000);
        EXPECT_EQ(launch_token_budget(trt, Collection::gap_analysis, blackwell, w, 256, 8192, 0), 0);
        // A speculative run's budget holds every client's drafts too, as the MTP templates size it:
        // ((3 + 1) x 64 + 1024 + 127) / 64 x 64 = 1344 where the floor is a launch file's 1152 (the templates of
        // 2025), and the profile's 8192 otherwise; without the drafts it would be 1152 and a prompt beside 64 MTP
        // decodes (64 x 4 + 1024 tokens) would never fit.
        engines::EngineProfile unfloored = trt;
        unfloored.max_batched_tokens = 1152;
        EXPECT_EQ(launch_token_budget(unfloored, Collection::other, blackwell, w, 64, 1024, 3), 1344);
        EXPECT_EQ(launch_token_budget(unfloored, Collection::other, blackwell, w, 64, 1024, 0), 1152);
        EXPECT_EQ(launch_token_budget(trt, Collection::other, blackwell, w, 64, 1024, 3), 8192);
        EXPECT_EQ(launch_token_budget(trt, Collection::other, blackwell, w, 256, 8192, 3), 9280);
        EXPECT_EQ(launch_token_budget(engines::resolve_engine("sglang"), Collection::other, blackwell, w, 256, 8192, 0),
                  0);
    }
}

// vLLM's Blackwell templates at FP8 or NVFP4 weights take two prompts a step (--max-num-batched-tokens ISL x 2); at
// MXFP4 (gpt-oss states vLLM's 8192) or INT4, on Hopper and in the gap-analysis collection, the profile's own.
TEST(LaunchRecipe, InferenceXVllmLaunchesOnBlackwellTakeTwoPromptsAStep) {
    using config::WeightFormat;
    const engines::EngineProfile vllm = engines::resolve_engine("vllm");
    for (WeightFormat w : {WeightFormat::fp8, WeightFormat::fp8_block, WeightFormat::nvfp4}) {
        EXPECT_EQ(launch_token_budget(vllm, Collection::other, true, w, 64, 1024, 0), 2048);
        EXPECT_EQ(launch_token_budget(vllm, Collection::other, true, w, 64, 8192, 0), 16384);
        EXPECT_EQ(launch_token_budget(vllm, Collection::other, false, w, 64, 1024, 0), 0);
        EXPECT_EQ(launch_token_budget(vllm, Collection::gap_analysis, true, w, 64, 1024, 0), 0);
    }
    for (WeightFormat w : {WeightFormat::mxfp4, WeightFormat::int4_wo, WeightFormat::bf16}) {
        EXPECT_EQ(launch_token_budget(vllm, Collection::other, true, w, 64, 1024, 0), 0);
    }
}

// A row that states no expert parallelism on a layout the engine does not load (vLLM: a block-FP8 expert shard that
// is not a whole number of 128-wide blocks) ran with expert parallelism over its whole group; a layout the engine
// loads, a stated EP, or an engine without the rule keeps the row's own.
TEST(LaunchRecipe, ARowOnALayoutTheEngineDoesNotLoadRanExpertParallel) {
    config::ModelConfig m;
    m.num_experts = 256;
    m.experts_per_token = 8;
    m.moe_intermediate_size = 1536;  // 192 per rank at MoE TP 8, 384 at 4
    const engines::EngineProfile vllm = engines::resolve_engine("vllm");
    ASSERT_EQ(vllm.fp8_block_moe_shard_multiple, 128);
    const auto block = config::WeightFormat::fp8_block;
    EXPECT_EQ(launch_expert_parallel(vllm, m, block, 8, 1, 1), 8);
    EXPECT_EQ(launch_expert_parallel(vllm, m, block, 4, 2, 1), 8);  // TP x DP
    EXPECT_EQ(launch_expert_parallel(vllm, m, block, 4, 1, 1), 1);
    EXPECT_EQ(launch_expert_parallel(vllm, m, block, 8, 1, 2), 2);
    EXPECT_EQ(launch_expert_parallel(vllm, m, config::WeightFormat::fp8, 8, 1, 1), 1);
    EXPECT_EQ(launch_expert_parallel(engines::resolve_engine("trtllm"), m, block, 8, 1, 1), 1);
}

// InferenceX's SGLang launches on Blackwell poll for requests every 10 decode steps, every 30 from 16 clients on;
// not on Hopper, not in the gap-analysis collection, not on other engines, and not over a profile's own interval.
TEST(LaunchRecipe, InferenceXSglangLaunchesOnBlackwellReceiveEveryTenOrThirtySteps) {
    const engines::EngineProfile sglang = engines::resolve_engine("sglang");
    EXPECT_EQ(launch_scheduler_recv_interval(sglang, Collection::other, true, 4), 10);
    EXPECT_EQ(launch_scheduler_recv_interval(sglang, Collection::other, true, 15), 10);
    EXPECT_EQ(launch_scheduler_recv_interval(sglang, Collection::other, true, 16), 30);
    EXPECT_EQ(launch_scheduler_recv_interval(sglang, Collection::other, false, 64), 0);
    EXPECT_EQ(launch_scheduler_recv_interval(sglang, Collection::gap_analysis, true, 64), 0);
    EXPECT_EQ(launch_scheduler_recv_interval(engines::resolve_engine("vllm"), Collection::other, true, 64), 0);
    engines::EngineProfile own = sglang;
    own.scheduler_recv_interval = 5;
    EXPECT_EQ(launch_scheduler_recv_interval(own, Collection::other, true, 64), 0);
}

// A measured run whose weights leave no KV cache at the profile's memory share ran at a larger one: DeepSeek-R1's
// FP8 checkpoint at TP 4 on B200 under SGLang (InferenceX's dsr1_fp8_b200.sh sets --mem-fraction-static 0.95 there).
roofline::RooflineModel deepseek_on(const char* gpu, int64_t tp, double share) {
    engines::EngineProfile sglang = engines::resolve_engine("sglang");
    sglang.gpu_memory_utilization = share;
    query::Deployment d;
    d.tensor_parallel = tp;
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source("deepseek-v3")),
                                   gpu::resolve_gpu(gpu), nullptr, d, sglang);
}

TEST(LaunchRecipe, ARunWhoseWeightsLeaveNoCacheRanAtTheLargestShareTheLaunchesGive) {
    // At 0.85 the weights take more than the share: the ceiling, which leaves a cache.
    const roofline::RooflineModel tight = deepseek_on("B200", 4, inferencex_sglang_mem_fraction_static);
    ASSERT_LE(serving::cache_space_bytes(tight, inferencex_sglang_mem_fraction_static), 0);
    EXPECT_EQ(launch_memory_share(tight), launch_memory_share_ceiling);
    EXPECT_GT(serving::cache_space_bytes(tight, launch_memory_share_ceiling), 0);
    // At TP 8 the profile's share leaves a cache: kept.
    EXPECT_EQ(launch_memory_share(deepseek_on("B200", 8, inferencex_sglang_mem_fraction_static)), 0);
    // On 4 H100s not even the ceiling holds the weights: nothing to raise, the row stays refused.
    const roofline::RooflineModel none = deepseek_on("H100", 4, inferencex_sglang_mem_fraction_static);
    EXPECT_LE(serving::cache_space_bytes(none, launch_memory_share_ceiling), 0);
    EXPECT_EQ(launch_memory_share(none), 0);
}

}  // namespace
}  // namespace mfusim::compare
