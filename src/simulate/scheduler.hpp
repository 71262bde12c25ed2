// The schedulers of the engines, as named policies (docs/simulate.md, "Schedulers"): which requests run in the
// next step and how many tokens each computes. Each follows its engine's source:
// - vllm-v1: vllm/v1/core/sched/scheduler.py. Running requests first, in order, then waiting ones (FCFS) within
//   the token budget and max_num_seqs; chunked prefill; when blocks run out the last running request is
//   preempted and recomputed later, and no waiting request is admitted in that step.
// - sglang: sglang/srt/managers/scheduler.py and schedule_policy.py (PrefillAdder). A prefill batch runs whenever
//   one can be formed, alone (mixed chunks off, the default), within chunked_prefill_size and max_prefill_tokens
//   and with KV room for its prompts and whole outputs plus new_token_ratio of every running request's remaining
//   output (each output clipped at CLIP_MAX_NEW_TOKENS); otherwise
//   the running requests decode. The ratio decays per decode step; a retraction re-estimates it from the requests
//   left running.
// - trtllm: tensorrt_llm batch_manager capacityScheduler (GUARANTEED_NO_EVICT: a request is admitted only when
//   blocks for its whole prompt and output are free) and microBatchScheduler (generation requests first, then
//   context chunks within max_num_tokens). Nothing is ever preempted. `trtllm-max-utilization` is its
//   MAX_UTILIZATION capacity policy: admission while the prompt's blocks are free, the newest request paused
//   (recomputed later) when a generation request cannot grow. With batch waiting on (batch_wait_timeout_iters,
//   off by default), context requests wait while generation runs (PyExecutor._waiting_requests). Its overlap
//   scheduler (which batch a request can join) is the simulation loop's, not the policy's: simulator.cpp, Run::run.
#pragma once

#include <mfusim.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "engines/engine_profile.hpp"
#include "simulate/kv_pool.hpp"

namespace mfusim::simulate {

using Policy = engines::SchedulerPolicy;

struct SchedulerConfig {
    Policy policy = Policy::vllm_v1;
    int64_t max_batched_tokens = 8192;  // vLLM max_num_batched_tokens, SGLang chunked_prefill_size, TRT max_num_tokens
    int64_t max_seqs = 1024;            // vLLM max_num_seqs, SGLang max_running_requests, TRT max_batch_size
    int64_t block_tokens = 16;          // KV block (page) size in tokens
    int64_t long_prefill_token_threshold = 0;  // vLLM: most tokens one prefill chunk computes per step (0: no cap)
    bool chunked_prefill = true;
    bool prefix_caching = true;
    double gpu_memory_utilization = 0.9;
    // SGLang's PrefillAdder (sglang/srt/managers/scheduler.py, global constants of 0.4-0.5).
    int64_t max_prefill_tokens = 16384;
    double init_new_token_ratio = 0.7;
    double min_new_token_ratio = 0.098;                  // 0.7 x SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14
    double new_token_ratio_decay = (0.7 - 0.098) / 600;  // over SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS 600
    int64_t clip_max_new_tokens = 4096;
    // After a retraction the ratio is re-estimated from the requests left running (ScheduleBatch.retract_decode,
    // NewTokenRatioTracker.estimate_new_token_ratio_after_retract): their decoded tokens plus this many steps each,
    // over their max_new_tokens, at most 1 (SGLANG_RETRACT_DECODE_STEPS).
    int64_t retract_decode_steps = 20;
    // TensorRT-LLM's batch waiting (PyExecutor._waiting_requests; the profile's fields of the same names). The
    // simulator turns it off under attention DP, as PyExecutor._schedule does.
    int64_t batch_wait_timeout_iters = 0;
    double batch_wait_max_tokens_ratio = 0;
    // Speculative decoding (docs/speculative.md), set from the model: a decode computes its token and its
    // `draft_tokens` drafts (budget and KV slots, as vLLM's scheduler counts num_tokens_with_spec) and advances by
    // `accepted_per_step` tokens on average.
    int64_t draft_tokens = 0;
    double accepted_per_step = 1;
};

// The engine's scheduler and its defaults (the profile's token budget, sequence limit and memory share).
SchedulerConfig scheduler_config(const engines::EngineProfile& engine);

// One request inside the engine.
struct Sequence {
    int64_t prompt = 0, output = 0;  // tokens
    int64_t computed = 0;            // tokens in the KV cache (vLLM num_computed_tokens)
    int64_t generated = 0;           // output tokens produced
    int64_t prefix_id = -1, prefix_len = 0;
    int64_t preemptions = 0;
    // Speculative decoding: the fraction of an accepted token carried to the next step, so that a request gains
    // floor(credit + accepted) tokens a step and exactly `accepted` on average, deterministically.
    double accepted_credit = 0;
    KvHolding kv;
    // Tokens still to compute before the next output token: the prompt (and, after a preemption, the outputs so
    // far) in chunks, then one per decode.
    int64_t remaining() const { return prompt + generated - computed; }
    // Past its first token with one token to compute: a decode.
    bool decoding() const { return generated > 0 && remaining() == 1; }
};

// Output tokens a decode gains in one verify step under speculative decoding: floor(credit + accepted), at least
// one and at most `remaining`; `credit` keeps the fraction for the next step, so a request gains exactly
// `accepted` tokens a step on average, deterministically. Both simulators advance their decodes by it.
inline int64_t accepted_tokens(double& credit, double accepted, int64_t remaining) {
    const double sum = credit + accepted;
    const auto whole = static_cast<int64_t>(sum);
    credit = sum - static_cast<double>(whole);
    return std::clamp<int64_t>(whole, 1, remaining);
}

// One request's part of a step.
struct Scheduled {
    std::size_t seq = 0;  // index into the simulation's sequences
    int64_t tokens = 0;
};

class Scheduler {
  public:
    Scheduler(const SchedulerConfig& config, const roofline::MemoryFacts& memory, double cache_bytes);

    void enqueue(std::size_t seq) { waiting_.push_back(seq); }
    // Fills `step` with the next step (cleared first); empty when nothing can run.
    void schedule(std::vector<Sequence>& seqs, std::vector<Scheduled>& step);
    // Applies a step that ran: computed tokens, outputs, prefixes cached. Finished sequences leave the running set
    // and are appended to `finished`; those that produced a token to `produced`.
    void complete(std::vector<Sequence>& seqs, const std::vector<Scheduled>& step, std::vector<std::size_t>& produced,
                  std::vector<std::size_t>& finished);

    std::size_t running() const { return running_.size(); }
    std::size_t waiting() const { return waiting_.size(); }
    bool idle() const { return running_.empty() && waiting_.empty(); }
    double kv_used_fraction() const { return pool_.used_fraction(); }
    int64_t preemptions() const { return preemptions_; }
    double new_token_ratio() const { return new_token_ratio_; }  // SGLang's admission reserve (policy sglang)
    int64_t prefix_hit_tokens() const { return pool_.hit_tokens(); }
    // Removes the step's context (prefill) parts, which then wait for a later step with their blocks kept: what
    // TensorRT-LLM's batch waiting and attention-DP balancing do to the scheduled context requests.
    static void hold_contexts(const std::vector<Sequence>& seqs, std::vector<Scheduled>& step);
    // Why nothing can run although requests wait (a request larger than the whole cache): "" when it can.
    std::string stuck_reason(const std::vector<Sequence>& seqs) const;

  private:
    void schedule_vllm(std::vector<Sequence>& seqs, std::vector<Scheduled>& step);
    void schedule_sglang(std::vector<Sequence>& seqs, std::vector<Scheduled>& step);
    void schedule_trtllm(std::vector<Sequence>& seqs, std::vector<Scheduled>& step);
    void wait_for_batch(const std::vector<Sequence>& seqs, std::vector<Scheduled>& step);
    void admit_prefix(Sequence& s);
    void preempt(std::vector<Sequence>& seqs, std::size_t seq);
    bool grow_or_preempt(std::vector<Sequence>& seqs, std::size_t seq, int64_t tokens);
    int64_t chunk_cap(int64_t tokens, int64_t budget) const;

    SchedulerConfig config_;
    KvPool pool_;
    std::deque<std::size_t> waiting_;
    std::vector<std::size_t> running_;  // admission order
    double new_token_ratio_;
    int64_t preemptions_ = 0;
    int64_t batch_wait_iters_ = 0;  // PyExecutor.batch_wait_iters_count
};

}  // namespace mfusim::simulate
