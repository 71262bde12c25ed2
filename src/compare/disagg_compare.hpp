// Disaggregated serving predictions against measured runs in AIConfigurator's silicon layout, mode `disagg`
// (../shared/reference/measured/silicon/silicon_{h100,h200}_disagg.csv: per pool prefill_*/decode_* workers, TP,
// attention DP, MoE EP and per-replica batch; the client concurrency inside silicon_data_source as
// silicon_concurrency=N). Every row is answered by the library's disaggregated estimate (src/serving/disagg.*).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare/serving_compare.hpp"
#include "serving/disagg.hpp"
#include "simulate/disagg_sim.hpp"

namespace mfusim::compare {

struct PoolShape {
    int64_t tp = 1, ep = 1, attention_dp = 1;
};

struct DisaggRow {
    std::size_t line = 0;
    std::string backend, model_path, quant;
    std::string system;                         // the optional `system` column ("" where absent); see row_gpu.hpp
    Collection collection = Collection::other;  // from silicon_data_source (launch_recipe.hpp)
    PoolShape prefill, decode;
    // False where the row leaves a pool's worker count empty (many rows of the 2026-03/04 dumps): predict_disagg
    // refuses the row (unsupported), and it is reported apart.
    bool pools_given = true;
    // Set by the reader for a run the library does not model (a pool with pipeline parallelism): predict_disagg
    // refuses the row as unsupported with this reason.
    std::string refusal;
    // The file's prefill_batch_size (0 where empty). Not the context engine's prompt limit by default: see
    // use_file_prefill_batch. workload.prefill_batch stays 0 (the engine's token budget) unless that is called.
    int64_t file_prefill_batch = 0;
    serving::DisaggWorkload workload;
    double ttft_ms = 0, tpot_ms = 0;
};

// Which modes the file's rows have: compare --serving reads the `agg` rows with read_silicon_csv and the `disagg`
// rows with read_silicon_disagg_csv, both where a file holds both.
struct SiliconModes {
    bool agg = false, disagg = false;
};
SiliconModes modes_in(const std::string& path);

// Rows of mode `disagg`, one per distinct run: a row repeating an earlier row's run (system, backend, ISL, OSL,
// concurrency, measured TTFT and TPOT) is dropped, keeping whichever of them gives the pool sizes. The concurrency is
// silicon_concurrency= in silicon_data_source, else decode workers x attention replicas x per-replica batch.
// Error(io)/Error(parse) naming file, line and column.
std::vector<DisaggRow> read_silicon_disagg_csv(const std::string& path);

// The decode slots a harness ran when it benchmarks more clients than slots. The files' decode_batch_size is the
// clients over decode workers x replicas, not the engine's max_batch_size; NVIDIA's srt-slurm TensorRT-LLM recipes
// (the InferenceX H100 runs) set the concurrency to clients_per_slot = 1.2 times the decode slots, rounded up to a
// multiple of the decode workers (docs/disagg.md, section 11). Each row with its pools given gets
// max(1, floor(concurrency / (clients_per_slot x decode workers x replicas))) slots per replica; 1 leaves the
// rows as read. Error(invalid_argument) unless 1 <= clients_per_slot <= 64.
void set_decode_slots(std::vector<DisaggRow>& rows, double clients_per_slot);

// The file's prefill_batch_size as each prefill replica's most prompts per step. Left alone, a prefill replica
// batches prompts up to its engine's token budget (max_num_tokens / chunked_prefill_size), as the context servers of
// NVIDIA's srt-slurm recipes do (TensorRT-LLM ctx max_batch_size 8 with max_num_tokens 8,192 at ISL 1,024, 2 with
// 16,384 at 8,192): the files' column is 1 in every run that gives its pools, whatever the engine, ISL or pool,
// which is AIConfigurator's per-step prefill assumption, not the served engine's limit (docs/disagg.md, section 14).
// Call this for a harness that did cap its context servers at that many prompts (AIConfigurator's generated
// configurations set the context engine's max_batch_size to it).
void use_file_prefill_batch(std::vector<DisaggRow>& rows);

struct DisaggPrediction {
    const DisaggRow* row = nullptr;
    std::string gpu;  // as ServingPrediction::gpu
    bool answered = false;
    std::string status, message;
    serving::DisaggResult result;
};

// How a row is answered through the two-pool simulation (simulate/disagg_sim.hpp) instead of the closed form.
struct DisaggSimulation {
    double requests_per_client = 10;  // InferenceX's and AIConfigurator's benchmarks: 10 prompts per client
    double min_length_ratio = 1;
    simulate::DisaggRouting routing = simulate::DisaggRouting::round_robin;
};

// Answers every row on `gpu`, or with `gpu` "" each row on the GPU its `system` names (row_gpu.hpp), each with the
// engine profile engine_for(backend), by the closed form or, given `simulation`, by the simulated benchmark (its
// means); a refused row keeps its reason. A row whose pools are not given is refused (unsupported). `speculation`:
// how every run decoded, as for predict_serving; both pools load the drafter (the context server's step runs its
// pass over the prompt, docs/speculative.md).
std::vector<DisaggPrediction> predict_disagg(const std::vector<DisaggRow>& rows, const std::string& configs_dir,
                                             const std::string& gpu, const EngineFor& engine_for,
                                             const std::optional<DisaggSimulation>& simulation = std::nullopt,
                                             const query::Speculation& speculation = {});

// Per backend and model (rows whose pools are not given as their own "<model> (pools not given)"), per
// concurrency bucket, then per backend; the layout of format_serving.
std::vector<ServingGroup> disagg_groups(const std::vector<DisaggPrediction>& predictions);
std::string format_disagg(const std::vector<ServingGroup>& groups, const std::vector<DisaggPrediction>& predictions);

}  // namespace mfusim::compare
