// Disaggregated serving estimate (docs/disagg.md): a prefill pool and a decode pool, each of identical workers
// with their own parallelism; `concurrency` closed-loop clients each keep one request in flight. TTFT = prefill
// queueing + prefill + the KV transfer to a decode worker (+ any wait for a decode slot); TPOT = the decode
// pool's step at its batch. Built from the two pools' roofline step times and the serving estimate's pieces.
#pragma once

#include <cstdint>

#include "roofline/roofline_model.hpp"

namespace mfusim::serving {

struct DisaggWorkload {
    int64_t input_len = 1024;
    int64_t output_len = 128;
    int64_t concurrency = 16;
    int64_t prefill_workers = 1;
    int64_t decode_workers = 1;
    int64_t prefill_batch = 0;  // most prompts in one prefill batch of a worker; 0: as many as the token budget holds
    int64_t decode_batch = 0;   // most requests one decode worker runs at once; 0: the engine's max_seqs
    int64_t max_batched_tokens = 0;     // the prefill workers' token budget; 0: the engine's default
    double gpu_memory_utilization = 0;  // 0: the engine's default
    // 0: steady state; k >= 1: means over k requests per client, the first wave (every client at once) included
    double requests_per_client = 0;
    // The benchmark draws each request's lengths uniformly from [floor(r x length), length] (serving::Workload's
    // min_length_ratio, InferenceX's --random-range-ratio): the closed form answers at the drawn lengths' mean, as
    // the simulation's requests have it (docs/disagg.md, section 16); 1: the stated lengths.
    double min_length_ratio = 1;
};

struct DisaggResult {
    double ttft_ms = 0, tpot_ms = 0, e2e_ms = 0;
    double request_throughput_req_s = 0;
    double output_throughput_tok_s_gpu = 0;  // over both pools' GPUs
    // TTFT's parts: the engine's admission and tokenisation, waiting for a prefill worker, the prefill itself,
    // the KV transfer, waiting for a decode slot, and the decode steps the decode worker runs before its first
    // answer carries the first token out (engine disagg_stream_interval; 0 when it streams at once).
    double admission_ms = 0, prefill_queue_ms = 0, prefill_ms = 0, transfer_ms = 0, decode_wait_ms = 0;
    double first_answer_ms = 0;
    double prefill_batch_ms = 0;         // one prefill batch of prompts_per_batch prompts, every chunk
    double prompts_per_batch = 0;        // per attention replica of a prefill worker
    double prefill_utilization = 0;      // busy share of the prefill pool
    double decode_step_ms = 0;           // the decode pool's step at decode_batch
    double decode_batch = 0;             // requests decoding per attention replica of a decode worker (mean)
    double decode_slots = 0;             // the most requests one decode replica holds (batch, max_seqs, KV cache)
    double kv_transfer_bytes = 0;        // per GPU link, one request
    bool transfer_over_network = false;  // RDMA between nodes, else NVLink inside one domain
    int64_t prefill_gpus = 0, decode_gpus = 0;  // per worker
};

// Error(invalid_argument) naming the field for values out of range; Error(config) when a pool's weights do not fit
// its GPUs; Error(unsupported) when a decode worker's KV cache cannot hold one request. The two models must be of
// the same model config on the same GPU (the caller builds them from one set of options).
void estimate_disagg(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
                     const DisaggWorkload& workload, DisaggResult& out);

// The KV transfer of one request's prompt of `prompt` tokens from a prefill worker to a decode worker, whole after
// its prefill (docs/disagg.md, section 2): bytes on the busiest GPU link, the time, and whether it crosses the
// scale-out network (else NVLink inside one domain).
struct DisaggTransfer {
    double bytes = 0, us = 0;
    bool network = false;
};
DisaggTransfer disagg_kv_transfer(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
                                  double prompt);

// Each pool's capacity, for the planner's rate matching (AIConfigurator's DisaggInferenceSession matches the two
// pools' throughputs to choose the worker counts, docs/disagg.md section 6): requests/s one busy prefill worker
// completes (its replicas' full batches), and requests/s one decode worker completes with every replica holding
// `decode_slots` requests (the workload's decode_batch, capped by max_seqs and the KV cache). The worker counts of
// `workload` are ignored; the same errors as estimate_disagg.
struct DisaggCapacity {
    double prefill_req_s = 0;  // per prefill worker
    double decode_req_s = 0;   // per decode worker; infinite when OSL is 1 (nothing to decode)
    double decode_slots = 0;   // per attention replica of a decode worker
};
DisaggCapacity disagg_capacity(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
                               const DisaggWorkload& workload);

}  // namespace mfusim::serving
