#include "compat/sizes.hpp"

#include "common/error.hpp"

namespace mfusim::compat {

namespace {

[[noreturn]] void zero_division(const std::string& what) {
    throw Error(Status::compat_crash, "InferSim raises ZeroDivisionError: " + what);
}

}  // namespace

Weights compute_weights(const Core& core) {
    const InferSimConfig& c = core.cfg;
    Weights w;
    const int64_t bw8 = core.f8g ? 1 : 2;
    if (c.mla) {
        w.A = bw8 * (c.h * c.r_q + c.r_q * core.H_t * c.d_qk + c.h * c.r_kv + c.r_kv * core.H_t * (c.d_n + c.d_v) +
                     c.h * core.H_t * c.d_v);
    } else {
        w.A = bw8 * (c.h * core.H_t * c.d + c.h * core.Hkv_t * c.d + c.h * core.Hkv_t * c.d + c.h * core.H_t * c.d);
    }
    if (c.hybrid) {
        const int64_t s = c.h * c.h_k * c.d_k + c.h * c.h_k * c.d_k + c.h * c.h_v * c.d_lv + c.h * c.h_v * c.d_lv +
                          c.h * c.h_v + c.h * c.h_v;
        const int64_t conv = (c.h_k * c.d_k + c.h_k * c.d_k + c.h_v * c.d_lv) * c.c_k;
        w.Glin = (core.f8g ? s : 2 * s) + conv;
    }
    w.X = bw8 * 3 * c.h * core.I_t;

    // Experts resident per GPU: E_s + E / ws (a real division) with tp = 1, else E_s + E (an integer).
    if (core.tp == 1) {
        if (core.ws == 0) zero_division("division by zero (num_routed_experts / world_size with world_size 0)");
        const double e_gpu = dbl(c.E_s) + dbl(c.E) / dbl(core.ws);
        if (c.hybrid) {
            double p = dbl(w.X) * e_gpu;
            p = p * dbl(c.L);
            p = p + dbl(c.N_f * w.A);
            p = p + dbl(c.N_l * w.Glin);
            w.Pg = ((p / 1024) / 1024) / 1024;
        } else {
            w.Pg = (((dbl(w.A) + dbl(w.X) * e_gpu) / 1024) / 1024 / 1024) * dbl(c.L);
        }
    } else {
        const int64_t e_gpu = c.E_s + c.E;
        if (c.hybrid) {
            const int64_t p = w.X * e_gpu * c.L + c.N_f * w.A + c.N_l * w.Glin;
            w.Pg = ((dbl(p) / 1024) / 1024) / 1024;
        } else {
            w.Pg = (((dbl(w.A + w.X * e_gpu) / 1024) / 1024) / 1024) * dbl(c.L);
        }
    }
    w.kv_mem = ((core.gpu.mem_gb - w.Pg) - 15) - 5;

    const int64_t bkv = core.f8kv ? 1 : 2;
    w.KV = c.mla ? bkv * (c.L * (c.r_kv + c.d_r)) : bkv * (2 * c.L * core.Hkv_t * c.d);
    if (c.hybrid) {
        w.ST = c.N_l * (((c.h_v * c.d_lv + 2 * c.h_k * c.d_k) * (c.c_k - 1)) * 2 + c.h_v * c.d_k * c.d_lv * 4);
    }
    return w;
}

KvBudget kv_budget(const Core& core, int64_t B, int64_t ctx) {
    const InferSimConfig& c = core.cfg;
    const Weights& w = core.weights;
    KvBudget k;
    if (B == 0) zero_division("float division by zero (the KV budget divides by the decode batch size, which is 0)");
    if (!c.hybrid) {
        if (ctx == 0) zero_division("float division by zero (the KV budget divides by input + output length, 0)");
        k.tgt = ((((w.kv_mem * 1024) * 1024) * 1024) / dbl(B)) / dbl(ctx);
        k.exceeded = dbl(w.KV) > k.tgt;
        k.kvb_int = w.KV;
        k.kvb = dbl(w.KV);
        return k;
    }
    k.tgt = (((w.kv_mem * 1024) * 1024) * 1024) / dbl(B);
    if (c.L == 0) zero_division("division by zero (KV bytes / num_hidden_layers with num_hidden_layers 0)");
    k.KVf = (dbl(w.KV) / dbl(c.L)) * dbl(c.N_f * ctx);
    k.exceeded = k.KVf + dbl(w.ST) > k.tgt;
    if (ctx == 0) zero_division("float division by zero (per-token KV = KVf / (input + output length), which is 0)");
    k.kvb = k.KVf / dbl(ctx);
    return k;
}

FlopsReport flops_report(const Core& core, int64_t K) {
    const InferSimConfig& c = core.cfg;
    const int64_t H_t = core.H_t;
    FlopsReport f;
    if (c.mla) {
        f.g_core = dbl(F(1, H_t * (c.r_kv + c.d_r), K) + F(1, K, H_t * c.r_kv)) / 1e9;
        f.g_oth = dbl(F(1, c.h, c.r_q) + F(1, c.r_q, H_t * c.d_qk) + F(1, c.h, c.r_kv + c.d_r) +
                      H_t * F(1, c.d_n, c.r_kv) + H_t * F(1, c.r_kv, c.d_v) + F(1, H_t * c.d_v, c.h)) /
                  1e9;
    } else {
        f.g_core = dbl(F(1, H_t * c.d, K) + F(1, K, H_t * c.d)) / 1e9;
        f.g_oth = dbl(F(1, c.h, H_t * c.d) + F(1, c.h, core.Hkv_t * c.d) + F(1, c.h, core.Hkv_t * c.d) +
                      F(1, H_t * c.d, c.h)) /
                  1e9;
    }
    f.g_moe = ((dbl(c.E_s + c.k_e) * 3.0) * dbl(F(1, c.h, core.I_t))) / 1e9;
    return f;
}

}  // namespace mfusim::compat
