#include "simulate/closed_loop.hpp"

#include <algorithm>
#include <cmath>

namespace mfusim::simulate {

Options closed_loop_benchmark(const engines::EngineProfile& engine, const serving::Workload& w) {
    Options o;
    o.scheduler = scheduler_config(engine);
    if (w.max_batched_tokens > 0) o.scheduler.max_batched_tokens = w.max_batched_tokens;
    if (w.max_seqs > 0) o.scheduler.max_seqs = w.max_seqs;
    if (w.gpu_memory_utilization > 0) o.scheduler.gpu_memory_utilization = w.gpu_memory_utilization;
    o.workload.arrivals.max_concurrency = w.concurrency;
    const double per_client = std::max(1.0, w.requests_per_client);
    // A count per client given as a total over the clients (compare's --num-prompts N: N / concurrency) is that
    // total: the product is rounded where it is an integer but for the division's last bit, else rounded up.
    const double prompts = per_client * static_cast<double>(w.concurrency), nearest = std::round(prompts);
    o.workload.num_prompts =
        static_cast<int64_t>(std::abs(prompts - nearest) <= 1e-9 * nearest ? nearest : std::ceil(prompts));
    o.workload.input.mean = static_cast<double>(w.input_len);
    o.workload.output.mean = static_cast<double>(w.output_len);
    serving::check_min_length_ratio(w.min_length_ratio);
    if (w.min_length_ratio < 1) {
        // Uniform integers in [floor(r L), L]: the distribution's mean and half-width (both ends drawn).
        for (LengthDistribution* d : {&o.workload.input, &o.workload.output}) {
            const double longest = d->mean, shortest = serving::shortest_drawn_length(longest, w.min_length_ratio);
            d->kind = LengthDistribution::Kind::uniform;
            d->mean = (longest + shortest) / 2;
            d->spread = (longest - shortest) / 2;
        }
    }
    return o;
}

mfusim_serving_result serving_result(const Result& r, int64_t gpus, std::size_t struct_size) {
    mfusim_serving_result x{};
    x.struct_size = struct_size;
    x.ttft_ms = r.ttft_ms.mean;
    x.tpot_ms = r.tpot_ms.mean;
    x.e2e_ms = r.e2el_ms.mean;
    x.request_throughput_req_s = r.request_throughput;
    x.output_throughput_tok_s_gpu = r.output_throughput / static_cast<double>(std::max<int64_t>(1, gpus));
    x.queue_ms = r.queue_ms.mean;
    x.running_requests = r.mean_running;
    x.decode_batch = r.mean_running;
    return x;
}

}  // namespace mfusim::simulate
