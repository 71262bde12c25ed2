// SPEC section 13: expert-parallel communication (plain all-reduce or DeepEP) and the TP all-reduce.
#include "compat/layers.hpp"
#include "compat/sizes.hpp"

namespace mfusim::compat {

namespace {

constexpr double kGiB = 1073741824.0;

double transfer(const Core& core, int64_t bytes, double link) {
    if (core.ws <= 1) return 0;
    return (dbl(bytes) / kGiB) / link;
}

double tp_allreduce(const Core& core, int64_t n, double& bytes) {
    if (core.tp <= 1) return 0;
    const int64_t numerator = (2 * n * core.cfg.h) * 2 * (core.tp - 1);
    bytes = dbl(numerator) / dbl(core.tp);
    return (bytes / kGiB) / core.gpu.NV;
}

Comm plain(const Core& core, int64_t n) {
    Comm r;
    const int64_t bytes = 2 * (n * core.ws) * core.cfg.h;
    const double t = transfer(core, bytes, core.nn > 1 ? core.gpu.RD : core.gpu.NV);
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
        const int64_t inter = n * (core.nn - 1);
        r.c1 = transfer(core, 1 * inter * h, core.gpu.RD) + transfer(core, 1 * n * h, core.gpu.NV);
        r.c2 = transfer(core, 2 * inter * h, core.gpu.RD) + transfer(core, 2 * n * h, core.gpu.NV);
        r.ep_bytes = core.ws <= 1 ? 0 : dbl(3 * inter * h + 3 * n * h);
    } else {
        r = plain(core, n);
    }
    r.c_tp = tp_allreduce(core, n, r.tp_bytes);
    return r;
}

Comm comm_decode(const Core& core, int64_t n) {
    Comm r;
    if (core.deepep) {
        const int64_t tokens = n * core.cfg.k_e;
        const double link = core.nn > 1 ? core.gpu.RD : core.gpu.NV;
        r.c1 = transfer(core, 1 * tokens * core.cfg.h, link);
        r.c2 = transfer(core, 2 * tokens * core.cfg.h, link);
        r.ep_bytes = core.ws <= 1 ? 0 : dbl(3 * tokens * core.cfg.h);
    } else {
        r = plain(core, n);
    }
    r.c_tp = tp_allreduce(core, n, r.tp_bytes);
    return r;
}

}  // namespace mfusim::compat
