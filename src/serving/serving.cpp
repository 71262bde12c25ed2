// docs/serving.md derives every line of this file.
#include "serving/serving.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/error.hpp"
#include "serving/step_mix.hpp"

namespace mfusim::serving {

namespace {

constexpr double kGiB = gpu::GpuProfile::kGiB;

void check(int64_t value, int64_t min, int64_t max, const char* name) {
    if (value < min || value > max) {
        throw Error(Status::invalid_argument, std::string("serving.") + name + " must be between " +
                                                  std::to_string(min) + " and " + std::to_string(max) + ", got " +
                                                  std::to_string(value));
    }
}

std::string gb(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / kGiB);
    return buf;
}

// What a scheduling regime gives: the steps it runs and the times a request sees.
struct Regime {
    double decodes = 0;            // requests decoding in a decode step
    double decodes_in_mixed = -1;  // in a mixed step, where it differs (waves: none)
    double decode_us = 0, mixed_us = 0, mixed_fraction = 0, chunks_per_mixed = 0, chunk_steps = 1;
    Chunk chunk;
    double tpot_us = 0;         // mean gap between a request's tokens after its first
    double first_token_us = 0;  // from admission to the first token, in steps
    double queue_us = 0;        // waiting for token budget, within first_token_us's steps or beyond
    double requests_per_us = 0;
    bool saturated = false;
};

// Speculative decoding (docs/speculative.md): a decode step advances a request by `accepted` tokens on average and
// takes `budget_tokens` (k + 1: the token and its drafts) of the step's token budget. 1 and 1 without it.
struct Advance {
    double accepted = 1, budget_tokens = 1;
};

// The attention-DP replicas that hold requests: fewer clients than replicas leave the others idle on the engines'
// dummy batch, so the routed experts see only the busy ones' tokens (docs/simulate.md, section 8). 0: all.
// `apart_replicas`: the replicas (all busy) whose prompts arrive independently of each other (drawn lengths), so
// they prefill in different steps; 0 where they prefill together (docs/serving.md, "Attention-DP replicas").
struct Group {
    int64_t busy_replicas = 0;
    int64_t apart_replicas = 0;
};

// Mixed batches (vLLM, TensorRT-LLM): staggered arrivals in steady state. A request spends half a step arriving,
// its chunk steps, then output - 1 decode steps; every step carries the running decodes plus the chunks of the
// prompts in prefill (docs/serving.md, "Mixed batches").
// `prefill_apart`: the engine runs prefill batches without the decodes (SGLang: mixed_batches off, answered here
// under drawn lengths), so the decodes take none of the prefill batch's token budget (SGLang's PrefillAdder counts
// only extend tokens against chunked_prefill_size and max_prefill_tokens, schedule_policy.py) and the prompts
// saturate it only when they alone exceed it (docs/simulate.md, "Closed form against simulation on unseen GPUs").
Regime steady_state(const roofline::RooflineModel& model, double in, double decode_steps, double running, double budget,
                    int64_t decode_context, Advance advance, Group group, bool prefill_apart) {
    Regime g;
    double rate = 0;  // requests started per step
    // A request's decode tokens in the budget.
    const double decode_budget = prefill_apart ? 0 : decode_steps * advance.budget_tokens;
    for (int iteration = 0; iteration < 32; ++iteration) {
        g.chunk = chunk_of(in, budget - (prefill_apart ? 0 : g.decodes * advance.budget_tokens));
        rate = running / (decode_steps + 0.5 + g.chunk.steps);
        g.saturated = rate * (in + decode_budget) > budget;
        if (g.saturated) rate = budget / (in + decode_budget);
        double next = rate * decode_steps;
        if (std::fabs(next - g.decodes) < 1e-9) break;
        g.decodes = next;
    }
    g.chunk_steps = g.chunk.steps;
    // Every step carries prefill once prompts overlap (rate * chunk steps >= 1), else that share of steps does.
    const double prompts_per_step = rate * g.chunk.steps;
    g.mixed_fraction = std::min(1.0, prompts_per_step);
    g.chunks_per_mixed = std::max(1.0, prompts_per_step);
    g.decode_us = step_us(model, g.decodes, decode_context, 0, 0, 0, 0, group.busy_replicas);
    g.mixed_us = step_us(model, g.decodes, decode_context, g.chunks_per_mixed, g.chunk.tokens, g.chunk.context,
                         g.chunks_per_mixed / g.chunk.steps, group.busy_replicas);
    double own_mixed_us = g.mixed_us;  // a step that holds this request's chunk
    if (group.apart_replicas > 1 && prompts_per_step < 1) {
        // Each of R replicas prefills in a share f of the steps, independently of the others; the lockstep group
        // step waits for any of them (docs/serving.md, "Attention-DP replicas"): 1 - (1 - f)^R of the steps
        // carry a chunk, R f / (that share) replicas' chunks each; a request's own chunk step carries the others'
        // (R - 1) f besides.
        const double f = prompts_per_step, replicas = static_cast<double>(group.apart_replicas);
        g.mixed_fraction = 1 - std::pow(1 - f, replicas);
        const double peers_any = replicas * f / g.mixed_fraction - 1, peers_own = (replicas - 1) * f;
        g.mixed_us = step_us(model, g.decodes, decode_context, 1, g.chunk.tokens, g.chunk.context, 1 / g.chunk.steps, 0,
                             peers_any);
        own_mixed_us = step_us(model, g.decodes, decode_context, 1, g.chunk.tokens, g.chunk.context, 1 / g.chunk.steps,
                               0, peers_own);
    }
    const double mean_us = g.mixed_fraction * g.mixed_us + (1 - g.mixed_fraction) * g.decode_us;
    g.tpot_us = mean_us / advance.accepted;
    if (g.saturated) {
        const double in_prefill = running - g.decodes;
        g.queue_us = std::max(0.0, in_prefill / rate - g.chunk.steps - 0.5) * mean_us;
    }
    g.first_token_us = 0.5 * mean_us + g.chunk.steps * own_mixed_us + g.queue_us;
    g.requests_per_us = rate / mean_us;
    return g;
}

// Prefill-first without mixed batches (SGLang): the running requests move in waves. A wave prefills every prompt
// in batches of the token budget (nothing decodes meanwhile), then decodes them together output - 1 times; the
// j-th of n prefill batches releases its prompts' first tokens, which then wait for the remaining batches.
Regime waves(const roofline::RooflineModel& model, double in, double decode_steps, double running, double budget,
             int64_t decode_context, Advance advance, Group group) {
    Regime g;
    g.chunk = chunk_of(in, budget);
    const double prompts_per_batch =
        std::max(1.0, std::min(running, std::floor(budget / static_cast<double>(g.chunk.tokens))));
    const double batches = std::ceil(running * g.chunk.steps / prompts_per_batch);
    g.decodes = running;
    g.decodes_in_mixed = 0;
    g.chunk_steps = g.chunk.steps;
    g.chunks_per_mixed = prompts_per_batch;
    g.decode_us = step_us(model, running, decode_context, 0, 0, 0, 0, group.busy_replicas);
    g.mixed_us = step_us(model, 0, 0, prompts_per_batch, g.chunk.tokens, g.chunk.context,
                         prompts_per_batch / g.chunk.steps, group.busy_replicas);
    const double prefill_us = batches * g.mixed_us;
    const double cycle_us = prefill_us + decode_steps * g.decode_us;
    g.mixed_fraction = batches / (batches + decode_steps);
    // A prompt's first token comes after (batches + 1) / 2 batches on average (its own last chunk included), then
    // waits (batches - 1) / 2 batches before the wave decodes.
    g.first_token_us = (batches + 1) / 2 * g.mixed_us;
    g.queue_us = std::max(0.0, (batches + 1) / 2 - g.chunk.steps) * g.mixed_us;
    // Per token: the wave's decode steps over the tokens they make, plus the wait for the wave's prefill.
    const double tokens = decode_steps * advance.accepted;
    g.tpot_us = decode_steps > 0 ? g.decode_us / advance.accepted + (batches - 1) / 2 * g.mixed_us / tokens : 0;
    g.requests_per_us = running / cycle_us;
    g.saturated = batches > g.chunk.steps;
    return g;
}

}  // namespace

void refuse_unchunked_prompt(int64_t prompt_tokens, int64_t budget, std::string_view request, int64_t index) {
    if (prompt_tokens <= budget) return;
    throw Error(Status::unsupported,
                std::string(request) + (index >= 0 ? " " + std::to_string(index) : std::string()) + ": its " +
                    std::to_string(prompt_tokens) + " prompt tokens exceed the token budget max_batched_tokens " +
                    std::to_string(budget) +
                    " of an engine that takes prompts whole, which refuses such a request (TensorRT-LLM: \"should not "
                    "exceed max_num_tokens\"); raise max_batched_tokens or turn chunked prefill on");
}

namespace {

// What the weights and the engine's activation reserve hold on each GPU.
double held_bytes(const roofline::RooflineModel& model) {
    return model.memory().weight_bytes + model.engine().activation_reserve_gb * gpu::GpuProfile::kGiB;
}

}  // namespace

double cache_space_bytes(const roofline::RooflineModel& model, double utilization) {
    const double memory = model.gpu().memory_bytes(), held = held_bytes(model);
    // TensorRT-LLM's share is of what the weights and activations leave (EngineProfile::memory_share_of_free).
    if (model.engine().memory_share_of_free > 0) return utilization * (memory - held);
    return memory * utilization - held;
}

double usable_bytes(const roofline::RooflineModel& model, double utilization) {
    return held_bytes(model) + cache_space_bytes(model, utilization);
}

double held_request_bytes(const engines::EngineProfile& engine, const roofline::MemoryFacts& memory, double input,
                          double output) {
    const bool reserves_whole_request = engine.scheduler == engines::SchedulerPolicy::trtllm;
    return memory.request_bytes(reserves_whole_request ? input + output : input + output / 2);
}

double shortest_drawn_length(double length, double ratio) {
    return std::max(1.0, std::floor(ratio * length));
}

void check_min_length_ratio(double ratio) {
    if (!(ratio > 0 && ratio <= 1)) {
        throw Error(Status::invalid_argument,
                    "serving.min_length_ratio must be above 0 and at most 1, got " + std::to_string(ratio));
    }
}

void estimate(const roofline::RooflineModel& model, const Workload& wl, mfusim_serving_result& out,
              mfusim_step_result* decode_detail, mfusim_step_result* mixed_detail) {
    const engines::EngineProfile& engine = model.engine();
    const roofline::MemoryFacts& mem = model.memory();
    check(wl.input_len, 1, int64_t{1} << 24, "input_len");
    check(wl.output_len, 1, int64_t{1} << 24, "output_len");
    check(wl.concurrency, 1, int64_t{1} << 20, "concurrency");
    check(wl.max_batched_tokens, 0, int64_t{1} << 24, "max_batched_tokens");
    check(wl.max_seqs, 0, int64_t{1} << 20, "max_seqs");
    if (!(wl.requests_per_client == 0 || (wl.requests_per_client >= 1 && wl.requests_per_client <= 1e9))) {
        throw Error(Status::invalid_argument,
                    "serving.requests_per_client must be 0 (steady state) or between 1 and "
                    "1e9, got " +
                        std::to_string(wl.requests_per_client));
    }
    check_min_length_ratio(wl.min_length_ratio);
    if (!(wl.gpu_memory_utilization >= 0 && wl.gpu_memory_utilization <= 1)) {
        throw Error(Status::invalid_argument, "serving.gpu_memory_utilization must be between 0 and 1, got " +
                                                  std::to_string(wl.gpu_memory_utilization));
    }
    const double budget =
        static_cast<double>(wl.max_batched_tokens > 0 ? wl.max_batched_tokens : engine.max_batched_tokens);
    const double max_seqs = static_cast<double>(wl.max_seqs > 0 ? wl.max_seqs : engine.max_seqs);
    const double util = wl.gpu_memory_utilization > 0 ? wl.gpu_memory_utilization : engine.gpu_memory_utilization;
    const double in = static_cast<double>(wl.input_len), osl = static_cast<double>(wl.output_len);
    const double replicas = static_cast<double>(mem.replicas);
    if (budget < 1) throw Error(Status::invalid_argument, "serving.max_batched_tokens: the engine has no default");
    if (!engine.chunked_prefill) refuse_unchunked_prompt(wl.input_len, static_cast<int64_t>(budget), "the prompt");
    // No running request at all would divide the throughput by zero (TTFT NaN).
    if (max_seqs < 1) throw Error(Status::invalid_argument, "serving.max_seqs: the engine has no default");

    // Memory: the KV cache is what the engine may use beyond the weights and its activation reserve.
    const double kv_space = cache_space_bytes(model, util);
    if (kv_space <= 0) {
        const double usable = model.gpu().memory_bytes() * util, reserve = engine.activation_reserve_gb * kGiB;
        throw Error(Status::config, "the weights take " + gb(mem.weight_bytes) + " per GPU and the engine reserves " +
                                        gb(reserve) + ", more than the " + gb(usable) + " it may use (" +
                                        std::to_string(util) + " of " + model.gpu().name +
                                        "): use more GPUs (tensor_parallel, expert_parallel) or smaller weights");
    }
    // Tokens of context the cache holds for requests of this workload's mean size: windowed layers (sliding,
    // chunked attention) hold at most their window per request and recurrent layers a fixed state, so capacity
    // depends on the request size.
    const double mean_context = in + osl / 2;
    const double mean_request_bytes = mem.request_bytes(mean_context);
    const double kv_tokens = mean_request_bytes > 0 ? kv_space / mean_request_bytes * mean_context : 1e18;
    if (mem.request_bytes(in + osl) > kv_space) {
        throw Error(Status::unsupported, "the KV cache holds " + std::to_string(static_cast<int64_t>(kv_tokens)) +
                                             " tokens per GPU, fewer than one request's " +
                                             std::to_string(wl.input_len + wl.output_len));
    }

    // Admission: clients spread over the attention replicas, which step in lockstep through the expert-parallel
    // all-to-alls, so the busiest replica (ceil) sets the pace; a running request holds on average its prompt and
    // half its output in the KV cache, or its whole length where the engine reserves it at admission
    // (held_request_bytes).
    const double clients = std::ceil(static_cast<double>(wl.concurrency) / replicas);
    // Each request holds (or reserves) its own lengths, so under drawn lengths the cache holds their mean.
    auto drawn_mean = [&](double stated) {
        return wl.min_length_ratio < 1 ? (shortest_drawn_length(stated, wl.min_length_ratio) + stated) / 2 : stated;
    };
    const double held_bytes = held_request_bytes(engine, mem, drawn_mean(in), drawn_mean(osl));
    const double kv_requests = std::max(1.0, held_bytes > 0 ? std::floor(kv_space / held_bytes) : 1e18);
    double running = std::min({clients, max_seqs, kv_requests});
    mfusim_serving_limit limit = MFUSIM_SERVING_LIMIT_NONE;
    if (running < clients)
        limit = running == kv_requests ? MFUSIM_SERVING_LIMIT_KV_CAPACITY : MFUSIM_SERVING_LIMIT_MAX_SEQS;

    const double decode_steps = osl - 1;  // decode tokens; steps without speculative decoding
    const auto decode_context = static_cast<int64_t>(in + decode_steps / 2);
    const query::Speculation& spec = model.speculation();
    const Advance advance{spec.tokens_per_step(), spec.active() ? static_cast<double>(spec.tokens + 1) : 1.0};
    const double steps = decode_steps / advance.accepted;
    // Replicas with every client's lengths the same run the same schedule step for step (they start together,
    // the router deals the clients out evenly and the lockstep steps last alike), so they prefill together;
    // drawn lengths set each replica's arrivals apart, unless the engine holds every rank's contexts until all
    // ranks have one and starts them together (TensorRT-LLM's attention-DP balancing, EngineProfile::
    // attention_dp_balance; simulate/adp_balance.hpp).
    const bool all_busy = wl.concurrency >= mem.replicas;
    const bool apart = all_busy && wl.min_length_ratio < 1 && !engine.attention_dp_balance;
    const Group group{all_busy ? 0 : wl.concurrency, apart ? mem.replicas : 0};
    // Clients stay in lockstep waves only where the engine keeps prefill and decode apart and every request has
    // the same lengths; drawn lengths spread their finishes, so their next prompts arrive staggered.
    const bool staggered = engine.mixed_batches || wl.min_length_ratio < 1;
    Regime g = staggered ? steady_state(model, in, steps, running, budget, decode_context, advance, group,
                                        !engine.mixed_batches)
                         : waves(model, in, steps, running, budget, decode_context, advance, group);
    // A measurement of k requests per client begins with every client arriving at once: its first wave is the
    // wave regime whatever the engine, and weighs 1/k in the means.
    if (staggered && wl.requests_per_client >= 1) {
        const Regime first = waves(model, in, steps, running, budget, decode_context, advance, group);
        const double k = wl.requests_per_client;
        g.first_token_us = (first.first_token_us + (k - 1) * g.first_token_us) / k;
        g.queue_us = (first.queue_us + (k - 1) * g.queue_us) / k;
        g.tpot_us = (first.tpot_us + (k - 1) * g.tpot_us) / k;
    }
    if (g.saturated && limit == MFUSIM_SERVING_LIMIT_NONE) limit = MFUSIM_SERVING_LIMIT_TOKEN_BUDGET;

    // Clients beyond the running requests wait for a slot (Little's law over the running ones' throughput).
    const double requests_per_us = g.requests_per_us;
    const double slot_wait_us = running < clients ? (clients - running) / requests_per_us : 0;
    const double queue_us = g.queue_us + slot_wait_us;
    // Outside the steps: admission, tokenisation, the first token out.
    const double ttft_us =
        engine.admission_us + engine.input_token_us * in + engine.output_token_us + g.first_token_us + slot_wait_us;

    mfusim_serving_result r{};
    r.struct_size = out.struct_size;
    r.ttft_ms = ttft_us / 1000;
    r.tpot_ms = (osl > 1 ? g.tpot_us : 0) / 1000;
    r.e2e_ms = r.ttft_ms + decode_steps * r.tpot_ms;
    r.request_throughput_req_s = replicas * requests_per_us * 1e6;
    r.output_throughput_tok_s_gpu = r.request_throughput_req_s * osl / static_cast<double>(mem.gpus);
    r.decode_step_ms = g.decode_us / 1000;
    r.mixed_step_ms = g.mixed_us / 1000;
    r.mixed_step_fraction = g.mixed_fraction;
    r.decode_batch = g.decodes;
    r.prefill_tokens_per_mixed_step = g.chunks_per_mixed * static_cast<double>(g.chunk.tokens);
    r.prefill_steps_per_request = g.chunk_steps;
    r.queue_ms = queue_us / 1000;
    r.running_requests = running;
    r.kv_capacity_tokens = std::min(kv_tokens, 1e15);
    r.limited_by = limit;
    out = r;

    auto detail = [&](mfusim_step_result* d, double chunks) {
        if (!d) return;
        roofline::StepMix mix;
        mix.decodes =
            static_cast<int64_t>(std::llround(g.decodes_in_mixed >= 0 && chunks > 0 ? g.decodes_in_mixed : g.decodes));
        mix.decode_context = decode_context;
        mix.chunks = static_cast<int64_t>(std::llround(chunks));
        mix.chunk_tokens = g.chunk.tokens;
        mix.chunk_context = g.chunk.context;
        mix.first_chunks = static_cast<int64_t>(std::llround(chunks / g.chunk_steps));
        mix.busy_replicas = group.busy_replicas;
        model.mix_time_us(mix, d);
    };
    detail(decode_detail, 0);
    detail(mixed_detail, g.chunks_per_mixed);
}

}  // namespace mfusim::serving
