#include "compare/launch_recipe.hpp"

#include "common/numbers.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"

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

int64_t concurrency_of(std::string_view source) {
    constexpr std::string_view key = "silicon_concurrency=";
    const std::size_t at = source.find(key);
    if (at == std::string_view::npos) return 0;
    std::size_t end = at + key.size();
    while (end < source.size() && source[end] >= '0' && source[end] <= '9') ++end;
    const auto parsed = parse_int64(source.substr(at + key.size(), end - at - key.size()));
    return parsed && *parsed > 0 ? *parsed : 0;
}

std::string served_quant(std::string_view row_quant, const config::Quantization& checkpoint) {
    // AIConfigurator's labels for per-tensor FP8 (sdk/common.py, GEMMQuantMode: fp8_static with static activation
    // scales, fp8_ootb TensorRT's out-of-the-box FP8): FP8 weights and activations, this library's fp8.
    if (row_quant == "fp8_static" || row_quant == "fp8_ootb") row_quant = "fp8";
    const auto block = config::WeightFormat::fp8_block;
    const bool block_checkpoint = checkpoint.attention == block || checkpoint.mlp == block ||
                                  checkpoint.experts == block || checkpoint.recurrent == block;
    if (row_quant == "fp8" && block_checkpoint) return "";
    return std::string(row_quant);
}

std::string served_quant(std::string_view row_quant, const std::string& model) {
    return served_quant(row_quant, config::parse_model_config(config::resolve_model_source(model)).quant);
}

namespace {

bool runs_trtllm(const engines::EngineProfile& profile) {
    return profile.scheduler == engines::SchedulerPolicy::trtllm ||
           profile.scheduler == engines::SchedulerPolicy::trtllm_max_utilization;
}

}  // namespace

bool launch_fp8_kv_cache(const engines::EngineProfile& profile, Collection collection, gpu::Architecture architecture,
                         std::string_view quant) {
    if (collection != Collection::other) return false;
    if (runs_trtllm(profile)) return true;
    const bool quantized = !quant.empty() && quant != "bfloat16" && quant != "bf16" && quant != "float16";
    return profile.scheduler == engines::SchedulerPolicy::sglang && architecture == gpu::Architecture::blackwell &&
           quantized;
}

engines::EngineProfile launch_recipe(engines::EngineProfile profile, int64_t attention_dp, Collection collection,
                                     Launch launch) {
    if (profile.scheduler == engines::SchedulerPolicy::sglang && collection == Collection::other) {
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
