// The statistics a simulated benchmark reports, taken once from every request's clock (simulator.hpp), so the
// aggregated and the disaggregated simulators report alike.
#include <algorithm>
#include <cmath>

#include "simulate/simulator.hpp"

namespace mfusim::simulate {

Result request_results(const std::vector<TraceRequest>& sent, const std::vector<RequestClock>& clocks, int64_t warmup,
                       const Slo& slo, std::vector<std::pair<double, int64_t>> itl) {
    Result out;
    std::vector<double> ttft, tpot, e2el, queue;
    double first_send = INFINITY, last_done = 0;
    int64_t good = 0;
    out.requests.resize(sent.size());
    for (std::size_t i = 0; i < sent.size(); ++i) {
        const RequestClock& c = clocks[i];
        RequestResult& r = out.requests[i];
        r.send_ms = c.send / 1000;
        r.ttft_ms = (c.first - c.send) / 1000;
        r.e2el_ms = (c.last - c.send) / 1000;
        r.tpot_ms = sent[i].output_len > 1 ? (r.e2el_ms - r.ttft_ms) / static_cast<double>(sent[i].output_len - 1) : 0;
        r.queue_ms = (c.scheduled - c.ready) / 1000;
        r.input_len = sent[i].input_len;
        r.output_len = sent[i].output_len;
        r.warmup = static_cast<int64_t>(i) < warmup;
        if (r.warmup) continue;
        ++out.completed;
        out.total_input_tokens += r.input_len;
        out.total_output_tokens += r.output_len;
        ttft.push_back(r.ttft_ms);
        if (r.output_len > 1) tpot.push_back(r.tpot_ms);
        e2el.push_back(r.e2el_ms);
        queue.push_back(r.queue_ms);
        first_send = std::min(first_send, c.send);
        last_done = std::max(last_done, c.last);
        const bool within = (slo.ttft_ms <= 0 || r.ttft_ms <= slo.ttft_ms) &&
                            (slo.tpot_ms <= 0 || r.tpot_ms <= slo.tpot_ms) &&
                            (slo.e2el_ms <= 0 || r.e2el_ms <= slo.e2el_ms);
        good += within ? 1 : 0;
    }
    out.duration_s = std::max(1e-12, (last_done - first_send) / 1e6);
    out.request_throughput = static_cast<double>(out.completed) / out.duration_s;
    out.output_throughput = static_cast<double>(out.total_output_tokens) / out.duration_s;
    out.total_token_throughput = static_cast<double>(out.total_input_tokens + out.total_output_tokens) / out.duration_s;
    out.request_goodput = static_cast<double>(good) / out.duration_s;
    out.ttft_ms = summarize(std::move(ttft));
    out.tpot_ms = summarize(std::move(tpot));
    out.e2el_ms = summarize(std::move(e2el));
    out.queue_ms = summarize(std::move(queue));
    out.itl_values = std::move(itl);
    out.itl_ms = summarize(out.itl_values);
    return out;
}

}  // namespace mfusim::simulate
