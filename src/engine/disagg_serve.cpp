#include "engine/disagg_serve.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "common/answer.hpp"
#include "common/error.hpp"

namespace mfusim::engine {

Options pool_options(const Options& base, int64_t tp, int64_t ep, int64_t attention_dp) {
    Options o = base;
    o.deployment.tensor_parallel = tp;
    o.deployment.expert_parallel = ep;
    o.deployment.attention_data_parallel = attention_dp;
    return o;
}

Options decode_pool_options(const Options& base, int64_t tp, int64_t ep, int64_t attention_dp) {
    Options o = pool_options(base, tp, ep, attention_dp);
    o.disagg_decode = true;
    return o;
}

void serve_disagg(const Estimator& prefill, const Estimator& decode, const serving::DisaggWorkload& workload,
                  serving::DisaggResult& out) {
    const roofline::RooflineModel *p = prefill.roofline(), *d = decode.roofline();
    if (!p || !d) {
        throw Error(Status::unsupported,
                    "disaggregated serving estimates are roofline-mode answers; InferSim (compat mode) has none");
    }
    if (prefill.gpu().name != decode.gpu().name) {
        throw Error(Status::config, "the prefill pool runs on " + prefill.gpu().name + " and the decode pool on " +
                                        decode.gpu().name + ": both pools must be on one GPU");
    }
    serving::DisaggResult r;
    serving::estimate_disagg(*p, *d, workload, r);
    const std::pair<double, const char*> values[] = {
        {r.ttft_ms, "TTFT"},
        {r.tpot_ms, "TPOT"},
        {r.e2e_ms, "request latency"},
        {r.output_throughput_tok_s_gpu, "output throughput"},
        {r.request_throughput_req_s, "request throughput"},
        {r.prefill_queue_ms, "the prefill queueing"},
        {r.transfer_ms, "the KV transfer"},
        {r.decode_wait_ms, "the decode-slot wait"},
        {r.decode_batch, "the decode batch"},
    };
    for (const auto& [value, what] : values) {
        if (!(std::isfinite(value) && value >= 0)) {
            checked_time(value, std::string("the disaggregated serving estimate's ") + what);
        }
    }
    out = r;
}

}  // namespace mfusim::engine
