// SPEC section 11: GDN linear attention (hybrid models): core from the latency tables, state loading, projections.
#include "compat/layers.hpp"
#include "compat/sizes.hpp"

namespace mfusim::compat {

namespace {

double state_seconds(const Core& core, int64_t bytes) {
    if (core.cfg.N_l == 0) raise_zero_division("division by zero (state bytes / linear-attention layers, 0 of them)");
    return ((((dbl(bytes) / dbl(core.cfg.N_l)) / 1024) / 1024) / 1024) / core.gpu.BW;
}

LinearCore finish(const Core& core, Pick pick, int64_t state_bytes) {
    LinearCore r;
    r.pick = pick;
    r.t_us = pick.value;
    r.t_st = state_seconds(core, state_bytes);
    r.bytes = dbl(state_bytes) / dbl(core.cfg.N_l);
    r.value = py_max(r.t_us / 1e6, r.t_st);
    return r;
}

}  // namespace

LinearCore linear_core_prefill(const Core& core, int64_t S) {
    return finish(core, core.tables.gdn_prefill.lookup(S), core.weights.ST);
}

LinearCore linear_core_decode(const Core& core, int64_t B) {
    return finish(core, core.tables.gdn_decode.lookup(B), core.weights.ST * B);
}

LinearOthers linear_others(const Core& core, int64_t m) {
    const InferSimConfig& c = core.cfg;
    const int64_t n_qkvz = (c.h_k * c.d_k) * 2 + (c.h_v * c.d_lv) * 2;
    const int64_t n_ba = c.h_v * 2;
    LinearOthers r;
    r.q = gemm(core, core.tables.gdn_qkvz, m);
    if (n_qkvz == 0) raise_zero_division("float division by zero (GDN qkvz projection width is 0)");
    r.qkvzba = (r.q.t * dbl(n_qkvz + n_ba)) / dbl(n_qkvz);
    r.o2 = gemm(core, core.tables.gdn_o, m);
    r.total = r.qkvzba + r.o2.t;
    return r;
}

}  // namespace mfusim::compat
