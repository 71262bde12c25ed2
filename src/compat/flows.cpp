#include "compat/flows.hpp"

#include <cmath>

#include "compat/sizes.hpp"

namespace mfusim::compat {

namespace {

// Sum of the attention cores (and, for hybrids, GDN cores) of unequal prefill chunks, each at its own length.
void sum_uneven(const Core& core, const Kvb& kvb, const UnevenPrefill& uneven, PrefillRun& run, bool linear) {
    bool first = true;
    for (std::size_t i = 0; i < uneven.count; ++i) {
        const mfusim_request& r = uneven.requests[i];
        if (!is_prefill(r)) continue;
        AttnCore a = attn_core_prefill(core, r.new_tokens, kvb);
        run.f_core = run.f_core + a.value;
        if (first || a.value > run.core.value) run.core = a;
        if (linear) {
            LinearCore l = linear_core_prefill(core, r.new_tokens);
            run.l_core = run.l_core + l.value;
            if (first || l.value > run.lin.value) run.lin = l;
        }
        first = false;
    }
}

void require_input_length(int64_t S) {
    if (S == 0) raise_zero_division("division by zero (max_prefill_tokens / input length with input length 0)");
}

void model_prefill(const Core& core, const Kvb& kvb, const UnevenPrefill* uneven, PrefillRun& run) {
    const int64_t M = run.M, S = run.S;
    if (uneven) {
        sum_uneven(core, kvb, *uneven, run, false);
    } else {
        run.core = attn_core_prefill(core, S, kvb);
        require_input_length(S);
        run.f_core = run.core.value * std::ceil(dbl(M) / dbl(S));
    }
    run.oth = attn_others(core, M);
    run.moe = moe_prefill(core, M);
    run.comm = comm_prefill(core, M);
    const double a = run.f_core, o = run.oth.total, t_moe = run.moe.total;
    const double c1 = run.comm.c1, c2 = run.comm.c2;
    double T;
    if (core.tbo) {
        if (core.rho == 0) raise_zero_division("float division by zero (TBO prefill divides by sm_ratio, which is 0)");
        run.tokens = dbl(2 * M);
        T = py_max((a + o) / core.rho, c1);
        T = T + py_max((a + o) / core.rho, c2);
        T = T + py_max(t_moe / core.rho, c1);
        T = T + py_max(t_moe / core.rho, c2);
    } else {
        run.tokens = dbl(M);
        T = (((a + t_moe) + o) + (c1 + c2)) + run.comm.c_tp;
    }
    run.ttft_ms = ((T * dbl(core.cfg.L)) * 1000) + core.prefill_overhead_ms();
}

void hybrid_prefill(const Core& core, const Kvb& kvb, const UnevenPrefill* uneven, PrefillRun& run) {
    const InferSimConfig& c = core.cfg;
    const int64_t M = run.M, S = run.S;
    if (uneven) {
        sum_uneven(core, kvb, *uneven, run, true);
        run.oth = attn_others(core, M);
    } else {
        run.core = attn_core_prefill(core, S, kvb);
        run.oth = attn_others(core, M);
        require_input_length(S);
        run.f_core = run.core.value * (dbl(M) / dbl(S));
        run.lin = linear_core_prefill(core, S);
        run.l_core = run.lin.value * (dbl(M) / dbl(S));
    }
    run.loth = linear_others(core, M);
    run.moe = moe_prefill(core, M);
    run.comm = comm_prefill(core, M);
    double X = (run.f_core + run.oth.total) * dbl(c.N_f);
    X = X + (run.l_core + run.loth.total) * dbl(c.N_l);
    X = X + run.moe.total * dbl(c.L);
    X = X + (core.tp > 1 ? (2 * run.comm.c_tp) * dbl(c.L) : (run.comm.c1 + run.comm.c2) * dbl(c.L));
    run.tokens = dbl(M);
    run.ttft_ms = (X * 1000) + core.prefill_overhead_ms();
}

}  // namespace

PrefillRun run_prefill(const Core& core, int64_t M, int64_t S, const Kvb& kvb, const UnevenPrefill* uneven) {
    PrefillRun run;
    run.M = M;
    run.S = S;
    if (core.cfg.hybrid) {
        hybrid_prefill(core, kvb, uneven, run);
    } else {
        model_prefill(core, kvb, uneven, run);
    }
    run.throughput = (run.tokens / dbl(core.tp)) / (run.ttft_ms / 1000);
    return run;
}

DecodeRun run_decode(const Core& core, int64_t B, int64_t K, const Kvb& kvb) {
    const InferSimConfig& c = core.cfg;
    DecodeRun run;
    run.B = B;
    run.K = K;
    run.core = attn_core_decode(core, B, K, kvb);
    run.oth = attn_others(core, B);
    if (c.hybrid) {
        run.lin = linear_core_decode(core, B);
        run.loth = linear_others(core, B);
    }
    run.moe = moe_decode(core, B);
    run.comm = comm_decode(core, B);
    const double d = run.core.value, o = run.oth.total, t_moe = run.moe.total;
    const double c1 = run.comm.c1, c2 = run.comm.c2;
    if (c.hybrid) {
        double X = (d + o) * dbl(c.N_f);
        X = X + (run.lin.value + run.loth.total) * dbl(c.N_l);
        X = X + t_moe * dbl(c.L);
        X = X + (core.tp > 1 ? (2 * run.comm.c_tp) * dbl(c.L) : (c1 + c2) * dbl(c.L));
        run.tokens = dbl(B);
        run.tpot_ms = (X * 1000) + core.decode_overhead_ms();
    } else {
        double T;
        if (core.tbo) {
            run.tokens = dbl(2 * B);
            T = py_max(d + o, (t_moe + c1) + c2) * 2;
        } else {
            run.tokens = dbl(B);
            T = (((d + o) + t_moe) + (c1 + c2)) + run.comm.c_tp;
        }
        run.tpot_ms = ((T * dbl(c.L)) * 1000) + core.decode_overhead_ms();
    }
    run.throughput = (run.tokens / dbl(core.tp)) / (run.tpot_ms / 1000);
    return run;
}

}  // namespace mfusim::compat
