// The released layouts of the extensible structs of mfusim.h and the three ways the library touches a caller's
// struct: *_init writes defaults into exactly the caller's size, inputs are read and outputs written only up to
// the caller's struct_size, and only sizes that some release had are accepted. A size that ends inside a field
// (half a pointer, part of an integer) is refused, never read (libgit2's *_options_init(opts, version) model).
//
// When a release appends fields to a struct, freeze the layout it had as a copy here (e.g. mfusim_options_v1_0)
// and add its sizeof in front of the current one; old callers then keep working with defaults for the new fields.
#pragma once

#include <mfusim.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <string>

#include "common/error.hpp"

namespace mfusim::api {

// mfusim_options as released in 1.0, before `calibration` was appended (frozen: never edit).
struct mfusim_options_v1_0 {
    size_t struct_size;
    const char* model;
    const char* gpu;
    const char* bench_data_dir;
    mfusim_mode mode;
    int32_t tensor_parallel;
    int32_t world_size;
    int32_t num_nodes;
    int32_t fp8_gemm;
    int32_t fp8_kv;
    int32_t deepep;
    int32_t two_batch_overlap;
    double sm_ratio;
    const char* engine;
    const char* quant;
    int32_t expert_parallel;
    int32_t attention_data_parallel;
};
static_assert(offsetof(mfusim_options, attention_data_parallel) ==
                  offsetof(mfusim_options_v1_0, attention_data_parallel),
              "mfusim_options may only grow at its end");

// mfusim_options with `calibration` appended, before the speculative-decoding fields (frozen: never edit).
struct mfusim_options_v1_1 {
    mfusim_options_v1_0 v1_0;
    const char* calibration;
};
static_assert(offsetof(mfusim_options, calibration) == offsetof(mfusim_options_v1_1, calibration),
              "mfusim_options may only grow at its end");

// mfusim_options with the speculative-decoding fields appended, before the images (frozen: never edit).
struct mfusim_options_v1_2 {
    mfusim_options_v1_1 v1_1;
    const char* speculative;
    int32_t num_speculative_tokens;
    double acceptance_rate;
    double mean_accepted_length;
};
static_assert(offsetof(mfusim_options, mean_accepted_length) == offsetof(mfusim_options_v1_2, mean_accepted_length),
              "mfusim_options may only grow at its end");

// mfusim_options with the images per request appended, before `moe_routing_alpha` (frozen: never edit).
struct mfusim_options_v1_3 {
    mfusim_options_v1_2 v1_2;
    int64_t images_per_request;
    int64_t image_width;
    int64_t image_height;
};
static_assert(offsetof(mfusim_options, image_height) == offsetof(mfusim_options_v1_3, image_height),
              "mfusim_options may only grow at its end");

// mfusim_options with `moe_routing_alpha` appended, before `audio_seconds_per_request` (frozen: never edit).
struct mfusim_options_v1_4 {
    mfusim_options_v1_3 v1_3;
    double moe_routing_alpha;
};
static_assert(offsetof(mfusim_options, moe_routing_alpha) == offsetof(mfusim_options_v1_4, moe_routing_alpha),
              "mfusim_options may only grow at its end");

// mfusim_options with `audio_seconds_per_request` appended, before `draft_model` (frozen: never edit).
struct mfusim_options_v1_5 {
    mfusim_options_v1_4 v1_4;
    double audio_seconds_per_request;
};
static_assert(offsetof(mfusim_options, audio_seconds_per_request) ==
                  offsetof(mfusim_options_v1_5, audio_seconds_per_request),
              "mfusim_options may only grow at its end");

// mfusim_simulation as first released, before `ramp_up_s` was appended (frozen: never edit).
struct mfusim_simulation_v1_0 {
    size_t struct_size;
    int64_t num_prompts;
    int64_t warmup;
    double request_rate;
    double burstiness;
    int64_t max_concurrency;
    mfusim_length_distribution input_distribution;
    mfusim_length_distribution output_distribution;
    double input_len;
    double input_spread;
    double output_len;
    double output_spread;
    int64_t num_prefix_prompts;
    int64_t prefix_len;
    uint64_t seed;
    int32_t constant_rate;
    mfusim_scheduler_policy scheduler;
    int64_t max_batched_tokens;
    int64_t max_seqs;
    int64_t block_tokens;
    int64_t long_prefill_token_threshold;
    double gpu_memory_utilization;
    int32_t disable_chunked_prefill;
    int32_t disable_prefix_caching;
    double slo_ttft_ms;
    double slo_tpot_ms;
    double slo_e2el_ms;
    const mfusim_trace_request* trace;
    size_t trace_count;
    int32_t record_timeline;
    int32_t reserved;
};
static_assert(offsetof(mfusim_simulation, reserved) == offsetof(mfusim_simulation_v1_0, reserved),
              "mfusim_simulation may only grow at its end");

// Released struct sizes, oldest first. 1.0 is the first release; mfusim_options.calibration was appended after,
// then the speculative-decoding fields, then the images per request, then moe_routing_alpha, then the audio seconds per
// request.
template <class T>
struct ReleasedSizes;
template <>
struct ReleasedSizes<mfusim_options> {
    static constexpr std::array<std::size_t, 7> sizes{sizeof(mfusim_options_v1_0), sizeof(mfusim_options_v1_1),
                                                      sizeof(mfusim_options_v1_2), sizeof(mfusim_options_v1_3),
                                                      sizeof(mfusim_options_v1_4), sizeof(mfusim_options_v1_5),
                                                      sizeof(mfusim_options)};
};
template <>
struct ReleasedSizes<mfusim_scenario> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_scenario)};
};
template <>
struct ReleasedSizes<mfusim_step_result> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_step_result)};
};
template <>
struct ReleasedSizes<mfusim_serving> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_serving)};
};
template <>
struct ReleasedSizes<mfusim_engine_terms> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_engine_terms)};
};
template <>
struct ReleasedSizes<mfusim_serving_result> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_serving_result)};
};
template <>
struct ReleasedSizes<mfusim_disagg_serving> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_disagg_serving)};
};
template <>
struct ReleasedSizes<mfusim_disagg_result> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_disagg_result)};
};
template <>
struct ReleasedSizes<mfusim_plan_request> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_plan_request)};
};
template <>
struct ReleasedSizes<mfusim_sweep_request> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_sweep_request)};
};
template <>
struct ReleasedSizes<mfusim_simulation> {
    static constexpr std::array<std::size_t, 2> sizes{sizeof(mfusim_simulation_v1_0), sizeof(mfusim_simulation)};
};
template <>
struct ReleasedSizes<mfusim_simulation_summary> {
    static constexpr std::array<std::size_t, 1> sizes{sizeof(mfusim_simulation_summary)};
};

// Error(struct_size) unless `size` is a released size of T; the message names the accepted sizes.
template <class T>
void require_released_size(std::size_t size, const char* what) {
    for (std::size_t s : ReleasedSizes<T>::sizes) {
        if (s == size) return;
    }
    std::string accepted;
    for (std::size_t s : ReleasedSizes<T>::sizes) accepted += (accepted.empty() ? "" : ", ") + std::to_string(s);
    throw Error(Status::struct_size, std::string(what) + " size " + std::to_string(size) +
                                         " is no released layout; this libmfusim " MFUSIM_VERSION_STRING " accepts " +
                                         accepted + " (pass sizeof your struct to its *_init function)");
}

// *_init: `defaults` written into the caller's first `size` bytes, struct_size set to `size`.
template <class T>
void init_versioned(T* out, std::size_t size, const T& defaults, const char* what) {
    if (out == nullptr) throw Error(Status::invalid_argument, std::string(what) + " is NULL");
    require_released_size<T>(size, what);
    T filled = defaults;
    filled.struct_size = size;
    std::memcpy(static_cast<void*>(out), &filled, size);
}

// An input struct: its released-size prefix over `defaults` (fields an older caller lacks keep their defaults).
template <class T>
T read_versioned(const T* in, const T& defaults, const char* what) {
    if (in == nullptr) throw Error(Status::invalid_argument, std::string(what) + " is NULL");
    require_released_size<T>(in->struct_size, what);
    T out = defaults;
    std::memcpy(static_cast<void*>(&out), in, in->struct_size);
    out.struct_size = sizeof(T);
    return out;
}

// An output struct: `value` written up to the caller's struct_size (checked before any work by the caller).
template <class T>
void write_versioned(T* out, const T& value) noexcept {
    const std::size_t size = out->struct_size;
    std::memcpy(static_cast<void*>(out), &value, size);
    out->struct_size = size;
}

}  // namespace mfusim::api
