// docs/disagg.md derives every line of this file.
#include "serving/disagg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "serving/serving.hpp"
#include "serving/step_mix.hpp"

namespace mfusim::serving {

namespace {

void check(int64_t value, int64_t min, int64_t max, const char* name) {
    if (value < min || value > max) {
        throw Error(Status::invalid_argument, std::string("disagg.") + name + " must be between " +
                                                  std::to_string(min) + " and " + std::to_string(max) + ", got " +
                                                  std::to_string(value));
    }
}

// A decode worker's step: the roofline step of its batch plus its loop's KV-transfer bookkeeping, which only a
// disaggregated decode worker pays (engine disagg_decode_step_us; docs/disagg.md, section 9).
double decode_step_us(const roofline::RooflineModel& decode, double batch, int64_t context) {
    return step_us(decode, batch, context, 0, 0, 0) + decode.engine().disagg_decode_step_us;
}

// The KV cache space of a pool's GPU; Error(config) when the pool's weights do not fit.
double pool_cache_bytes(const roofline::RooflineModel& model, double utilization, const char* pool) {
    const double space = cache_space_bytes(model, utilization);
    if (space <= 0) {
        throw Error(Status::config, std::string("the ") + pool + " workers' weights take " +
                                        std::to_string(model.memory().weight_bytes / gpu::GpuProfile::kGiB) +
                                        " GiB per GPU, more than the engine may use on " + model.gpu().name +
                                        ": give that pool more GPUs (tensor or expert parallelism)");
    }
    return space;
}

// The KV transfer of one request's prompt from a prefill worker to a decode worker. Both engines' connectors send
// a request's KV once its prefill has finished, not layer by layer: SGLang's prefill server runs the forward, then
// moves the request to its inflight queue whose sender writes the pages by RDMA (Mooncake or NIXL,
// python/sglang/srt/disaggregation/prefill.py); TensorRT-LLM's cache transceiver sends the blocks after the context
// phase (docs "Disaggregated Serving", NIXL/UCX). Every GPU sends its shard over its own link at once, so the link
// carrying the most bytes sets the time: a prefill GPU's share, or a decode GPU's when the decode worker has fewer
// GPUs to receive on.
}  // namespace

DisaggTransfer disagg_kv_transfer(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
                                  double prompt) {
    const gpu::GpuProfile& gpu = prefill.gpu();
    DisaggTransfer t;
    // The existing KV accounting (MemoryFacts::request_bytes): what one request of this prompt holds per GPU.
    t.bytes = std::max(prefill.memory().request_bytes(prompt), decode.memory().request_bytes(prompt));
    const int64_t pair_gpus = prefill.memory().gpus + decode.memory().gpus;
    // A prefill and a decode worker that fit one NVLink domain together (an NVL72 rack; two TP 4 workers on an HGX
    // node) move the cache over NVLink; otherwise it crosses the scale-out network.
    const bool nvlink =
        gpu.nvlink_bandwidth_gbs > 0 && gpu.nvlink_domain_gpus > 0 && pair_gpus <= gpu.nvlink_domain_gpus;
    double gbs = 0;
    if (nvlink) {
        gbs = gpu.nvlink_bandwidth_gbs / 2 * gpu.nvlink_efficiency;
    } else if (gpu.network_bandwidth_gbs > 0) {
        gbs = gpu.network_bandwidth_gbs;
        t.network = true;
    } else {
        gbs = gpu.pcie_bandwidth_gbs / 2 * gpu.pcie_efficiency;  // a host without a NIC: through host memory
    }
    t.us = (t.network ? gpu.network_latency_us : 0) + t.bytes / (std::max(gbs, 1e-3) * 1e3);
    return t;
}

namespace {

// What both the estimate and the planner's capacities need of the two pools: each checked, sized once.
struct Pools {
    double in = 0, osl = 0;
    double slots = 0;            // decode slots per attention replica
    double decode_replicas = 0;  // over the decode pool
    double prompts = 0;          // prompts per prefill batch of a replica
    double batch_us = 0;         // one prefill batch, every chunk
    double alone_us = 0;         // one prompt alone
    Chunk chunk;                 // how one prompt splits under the token budget
    double prefill_servers = 0;  // attention replicas over the prefill pool
};

Pools pools_of(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
               const DisaggWorkload& wl) {
    check(wl.input_len, 1, int64_t{1} << 24, "input_len");
    check(wl.output_len, 1, int64_t{1} << 24, "output_len");
    check(wl.concurrency, 1, int64_t{1} << 20, "concurrency");
    check(wl.prefill_workers, 1, 4096, "prefill_workers");
    check(wl.decode_workers, 1, 4096, "decode_workers");
    check(wl.prefill_batch, 0, int64_t{1} << 20, "prefill_batch");
    check(wl.decode_batch, 0, int64_t{1} << 20, "decode_batch");
    check(wl.max_batched_tokens, 0, int64_t{1} << 24, "max_batched_tokens");
    if (!(wl.requests_per_client == 0 || (wl.requests_per_client >= 1 && wl.requests_per_client <= 1e9))) {
        throw Error(Status::invalid_argument,
                    "disagg.requests_per_client must be 0 (steady state) or between 1 and 1e9, got " +
                        std::to_string(wl.requests_per_client));
    }
    if (!(wl.gpu_memory_utilization >= 0 && wl.gpu_memory_utilization <= 1)) {
        throw Error(Status::invalid_argument, "disagg.gpu_memory_utilization must be between 0 and 1, got " +
                                                  std::to_string(wl.gpu_memory_utilization));
    }
    check_min_length_ratio(wl.min_length_ratio);
    const engines::EngineProfile &pe = prefill.engine(), &de = decode.engine();
    Pools p;
    // The drawn lengths' mean (the stated ones at ratio 1); a decode worker must still hold the longest request.
    auto mean_length = [&](int64_t stated) {
        const auto l = static_cast<double>(stated);
        return wl.min_length_ratio < 1 ? (shortest_drawn_length(l, wl.min_length_ratio) + l) / 2 : l;
    };
    p.in = mean_length(wl.input_len);
    p.osl = mean_length(wl.output_len);
    const double budget =
        static_cast<double>(wl.max_batched_tokens > 0 ? wl.max_batched_tokens : pe.max_batched_tokens);
    if (budget < 1) throw Error(Status::invalid_argument, "disagg.max_batched_tokens: the engine has no default");
    if (!pe.chunked_prefill) refuse_unchunked_prompt(wl.input_len, static_cast<int64_t>(budget), "the prompt");
    if (de.max_seqs < 1) throw Error(Status::invalid_argument, "disagg.max_seqs: the decode engine has no default");
    auto util = [&](const engines::EngineProfile& e) {
        return wl.gpu_memory_utilization > 0 ? wl.gpu_memory_utilization : e.gpu_memory_utilization;
    };
    pool_cache_bytes(prefill, util(pe), "prefill");
    const double decode_space = pool_cache_bytes(decode, util(de), "decode");

    // Decode slots per attention replica: the worker's batch (per replica, as the engines' max_batch_size is per
    // rank), the engine's max_seqs and what the KV cache holds of requests as its admission counts them (at their
    // mean context, or whole under TensorRT-LLM's GUARANTEED_NO_EVICT: held_request_bytes).
    const roofline::MemoryFacts& dm = decode.memory();
    if (dm.request_bytes(static_cast<double>(wl.input_len + wl.output_len)) > decode_space) {
        throw Error(Status::unsupported, "a decode worker's KV cache cannot hold one request of " +
                                             std::to_string(wl.input_len + wl.output_len) + " tokens");
    }
    const double held_bytes = held_request_bytes(de, dm, p.in, p.osl);
    const double kv_requests = held_bytes > 0 ? std::floor(decode_space / held_bytes) : 1e18;
    const double batch_cap = wl.decode_batch > 0 ? static_cast<double>(wl.decode_batch) : 1e18;
    p.slots = std::max(1.0, std::min({batch_cap, static_cast<double>(de.max_seqs), kv_requests}));
    p.decode_replicas = static_cast<double>(wl.decode_workers * dm.replicas);

    // Prefill: batches of whole prompts within the token budget (or one prompt in chunks), per attention replica.
    const Chunk chunk = chunk_of(p.in, budget);
    p.chunk = chunk;
    p.prompts = chunk.steps > 1 ? 1.0 : std::max(1.0, std::floor(budget / static_cast<double>(chunk.tokens)));
    if (wl.prefill_batch > 0) p.prompts = std::min(p.prompts, static_cast<double>(wl.prefill_batch));
    p.batch_us = chunk.steps * step_us(prefill, 0, 0, p.prompts, chunk.tokens, chunk.context, p.prompts / chunk.steps);
    // A prompt alone: its replica busy, the worker's others on the engines' dummy batch (docs/disagg.md, section 9).
    p.alone_us = chunk.steps * step_us(prefill, 0, 0, 1, chunk.tokens, chunk.context, 1 / chunk.steps, 1);
    p.prefill_servers = static_cast<double>(wl.prefill_workers * prefill.memory().replicas);
    return p;
}

}  // namespace

DisaggCapacity disagg_capacity(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
                               const DisaggWorkload& workload) {
    DisaggWorkload one = workload;
    one.prefill_workers = 1;
    one.decode_workers = 1;
    const Pools p = pools_of(prefill, decode, one);
    DisaggCapacity c;
    c.decode_slots = p.slots;
    c.prefill_req_s = p.prefill_servers * p.prompts / p.batch_us * 1e6;
    const double steps = p.osl - 1;
    if (steps <= 0) {
        c.decode_req_s = std::numeric_limits<double>::infinity();  // nothing to decode: the pool never limits
        return c;
    }
    const double in_flight = std::max(1.0, p.slots);
    const auto context = static_cast<int64_t>(p.in + steps / 2);
    c.decode_req_s = p.decode_replicas * in_flight / (steps * decode_step_us(decode, in_flight, context)) * 1e6;
    return c;
}

void estimate_disagg(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
                     const DisaggWorkload& wl, DisaggResult& out) {
    const Pools pools = pools_of(prefill, decode, wl);
    const engines::EngineProfile& pe = prefill.engine();
    const roofline::MemoryFacts& dm = decode.memory();
    const double in = pools.in, osl = pools.osl, slots = pools.slots, decode_replicas = pools.decode_replicas;
    const double decode_servers = decode_replicas * slots;
    const double prompts = pools.prompts, batch_us = pools.batch_us, alone_us = pools.alone_us;
    const double per_prompt_us = batch_us / prompts / pools.prefill_servers;  // the pool's time per prompt when busy

    // One replica's batch of k prompts (fractional: a mean), every replica of the worker busy.
    const Chunk chunk = pools.chunk;
    auto batch_of_us = [&](double k) {
        return chunk.steps * step_us(prefill, 0, 0, k, chunk.tokens, chunk.context, k / chunk.steps);
    };
    // A prompt's time at a replica that receives `rate` prompts per us and is gated: a batch takes every prompt
    // waiting when it starts (TensorRT-LLM's micro-batch scheduler, SGLang's get_new_batch_prefill), up to the
    // prompts its budget holds. The gate is the worker's, not the replica's: a worker's attention-DP replicas step
    // in lockstep (their MoE all-to-all joins every rank; the idle ones run the engines' dummy batch), so a prompt
    // that reaches an idle replica of a stepping worker waits for that step's end (docs/disagg.md, section 20).
    // Busy without a break, the worker's step of k prompts over its replicas takes T(k / replicas) and collects
    // the next k = replicas x rate x T; the worker is busy a fraction rho = replicas x rate x T / k of the time; a
    // prompt finds it idle and runs alone, or busy and waits half a step (the residual of the step in progress)
    // before its own.
    const double replicas = static_cast<double>(prefill.memory().replicas);
    auto batch_wait_us = [&](double rate) {
        const double worker_rate = replicas * rate;
        auto step_of_us = [&](double k) { return batch_of_us(std::max(1.0, k / replicas)); };
        double k = 1;
        for (int i = 0; i < 32; ++i) k = std::clamp(worker_rate * step_of_us(k), 1.0, replicas * prompts);
        const double t = step_of_us(k);
        const double rho = std::min(1.0, worker_rate * t / k);
        return (1 - rho) * alone_us + rho * 1.5 * t;
    };
    const double gated_bound_us = std::max(alone_us, 1.5 * batch_us);
    const DisaggTransfer transfer = disagg_kv_transfer(prefill, decode, in);
    const double admission_us = pe.admission_us + pe.input_token_us * in + pe.output_token_us;
    // The first wave: every client's prompt reaches the prefill pool at once. The pool's replicas (spread evenly
    // by the router) take them in full batches, round after round; the i-th prompt's KV then crosses to the decode
    // pool and takes a slot, the slot of request i - slots once that one has decoded where the clients outnumber
    // the slots. The mean over the clients of the time to that point, admission included.
    auto first_wave_us = [&](int64_t clients, double decode_us) {
        const double servers = pools.prefill_servers;
        const auto n = static_cast<std::size_t>(clients);
        const auto round_cap = static_cast<std::size_t>(std::max(1.0, std::floor(servers * prompts)));
        const auto slots_all = static_cast<std::size_t>(std::max(1.0, std::floor(decode_servers)));
        // Request i's time needs only request i - slots_all's: a ring of the last slots_all.
        std::vector<double> ready(std::min(n, slots_all));
        double done = 0, sum = 0;
        const double full_round_us =
            round_cap <= 1 ? alone_us : batch_of_us(std::max(1.0, static_cast<double>(round_cap) / servers));
        for (std::size_t i = 0; i < n; ++i) {
            if (i % round_cap == 0) {  // a new round of batches: the prompts left, up to a full batch per replica
                const std::size_t in_round = std::min(round_cap, n - i);
                done += in_round == round_cap ? full_round_us
                        : in_round <= 1       ? alone_us
                                              : batch_of_us(std::max(1.0, static_cast<double>(in_round) / servers));
            }
            double& slot = ready[i % slots_all];  // request i - slots_all's until overwritten
            const double at = admission_us + done + transfer.us;
            slot = i >= slots_all ? std::max(at, slot + decode_us) : at;
            sum += slot;
        }
        return sum / static_cast<double>(n);
    };

    // Closed loop (mean value analysis over the clients): a request passes the prefill pool (a queue: alone_us
    // when idle, per_prompt_us per prompt ahead of it), the transfer and the engine's admission (delays), then a
    // decode slot for its output - 1 steps (a queue once every slot is taken). The decode step depends on how many
    // requests decode at once, so the analysis repeats until that count settles.
    const double decode_steps = osl - 1;  // decode tokens
    const auto decode_context = static_cast<int64_t>(in + decode_steps / 2);
    // Speculative decoding on the decode workers: a step advances a request by the tokens accepted per step.
    const double accepted = decode.speculation().tokens_per_step();
    const double clients = static_cast<double>(wl.concurrency);
    double batch = std::clamp(std::ceil(clients / decode_replicas), 1.0, slots);
    double step = 0, x = 0, prefill_r = alone_us, decode_r = 0, decode_service = 0;
    for (int iteration = 0; iteration < 64; ++iteration) {
        step = decode_steps > 0 ? decode_step_us(decode, batch, decode_context) : 0;
        decode_service = decode_steps / accepted * step;
        double qp = 0, qd = 0;
        x = 0;
        for (int64_t n = 1; n <= wl.concurrency; ++n) {
            // A prefill replica serves batches, not prompts: a prompt that finds it busy waits for the batch in
            // progress, then runs in the next one with every prompt that arrived meanwhile (docs/disagg.md, section
            // 15). Below saturation that wait, not the prompts ahead at a full batch's cost each, sets its time.
            // That wait never exceeds the larger of a prompt alone and 1.5 full batches (a batch's time rises with
            // its prompts), so where the queue already does it is not computed: the loop stays linear in clients.
            prefill_r = alone_us + per_prompt_us * qp;
            if (prefill_r < gated_bound_us) prefill_r = std::max(prefill_r, batch_wait_us(x / pools.prefill_servers));
            const double queued = std::max(0.0, qd + 1 - decode_servers);
            decode_r = decode_service + (decode_servers > 0 ? queued * decode_service / decode_servers : 0);
            x = static_cast<double>(n) / (prefill_r + transfer.us + admission_us + decode_r);
            qp = x * prefill_r;
            qd = x * decode_r;
        }
        // The batch a decoding request sees holds at least itself.
        const double next = std::clamp(x * decode_service / decode_replicas, 1.0, slots);
        if (std::fabs(next - batch) < 1e-6 * std::max(1.0, batch)) break;
        batch = 0.5 * (batch + next);
    }

    DisaggResult r;
    r.admission_ms = admission_us / 1000;
    r.prefill_ms = alone_us / 1000;
    r.prefill_queue_ms = (prefill_r - alone_us) / 1000;
    r.transfer_ms = transfer.us / 1000;
    r.decode_wait_ms = (decode_r - decode_service) / 1000;
    // The decode worker answers every disagg_stream_interval steps (TensorRT-LLM's generation server): the first
    // token, sampled by the prefill, leaves with the first answer, after that many steps or at the request's end.
    // The last token leaves when it did, so the request's latency is unchanged and the TPOT a client measures,
    // (latency - TTFT) / (OSL - 1), is shorter than the step by as much (docs/disagg.md, section 10).
    const double interval = static_cast<double>(std::max<int64_t>(1, decode.engine().disagg_stream_interval));
    const double held_steps = interval > 1 ? std::min(interval, std::ceil(decode_steps / accepted)) : 0;
    r.first_answer_ms = held_steps * step / 1000;
    const double to_first_token_ms =
        r.admission_ms + r.prefill_ms + r.prefill_queue_ms + r.transfer_ms + r.decode_wait_ms;
    const double step_ms = step / accepted / 1000;
    r.e2e_ms = to_first_token_ms + decode_steps * step_ms;
    r.ttft_ms = to_first_token_ms + r.first_answer_ms;
    // A measurement of k requests per client begins with every client sending at once, as the simulated benchmark
    // does: that first wave's TTFT weighs 1/k in the mean (docs/disagg.md, section 15).
    if (wl.requests_per_client >= 1) {
        const double first_ms = first_wave_us(wl.concurrency, decode_service) / 1000 + r.first_answer_ms;
        const double k = wl.requests_per_client;
        const double shift = (first_ms - r.ttft_ms) / k;
        r.ttft_ms += shift;
        r.e2e_ms += shift;
    }
    r.tpot_ms = held_steps > 0 ? (r.e2e_ms - r.ttft_ms) / decode_steps : step_ms;
    r.prefill_gpus = prefill.memory().gpus;
    r.decode_gpus = dm.gpus;
    const double gpus = static_cast<double>(wl.prefill_workers * r.prefill_gpus + wl.decode_workers * r.decode_gpus);
    r.request_throughput_req_s = x * 1e6;
    r.output_throughput_tok_s_gpu = r.request_throughput_req_s * osl / gpus;
    r.prefill_batch_ms = batch_us / 1000;
    r.prompts_per_batch = prompts;
    r.prefill_utilization = std::min(1.0, x * per_prompt_us);
    r.decode_step_ms = step / 1000;
    r.decode_batch = batch;
    r.decode_slots = slots;
    r.kv_transfer_bytes = transfer.bytes;
    r.transfer_over_network = transfer.network;
    out = r;
}

}  // namespace mfusim::serving
