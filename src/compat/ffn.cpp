// SPEC section 12: routed experts (the dense FFN being one expert) and shared experts.
#include "compat/layers.hpp"
#include "compat/sizes.hpp"

namespace mfusim::compat {

namespace {

Moe moe(const Core& core, const GroupedGemmLookup& grouped, int64_t m) {
    const InferSimConfig& c = core.cfg;
    const ResolvedTables& t = core.tables;
    Moe r;
    r.g_r = dbl(F(1, c.h, core.I_t)) * ((dbl(mul(m, c.k_e)) * 3.0) / 1e9);
    if (c.moe) {
        r.mfu = grouped.lookup(m);
    } else {
        // Dense: the FFN GEMM looked up with the world size and the unsharded I (Q12).
        if (core.ws == 0) raise_zero_division("integer division or modulo by zero ((I * 2) // world_size)");
        r.mfu = t.ffn.lookup(m);
    }
    require_gemm_peak(core);
    const double peak = (core.P * 1024) * r.mfu.value;
    if (peak == 0) {
        raise_zero_division((c.moe ? "routed-expert MFU of " : "FFN GEMM MFU of ") +
                            (r.mfu.table ? *r.mfu.table : std::string("the default MFU")) + " rounds to 0 at " +
                            std::to_string(m) + " tokens");
    }
    r.t_r = r.g_r / peak;
    if (core.ep == 0) raise_zero_division("division by zero (num_routed_experts / (world_size // tp_size) = E / 0)");
    r.load_bytes = dbl(core.weights.X) * (dbl(c.E) / dbl(core.ep));
    r.t_ld = ((((r.load_bytes) / 1024) / 1024) / 1024) / core.gpu.BW;
    r.routed = py_max(r.t_r, r.t_ld);
    r.total = r.routed;
    if (c.E_s > 0) {
        r.up = gemm(core, t.shared_up, m);
        r.dn = gemm(core, t.shared_down, m);
        r.shared = r.up.t + r.dn.t;
        r.total = r.total + r.shared;
    }
    return r;
}

}  // namespace

Moe moe_prefill(const Core& core, int64_t m) {
    return moe(core, core.tables.grouped_prefill, m);
}
Moe moe_decode(const Core& core, int64_t m) {
    return moe(core, core.tables.grouped_decode, m);
}

}  // namespace mfusim::compat
