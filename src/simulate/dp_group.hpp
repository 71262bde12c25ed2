// One lockstep step of a worker's attention data-parallel replicas (docs/simulate.md, "Attention-DP groups").
// The engines synchronise the replicas of an expert-parallel group every step and give an idle one a dummy batch
// so that it joins the MoE collectives: TensorRT-LLM's PyExecutor._pad_attention_dp_dummy_request (one dummy
// request), vLLM's DPEngineCoreProc.run_busy_loop -> execute_dummy_batch (one token), SGLang's
// prepare_mlp_sync_batch_raw -> get_idle_batch (an IDLE batch). Each busy replica attends to its own batch; the
// routed experts see the group's tokens as roofline::dp_group_tokens counts them (prefill: the tokens present, one
// per idle replica; decode: padded to the busiest replica unless that more than doubles them). The step lasts as
// long as the slowest replica's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "roofline/roofline_model.hpp"

namespace mfusim::simulate {

inline int64_t batch_tokens(const std::vector<mfusim_request>& batch) {
    int64_t tokens = 0;
    for (const mfusim_request& q : batch) tokens += q.new_tokens;
    return tokens;
}

// `replicas`: the worker's replicas, each with its step's requests in `batch` (empty: idle this step). 0 when
// every replica is idle.
template <class Replica>
double lockstep_step_us(const roofline::RooflineModel& model, const std::vector<Replica>& replicas) {
    if (replicas.size() == 1) {  // no group: dp_group_tokens leaves a lone replica no other tokens
        const Replica& r = replicas.front();
        return r.batch.empty() ? 0 : model.step_time_us(r.batch.data(), r.batch.size(), 0);
    }
    int64_t present = 0, busiest = 0, busy = 0;
    bool prefill = false;
    for (const Replica& r : replicas) {
        if (r.batch.empty()) continue;
        int64_t tokens = 0;  // batch_tokens, with the prefill test in the same pass
        for (const mfusim_request& q : r.batch) {
            tokens += q.new_tokens;
            prefill = prefill || q.new_tokens > 1;
        }
        present += tokens;
        busiest = std::max(busiest, tokens);
        ++busy;
    }
    if (busy == 0) return 0;
    const int64_t group =
        roofline::dp_group_tokens(prefill, present, busiest, busy, static_cast<int64_t>(replicas.size()));
    double duration = 0;
    for (const Replica& r : replicas) {
        if (r.batch.empty()) continue;
        const int64_t own = busy == 1 ? present : batch_tokens(r.batch);  // one busy replica holds them all
        duration = std::max(duration, model.step_time_us(r.batch.data(), r.batch.size(), group - own));
    }
    return duration;
}

}  // namespace mfusim::simulate
