// SPEC section 13: expert-parallel communication (plain all-reduce or DeepEP) and the TP all-reduce.
#include "compat/layers.hpp"
#include "compat/sizes.hpp"

namespace mfusim::compat {

namespace {

constexpr double kGiB = 1073741824.0;

// A link's bandwidth as InferSim computes with it, and the profile field it comes from (for messages).
struct Link {
    double bandwidth;
    const char* field;
};
Link nvlink(const Core& core) {
    return {core.gpu.NV, "nvlink_bandwidth_gbs"};
}
Link rdma(const Core& core) {
    return {core.gpu.RD, "network_bandwidth_gbs"};
}

// A GPU profile may say 0 for a link it lacks; InferSim divides by it all the same and Python raises (-0 too).
double over_link(double gib, Link link) {
    if (link.bandwidth == 0) {
        raise_zero_division(std::string("float division by zero (a communication time divides by ") + link.field +
                            ", which is 0)");
    }
    return gib / link.bandwidth;
}

double transfer(const Core& core, int64_t bytes, Link link) {
    if (core.ws <= 1) return 0;
    return over_link(dbl(bytes) / kGiB, link);
}

double tp_allreduce(const Core& core, int64_t n, double& bytes) {
    if (core.tp <= 1) return 0;
    const int64_t numerator = mul(2, n, core.cfg.h, 2, core.tp - 1);
    bytes = dbl(numerator) / dbl(core.tp);
    return over_link(bytes / kGiB, nvlink(core));
}

Comm plain(const Core& core, int64_t n) {
    Comm r;
    const int64_t bytes = mul(2, mul(n, core.ws), core.cfg.h);
    const double t = transfer(core, bytes, core.nn > 1 ? rdma(core) : nvlink(core));
    r.c1 = t;
    r.c2 = t;
    r.ep_bytes = core.ws <= 1 ? 0 : 2 * dbl(bytes);
    return r;
}

}  // namespace

Comm comm_prefill(const Core& core, int64_t n) {
    Comm r;
    if (core.deepep) {
        const int64_t h = core.cfg.h;
        const int64_t inter = mul(n, core.nn - 1);
        r.c1 = transfer(core, mul(1, inter, h), rdma(core)) + transfer(core, mul(1, n, h), nvlink(core));
        r.c2 = transfer(core, mul(2, inter, h), rdma(core)) + transfer(core, mul(2, n, h), nvlink(core));
        r.ep_bytes = core.ws <= 1 ? 0 : dbl(add(mul(3, inter, h), mul(3, n, h)));
    } else {
        r = plain(core, n);
    }
    r.c_tp = tp_allreduce(core, n, r.tp_bytes);
    return r;
}

Comm comm_decode(const Core& core, int64_t n) {
    Comm r;
    if (core.deepep) {
        const int64_t tokens = mul(n, core.cfg.k_e);
        const Link link = core.nn > 1 ? rdma(core) : nvlink(core);
        r.c1 = transfer(core, mul(1, tokens, core.cfg.h), link);
        r.c2 = transfer(core, mul(2, tokens, core.cfg.h), link);
        r.ep_bytes = core.ws <= 1 ? 0 : dbl(mul(3, tokens, core.cfg.h));
    } else {
        r = plain(core, n);
    }
    r.c_tp = tp_allreduce(core, n, r.tp_bytes);
    return r;
}

}  // namespace mfusim::compat
