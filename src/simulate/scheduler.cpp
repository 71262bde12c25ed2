#include "simulate/scheduler.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace mfusim::simulate {

SchedulerConfig scheduler_config(const engines::EngineProfile& engine) {
    SchedulerConfig c;
    c.policy = engine.scheduler;
    c.max_batched_tokens = engine.max_batched_tokens > 0 ? engine.max_batched_tokens : 8192;
    c.max_seqs = engine.max_seqs > 0 ? engine.max_seqs : 1024;
    c.block_tokens = engine.kv_block_tokens > 0 ? engine.kv_block_tokens : 16;
    c.gpu_memory_utilization = engine.gpu_memory_utilization > 0 ? engine.gpu_memory_utilization : 0.9;
    c.batch_wait_timeout_iters = engine.batch_wait_timeout_iters;
    c.batch_wait_max_tokens_ratio = engine.batch_wait_max_tokens_ratio;
    c.chunked_prefill = engine.chunked_prefill;
    return c;
}

Scheduler::Scheduler(const SchedulerConfig& config, const roofline::MemoryFacts& memory, double cache_bytes)
    : config_(config),
      pool_(memory, cache_bytes, config.block_tokens, config.prefix_caching),
      new_token_ratio_(config.init_new_token_ratio) {}

int64_t Scheduler::chunk_cap(int64_t tokens, int64_t budget) const {
    int64_t n = std::min(tokens, budget);
    if (config_.long_prefill_token_threshold > 0) n = std::min(n, config_.long_prefill_token_threshold);
    return n;
}

void Scheduler::admit_prefix(Sequence& s) {
    if (s.computed == 0 && s.generated == 0 && s.kv.tokens == 0) {
        s.computed = pool_.reuse(s.kv, s.prefix_id, s.prefix_len, s.prompt);
    }
}

// The request goes back to the front of the waiting queue with its blocks freed; it recomputes its prompt and
// outputs so far when admitted again (vLLM V1 preempts by recompute; SGLang retracts the same way).
void Scheduler::preempt(std::vector<Sequence>& seqs, std::size_t seq) {
    Sequence& s = seqs[seq];
    pool_.release(s.kv);
    s.computed = 0;
    ++s.preemptions;
    ++preemptions_;
    waiting_.push_front(seq);
}

// Grows `seq`'s blocks to `tokens`, preempting the newest running requests until they fit; false when `seq` was
// itself the newest and is preempted (every policy that preempts picks its victims this way).
bool Scheduler::grow_or_preempt(std::vector<Sequence>& seqs, std::size_t seq, int64_t tokens) {
    while (!pool_.grow(seqs[seq].kv, tokens)) {
        const std::size_t victim = running_.back();
        running_.pop_back();
        preempt(seqs, victim);
        if (victim == seq) return false;
    }
    return true;
}

void Scheduler::schedule(std::vector<Sequence>& seqs, std::vector<Scheduled>& step) {
    step.clear();
    switch (config_.policy) {
        case Policy::vllm_v1:
            schedule_vllm(seqs, step);
            break;
        case Policy::sglang:
            schedule_sglang(seqs, step);
            break;
        case Policy::trtllm:
        case Policy::trtllm_max_utilization:
            schedule_trtllm(seqs, step);
            break;
    }
}

void Scheduler::schedule_vllm(std::vector<Sequence>& seqs, std::vector<Scheduled>& step) {
    int64_t budget = config_.max_batched_tokens;
    const int64_t preempted_before = preemptions_;
    // Running requests first, in order; when one cannot get its blocks the last running one is preempted.
    for (std::size_t i = 0; i < running_.size() && budget > 0;) {
        const std::size_t seq = running_[i];
        Sequence& s = seqs[seq];
        const int64_t n = chunk_cap(s.remaining(), budget);
        // Verified with the decode (the test is skipped without drafts: it is on every request of every step).
        const int64_t drafts = config_.draft_tokens > 0 && s.decoding() ? config_.draft_tokens : 0;
        if (!grow_or_preempt(seqs, seq, s.computed + n + drafts)) break;  // KvPool::grow: inline when it fits
        step.push_back({seq, n});
        budget -= n + drafts;
        ++i;
    }
    if (preemptions_ > preempted_before) return;  // no waiting request is admitted in a step that preempted
    while (!waiting_.empty() && static_cast<int64_t>(running_.size()) < config_.max_seqs && budget > 0) {
        const std::size_t seq = waiting_.front();
        Sequence& s = seqs[seq];
        admit_prefix(s);
        if (!config_.chunked_prefill && s.remaining() > budget) break;
        const int64_t n = chunk_cap(s.remaining(), budget);
        if (!pool_.grow(s.kv, s.computed + n)) break;
        waiting_.pop_front();
        running_.push_back(seq);
        step.push_back({seq, n});
        budget -= n;
    }
}

void Scheduler::schedule_sglang(std::vector<Sequence>& seqs, std::vector<Scheduled>& step) {
    // A prefill batch first: the request in chunked prefill, then waiting ones, while the chunk and prefill token
    // budgets and the KV room (less the running requests' reserved outputs) allow.
    // PrefillAdder (schedule_policy.py): a running request holds new_token_ratio of its remaining output
    // (_get_running_request_total_token_offset); a request admitted into this batch holds the whole of it
    // (add_one_req: total_tokens = extend_input_len + min(max_new_tokens - outputs, CLIP_MAX_NEW_TOKENS), refused
    // with NO_TOKEN unless below rem_total_tokens, then charged whole by _update_prefill_budget).
    double reserved = 0;
    auto reserve = [&](const Sequence& s, double ratio) {
        const int64_t left = std::min(s.output - s.generated, config_.clip_max_new_tokens);
        const int64_t tokens = s.prompt + s.generated + static_cast<int64_t>(static_cast<double>(left) * ratio);
        return std::max(0.0, pool_.growth_bytes(s.kv, tokens - s.kv.tokens));
    };
    for (std::size_t seq : running_) reserved += reserve(seqs[seq], new_token_ratio_);
    double room = pool_.free_bytes() + pool_.evictable_bytes() - reserved;
    int64_t chunk_left = config_.max_batched_tokens, input_left = config_.max_prefill_tokens;
    auto try_add = [&](std::size_t seq, bool admitted) {
        Sequence& s = seqs[seq];
        // The request already in chunked prefill continues without a new check (PrefillAdder.add_chunked_req).
        const double need = admitted ? 0 : (admit_prefix(s), reserve(s, 1.0));
        if (need > room) return false;
        int64_t n = s.remaining();
        const bool chunked = n > chunk_left;
        if (chunked && !config_.chunked_prefill) return false;
        if (chunked) n = chunk_left;
        if (!pool_.grow(s.kv, s.computed + n)) return false;
        step.push_back({seq, n});
        room -= need;
        chunk_left -= n;
        input_left -= n;
        return !chunked;
    };
    bool more = true;  // false once a prompt is cut into a chunk: it fills the batch
    for (std::size_t seq : running_) {
        if (more && seqs[seq].remaining() > 1) more = try_add(seq, true);
    }
    while (more && !waiting_.empty() && chunk_left > 0 && input_left > 0 &&
           static_cast<int64_t>(running_.size()) < config_.max_seqs) {
        const std::size_t seq = waiting_.front();
        const std::size_t before = step.size();
        const bool whole = try_add(seq, false);
        if (step.size() == before) break;
        waiting_.pop_front();
        running_.push_back(seq);
        more = whole;
    }
    if (!step.empty()) return;
    // Otherwise the running requests decode; one that cannot get room retracts the newest request.
    const int64_t before = preemptions_;
    for (std::size_t i = 0; i < running_.size(); ++i) {
        const std::size_t seq = running_[i];
        Sequence& s = seqs[seq];
        if (s.remaining() != 1) continue;  // a prompt in chunked prefill that found no room: it waits
        if (!grow_or_preempt(seqs, seq, s.computed + 1 + config_.draft_tokens)) break;
        step.push_back({seq, 1});
    }
    // Scheduler.update_running_batch: after a retraction the ratio is re-estimated from the requests left running
    // (their outputs so far plus retract_decode_steps each, over their max_new_tokens, at most 1), else it decays.
    if (preemptions_ > before) {
        double decoded = 0, max_new = 1;
        for (std::size_t seq : running_) {
            decoded += static_cast<double>(seqs[seq].generated + config_.retract_decode_steps);
            max_new += static_cast<double>(seqs[seq].output);
        }
        new_token_ratio_ = std::min(1.0, decoded / max_new);
    } else {
        new_token_ratio_ = std::max(config_.min_new_token_ratio, new_token_ratio_ - config_.new_token_ratio_decay);
    }
}

void Scheduler::schedule_trtllm(std::vector<Sequence>& seqs, std::vector<Scheduled>& step) {
    // Capacity scheduler. GUARANTEED_NO_EVICT admits in order while blocks for the whole request are free, so
    // nothing is ever evicted; MAX_UTILIZATION admits while the prompt's blocks are free and pauses the newest
    // running request (its blocks freed, recomputed later) when a generation request cannot grow.
    const bool no_evict = config_.policy == Policy::trtllm;
    while (!waiting_.empty() && static_cast<int64_t>(running_.size()) < config_.max_seqs) {
        const std::size_t seq = waiting_.front();
        Sequence& s = seqs[seq];
        admit_prefix(s);
        if (!pool_.grow(s.kv, no_evict ? s.prompt + s.output : s.prompt + s.generated)) break;
        waiting_.pop_front();
        running_.push_back(seq);
    }
    // Micro-batch scheduler: generation requests, then context chunks in order within max_num_tokens; a chunk that
    // is not a prompt's last is a multiple of the block size.
    int64_t budget = config_.max_batched_tokens;
    for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
        const std::size_t seq = running_[i];
        Sequence& s = seqs[seq];
        if (!s.decoding()) continue;
        // Never preempts under GUARANTEED_NO_EVICT: the blocks were reserved at admission.
        if (!grow_or_preempt(seqs, seq, s.computed + 1 + config_.draft_tokens)) break;
        step.push_back({seq, 1});
        budget -= 1 + config_.draft_tokens;
    }
    for (std::size_t seq : running_) {
        const Sequence& s = seqs[seq];
        if (s.decoding() || budget <= 0) continue;
        int64_t n = std::min(s.remaining(), budget);
        if (n < s.remaining()) {
            if (!config_.chunked_prefill) continue;
            n = n / config_.block_tokens * config_.block_tokens;
            if (n <= 0) continue;
        }
        step.push_back({seq, n});
        budget -= n;
    }
    wait_for_batch(seqs, step);
}

// TensorRT-LLM's batch waiting (tensorrt_llm/_torch/pyexecutor/py_executor.py, PyExecutor._schedule and
// _waiting_requests): when a step has both context and generation requests, its context requests are held back
// unless the held iterations reached batch_wait_timeout_iters or the step's tokens (each context request's whole
// prompt, one per generation request and its drafts) reach batch_wait_max_tokens_ratio x max_num_tokens. The
// count of held iterations restarts when the context requests go. As in the engine, a ratio without a timeout
// never holds (the count is always at least 0).
void Scheduler::wait_for_batch(const std::vector<Sequence>& seqs, std::vector<Scheduled>& step) {
    if (config_.batch_wait_timeout_iters <= 0 && config_.batch_wait_max_tokens_ratio <= 0) return;
    int64_t context_tokens = 0, generation_tokens = 0;
    bool context = false;
    for (const Scheduled& part : step) {
        const Sequence& s = seqs[part.seq];
        if (s.decoding()) {
            generation_tokens += 1 + config_.draft_tokens;
        } else {
            context = true;
            context_tokens += s.prompt + s.generated;
        }
    }
    if (!context || generation_tokens == 0) return;
    const double tokens = static_cast<double>(context_tokens + generation_tokens);
    if (batch_wait_iters_ >= config_.batch_wait_timeout_iters ||
        tokens >= config_.batch_wait_max_tokens_ratio * static_cast<double>(config_.max_batched_tokens)) {
        batch_wait_iters_ = 0;
        return;
    }
    ++batch_wait_iters_;
    hold_contexts(seqs, step);
}

void Scheduler::hold_contexts(const std::vector<Sequence>& seqs, std::vector<Scheduled>& step) {
    std::erase_if(step, [&](const Scheduled& part) { return !seqs[part.seq].decoding(); });
}

void Scheduler::complete(std::vector<Sequence>& seqs, const std::vector<Scheduled>& step,
                         std::vector<std::size_t>& produced, std::vector<std::size_t>& finished) {
    for (const Scheduled& part : step) {
        Sequence& s = seqs[part.seq];
        const bool outputs = part.tokens == s.remaining();
        // A decode under speculative decoding keeps its accepted drafts too: they join the KV cache (their slots
        // were taken when it was scheduled) and the output.
        int64_t gained = 1;
        if (config_.draft_tokens > 0 && s.decoding()) {
            gained = accepted_tokens(s.accepted_credit, config_.accepted_per_step, s.output - s.generated);
        }
        s.computed += part.tokens + gained - 1;
        pool_.publish(s.kv, s.prefix_id, s.prefix_len, s.computed);
        if (!outputs) continue;
        s.generated += gained;
        if (gained == 1) {  // every plain decode: one push, not a counted loop
            produced.push_back(part.seq);
        } else {
            produced.insert(produced.end(), static_cast<std::size_t>(gained), part.seq);
        }
        if (s.generated >= s.output) {
            pool_.release(s.kv);
            finished.push_back(part.seq);
        }
    }
    if (!finished.empty()) {
        std::erase_if(running_, [&](std::size_t seq) { return seqs[seq].generated >= seqs[seq].output; });
    }
}

std::string Scheduler::stuck_reason(const std::vector<Sequence>& seqs) const {
    if (!running_.empty() || waiting_.empty()) return "";
    const Sequence& s = seqs[waiting_.front()];
    return "a request of " + std::to_string(s.prompt) + " prompt and " + std::to_string(s.output) +
           " output tokens cannot get KV cache room even with nothing else running";
}

}  // namespace mfusim::simulate
