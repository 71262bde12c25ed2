// SPEC sections 6 and 10-13: one layer's pieces, in seconds, each with the value InferSim prints for it and the
// provenance of its efficiency. Pure functions of the Core: no allocation, Error(compat_crash) where InferSim
// raises (an MFU of 0, a division by a zero size).
#pragma once

#include <cstdint>
#include <string>

#include "compat/core.hpp"

namespace mfusim::compat {

// Section 6: gemm(m, k, n) = (F(m, k, n) / 1e9) / ((P * 1024) * mfu_g(m, k, n)).
struct Gemm {
    double t = 0;      // seconds
    double flops = 0;  // F(m, k, n)
    Pick mfu;
};
Gemm gemm(const Core& core, const GemmSite& site, int64_t m);

// Section 10: attention core of one layer. Prefill at x = S; decode at batch B, context K. `kvb` is the per-token
// KV bytes of section 8 (an integer in the Model, `kvb_int`; a real in the Hybrid).
struct AttnCore {
    double t_c = 0, t_kv = 0, value = 0;  // value = max(t_c, t_kv)
    double flops = 0, bytes = 0;
    Pick mfu;
    bool memory_bound() const { return t_kv > t_c; }
};
struct Kvb {
    bool is_integer = true;
    int64_t integer = 0;
    double real = 0;
};
AttnCore attn_core_prefill(const Core& core, int64_t S, const Kvb& kvb);
AttnCore attn_core_decode(const Core& core, int64_t B, int64_t K, const Kvb& kvb);

// Section 11: projections of the (full-)attention layer at m tokens.
struct AttnOthers {
    Gemm qkv, o;                                     // MHA (o also MLA)
    Gemm q_down, q_up, kv_down, bmm_q_wk, bmm_o_wv;  // MLA
    double qkv_side = 0;                             // everything but o (MHA qkv; MLA the five others)
    double total = 0;                                // a_oth
};
AttnOthers attn_others(const Core& core, int64_t m);

// Section 11: GDN linear attention, core (per linear layer) and projections.
struct LinearCore {
    double t_us = 0;   // the table latency as InferSim prints it (already us)
    double t_st = 0;   // state loading, seconds
    double value = 0;  // max(t_us / 1e6, t_st)
    double bytes = 0;
    Pick pick;
    bool memory_bound() const { return t_st > t_us / 1e6; }
};
LinearCore linear_core_prefill(const Core& core, int64_t S);
LinearCore linear_core_decode(const Core& core, int64_t B);
struct LinearOthers {
    Gemm q, o2;
    double qkvzba = 0, total = 0;
};
LinearOthers linear_others(const Core& core, int64_t m);

// Section 12: routed experts (or the dense FFN) and shared experts at m tokens.
struct Moe {
    double g_r = 0;                        // GFLOP of the routed part
    double t_r = 0, t_ld = 0, routed = 0;  // routed = max(t_r, t_ld)
    Gemm up, dn;                           // shared experts (E_s > 0)
    double shared = 0;                     // up.t + dn.t
    double total = 0;                      // t_moe
    double load_bytes = 0;
    Pick mfu;
    bool memory_bound() const { return t_ld > t_r; }
};
Moe moe_prefill(const Core& core, int64_t m);
Moe moe_decode(const Core& core, int64_t m);

// Section 13.
struct Comm {
    double c1 = 0, c2 = 0, c_tp = 0;
    double ep_bytes = 0, tp_bytes = 0;
};
Comm comm_prefill(const Core& core, int64_t n);
Comm comm_decode(const Core& core, int64_t n);

// InferSim's max(a, b): a unless b > a.
inline double py_max(double a, double b) {
    return b > a ? b : a;
}

// Error(compat_crash) "InferSim raises ZeroDivisionError: <what>".
[[noreturn]] void raise_zero_division(const std::string& what);

// raise_zero_division naming the peak when the GEMM peak is 0 (a profile with peak_fp8_tflops 0 and FP8 GEMMs):
// InferSim divides by it before any MFU could be blamed.
void require_gemm_peak(const Core& core);

}  // namespace mfusim::compat
