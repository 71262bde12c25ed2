// TensorRT-LLM's attention-DP context balancing (docs/simulate.md, section 8): with attention_dp_config
// enable_balance, the ranks of an attention-DP group start context (prefill) requests together, so that no rank's
// prefill stalls the others' decodes alone. Follows tensorrt_llm/_torch/pyexecutor/py_executor.py,
// PyExecutor._balance_adp_requests, evaluated every iteration on every rank's scheduled counts (gathered with
// tp_allgather, so every rank takes the same decision), and _pad_attention_dp_dummy_request (a rank without
// requests, while another has some, runs one dummy generation request).
#pragma once

#include <cstdint>
#include <vector>

namespace mfusim::simulate {

class AdpBalance {
  public:
    struct Rank {
        int64_t context = 0;     // context requests scheduled this iteration
        int64_t generation = 0;  // generation requests scheduled this iteration
        bool active = false;     // holds any request (running or waiting)
    };

    AdpBalance(int64_t timeout_iters, int64_t batching_wait_iters, int64_t max_batch_size)
        : timeout_iters_(timeout_iters), batching_wait_iters_(batching_wait_iters), max_batch_size_(max_batch_size) {}

    // Whether every rank holds back its context requests this iteration. When every rank has a context request
    // (and room for it) they go, after `batching_wait_iters` iterations if every rank also has generation
    // requests; otherwise they wait until `timeout_iters` iterations have passed, or at once when some rank has
    // no generation request (nothing to overlap the wait with). The counts run every iteration, as the engine's do.
    bool hold(const std::vector<Rank>& ranks) {
        bool any_active = false;
        for (const Rank& r : ranks) any_active = any_active || r.active;
        bool free_slots = true, all_context = true, all_generation = true;
        for (const Rank& r : ranks) {
            const int64_t generation = r.generation + (!r.active && any_active ? 1 : 0);  // the dummy request
            free_slots = free_slots && generation < max_batch_size_;
            all_context = all_context && r.context > 0;
            all_generation = all_generation && generation > 0;
        }
        if (free_slots && all_context) {
            waiting_iters_ = 0;
            if (!all_generation) return false;
            if (batching_iters_ < batching_wait_iters_) {
                ++batching_iters_;
                return true;
            }
            batching_iters_ = 0;
            return false;
        }
        ++waiting_iters_;
        if (waiting_iters_ >= timeout_iters_ || !all_generation) {
            waiting_iters_ = 0;
            return false;
        }
        return true;
    }

  private:
    int64_t timeout_iters_, batching_wait_iters_, max_batch_size_;
    int64_t waiting_iters_ = 0;   // PyExecutor.adp_ctx_waiting_iters_count
    int64_t batching_iters_ = 0;  // PyExecutor.adp_ctx_batching_wait_iters_count
};

}  // namespace mfusim::simulate
