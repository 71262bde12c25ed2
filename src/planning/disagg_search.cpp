#include "planning/disagg_search.hpp"

#include <algorithm>
#include <cmath>

#include "common/answer.hpp"
#include "common/error.hpp"
#include "engine/disagg_serve.hpp"

namespace mfusim::planning {

std::vector<PoolLayout> pool_layouts(const std::vector<int64_t>& worker_gpus, bool moe, int64_t budget) {
    std::vector<PoolLayout> out;
    for (int64_t g : worker_gpus) {
        if (g > budget) continue;
        out.push_back({g, 1, 1});
        if (moe && g > 1) {
            out.push_back({g, g, 1});
            out.push_back({1, g, g});
        }
    }
    return out;
}

WorkerCounts match_workers(double prefill_req_s, int64_t prefill_gpus, double decode_req_s, int64_t decode_gpus,
                           int64_t gpu_budget, int64_t max_decode_workers) {
    WorkerCounts best;
    double best_rate = 0;
    int64_t best_gpus = 0;
    for (int64_t d = 1; d <= max_decode_workers && d * decode_gpus + prefill_gpus <= gpu_budget; ++d) {
        for (int64_t p = 1; p * prefill_gpus + d * decode_gpus <= gpu_budget; ++p) {
            const int64_t gpus = p * prefill_gpus + d * decode_gpus;
            const double rate =
                std::min(static_cast<double>(p) * prefill_req_s, static_cast<double>(d) * decode_req_s) /
                static_cast<double>(gpus);
            if (rate > best_rate || (rate == best_rate && gpus < best_gpus)) {
                best = {p, d};
                best_rate = rate;
                best_gpus = gpus;
            }
        }
    }
    return best;
}

namespace {

// The pool's estimator, or nullptr after counting the skip: a layout the model cannot be sharded over.
const engine::Estimator* pool_estimator(const engine::Options& base, const PoolLayout& l, bool decode,
                                        EstimatorCache& cache, DisaggSearch& out) {
    try {
        return &cache.get(decode ? engine::decode_pool_options(base, l.tp, l.ep, l.attention_dp)
                                 : engine::pool_options(base, l.tp, l.ep, l.attention_dp));
    } catch (const Error& e) {
        if (e.status() == Status::unknown_name) throw;  // the user's mistake, not a layout to skip
        ++out.skipped_invalid;
        out.last_skip = e.what();
        return nullptr;
    }
}

bool fits_error(const Error& e) {
    return e.status() == Status::config || e.status() == Status::unsupported;
}

}  // namespace

DisaggSearch search_disagg(const engine::Options& base, const serving::Workload& workload, const DisaggSpace& space,
                           EstimatorCache& cache) {
    DisaggSearch out;
    const std::vector<PoolLayout> layouts = pool_layouts(space.worker_gpus, space.moe, space.gpu_budget);
    serving::DisaggWorkload w;
    w.input_len = workload.input_len;
    w.output_len = workload.output_len;
    w.max_batched_tokens = workload.max_batched_tokens;
    w.gpu_memory_utilization = workload.gpu_memory_utilization;
    // Each layout's estimator once (a layout the model cannot be sharded over is counted once).
    // The decode pool's estimator apart (engine::Options::disagg_decode); a layout that fails fails in both roles,
    // so it is counted once.
    std::vector<const engine::Estimator*> estimators, decode_estimators;
    for (const PoolLayout& l : layouts) {
        estimators.push_back(pool_estimator(base, l, false, cache, out));
        decode_estimators.push_back(estimators.back() ? pool_estimator(base, l, true, cache, out) : nullptr);
    }
    for (std::size_t di = 0; di < layouts.size(); ++di) {
        const PoolLayout& dl = layouts[di];
        const engine::Estimator* decode = decode_estimators[di];
        if (!decode) continue;
        for (std::size_t pi = 0; pi < layouts.size(); ++pi) {
            const PoolLayout& pl = layouts[pi];
            const engine::Estimator* prefill = estimators[pi];
            if (!prefill || pl.gpus() + dl.gpus() > space.gpu_budget) continue;
            if (!prefill->roofline() || !decode->roofline()) {
                throw Error(Status::unsupported, "plan --disagg answers in roofline mode only");
            }
            for (int64_t b : space.decode_batches) {
                serving::DisaggWorkload pw = w;
                pw.decode_batch = b;
                pw.concurrency = 1;
                serving::DisaggCapacity cap;
                try {
                    cap = serving::disagg_capacity(*prefill->roofline(), *decode->roofline(), pw);
                } catch (const Error& e) {
                    if (!fits_error(e)) throw;
                    // Weights or one request that do not fit do not fit at any batch: one skip per layout pair.
                    ++out.skipped_not_fitting;
                    out.last_skip = e.what();
                    break;
                }
                // A batch beyond what a replica holds (max_seqs, KV cache) repeats the largest that fits.
                if (static_cast<double>(b) > cap.decode_slots) break;
                const int64_t per_worker = b * decode->roofline()->memory().replicas;
                const int64_t max_decode = space.max_concurrency / per_worker;
                if (max_decode < 1) break;
                const WorkerCounts n = match_workers(cap.prefill_req_s, pl.gpus(), cap.decode_req_s, dl.gpus(),
                                                     space.gpu_budget, max_decode);
                if (n.prefill < 1) continue;
                pw.prefill_workers = n.prefill;
                pw.decode_workers = n.decode;
                pw.concurrency = n.decode * per_worker;
                serving::DisaggResult r;
                try {
                    engine::serve_disagg(*prefill, *decode, pw, r);
                    if (space.simulate) {
                        const simulate::Result sim = simulate::simulate_disagg_benchmark(
                            *prefill->roofline(), *decode->roofline(), pw, workload.requests_per_client,
                            workload.min_length_ratio, space.routing);
                        r.ttft_ms = checked_time(sim.ttft_ms.mean, "the simulated TTFT");
                        r.tpot_ms = checked_time(sim.tpot_ms.mean, "the simulated TPOT");
                        r.output_throughput_tok_s_gpu =
                            checked_time(sim.output_throughput /
                                             static_cast<double>(n.prefill * r.prefill_gpus + n.decode * r.decode_gpus),
                                         "the simulated output throughput");
                    }
                } catch (const Error& e) {
                    if (!fits_error(e)) throw;
                    ++out.skipped_not_fitting;
                    out.last_skip = e.what();
                    continue;
                }
                DisaggPoint pt;
                pt.prefill = pl;
                pt.decode = dl;
                pt.prefill_workers = n.prefill;
                pt.decode_workers = n.decode;
                pt.decode_batch = b;
                pt.concurrency = pw.concurrency;
                pt.gpus = n.prefill * r.prefill_gpus + n.decode * r.decode_gpus;
                pt.ttft_ms = r.ttft_ms;
                pt.tpot_ms = r.tpot_ms;
                pt.tok_s_gpu = r.output_throughput_tok_s_gpu;
                out.points.push_back(pt);
            }
        }
    }
    return out;
}

}  // namespace mfusim::planning
