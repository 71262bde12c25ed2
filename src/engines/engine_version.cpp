// Engine release numbers and the defaults that changed between releases (docs/engine.md, "Defaults by engine
// version"). Only defaults the engines' sources or release notes show changing are rows here.
#include "engines/engine_version.hpp"

#include <cctype>

#include "common/error.hpp"

namespace mfusim::engines {

namespace {

// Digits at `s[i]`, at most 9 of them (a release component is small; more would be a malformed text, not a
// version); advances i. Nothing when there is no digit.
std::optional<int64_t> number_at(std::string_view s, std::size_t& i) {
    const std::size_t start = i;
    int64_t value = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 9) {
        value = value * 10 + (s[i] - '0');
        ++i;
    }
    if (i == start || (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))) return std::nullopt;
    return value;
}

bool take(std::string_view s, std::size_t& i, std::string_view word) {
    if (s.substr(i, word.size()) != word) return false;
    i += word.size();
    return true;
}

}  // namespace

std::optional<EngineVersion> parse_engine_version(std::string_view s) {
    EngineVersion v;
    std::size_t i = 0;
    if (take(s, i, "v") && i == s.size()) return std::nullopt;
    for (std::size_t k = 0; k < v.release.size(); ++k) {
        auto n = number_at(s, i);
        if (!n) return std::nullopt;
        v.release[k] = *n;
        // A further component follows a dot and a digit (".dev" and ".post" are not components).
        if (!(i + 1 < s.size() && s[i] == '.' && std::isdigit(static_cast<unsigned char>(s[i + 1])))) break;
        ++i;
    }
    // Pre-release: aN, bN, rcN (PEP 440's public spellings), or .devN.
    for (auto [word, kind] : {std::pair<std::string_view, int8_t>{".dev", 0}, {"rc", 3}, {"a", 1}, {"b", 2}}) {
        if (take(s, i, word)) {
            auto n = number_at(s, i);
            if (!n) return std::nullopt;
            v.pre_kind = kind;
            v.pre = *n;
            break;
        }
    }
    if (take(s, i, ".post")) {
        auto n = number_at(s, i);
        if (!n) return std::nullopt;
        v.post = *n;
    }
    if (i != s.size()) return std::nullopt;
    return v;
}

EngineVersion engine_version(std::string_view text, const std::string& field) {
    auto v = parse_engine_version(text);
    if (!v) {
        throw Error(Status::config, field + ": '" + std::string(text) +
                                        "' is not a release number (such as 0.14.0, 0.5.1.post1 or 1.2.0rc6)");
    }
    return *v;
}

const std::vector<VersionDefault>& version_defaults() {
    static const std::vector<VersionDefault> rows = {
        // vLLM's async scheduling is its overlap scheduler: EngineCore.step_with_batch_queue schedules and
        // launches batch n+1 while batch n runs (max_concurrent_batches 2), so a request arriving during a step
        // joins the step after next, as TensorRT-LLM's _executor_loop_overlap does (docs/simulate.md section 2).
        {.engine = "vllm",
         .since = "0",
         .field = "overlap_scheduler",
         .value = false,
         .source = "before 0.14.0 SchedulerConfig.async_scheduling defaults to False: an opt-in "
                   "(`--async-scheduling`, PR 19970) in 0.11.x-0.13.x"},
        {.engine = "vllm",
         .since = "0.14.0",
         .field = "overlap_scheduler",
         .value = true,
         .source = "PR 27614 (\"[Core] Enable async scheduling by default\"), v0.14.0 release notes: "
                   "SchedulerConfig.async_scheduling None, resolved to True by VllmConfig.__post_init__ unless "
                   "pipeline parallelism (0.14), a drafter other than EAGLE/MTP, a pooling model or an executor "
                   "without support"},
        // vLLM's default KV dtype follows a ModelOpt checkpoint's kv_cache_quant_algo / kv_cache_scheme
        // (EngineProfile::checkpoint_kv_cache).
        {.engine = "vllm",
         .since = "0",
         .field = "checkpoint_kv_cache",
         .value = false,
         .source = "before 0.14.0 CacheConfig.cache_dtype \"auto\" is the model's dtype "
                   "(kv_cache_dtype_str_to_dtype); a ModelOpt checkpoint's KV scales load, its cache stays 16-bit "
                   "unless --kv-cache-dtype fp8"},
        {.engine = "vllm",
         .since = "0.14.0",
         .field = "checkpoint_kv_cache",
         .value = true,
         .source = "PR 30785 (\"Load kv-cache dtype from hf_quant_config.json automatically\", merged 2025-12-16, "
                   "after the 0.13.0 branch): EngineArgs resolves \"auto\" with resolve_kv_cache_dtype_string "
                   "(utils/torch_utils.py), whose get_kv_cache_quant_algo_string maps a quant_method modelopt* "
                   "config's kv_cache_quant_algo or kv_cache_scheme (8-bit float) to fp8_e4m3"},
        // TensorRT-LLM's MoE all-to-all under attention DP (EngineProfile::moe_alltoall_above_topk;
        // docs/disagg.md section 25).
        {.engine = "trtllm",
         .since = "0",
         .field = "moe_alltoall_above_topk",
         .value = true,
         .source = "CutlassFusedMoE.select_alltoall_method_type (tensorrt_llm/_torch/modules/fused_moe/"
                   "fused_moe_cutlass.py): NotEnabled, so allgather and reducescatter, unless moe_ep_size > "
                   "routing_method.experts_per_token and MnnvlMemory.supports_mnnvl() (every NVLink up)"},
        {.engine = "trtllm",
         .since = "1.2.0rc3",
         .field = "moe_alltoall_above_topk",
         .value = false,
         .source = "PR 8950 (\"Adjust select_alltoall_method_type\", November 2025: \"MNNVL performs better "
                   "than NCCL AllGather/ReduceScatter\") drops the experts_per_token test; CommunicationFactory "
                   "(PR 8968) then tries NVLinkOneSided first; the first release candidate cut after both (1.2.0rc2's "
                   "date was not established, so it keeps the older rule)"},
    };
    return rows;
}

std::optional<bool> version_default(const std::string& engine, const std::string& version, std::string_view field) {
    if (version.empty()) return std::nullopt;
    const EngineVersion at = engine_version(version, "engine version");
    // The latest row at or below the version, whatever the table's order.
    std::optional<EngineVersion> since;
    std::optional<bool> value;
    for (const VersionDefault& row : version_defaults()) {
        if (row.engine != engine || row.field != field) continue;
        const EngineVersion v = engine_version(row.since, "version_defaults");
        if (v <= at && (!since || *since <= v)) {
            since = v;
            value = row.value;
        }
    }
    return value;
}

}  // namespace mfusim::engines
