#include "compare/launch_recipe.hpp"

#include <algorithm>
#include <optional>

#include "common/numbers.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "roofline/roofline_model.hpp"
#include "serving/serving.hpp"

namespace mfusim::compare {

Collection collection_of(std::string_view source) {
    if (source.find("aic-auto-gap-analysis") != std::string_view::npos) return Collection::gap_analysis;
    return Collection::other;
}

const char* collection_name(Collection collection) {
    switch (collection) {
        case Collection::gap_analysis:
            return "gap_analysis";
        case Collection::other:
            return "other";
    }
    return "other";
}

namespace {

// The text a `silicon_data_source` gives `key` (`key=value`, fields separated by ';'); nullopt where it names none.
std::optional<std::string_view> source_value(std::string_view source, std::string_view key) {
    const std::size_t at = source.find(key);
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view value = source.substr(at + key.size());
    return value.substr(0, std::min(value.find(';'), value.size()));
}

}  // namespace

bool version_names_wrapper(std::string_view source, std::string_view backend_version) {
    const auto image = source_value(source, "image=");
    if (backend_version.empty() || !image) return false;
    const std::size_t colon = image->rfind(':');
    if (colon == std::string_view::npos) return false;
    const std::string_view repository = image->substr(0, colon), tag = image->substr(colon + 1);
    return repository.find("ai-dynamo/") != std::string_view::npos && tag == backend_version;
}

int64_t concurrency_of(std::string_view source) {
    const auto value = source_value(source, "silicon_concurrency=");
    if (!value) return 0;
    std::size_t digits = 0;
    while (digits < value->size() && (*value)[digits] >= '0' && (*value)[digits] <= '9') ++digits;
    const auto parsed = parse_int64(value->substr(0, digits));
    return parsed && *parsed > 0 ? *parsed : 0;
}

std::string served_quant(std::string_view row_quant, const config::Quantization& checkpoint) {
    // AIConfigurator's labels for per-tensor FP8 (sdk/common.py, GEMMQuantMode: fp8_static with static activation
    // scales, fp8_ootb TensorRT's out-of-the-box FP8): FP8 weights and activations, this library's fp8.
    if (row_quant == "fp8_static" || row_quant == "fp8_ootb") row_quant = "fp8";
    // AIConfigurator's MoE label for MXFP4 weights with 16-bit activations (MoEQuantMode w4a16_mxfp4, gpt-oss), and
    // the `precision` column's spelling of NVFP4 where a file puts it in gemm_quant_mode.
    if (row_quant == "w4a16_mxfp4") row_quant = "mxfp4";
    if (row_quant == "fp4") row_quant = "nvfp4";
    // A 16-bit label on a quantized checkpoint: the engine serves the checkpoint's own formats (no engine widens a
    // quantized checkpoint to BF16 on load), and the label is the 16-bit GEMMs around them (gpt-oss's attention).
    const auto sixteen = config::parse_weight_format(row_quant);
    if (!row_quant.empty() && sixteen == config::WeightFormat::bf16 && checkpoint.any()) return "";
    const auto block = config::WeightFormat::fp8_block;
    const bool block_checkpoint = checkpoint.attention == block || checkpoint.mlp == block ||
                                  checkpoint.experts == block || checkpoint.recurrent == block;
    if (row_quant == "fp8" && block_checkpoint) return "";
    const bool fp4_checkpoint =
        checkpoint.experts == config::WeightFormat::mxfp4 || checkpoint.experts == config::WeightFormat::nvfp4 ||
        checkpoint.mlp == config::WeightFormat::mxfp4 || checkpoint.mlp == config::WeightFormat::nvfp4;
    if ((row_quant == "nvfp4" || row_quant == "mxfp4") && fp4_checkpoint) return "";
    return std::string(row_quant);
}

std::string row_quant_label(std::string_view gemm, std::string_view moe) {
    return gemm == "fp8" && moe == "fp8_block" ? std::string(moe) : std::string(gemm);
}

ServedWeights served_weights(std::string_view row_quant, const config::Quantization& checkpoint) {
    ServedWeights w;
    w.quant = served_quant(row_quant, checkpoint);
    if (w.quant.empty()) {
        w.main = checkpoint.experts != config::WeightFormat::bf16 ? checkpoint.experts : checkpoint.mlp;
    } else {
        w.main = config::parse_weight_format(w.quant).value_or(config::WeightFormat::bf16);
    }
    return w;
}

std::optional<config::Quantization> launch_checkpoint(std::string_view row_quant, const config::ModelConfig& model,
                                                      const config::Quantization* nvidia_checkpoint) {
    if (served_quant(row_quant, model.quant) != "nvfp4") return std::nullopt;
    if (nvidia_checkpoint && nvidia_checkpoint->any()) return *nvidia_checkpoint;
    if (!model.is_moe()) return std::nullopt;
    config::Quantization q;
    q.attention = q.recurrent = config::WeightFormat::bf16;
    q.mlp = q.experts = config::WeightFormat::nvfp4;
    q.method = "modelopt";
    q.kv_cache_fp8 = true;
    q.kv_cache_stated_by = config::KvCacheStatement::modelopt;
    q.kv_cache_key = "NVIDIA's NVFP4 checkpoint of the row's model (compare's launch_checkpoint)";
    return q;
}

ServedWeights served_weights(std::string_view row_quant, const std::string& model) {
    return served_weights(row_quant, config::parse_model_config(config::resolve_model_source(model)).quant);
}

int64_t launch_expert_parallel(const engines::EngineProfile& profile, const config::ModelConfig& model,
                               config::WeightFormat experts, int64_t tp, int64_t attention_dp, int64_t ep) {
    if (ep > 1 || roofline::loads_expert_shards(profile, model, experts, tp * attention_dp)) return ep;
    return tp * attention_dp;
}

double launch_memory_share(const roofline::RooflineModel& model) {
    const double share = model.engine().gpu_memory_utilization;
    if (serving::cache_space_bytes(model, share) > 0) return 0;
    if (share >= launch_memory_share_ceiling) return 0;
    return serving::cache_space_bytes(model, launch_memory_share_ceiling) > 0 ? launch_memory_share_ceiling : 0;
}

std::shared_ptr<engine::Estimator> launched_estimator(engine::Options options) {
    auto estimator = std::make_shared<engine::Estimator>(options);
    const roofline::RooflineModel* model = estimator->roofline();
    if (model == nullptr || !options.engine_profile) return estimator;
    const double share = launch_memory_share(*model);
    if (share <= 0) return estimator;
    options.engine_profile->gpu_memory_utilization = share;
    return std::make_shared<engine::Estimator>(options);
}

namespace {

bool runs_trtllm(const engines::EngineProfile& profile) {
    return profile.scheduler == engines::SchedulerPolicy::trtllm ||
           profile.scheduler == engines::SchedulerPolicy::trtllm_max_utilization;
}

}  // namespace

bool launch_fp8_kv_cache(const engines::EngineProfile& profile, Collection collection, bool blackwell_generation,
                         config::WeightFormat weights) {
    using config::WeightFormat;
    if (collection != Collection::other) return false;
    if (runs_trtllm(profile)) return true;
    if (!blackwell_generation) return false;
    if (profile.scheduler == engines::SchedulerPolicy::sglang) return weights != WeightFormat::bf16;
    return profile.scheduler == engines::SchedulerPolicy::vllm_v1 &&
           (weights == WeightFormat::fp8 || weights == WeightFormat::fp8_block || weights == WeightFormat::nvfp4 ||
            weights == WeightFormat::mxfp4);
}

int64_t launch_token_budget(const engines::EngineProfile& profile, Collection collection, bool blackwell_generation,
                            config::WeightFormat weights, int64_t clients, int64_t input_len, int64_t draft_tokens) {
    using config::WeightFormat;
    if (collection != Collection::other) return 0;
    if (profile.scheduler == engines::SchedulerPolicy::vllm_v1) {
        const bool fp8_or_nvfp4 =
            weights == WeightFormat::fp8 || weights == WeightFormat::fp8_block || weights == WeightFormat::nvfp4;
        return blackwell_generation && fp8_or_nvfp4 ? inferencex_vllm_prompts_per_step * input_len : 0;
    }
    if (!runs_trtllm(profile)) return 0;
    constexpr int64_t step = 64;
    const int64_t decode_tokens = clients * (1 + draft_tokens);
    const int64_t whole_prompt = (decode_tokens + input_len + step + step - 1) / step * step;
    return std::max(profile.max_batched_tokens, whole_prompt);
}

int64_t launch_scheduler_recv_interval(const engines::EngineProfile& profile, Collection collection,
                                       bool blackwell_generation, int64_t clients) {
    if (profile.scheduler != engines::SchedulerPolicy::sglang || collection != Collection::other ||
        !blackwell_generation || profile.scheduler_recv_interval != 1) {
        return 0;
    }
    return clients >= inferencex_sglang_relaxed_recv_clients ? inferencex_sglang_relaxed_recv_interval
                                                             : inferencex_sglang_recv_interval;
}

engines::EngineProfile launch_recipe(engines::EngineProfile profile, int64_t attention_dp, Collection collection,
                                     Launch launch) {
    if (profile.scheduler == engines::SchedulerPolicy::sglang) {
        // No single-node launch names an all-to-all backend (InferenceX's benchmarks/single_node/fixed_seq_len/
        // dsr1_fp4_b200.sh: --enable-dp-attention --ep-size $EP_SIZE and no --moe-a2a-backend; the gap-analysis
        // collection's launches are unknown), so SGLang's default, none: dp_gather of the group's tokens before the
        // experts, not the DeepEP dispatch of the disaggregated recipes the profile follows.
        if (launch == Launch::single_node) profile.moe_gather_within_domain = 1;
        if (collection != Collection::other) return profile;
        // InferenceX's SGLang launches stream in chunks (`--stream-interval 10` in benchmarks/dsr1_fp8_h200.sh and
        // dsr1_fp4_b200.sh, 30 in dsr1_fp8_b200.sh; srt-slurm's H200 disaggregated decode servers 10): the API server
        // works per chunk, not per token (simulate/simulator.cpp). A profile that names its own interval keeps it.
        if (profile.stream_interval == 1) profile.stream_interval = inferencex_sglang_stream_interval;
        // Every InferenceX SGLang launch states its memory share (--mem-fraction-static) rather than taking SGLang's
        // reserve rule, which under attention DP reserves graph memory per DP rank (a DP 64 decode server would keep
        // none for its cache): the single-node templates' median, and srt-slurm's disaggregated recipes' median.
        if (profile.gpu_memory_utilization == 0) {
            profile.gpu_memory_utilization = launch == Launch::disaggregated ? srt_slurm_sglang_mem_fraction_static
                                                                             : inferencex_sglang_mem_fraction_static;
        }
        // srt-slurm's prefill workers state their chunk and prefill-token limits; the decode workers run no prefill.
        if (launch == Launch::disaggregated && profile.max_batched_tokens == 0) {
            profile.max_batched_tokens = srt_slurm_sglang_prefill_batch_tokens;
        }
        return profile;
    }
    if (profile.scheduler == engines::SchedulerPolicy::vllm_v1) {
        // InferenceX's vLLM launch of an MXFP4 checkpoint on Blackwell exports VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1
        // (benchmarks/gptoss_fp4_b200_docker.sh from September 2025, single_node/.../gptoss_fp4_b200.sh until its
        // retirement in July 2026), so vLLM's get_mxfp4_backend takes SM100_FI_MXFP4_MXFP8_TRTLLM, not its default
        // SM100_FI_MXFP4_BF16: the experts' activations are quantised to MXFP8. The field acts only where MXFP4 experts
        // run TRT-LLM-gen's MoE (Blackwell's datacenter parts), so Hopper's rows, whose templates choose Marlin, keep
        // theirs. Single-node launches only: no disaggregated vLLM recipe read sets it.
        if (collection == Collection::other && launch == Launch::single_node) profile.mxfp4_moe_fp8_activations = 1;
        return profile;
    }
    if (!runs_trtllm(profile)) return profile;
    // What every template sets under `if [[ "$DP_ATTENTION" == "true" ]]`; the wait lengths stay the profile's
    // (TensorRT-LLM's defaults 50 and 10 unless `--engine` says otherwise), since the templates differ there.
    if (attention_dp > 1) profile.attention_dp_balance = true;
    // Added, not set: a profile's own admission (`--engine`, a calibrated file) still moves these rows.
    if (collection == Collection::gap_analysis) profile.admission_us += gap_analysis_trtllm_admission_us;
    return profile;
}

}  // namespace mfusim::compare
