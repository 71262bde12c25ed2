// SPEC sections 7-9: weight sizes and memory budget, KV cache and recurrent-state sizes, the FLOPs report.
#pragma once

#include <cstdint>

#include "compat/core.hpp"

namespace mfusim::compat {

// Section 7 and the scenario-independent part of section 8. Error(compat_crash) for world_size 0 with tp 1.
Weights compute_weights(const Core& core);

// Section 8 for one scenario. Error(compat_crash) for B = 0, ctx = 0, or (hybrid) L = 0.
struct KvBudget {
    double tgt = 0;         // Model: target per-token bytes; Hybrid: target per-request bytes (tgt_h)
    double KVf = 0;         // Hybrid: full-attention KV bytes of one request
    bool exceeded = false;  // "!Error: need smaller kvcache"
    int64_t kvb_int = 0;    // Model: per-token bytes handed to attention (KV)
    double kvb = 0;         // Hybrid: KVf / ctx
};
KvBudget kv_budget(const Core& core, int64_t B, int64_t ctx);

// Section 9 (per token, per layer, GFLOP), with A_ = K.
struct FlopsReport {
    double g_core = 0, g_moe = 0, g_oth = 0;
};
FlopsReport flops_report(const Core& core, int64_t K);

// F(m, n, k) = 2*m*n*k as an exact integer.
inline int64_t F(int64_t m, int64_t n, int64_t k) {
    return 2 * m * n * k;
}
inline double dbl(int64_t x) {
    return static_cast<double>(x);
}

}  // namespace mfusim::compat
