// The engine simulator (docs/simulate.md): a deterministic discrete-event simulation of a serving benchmark
// against one deployment, driven by the roofline model's own step times, so a step, the closed-form serving
// estimate and a simulation share one model of a step.
//
// Time runs in engine steps. Between steps the engine takes in the requests that have reached it; each attention
// replica's scheduler (scheduler.hpp) forms its batch; the replicas step in lockstep (they meet in the
// expert-parallel collectives), so a step lasts as long as the slowest replica's batch. Around the engine, what a
// serving harness adds is kept apart from the step: each request reaches the engine `admission_us` after it is
// sent (HTTP, API server, engine-core queue: a latency, paid by every request at once) and after the API server
// has tokenized it (`input_token_us` per prompt token); every token a step produces is detokenized and streamed by
// the same API server (`output_token_us` per token), serially, before the client sees it. TTFT and ITL are taken
// at the client, as vLLM's bench takes them.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "roofline/roofline_model.hpp"
#include "simulate/metrics.hpp"
#include "simulate/scheduler.hpp"
#include "simulate/workload.hpp"

namespace mfusim::simulate {

struct Options {
    WorkloadSpec workload;
    SchedulerConfig scheduler;  // scheduler_config(model.engine()) with the caller's overrides
    // Goodput: requests meeting every given SLO (ms; 0: none), as vLLM bench's --goodput.
    double slo_ttft_ms = 0, slo_tpot_ms = 0, slo_e2el_ms = 0;
    bool record_timeline = false;
};

struct RequestResult {
    double send_ms = 0;   // from the benchmark's start
    double ttft_ms = 0;   // send -> first token at the client
    double tpot_ms = 0;   // (e2el - ttft) / (output_len - 1); 0 for one output token
    double e2el_ms = 0;   // send -> last token at the client
    double queue_ms = 0;  // reaching the engine -> first scheduled
    int64_t input_len = 0, output_len = 0;
    int64_t preemptions = 0;
    int64_t prefix_hit_tokens = 0;
    bool warmup = false;  // left out of the statistics
};

// One step, when a timeline is recorded (sums over the replicas; KV use of the fullest).
struct StepRecord {
    double start_ms = 0, duration_ms = 0;
    int32_t running = 0, waiting = 0;
    int32_t prefill_tokens = 0, decode_tokens = 0;
    double kv_used = 0;
};

struct Result {
    std::vector<RequestResult> requests;  // in send order, warm-up included
    int64_t completed = 0;                // measured (non-warm-up) requests
    int64_t total_input_tokens = 0, total_output_tokens = 0;
    double duration_s = 0;  // first measured send -> last measured completion
    double request_throughput = 0, output_throughput = 0, total_token_throughput = 0, request_goodput = 0;
    Summary ttft_ms, tpot_ms, itl_ms, e2el_ms, queue_ms;
    Summary decode_wait_ms, transfer_ms;                 // the disaggregated simulation's (disagg_sim.hpp); else empty
    std::vector<std::pair<double, int64_t>> itl_values;  // every measured ITL (ms, count), ascending
    int64_t steps = 0, preemptions = 0, prefix_hit_tokens = 0;
    double mean_batch_tokens = 0, mean_running = 0;
    std::vector<StepRecord> timeline;
};

// One request's clock in a run (us from its start): sent by its client, reaching the engine, first scheduled, its
// first and last token at the client.
struct RequestClock {
    double send = 0, ready = 0, scheduled = -1, first = -1, last = -1;
};

// Records one delivery at `at_us` of a step's tokens to the clients. `produced` names a request once per token it
// produced in the step, adjacently; those tokens arrive as one streamed chunk, so a request gains one inter-token
// latency per step, as vLLM bench takes ITL per chunk (speculative decoding's accepted tokens arrive together).
// `itl` collects every measured ITL (ms, count); requests before `warmup` are not measured. `Clocks` is a vector of
// RequestClock or of a type derived from it.
template <class Clocks>
void stream_to_clients(Clocks& clocks, const std::vector<std::size_t>& produced, double at_us, int64_t warmup,
                       std::vector<std::pair<double, int64_t>>& itl) {
    // Requests that last streamed together see the same gap: its milliseconds are divided out once (the same
    // bits: the gap is compared bit for bit).
    uint64_t gap_bits = 0;
    double gap_ms = 0;
    bool have_gap = false;
    for (std::size_t k = 0; k < produced.size(); ++k) {
        const std::size_t i = produced[k];
        if (k > 0 && produced[k - 1] == i) continue;  // the same chunk
        RequestClock& c = clocks[i];
        if (c.first < 0) {
            c.first = at_us;
        } else if (static_cast<int64_t>(i) >= warmup) {
            const double gap = at_us - c.last;
            if (!have_gap || std::bit_cast<uint64_t>(gap) != gap_bits) {
                gap_bits = std::bit_cast<uint64_t>(gap);
                gap_ms = gap / 1000;
                have_gap = true;
            }
            const double ms = gap_ms;
            if (!itl.empty() && itl.back().first == ms) {
                ++itl.back().second;
            } else {
                itl.emplace_back(ms, 1);
            }
        }
        c.last = at_us;
    }
}

// The SLOs a request must meet to count towards goodput (ms; 0: none), as vLLM bench's --goodput.
struct Slo {
    double ttft_ms = 0, tpot_ms = 0, e2el_ms = 0;
};

// A finished run's per-request results and vLLM bench's aggregates over them, for every simulator: the first
// `warmup` requests are listed but not measured; `itl` is every measured inter-token latency (ms, count). The
// caller adds what only it knows (steps, preemptions, prefix hits, batch means, timeline).
Result request_results(const std::vector<TraceRequest>& sent, const std::vector<RequestClock>& clocks, int64_t warmup,
                       const Slo& slo, std::vector<std::pair<double, int64_t>> itl);

// The quantities a percentile can be asked of.
enum class Metric : uint8_t { ttft, tpot, itl, e2el, queue };

// A metric's measured values, sorted and merged (ms, count), as its Summary in `result` was taken: per measured
// request (TPOT: those with more than one output token), per streamed chunk for ITL. `percentile` answers any
// percentile.
std::vector<std::pair<double, int64_t>> metric_values(const Result& result, Metric metric);

// Error(invalid_argument) for a workload or scheduler out of range; Error(config) when the weights leave no KV
// cache; Error(unsupported) when a request can never be scheduled (larger than the whole cache).
Result simulate(const roofline::RooflineModel& model, const Options& options);

// Error(invalid_argument) naming the field for scheduler values out of range.
void validate(const SchedulerConfig& config);
// Error(unsupported) naming the first request whose prompt no step can take: above the token budget while
// prompts are not chunked (the engine refuses it; EngineProfile::chunked_prefill).
void refuse_unschedulable(const SchedulerConfig& config, const std::vector<TraceRequest>& requests);

}  // namespace mfusim::simulate
