// Serving predictions against measured serving runs in AIConfigurator's silicon layout
// (../shared/reference/measured/silicon/silicon_h100_agg.csv: backend, model_path, gemm_quant_mode, tp_size,
// moe_ep_size, attention_dp_size, isl, osl, batch_size = concurrency, mean TTFT and TPOT in ms). Every row is
// answered by the library's own serving estimate (src/serving), one estimator per deployment.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare.hpp"
#include "compare/launch_file.hpp"
#include "compare/launch_recipe.hpp"
#include "engine/estimator.hpp"
#include "engines/engine_profile.hpp"
#include "query/speculation.hpp"
#include "serving/serving.hpp"

namespace mfusim::compare {

struct ServingRow {
    std::size_t line = 0;
    std::string backend;  // vllm, sglang, trtllm
    // The optional `backend_version` column: the engine's release ("0.18.0"), or an image tag that is not a release
    // number ("gpt-oss-dev"), or "". A release is the row's engine version (engines::at_version); anything else
    // leaves the profile unversioned, and so does the wrapping framework's release, which the reader clears
    // (version_names_wrapper: Dynamo's runtime tag).
    std::string backend_version;
    std::string model_path;  // Hugging Face id: "Qwen/Qwen3-32B"
    std::string quant;       // gemm_quant_mode: "", fp8, fp8_block, nvfp4
    std::string system;      // the optional `system` column: h200_sxm, gb200 ("" where absent); see row_gpu.hpp
    int64_t tp = 1, ep = 1, attention_dp = 1;
    serving::Workload workload;  // isl, osl, concurrency
    double ttft_ms = 0, tpot_ms = 0;
    Collection collection = Collection::other;  // from the optional silicon_data_source column
    std::string measured;  // its `measured=` date, YYYY-MM-DD, or "" (launch_file.hpp matches on it)
    // Set by the reader when the row cannot be compared as written: its run id names other parallelism than its
    // columns ("inconsistent row"), it repeats an earlier row's measurement to 12 significant digits ("repeated
    // measurement"), or it ran a pipeline-parallel deployment, which the library does not model ("unsupported").
    // Such a row is refused under that status, not answered.
    std::string refusal_status, refusal;
};

// Rows of mode `agg` (aggregated serving). Error(io)/Error(parse) naming file, line and column; columns are found
// by their header names, so their order does not matter. Two checks of the data (docs/simulate.md section 7):
// - where the optional `id` column names the run's parallelism (`..._tp8_ep8_922`, InferenceX's run names), the
//   GPUs it names (tp) must be the columns' tp_size x attention_dp_size; a row that says otherwise is refused,
//   unless its columns are the id's GPUs times the EP it names (`_tp<N>_ep<M>`, moe_ep_size M, one degree above
//   1): the database converter's form, read as the id says (TP or attention DP N, EP M);
// - a measurement recorded twice (the same backend, lengths, concurrency and deployment, and the same TTFT and
//   TPOT to 12 significant digits, under any model name) counts once: the later row is refused as a repeat.
// Under attention DP `batch_size` is one replica's batch: where the optional `silicon_data_source` gives
// `silicon_concurrency=` = batch_size x attention_dp_size, the clients are that count.
std::vector<ServingRow> read_silicon_csv(const std::string& path);

// A measured figure as a run's identity, for the repeat checks of both readers: its first 12 significant digits.
// The dumps' converters print one measurement one unit in the last place apart now and then (15.821505026388827
// and ...829; 13.382413802501596 and ...597), which must not make it two runs; 12 digits are far finer than any
// two runs' figures differ.
std::string measured_key(double value);

// Why a pipeline-parallel run (`column` pp_size, prefill_pp_size or decode_pp_size above 1) is refused: the library
// times tensor-, expert- and attention-data-parallel deployments only, and one stage is not the run.
std::string pipeline_refusal(const std::string& column, int64_t pp);

// The requests per client of a benchmark that sends `num_prompts` requests in all from `concurrency` clients:
// `--num-prompts` of sglang.bench_serving and vLLM's `bench serve` (both default 1000; python/sglang/bench_serving.py,
// `benchmark`: every prompt is one task under a `--max-concurrency` semaphore, so the first `concurrency` go out at
// once). Its first wave is `concurrency / num_prompts` of the statistics, not a fixed share as with a count per
// client (InferenceX: 10 x concurrency); a client count above `num_prompts` sends one each (the simulation's floor).
// Error(invalid_argument) naming the flag unless num_prompts is at least 1.
double requests_per_client_for(int64_t num_prompts, int64_t concurrency);
// Every row's benchmark as its runs sent it: `num_prompts` requests in all when given (requests_per_client_for), else
// `per_client` requests per client; lengths drawn from [length_ratio x L, L] (compare's and calibrate's --serving).
void set_benchmark(std::vector<ServingRow>& rows, std::optional<int64_t> num_prompts, double per_client,
                   double length_ratio);

// `<configs>/<org>--<name>_config.json`, else the one `*--<name>_config.json` of another organisation (renamed
// organisations); the AIConfigurator folder's Llama 3.1 spelling Meta-Llama-3.1-<size> (no -Instruct) likewise;
// then the same for the name without its trailing decorations, one at a time (-FP8, -NVFP4, -MXFP4: a quantized
// checkpoint of that base model; -0528: a dated revision; -v2, -Preview: a re-release). "" when none matches, or
// several do.
std::string config_for(const std::string& configs_dir, const std::string& model_path);
// NVIDIA's NVFP4 checkpoint of the model a row names, `<configs>/nvidia--<name>-NVFP4_config.json` for the row's name
// less its decorations (config_for's), where the folder holds it; "" otherwise. Only that exact name: unlike
// config_for, never the base model's config. Read with its hf_quant_config.json, it states which layers that
// checkpoint keeps in 16 bits (compare/launch_recipe.hpp, launch_checkpoint).
std::string nvidia_nvfp4_config_for(const std::string& configs_dir, const std::string& model_path);
// The checkpoint a row served in place of its config `checkpoint` (launch_checkpoint), NVIDIA's own NVFP4 config of
// the row's model read where the folder holds it.
std::optional<config::Quantization> served_checkpoint(const std::string& configs_dir, const std::string& model_path,
                                                      std::string_view row_quant,
                                                      const config::ModelConfig& checkpoint);

struct ServingPrediction {
    const ServingRow* row = nullptr;
    std::string gpu;  // the GPU the row is answered on (RowGpu::name), or its system where it names none
    bool answered = false;
    std::string status;  // "ok", or the status name of the refusal
    std::string message;
    mfusim_serving_result result{};
};

// The engine profile to answer a row of `backend` with (the built-in one of that name by default). A row whose
// backend_version is a release number is answered at that release (engines::at_version), unless the profile
// names its own.
using EngineFor = std::function<engines::EngineProfile(const std::string& backend)>;

// How a row is answered: the closed-form estimate (src/serving), or the engine simulator (src/simulate) running
// the benchmark as it ran: `concurrency` closed-loop clients sending requests_per_client x concurrency requests
// (at least one each) of the row's lengths, every request in the means.
enum class ServingMethod : uint8_t { closed_form, simulate };

// Answers every row on `gpu` (a built-in name, profile path or JSON text), or with `gpu` "" each row on the GPU its
// `system` names (row_gpu.hpp); a row the library refuses keeps its status and message. `speculation`: how every
// run decoded (docs/speculative.md), which the silicon layout does not record [plainly]. `launches`: the flags the
// runs were launched with beyond what their rows state (launch_file.hpp), laid over each row's launch recipe [none].
std::vector<ServingPrediction> predict_serving(const std::vector<ServingRow>& rows, const std::string& configs_dir,
                                               const std::string& gpu, const EngineFor& engine_for,
                                               ServingMethod method = ServingMethod::closed_form,
                                               const query::Speculation& speculation = {},
                                               const LaunchFile* launches = nullptr);

struct ServingGroup {
    std::string gpu;             // the rows' GPU (ServingPrediction::gpu)
    std::string backend, model;  // model "(all)" for a backend's total
    std::size_t rows = 0, refused = 0;
    ErrorStats ttft, tpot;
};
// Per GPU, backend and model, then per GPU and backend over all its models. The report names the GPU only where the
// predictions span more than one.
std::vector<ServingGroup> serving_groups(const std::vector<ServingPrediction>& predictions);
std::string format_serving(const std::vector<ServingGroup>& groups, const std::vector<ServingPrediction>& predictions);

}  // namespace mfusim::compare
