// What both models are asked and what they answer. The hot-path types are the C ABI's own POD structs
// (mfusim_request, mfusim_step_result), so the API layer passes caller memory through without converting.
#pragma once

#include <mfusim.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "query/audio.hpp"
#include "query/images.hpp"
#include "query/speculation.hpp"

namespace mfusim::query {

// How the model is deployed; fixed for the life of an estimator.
struct Deployment {
    int64_t tensor_parallel = 1;
    int64_t world_size = 1;
    int64_t num_nodes = 1;
    bool fp8_gemm = false;
    // The KV cache's format as the deployment states it: fp8_kv FP8, bf16_kv 16-bit; neither: the engine's default
    // ("auto"), which takes the checkpoint's stated format where the engine's rule says so
    // (engines::follows_checkpoint_kv_cache; resolved by roofline::resolve_kv_cache).
    bool fp8_kv = false;
    bool bf16_kv = false;
    bool deepep = false;
    bool two_batch_overlap = false;
    double sm_ratio = 108.0 / 132.0;
    int64_t expert_parallel = 1;          // roofline: GPUs the routed experts are sharded over
    int64_t attention_data_parallel = 1;  // roofline: attention replicas inside the expert-parallel group
    Speculation speculation;              // roofline: speculative decoding (docs/speculative.md)
    Images images;                        // roofline: images per request for the vision tower (vision_config)
    Audio audio;                          // roofline: audio per request for the audio tower (audio_config)
    // Roofline: how the routed experts' tokens are spread (docs/kernel-families.md, "Routing imbalance"): 0, as
    // served, each token's top-k drawn at random, the EP group's busiest rank timed (the default); alpha > 0,
    // expert popularity as AIConfigurator's power law x^-alpha, the EP group's most loaded rank timed. At most
    // kMaxMoeRoutingAlpha.
    double moe_routing_alpha = 0;
};
inline constexpr double kMaxMoeRoutingAlpha = 10;

// "balanced" (alpha 0) or "power-law:ALPHA" (0 < ALPHA <= kMaxMoeRoutingAlpha); nullopt for anything else.
std::optional<double> parse_moe_routing(std::string_view text);

enum class Phases : uint8_t { both, prefill_only, decode_only };

// InferSim's static question: TTFT and TPOT of a workload shape.
struct Scenario {
    int64_t input_len = 4096;
    int64_t output_len = 2048;
    int64_t max_prefill_tokens = 4096;
    int64_t decode_batch = -1;  // < 0: ceil(target_tgs * target_tpot_ms / 1000)
    double target_tgs = 2560;
    double target_tpot_ms = 50;
    Phases phases = Phases::both;
};

// Named results in emission order (names are the oracle's column names), plus InferSim-style messages.
struct Report {
    std::vector<std::pair<std::string, double>> values;
    std::vector<std::string> warnings;     // sorted, de-duplicated when the report is finished
    std::vector<std::string> soft_errors;  // emission order

    void set(std::string name, double value);           // replaces an existing value of that name
    const double* find(const std::string& name) const;  // nullptr if absent
    std::string joined_warnings() const;                // " | "-joined
    std::string joined_soft_errors() const;
};

// The step time of an empty step and the result struct's defaults.
void clear_step_result(mfusim_step_result& result);

// Error(invalid_argument) naming the request index for negative tokens, negative context, reserved bits, or
// sizes past what any engine schedules (more than 2^40 tokens in a request, or in the step's new tokens or
// contexts added up).
void validate_requests(const mfusim_request* requests, std::size_t n);

// The bound validate_requests sets on a request's tokens and on the step's sums.
inline constexpr int64_t kMaxStepTokens = int64_t{1} << 40;
// validate_requests's per-request checks as a few branch-free instructions, for evaluators that check requests in
// their own pass over them: nonzero for negative tokens or context, either at or past 2^41, or reserved or unknown
// flag bits. A request that passes has both numbers below 2^41, so checking the step's sums against
// kMaxStepTokens completes validate_requests exactly (one number past 2^40 puts its sum past it). Call
// validate_requests for the message when either fails.
inline uint64_t request_out_of_range(const mfusim_request& r) {
    // Negative values convert to integers at or above 2^63: the shift catches both ends.
    return ((static_cast<uint64_t>(r.new_tokens) | static_cast<uint64_t>(r.context)) >> 41) |
           (r.flags & ~MFUSIM_REQUEST_NO_OUTPUT) | r.reserved;
}

}  // namespace mfusim::query
