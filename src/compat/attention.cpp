// SPEC section 6 (GEMM primitive), 10 (attention core) and 11 (attention projections).
#include "common/error.hpp"
#include "compat/layers.hpp"
#include "compat/sizes.hpp"

namespace mfusim::compat {

void raise_zero_division(const std::string& what) {
    throw Error(Status::compat_crash, "InferSim raises ZeroDivisionError: " + what);
}

void require_gemm_peak(const Core& core) {
    if (core.P == 0) {
        raise_zero_division(std::string("float division by zero (GEMM times divide by the ") +
                            (core.f8g ? "FP8 peak, peak_fp8_tflops" : "BF16 peak, peak_bf16_tflops") + ", which is 0)");
    }
}

namespace {

std::string table_of(const Pick& pick) {
    return pick.table ? *pick.table : std::string("the default MFU");
}

}  // namespace

Gemm gemm(const Core& core, const GemmSite& site, int64_t m) {
    Gemm g;
    g.mfu = site.lookup(m);
    const int64_t flops = F(m, site.k(), site.n());
    require_gemm_peak(core);
    const double peak = (core.P * 1024) * g.mfu.value;
    if (peak == 0) {
        raise_zero_division("GEMM MFU of " + table_of(g.mfu) + " rounds to 0 at m " + std::to_string(m) + ", k " +
                            std::to_string(site.k()) + ", n " + std::to_string(site.n()));
    }
    g.flops = dbl(flops);
    g.t = (dbl(flops) / 1e9) / peak;
    return g;
}

namespace {

// t_kv's numerator: kvb * x (Model: exact integers; Hybrid: reals).
double kv_bytes(const Kvb& kvb, int64_t x) {
    return kvb.is_integer ? dbl(mul(kvb.integer, x)) : kvb.real * dbl(x);
}

double kv_load_seconds(const Core& core, double bytes) {
    if (core.cfg.L == 0) raise_zero_division("division by zero (KV bytes / num_hidden_layers with 0 layers)");
    return ((((bytes / dbl(core.cfg.L)) / 1024) / 1024) / 1024) / core.gpu.BW;
}

}  // namespace

AttnCore attn_core_prefill(const Core& core, int64_t S, const Kvb& kvb) {
    const InferSimConfig& c = core.cfg;
    AttnCore a;
    double g;
    if (c.mla) {
        g = dbl(add(F(1, c.H * c.d_qk, S), F(1, S, c.H * c.d_v))) / 1e9;  // unsharded H (Q7)
    } else {
        g = dbl(mul(F(1, core.H_t * c.d, S), 2)) / 1e9;
    }
    a.mfu = core.tables.attn_prefill.lookup(S);
    const double peak = (core.gpu.P16 * 1024) * a.mfu.value;
    if (peak == 0) {
        raise_zero_division("prefill attention MFU of " + table_of(a.mfu) + " rounds to 0 at seq_len " +
                            std::to_string(S));
    }
    a.flops = ((dbl(S) * g) / 1.8) * 1e9;
    a.t_c = ((dbl(S) * g) / 1.8) / peak;
    const double bytes = kv_bytes(kvb, S);
    a.bytes = bytes / dbl(c.L == 0 ? 1 : c.L);
    a.t_kv = kv_load_seconds(core, bytes);
    a.value = py_max(a.t_c, a.t_kv);
    return a;
}

AttnCore attn_core_decode(const Core& core, int64_t B, int64_t K, const Kvb& kvb) {
    const InferSimConfig& c = core.cfg;
    AttnCore a;
    double g;
    if (c.mla) {
        g = dbl(add(F(1, c.H * (c.r_kv + c.d_r), K), F(1, K, c.H * c.r_kv))) / 1e9;  // absorbed, unsharded H (Q7)
    } else {
        g = dbl(mul(F(1, core.H_t * c.d, K), 2)) / 1e9;
    }
    a.mfu = core.tables.attn_decode.lookup(B, K);
    const double peak = (core.gpu.P16 * 1024) * a.mfu.value;
    if (peak == 0) {
        std::string at = "bs " + std::to_string(B) + ", kv " + std::to_string(K);
        raise_zero_division("decode attention MFU of " + table_of(a.mfu) + " rounds to 0 at " + at);
    }
    a.flops = (dbl(B) * g) * 1e9;
    a.t_c = (dbl(B) * g) / peak;
    const double bytes = kvb.is_integer ? dbl(mul(kvb.integer, K, B)) : (kvb.real * dbl(K)) * dbl(B);
    a.bytes = bytes / dbl(c.L == 0 ? 1 : c.L);
    a.t_kv = kv_load_seconds(core, bytes);
    a.value = py_max(a.t_c, a.t_kv);
    return a;
}

AttnOthers attn_others(const Core& core, int64_t m) {
    const ResolvedTables& t = core.tables;
    AttnOthers r;
    if (core.cfg.mla) {
        r.q_down = gemm(core, t.q_down, m);
        r.q_up = gemm(core, t.q_up, m);
        r.kv_down = gemm(core, t.kv_down, m);
        r.bmm_q_wk = gemm(core, t.bmm_q_wk, m);
        r.bmm_o_wv = gemm(core, t.bmm_o_wv, m);
        r.o = gemm(core, t.o, m);
        r.qkv_side = (((r.q_down.t + r.q_up.t) + r.kv_down.t) + r.bmm_q_wk.t) + r.bmm_o_wv.t;
        r.total = r.qkv_side + r.o.t;
    } else {
        r.qkv = gemm(core, t.qkv, m);
        r.o = gemm(core, t.o, m);
        r.qkv_side = r.qkv.t;
        r.total = r.qkv.t + r.o.t;
    }
    return r;
}

}  // namespace mfusim::compat
