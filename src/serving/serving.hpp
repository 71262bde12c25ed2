// Steady-state serving estimate (docs/serving.md): TTFT, TPOT and throughput of a closed-loop workload at a
// concurrency, with aggregated in-flight batching, from the roofline model's own step times.
#pragma once

#include <mfusim.h>

#include <cstdint>
#include <string_view>

#include "roofline/roofline_model.hpp"

namespace mfusim::serving {

struct Workload {
    int64_t input_len = 1024;
    int64_t output_len = 128;
    int64_t concurrency = 16;
    int64_t max_batched_tokens = 0;     // 0: the engine's default
    int64_t max_seqs = 0;               // 0: the engine's default
    double gpu_memory_utilization = 0;  // 0: the engine's default
    double requests_per_client = 0;  // 0: steady state; k >= 1: means over k requests per client, first wave included
    // The simulated benchmark draws each request's input and output lengths uniformly from the integers in
    // [floor(r x length), length], as the benchmark_serving of InferenceX and SGLang's bench_serving draw
    // --random-range-ratio r (docs/simulate.md, section 7); 1: every request the stated lengths. The closed form
    // answers the stated lengths whatever r is.
    double min_length_ratio = 1;
};

// Error(invalid_argument) naming serving.min_length_ratio unless it lies in (0, 1].
void check_min_length_ratio(double ratio);

// The shortest length the benchmark draws for a stated `length` under min_length_ratio `ratio`: floor(ratio x
// length), at least 1. The drawn lengths' mean is (shortest + length) / 2.
double shortest_drawn_length(double length, double ratio);

// The GPU memory the engine may give its KV cache (and recurrent state) on each GPU at its share `utilization`: that
// share of the GPU's memory less the weights and the engine's activation reserve, or, for an engine whose share is of
// what those leave (EngineProfile::memory_share_of_free, TensorRT-LLM), that share of the rest; not positive when the
// weights do not fit.
double cache_space_bytes(const roofline::RooflineModel& model, double utilization);
// What weights, activation reserve and KV cache take together on each GPU at that share.
double usable_bytes(const roofline::RooflineModel& model, double utilization);

// Error(unsupported), naming `request` (followed by `index` where it is not negative), where an engine that takes
// prompts whole (EngineProfile::chunked_prefill off) meets a prompt above its token budget: the engine refuses such
// a request (TensorRT-LLM's LLM._check_arguments, "should not exceed max_num_tokens"), so no step could ever take
// it. The message is built only when it throws.
void refuse_unchunked_prompt(int64_t prompt_tokens, int64_t budget, std::string_view request, int64_t index = -1);

// The KV-cache bytes per GPU that one running request of `input` prompt and `output` generated tokens holds, as
// the engine's admission sees it: TensorRT-LLM's GUARANTEED_NO_EVICT capacity scheduler (policy `trtllm`) admits a
// request only while blocks for its whole prompt and output are free and keeps them until it ends
// (batch_manager/capacityScheduler.cpp; the simulator's Scheduler::schedule_trtllm); the other policies hold what
// a request has computed, on average its prompt and half its output. Running requests are at most the cache over
// this.
double held_request_bytes(const engines::EngineProfile& engine, const roofline::MemoryFacts& memory, double input,
                          double output);

// Fills `out` (struct_size set by the caller). The two details, when given, receive the breakdown of the steady
// decode-only step and of the mixed step (their integer-rounded compositions). Error(invalid_argument) naming the
// field for values out of range; Error(config) when the weights do not fit the GPU memory the engine may use;
// Error(unsupported) when the KV cache cannot hold one request, or the prompt exceeds the token budget of an engine
// that takes prompts whole (refuse_unchunked_prompt). Allocation-free.
void estimate(const roofline::RooflineModel& model, const Workload& workload, mfusim_serving_result& out,
              mfusim_step_result* decode_detail = nullptr, mfusim_step_result* mixed_detail = nullptr);

}  // namespace mfusim::serving
