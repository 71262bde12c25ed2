// SPEC sections 14 (Model) and 15 (HybridModel): one prefill (TTFT) or decode (TPOT) phase, every intermediate
// kept so that the report (section 16) and the step breakdown are read off the same evaluation.
#pragma once

#include <mfusim.h>

#include <cstddef>
#include <cstdint>

#include "compat/layers.hpp"

namespace mfusim::compat {

// Step classification (docs/compat-steps.md): a decode is one new token over a non-empty context; any other request
// with new tokens is a prefill chunk; a request with no new tokens does no work.
inline bool is_decode(const mfusim_request& r) {
    return r.new_tokens == 1 && r.context > 0;
}
inline bool is_prefill(const mfusim_request& r) {
    return r.new_tokens > 0 && !is_decode(r);
}

// Prefill chunks of unequal lengths: attention cores are summed per chunk at its own length.
struct UnevenPrefill {
    const mfusim_request* requests = nullptr;
    std::size_t count = 0;
};

struct PrefillRun {
    int64_t M = 0, S = 0;
    AttnCore core;      // attention core of one sequence of length S (uneven: the slowest chunk)
    double f_core = 0;  // attention core of the step per full-attention layer (x ceil(M/S), x M/S, or summed)
    AttnOthers oth;
    LinearCore lin;     // hybrid (uneven: the slowest chunk)
    double l_core = 0;  // hybrid: linear core per linear layer of the step
    LinearOthers loth;  // hybrid
    Moe moe;
    Comm comm;
    double tokens = 0;  // N_tok
    double ttft_ms = 0;
    double throughput = 0;
};

// `uneven` null: InferSim's prefill at M tokens per GPU and input length S. Otherwise M is the sum of the chunk
// lengths and S is unused for the attention cores.
PrefillRun run_prefill(const Core& core, int64_t M, int64_t S, const Kvb& kvb, const UnevenPrefill* uneven);

struct DecodeRun {
    int64_t B = 0, K = 0;
    AttnCore core;
    AttnOthers oth;
    LinearCore lin;
    LinearOthers loth;
    Moe moe;
    Comm comm;
    double tokens = 0;
    double tpot_ms = 0;
    double throughput = 0;
};

DecodeRun run_decode(const Core& core, int64_t B, int64_t K, const Kvb& kvb);

}  // namespace mfusim::compat
