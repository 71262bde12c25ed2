// mfusim plan --disagg: the search over disaggregated deployments (a prefill pool and a decode pool, each of
// identical workers with their own parallelism) beside the aggregated ones, under a GPU budget (docs/disagg.md,
// section 6). The worker counts come from matching the two pools' capacities, as AIConfigurator's disaggregated
// search does; every deployment found is then answered by the closed form (serving/disagg.hpp), queueing included.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planning/estimator_cache.hpp"
#include "serving/serving.hpp"
#include "simulate/disagg_sim.hpp"

namespace mfusim::planning {

// One worker's parallelism: tensor, expert and attention data parallel degrees; tp x attention_dp GPUs.
struct PoolLayout {
    int64_t tp = 1, ep = 1, attention_dp = 1;
    int64_t gpus() const { return tp * attention_dp; }
};

struct DisaggPoint {
    PoolLayout prefill, decode;
    int64_t prefill_workers = 1, decode_workers = 1;
    int64_t decode_batch = 1;  // requests per attention replica of a decode worker
    int64_t concurrency = 1;   // clients: decode workers x replicas x decode_batch (AIConfigurator's convention)
    int64_t gpus = 1;          // of the whole deployment
    double ttft_ms = 0, tpot_ms = 0, tok_s_gpu = 0;
};

struct DisaggSpace {
    std::vector<int64_t> worker_gpus;     // GPUs per worker to try (plan's --tp-list)
    std::vector<int64_t> decode_batches;  // per decode replica
    int64_t gpu_budget = 16;              // most GPUs of a deployment, both pools together
    int64_t max_concurrency = 512;        // most clients of a deployment
    bool moe = false;
    // Answer each deployment found by the two-pool simulation (the workload's requests_per_client and
    // min_length_ratio; docs/disagg.md, section 7) instead of the closed form.
    bool simulate = false;
    simulate::DisaggRouting routing = simulate::DisaggRouting::round_robin;
};

struct DisaggSearch {
    std::vector<DisaggPoint> points;
    int64_t skipped_not_fitting = 0;  // pool layouts (weights or one request's KV that do not fit)
    int64_t skipped_invalid = 0;      // pool layouts the model cannot be sharded over
    std::string last_skip;
};

// Per worker size g: TP g; for MoE models also TP g with EP g, and attention DP g with EP g (DeepSeek's wide-EP
// decode). Sizes over `budget` are left out.
std::vector<PoolLayout> pool_layouts(const std::vector<int64_t>& worker_gpus, bool moe, int64_t budget);

// The (prefill workers, decode workers) within `gpu_budget` GPUs and `max_decode_workers` that give the most
// matched throughput per GPU, min(p x prefill_req_s, d x decode_req_s) / GPUs (ties: fewer GPUs); {0, 0} when
// not even one of each fits.
struct WorkerCounts {
    int64_t prefill = 0, decode = 0;
};
WorkerCounts match_workers(double prefill_req_s, int64_t prefill_gpus, double decode_req_s, int64_t decode_gpus,
                           int64_t gpu_budget, int64_t max_decode_workers);

// `base` names the model, GPU and engine; `workload` the lengths and engine limits (its concurrency is ignored).
// Unknown names are rethrown; layouts that do not fit or cannot be sharded are counted and skipped.
DisaggSearch search_disagg(const engine::Options& base, const serving::Workload& workload, const DisaggSpace& space,
                           EstimatorCache& cache);

}  // namespace mfusim::planning
