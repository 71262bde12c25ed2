// docs/serving.md derives every line of this file.
#include "serving/serving.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/error.hpp"

namespace mfusim::serving {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

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

// Step time with fractional counts of decodes and chunks: linear between the integer compositions around them
// (a step's time is piecewise smooth in both; the serving model's counts are means).
double step_us(const roofline::RooflineModel& model, double decodes, int64_t decode_context, double chunks,
               int64_t chunk_tokens, int64_t chunk_context) {
    auto at = [&](int64_t d, int64_t c) {
        roofline::StepMix mix;
        mix.decodes = d;
        mix.decode_context = decode_context;
        mix.chunks = c;
        mix.chunk_tokens = chunk_tokens;
        mix.chunk_context = chunk_context;
        return model.mix_time_us(mix);
    };
    const double d0 = std::floor(decodes), c0 = std::floor(chunks);
    const double fd = decodes - d0, fc = chunks - c0;
    const auto di = static_cast<int64_t>(d0), ci = static_cast<int64_t>(c0);
    double low = at(di, ci), t = low;
    if (fd > 0) t += fd * (at(di + 1, ci) - low);
    if (fc > 0) t += fc * (at(di, ci + 1) - low);
    return t;
}

}  // namespace

void estimate(const roofline::RooflineModel& model, const Workload& wl, mfusim_serving_result& out,
              mfusim_step_result* decode_detail, mfusim_step_result* mixed_detail) {
    const engines::EngineProfile& engine = model.engine();
    const roofline::MemoryFacts& mem = model.memory();
    check(wl.input_len, 1, int64_t{1} << 24, "input_len");
    check(wl.output_len, 1, int64_t{1} << 24, "output_len");
    check(wl.concurrency, 1, int64_t{1} << 20, "concurrency");
    check(wl.max_batched_tokens, 0, int64_t{1} << 24, "max_batched_tokens");
    check(wl.max_seqs, 0, int64_t{1} << 20, "max_seqs");
    if (!(wl.gpu_memory_utilization >= 0 && wl.gpu_memory_utilization <= 1)) {
        throw Error(Status::invalid_argument, "serving.gpu_memory_utilization must be between 0 and 1, got " +
                                                  std::to_string(wl.gpu_memory_utilization));
    }
    const double budget = static_cast<double>(wl.max_batched_tokens > 0 ? wl.max_batched_tokens
                                                                        : engine.max_batched_tokens);
    const double max_seqs = static_cast<double>(wl.max_seqs > 0 ? wl.max_seqs : engine.max_seqs);
    const double util = wl.gpu_memory_utilization > 0 ? wl.gpu_memory_utilization : engine.gpu_memory_utilization;
    const double in = static_cast<double>(wl.input_len), osl = static_cast<double>(wl.output_len);
    const double replicas = static_cast<double>(mem.replicas);
    if (budget < 1) throw Error(Status::invalid_argument, "serving.max_batched_tokens: the engine has no default");

    // Memory: the KV cache is what the engine may use beyond the weights and its activation reserve.
    const double usable = model.gpu().memory_gb * kGiB * util;
    const double reserve = engine.activation_reserve_gb * kGiB;
    const double kv_space = usable - mem.weight_bytes - reserve;
    if (kv_space <= 0) {
        throw Error(Status::config, "the weights take " + gb(mem.weight_bytes) + " per GPU and the engine reserves " +
                                        gb(reserve) + ", more than the " + gb(usable) + " it may use (" +
                                        std::to_string(util) + " of " + model.gpu().name +
                                        "): use more GPUs (tensor_parallel, expert_parallel) or smaller weights");
    }
    const double kv_tokens = mem.kv_bytes_per_token > 0 ? kv_space / mem.kv_bytes_per_token : 1e18;
    if (kv_tokens < in + osl) {
        throw Error(Status::unsupported, "the KV cache holds " + std::to_string(static_cast<int64_t>(kv_tokens)) +
                                             " tokens per GPU, fewer than one request's " +
                                             std::to_string(wl.input_len + wl.output_len));
    }

    // Admission: clients spread evenly over the attention replicas; a running request holds on average its prompt
    // and half its output in the KV cache.
    const double clients = static_cast<double>(wl.concurrency) / replicas;
    const double kv_requests = std::max(1.0, std::floor(kv_tokens / (in + osl / 2)));
    double running = std::min({clients, max_seqs, kv_requests});
    mfusim_serving_limit limit = MFUSIM_SERVING_LIMIT_NONE;
    if (running < clients) limit = running == kv_requests ? MFUSIM_SERVING_LIMIT_KV_CAPACITY : MFUSIM_SERVING_LIMIT_MAX_SEQS;

    // Step counts (independent of step times): a request spends half a step arriving, ceil(in / chunk) steps in
    // prefill chunks, then output_len - 1 decode steps. Fixed point over the decode batch, which takes budget.
    const double decode_steps = osl - 1;
    double rate = 0, decodes = 0, chunk = budget, chunk_steps = 1;
    bool saturated = false;
    for (int iteration = 0; iteration < 32; ++iteration) {
        chunk = std::max(1.0, std::min(in, budget - decodes));
        chunk_steps = std::ceil(in / chunk);
        rate = running / (decode_steps + 0.5 + chunk_steps);  // requests started per step
        saturated = rate * (in + decode_steps) > budget;
        if (saturated) rate = budget / (in + decode_steps);
        double next = rate * decode_steps;
        if (std::fabs(next - decodes) < 1e-9) break;
        decodes = next;
    }
    if (saturated && limit == MFUSIM_SERVING_LIMIT_NONE) limit = MFUSIM_SERVING_LIMIT_TOKEN_BUDGET;

    // Steps carrying prefill: every step once prompts overlap (rate * chunk_steps >= 1), else that share of steps,
    // each carrying one prompt's chunk. A prompt's chunks see on average half its earlier chunks as context.
    const double prompts_per_step = rate * chunk_steps;
    const double mixed_fraction = std::min(1.0, prompts_per_step);
    const double chunks_per_mixed = std::max(1.0, prompts_per_step);
    const auto chunk_tokens = static_cast<int64_t>(std::ceil(in / chunk_steps));
    const auto chunk_context = static_cast<int64_t>(std::floor((chunk_steps - 1) / 2 * static_cast<double>(chunk_tokens)));
    const auto decode_context = static_cast<int64_t>(in + decode_steps / 2);

    const double decode_us = step_us(model, decodes, decode_context, 0, 0, 0);
    const double mixed_us = step_us(model, decodes, decode_context, chunks_per_mixed, chunk_tokens, chunk_context);
    const double step_mean_us = mixed_fraction * mixed_us + (1 - mixed_fraction) * decode_us;

    // TTFT: outside the steps (admission, tokenisation, first token out), half a step until the next schedule,
    // the prompt's chunk steps, and any wait for budget or for a running slot.
    double queue_us = 0;
    if (saturated) {
        const double in_prefill = running - decodes;
        queue_us += std::max(0.0, in_prefill / rate - chunk_steps - 0.5) * step_mean_us;
    }
    const double requests_per_us = rate / step_mean_us;
    if (running < clients) queue_us += (clients - running) / requests_per_us;
    const double ttft_us = engine.admission_us + engine.input_token_us * in + engine.output_token_us +
                           0.5 * step_mean_us + chunk_steps * mixed_us + queue_us;

    mfusim_serving_result r{};
    r.struct_size = out.struct_size;
    r.ttft_ms = ttft_us / 1000;
    r.tpot_ms = (osl > 1 ? step_mean_us : 0) / 1000;
    r.e2e_ms = r.ttft_ms + decode_steps * r.tpot_ms;
    r.request_throughput_req_s = replicas * requests_per_us * 1e6;
    r.output_throughput_tok_s_gpu = r.request_throughput_req_s * osl / static_cast<double>(mem.gpus);
    r.decode_step_ms = decode_us / 1000;
    r.mixed_step_ms = mixed_us / 1000;
    r.mixed_step_fraction = mixed_fraction;
    r.decode_batch = decodes;
    r.prefill_tokens_per_mixed_step = chunks_per_mixed * static_cast<double>(chunk_tokens);
    r.prefill_steps_per_request = chunk_steps;
    r.queue_ms = queue_us / 1000;
    r.running_requests = running;
    r.kv_capacity_tokens = std::min(kv_tokens, 1e15);
    r.limited_by = limit;
    out = r;

    auto detail = [&](mfusim_step_result* d, double chunks) {
        if (!d) return;
        roofline::StepMix mix;
        mix.decodes = static_cast<int64_t>(std::llround(decodes));
        mix.decode_context = decode_context;
        mix.chunks = static_cast<int64_t>(std::llround(chunks));
        mix.chunk_tokens = chunk_tokens;
        mix.chunk_context = chunk_context;
        model.mix_time_us(mix, d);
    };
    detail(decode_detail, 0);
    detail(mixed_detail, chunks_per_mixed);
}

}  // namespace mfusim::serving
