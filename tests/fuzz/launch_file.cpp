// Fuzz target: a launch file (compare --launches, src/compare/launch_file.hpp): a file that parses lays each entry's
// engine fields over the TensorRT-LLM profile for a run every entry could match, and the launched profile holds
// finite terms and limits that are not negative; every entry's `speculative` passes query::validate and gains at
// least one token a step; the launched layout is 1 to 4,096 GPUs per degree, and its expert parallelism the row's or
// every GPU's.
#include <cmath>

#include "compare/launch_file.hpp"
#include "fuzz_support.hpp"

using mfusim::fuzz::handled;
using mfusim::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text = mfusim::fuzz::as_text(data, size);
    handled([&] {
        const mfusim::compare::LaunchFile file = mfusim::compare::parse_launch_file(text, "fuzz.json");
        // The first of each list, as a view of the entry's own string (a "" : string conditional would be a temporary).
        const auto first = [](const std::vector<std::string>& names) {
            return names.empty() ? std::string_view() : std::string_view(names.front());
        };
        for (const mfusim::compare::LaunchEntry& entry : file.entries) {
            require(!entry.source.empty(), "every entry names its source");
            const mfusim::compare::LaunchMatch& m = entry.match;
            const mfusim::compare::LaunchedRun run{
                .backend = m.backend,
                .model = first(m.models),
                .quant = first(m.quants),
                .system = first(m.systems),
                .measured = m.measured_from.empty() ? m.measured_until : m.measured_from,
                .isl = m.isl,
                .osl = m.osl,
                .tp = m.tp_min > 0 ? m.tp_min : 1,
                .attention_dp = m.attention_dp > 0 ? m.attention_dp : 1,
                .concurrency = m.concurrency_min};
            require(mfusim::compare::launch_matches(m, run), "an entry matches the run its own bounds describe");
        }
        const mfusim::compare::LaunchedRun any{};
        const std::vector<std::size_t> applied = mfusim::compare::matching_launches(file, any);
        const mfusim::engines::EngineProfile e =
            mfusim::compare::launched_profile(file, mfusim::engines::resolve_engine("trtllm"), applied);
        for (double v : {e.step_us, e.request_us, e.layer_us, e.admission_us, e.gpu_memory_utilization,
                         e.batch_wait_max_tokens_ratio}) {
            require(std::isfinite(v) && v >= 0, "launched terms finite and not negative");
        }
        require(e.max_batched_tokens >= 0 && e.max_seqs >= 0 && e.batch_wait_timeout_iters >= 0,
                "launched limits not negative");
        // Every entry's decoding passed query::validate when read; the one a run takes is one of them.
        for (const mfusim::compare::LaunchEntry& entry : file.entries) {
            if (!entry.speculation) continue;
            mfusim::query::validate(*entry.speculation);
            require(entry.speculation->tokens_per_step() >= 1, "a launch's drafts never slow a request below a token");
        }
        (void)mfusim::compare::launched_speculation(file, applied, {});
        const mfusim::compare::LaunchLayout layout = mfusim::compare::launched_layout(file, applied, {1, 1});
        for (int64_t degree : {layout.tensor_parallel, layout.attention_dp}) {
            require(degree >= 1 && degree <= 4096, "a launched layout degree is 1 to 4,096 GPUs");
        }
        const int64_t gpus = layout.tensor_parallel * layout.attention_dp;
        const int64_t ep = mfusim::compare::launched_expert_parallel(file, applied, gpus, 1);
        require(ep == 1 || ep == gpus, "launched expert parallelism is the row's or every GPU's");
        require(mfusim::compare::launched_fp8_kv_cache(file, applied, true), "a launch never takes an FP8 cache away");
    });
    return 0;
}
