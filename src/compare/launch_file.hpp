// A launch file: the engine flags a set of measured runs was launched with that their rows do not carry.
//
// A serving row states its deployment (backend, model, GPU, TP/EP/attention DP, lengths, clients) but not the flags
// its harness passed the engine. Most of those follow from what the row states, and launch_recipe.hpp derives them
// by rules that read no model, GPU or version name. Some are a single recipe's own choice: InferenceX's Llama-3.1-70B
// TensorRT-LLM scripts hold prompts back for up to 20 iterations at 1k/1k below TP 8 (`batch_wait_timeout_iters:
// 20`, `batch_wait_max_tokens_ratio: 0.9`), where its DeepSeek-R1 script does not. No rule over the row's columns
// can know that; the person replaying the runs can, from the recipe. A launch file says it: a list of entries, each
// naming the runs it covers (`match`, over the row's columns and its measurement date) and the engine fields those
// runs were launched with (`engine`, any field of docs/engine.md laid over the row's own profile; `speculative`, how
// they decoded where the recipe drafted; `expert_parallel`, "all" where the recipe sharded the experts over every GPU
// of the deployment whatever the row's moe_ep_size says; `tensor_parallel` and `attention_dp`, the layout the recipe
// ran where the row records another, such as a converter's TP x EP; `kv_cache`, "fp8" where the recipe ran an FP8
// KV cache), with the recipe it was read from (`source`).
// `compare --serving --launches FILE` applies every matching entry, in file order, after the launch recipe; without
// the option nothing changes (docs/simulate.md, "Launch files").
//
//   {"launches": [{"source": "InferenceX benchmarks/70b_fp8_h200_trt_slurm.sh @ 1b563c858",
//                  "match": {"backend": "trtllm", "model": "meta-llama/Llama-3.1-70B", "isl": 1024, "osl": 1024,
//                            "tp_max": 4, "measured_from": "2025-09-18", "measured_until": "2025-10-29"},
//                  "engine": {"batch_wait_timeout_iters": 20, "batch_wait_max_tokens_ratio": 0.9}}]}
//
// The file is the caller's statement about their runs, read as data: the library's model stays free of names, and
// `compare` without the file answers every row from its columns alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine_profile.hpp"
#include "query/speculation.hpp"

namespace mfusim::compare {

// Which rows an entry covers; an empty string, list or 0 matches anything. `model`, `quant` and `system` are a string
// or a list of strings in the file.
struct LaunchMatch {
    std::string backend;               // the row's backend column: vllm, sglang, trtllm
    std::vector<std::string> models;   // its model_path, exactly, one of these: "meta-llama/Llama-3.1-70B"
    std::vector<std::string> quants;   // its format label, one of these: "fp8", "nvfp4" (row_quant_label)
    std::vector<std::string> systems;  // its system column, one of these: h200_sxm, b200_sxm
    int64_t isl = 0, osl = 0;
    int64_t tp_min = 0, tp_max = 0;  // inclusive bounds on tp_size
    int64_t attention_dp = 0;
    int64_t concurrency_min = 0, concurrency_max = 0;  // inclusive bounds on the clients
    std::string measured_from, measured_until;         // YYYY-MM-DD, inclusive; a row without a date never matches
};

struct LaunchEntry {
    std::string source;  // the recipe the flags were read from
    LaunchMatch match;
    std::string engine_json;  // the engine fields, as JSON object text (checked when the file is read); "" if none
    // How the runs decoded, where the recipe drafted (`speculative`: `method` mtp / eagle / ngram / draft_model,
    // `num_speculative_tokens`, `acceptance_rate` or `mean_accepted_length`, `draft_model`: vLLM's
    // speculative_config names and docs/speculative.md's options).
    std::optional<query::Speculation> speculation;
    // `expert_parallel: "all"`: the recipe ran expert parallelism over the whole deployment (TensorRT-LLM's
    // `--ep_size` = TP, vLLM's `--enable-expert-parallel`: EP = TP x attention DP), where the row records less.
    bool expert_parallel_all = false;
    // `tensor_parallel` / `attention_dp`: the recipe's TP and attention-DP degrees (`--tp_size`, and the attention-DP
    // ranks it made of them), where the row records others; 0: the row's.
    int64_t tensor_parallel = 0, attention_dp = 0;
    // `kv_cache: "fp8"`: the recipe ran an FP8 KV cache (vLLM's and SGLang's --kv-cache-dtype, TensorRT-LLM's
    // kv_cache_config.dtype) where the rule over the row's columns (launch_recipe.hpp, launch_fp8_kv_cache) does not.
    bool fp8_kv_cache = false;
};

struct LaunchFile {
    std::string path;
    std::vector<LaunchEntry> entries;
};

// The facts of a row an entry is matched against.
struct LaunchedRun {
    std::string_view backend, model, quant, system;
    std::string_view measured;  // YYYY-MM-DD, or "" where the row's source names no date
    int64_t isl = 0, osl = 0, tp = 1, attention_dp = 1, concurrency = 0;
};

// Reads and checks a launch file: Error(io) when it cannot be read, Error(parse) "<path>:<line>:<col>" on malformed
// JSON, Error(config) "<path>: field 'launches[i].<key>': <what>" on an unknown key, a wrong type, a date that is not
// YYYY-MM-DD, an entry with neither `engine` nor `speculative`, an engine field that docs/engine.md does not list or
// that is out of its range, or a `speculative` that query::validate refuses.
// At most 10,000 entries (a launch file names recipes, not runs).
LaunchFile read_launch_file(const std::string& path);
// The same for a launch file's text; `path` names it in messages.
LaunchFile parse_launch_file(const std::string& text, const std::string& path);

bool launch_matches(const LaunchMatch& match, const LaunchedRun& run);

// The indices of the entries of `file` that match `run`, in file order: the identity of its launched profile and
// decoding (the caller's cache key), read once and passed to the two below.
std::vector<std::size_t> matching_launches(const LaunchFile& file, const LaunchedRun& run);
// `engine` with the engine fields of the `matched` entries laid over it, in file order.
engines::EngineProfile launched_profile(const LaunchFile& file, engines::EngineProfile engine,
                                        const std::vector<std::size_t>& matched);
// How the matched runs decoded: the last matched entry's `speculative`, else `plain` (the caller's).
query::Speculation launched_speculation(const LaunchFile& file, const std::vector<std::size_t>& matched,
                                        query::Speculation plain);
// The TP and attention-DP degrees the matched runs ran at: the last matched entry's that states each, else the row's.
struct LaunchLayout {
    int64_t tensor_parallel = 1, attention_dp = 1;
};
LaunchLayout launched_layout(const LaunchFile& file, const std::vector<std::size_t>& matched, LaunchLayout recorded);
// The expert parallelism the matched runs ran at: every one of the deployment's `gpus` where a matched entry says
// `expert_parallel: "all"`, else `ep` (the caller's, from the row).
int64_t launched_expert_parallel(const LaunchFile& file, const std::vector<std::size_t>& matched, int64_t gpus,
                                 int64_t ep);

// Whether the matched runs kept their KV cache in FP8: `fp8` (the caller's, from the launch recipe) or a matched
// entry's `kv_cache: "fp8"`.
bool launched_fp8_kv_cache(const LaunchFile& file, const std::vector<std::size_t>& matched, bool fp8);

// The date of a `silicon_data_source`'s `measured=` field (YYYY-MM-DD, its first ten characters), or "".
std::string measured_date_of(std::string_view silicon_data_source);

}  // namespace mfusim::compare
