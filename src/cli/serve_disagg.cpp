#include "cli/serve_disagg.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/estimator_flags.hpp"
#include "cli/serving_flags.hpp"
#include "cli/warnings.hpp"
#include "common/answer.hpp"
#include "common/json.hpp"
#include "engine/disagg_serve.hpp"
#include "simulate/disagg_sim.hpp"

namespace mfusim::cli {

std::vector<FlagSpec> disagg_flags() {
    return {
        {"--disagg", "",
         "disaggregated serving: a prefill pool and a decode pool of workers with their own parallelism "
         "(docs/disagg.md); replaces --tp, --ep, --attention-dp"},
        {"--prefill-workers", "N", "with --disagg: prefill workers [1]"},
        {"--prefill-tp", "N", "with --disagg: tensor-parallel degree of a prefill worker [1]"},
        {"--prefill-ep", "N", "with --disagg: expert-parallel degree of a prefill worker [1]"},
        {"--prefill-attention-dp", "N", "with --disagg: attention data-parallel replicas of a prefill worker [1]"},
        {"--prefill-batch", "N", "with --disagg: most prompts per prefill batch of a replica [the token budget's]"},
        {"--decode-workers", "N", "with --disagg: decode workers [1]"},
        {"--decode-tp", "N", "with --disagg: tensor-parallel degree of a decode worker [1]"},
        {"--decode-ep", "N", "with --disagg: expert-parallel degree of a decode worker [1]"},
        {"--decode-attention-dp", "N", "with --disagg: attention data-parallel replicas of a decode worker [1]"},
        {"--decode-batch", "N", "with --disagg: most requests a decode replica runs at once [the engine's max_seqs]"},
        {"--router", "MODE",
         "with --disagg --simulate: round-robin (each pool's next worker in turn, Dynamo's default) or least-loaded "
         "[round-robin]"},
    };
}

simulate::DisaggRouting disagg_router(const ParsedArgs& args, bool simulated) {
    const std::string mode = args.text_or("--router", "round-robin");
    if (args.flag("--router") && !simulated) {
        throw UsageError("--router picks the simulated router's policy; it needs --simulate");
    }
    if (mode == "round-robin") return simulate::DisaggRouting::round_robin;
    if (mode == "least-loaded") return simulate::DisaggRouting::least_loaded;
    throw UsageError("--router expects round-robin or least-loaded, got '" + mode + "'");
}

namespace {

// serve --disagg --simulate: the two-pool engine simulation (simulate/disagg_sim.hpp) of the closed-loop benchmark
// the workload stands for (simulate/closed_loop.hpp: --requests-per-client, --min-length-ratio), its means printed
// under the closed form's keys.
int print_simulated_disagg(const ParsedArgs& args, const engine::Estimator& prefill, const engine::Estimator& decode,
                           const serving::DisaggWorkload& w) {
    const roofline::RooflineModel *p = prefill.roofline(), *d = decode.roofline();
    if (!p || !d) throw UsageError("serve --disagg --simulate answers in roofline mode only");
    const serving::Workload bench = serving_workload(args);  // --requests-per-client, --min-length-ratio
    const simulate::Result r = simulate::simulate_disagg_benchmark(*p, *d, w, bench.requests_per_client,
                                                                   bench.min_length_ratio, disagg_router(args, true));
    const int64_t gpus = w.prefill_workers * p->memory().gpus + w.decode_workers * d->memory().gpus;
    const double tok_s_gpu = r.output_throughput / static_cast<double>(gpus);
    const std::pair<double, const char*> checked[] = {{r.ttft_ms.mean, "TTFT"},
                                                      {r.tpot_ms.mean, "TPOT"},
                                                      {r.e2el_ms.mean, "request latency"},
                                                      {tok_s_gpu, "output throughput"}};
    for (const auto& [value, what] : checked) {
        if (!(std::isfinite(value) && value >= 0)) {
            checked_time(value, std::string("the disaggregated simulation's ") + what);
        }
    }
    std::string warnings = prefill.load_warnings();
    if (decode.load_warnings() != warnings) warnings += decode.load_warnings();
    if (args.flag("--json")) {
        nlohmann::ordered_json j;
        j["ttft_ms"] = r.ttft_ms.mean;
        j["tpot_ms"] = r.tpot_ms.mean;
        j["output_throughput_tok_s_gpu"] = tok_s_gpu;
        j["e2e_ms"] = r.e2el_ms.mean;
        j["request_throughput_req_s"] = r.request_throughput;
        j["median_ttft_ms"] = r.ttft_ms.median;
        j["p90_ttft_ms"] = r.ttft_ms.p90;
        j["median_tpot_ms"] = r.tpot_ms.median;
        j["p90_tpot_ms"] = r.tpot_ms.p90;
        j["prefill_queue_ms"] = r.queue_ms.mean;
        j["transfer_ms"] = r.transfer_ms.mean;
        j["decode_wait_ms"] = r.decode_wait_ms.mean;
        j["decode_batch"] = r.mean_running;
        j["requests"] = r.completed;
        j["gpus"] = gpus;
        j["method"] = "disagg-simulate";
        j["warnings"] = warning_lines(warnings);
        std::printf("%s\n", json_text(j).c_str());
        return 0;
    }
    std::printf(
        "mfusim serve --disagg --simulate: %lld requests, %lld prefill x %lld GPU(s), %lld decode x %lld GPU(s)\n",
        static_cast<long long>(r.completed), static_cast<long long>(w.prefill_workers),
        static_cast<long long>(p->memory().gpus), static_cast<long long>(w.decode_workers),
        static_cast<long long>(d->memory().gpus));
    std::printf("  TTFT  mean %10.2f ms   median %10.2f   p90 %10.2f\n", r.ttft_ms.mean, r.ttft_ms.median,
                r.ttft_ms.p90);
    std::printf("    waiting for its prefill's first step: %.2f ms (mean)\n", r.queue_ms.mean);
    std::printf("    the KV transfer: %.2f ms, waiting for a decode slot: %.2f ms (means)\n", r.transfer_ms.mean,
                r.decode_wait_ms.mean);
    std::printf("  TPOT  mean %10.3f ms   median %10.3f   p90 %10.3f   (%.1f requests decoding per replica)\n",
                r.tpot_ms.mean, r.tpot_ms.median, r.tpot_ms.p90, r.mean_running);
    std::printf("  request latency (mean)     %10.1f ms\n", r.e2el_ms.mean);
    std::printf("  output tokens/s per GPU    %10.1f\n", tok_s_gpu);
    print_load_warnings(warnings);
    return 0;
}

}  // namespace

int run_serve_disagg(const ParsedArgs& args) {
    args.refuse_in_mode({"--tp", "--ep", "--attention-dp", "--max-seqs", "--world-size"},
                        "--disagg (each pool has its own --prefill-*/--decode-* flags)");
    engine::Options base = estimator_options(args);
    if (base.mode != engine::Mode::roofline) throw UsageError("serve --disagg answers in roofline mode only");
    constexpr int64_t kMaxDegree = 4096;
    const engine::Options prefill_options = engine::pool_options(
        base, args.count_or("--prefill-tp", 1, 1, kMaxDegree), args.count_or("--prefill-ep", 1, 1, kMaxDegree),
        args.count_or("--prefill-attention-dp", 1, 1, kMaxDegree));
    const engine::Options decode_options = engine::decode_pool_options(
        base, args.count_or("--decode-tp", 1, 1, kMaxDegree), args.count_or("--decode-ep", 1, 1, kMaxDegree),
        args.count_or("--decode-attention-dp", 1, 1, kMaxDegree));
    serving::DisaggWorkload w;
    w.input_len = args.count_or("--isl", w.input_len, 1, int64_t{1} << 24);
    w.output_len = args.count_or("--osl", w.output_len, 1, int64_t{1} << 24);
    w.concurrency = args.count_or("--concurrency", w.concurrency, 1, int64_t{1} << 20);
    w.prefill_workers = args.count_or("--prefill-workers", 1, 1, kMaxDegree);
    w.decode_workers = args.count_or("--decode-workers", 1, 1, kMaxDegree);
    w.prefill_batch = args.count_or("--prefill-batch", 0, 0, int64_t{1} << 20);
    w.decode_batch = args.count_or("--decode-batch", 0, 0, int64_t{1} << 20);
    w.max_batched_tokens = args.count_or("--max-batched-tokens", 0, 0, int64_t{1} << 24);
    w.gpu_memory_utilization = args.number_or("--gpu-memory-utilization", 0);

    const engine::Estimator prefill(prefill_options), decode(decode_options);
    if (args.flag("--simulate")) return print_simulated_disagg(args, prefill, decode, w);
    disagg_router(args, args.flag("--simulate"));                        // --router needs --simulate
    w.requests_per_client = args.number_or("--requests-per-client", 0);  // the closed form's first wave
    w.min_length_ratio = serving_workload(args).min_length_ratio;        // its mean lengths
    serving::DisaggResult r;
    engine::serve_disagg(prefill, decode, w, r);
    std::string warnings = prefill.load_warnings();
    if (decode.load_warnings() != warnings) warnings += decode.load_warnings();
    const int64_t gpus = w.prefill_workers * r.prefill_gpus + w.decode_workers * r.decode_gpus;

    if (args.flag("--json")) {
        nlohmann::ordered_json j;
        j["ttft_ms"] = r.ttft_ms;
        j["tpot_ms"] = r.tpot_ms;
        j["output_throughput_tok_s_gpu"] = r.output_throughput_tok_s_gpu;
        j["e2e_ms"] = r.e2e_ms;
        j["request_throughput_req_s"] = r.request_throughput_req_s;
        j["admission_ms"] = r.admission_ms;
        j["prefill_queue_ms"] = r.prefill_queue_ms;
        j["prefill_ms"] = r.prefill_ms;
        j["transfer_ms"] = r.transfer_ms;
        j["decode_wait_ms"] = r.decode_wait_ms;
        j["first_answer_ms"] = r.first_answer_ms;
        j["prefill_batch_ms"] = r.prefill_batch_ms;
        j["prompts_per_batch"] = r.prompts_per_batch;
        j["prefill_utilization"] = r.prefill_utilization;
        j["decode_step_ms"] = r.decode_step_ms;
        j["decode_batch"] = r.decode_batch;
        j["decode_slots"] = r.decode_slots;
        j["kv_transfer_bytes"] = r.kv_transfer_bytes;
        j["transfer_over"] = r.transfer_over_network ? "network" : "nvlink";
        j["gpus"] = gpus;
        j["method"] = "disagg";
        j["warnings"] = warning_lines(warnings);
        std::printf("%s\n", json_text(j).c_str());
        return 0;
    }
    std::printf("mfusim serve --disagg: %s\n", describe(base).c_str());
    std::printf("prefill pool: %lld worker(s) of %lld GPU(s) (tp %lld, ep %lld, attention-dp %lld)\n",
                static_cast<long long>(w.prefill_workers), static_cast<long long>(r.prefill_gpus),
                static_cast<long long>(prefill_options.deployment.tensor_parallel),
                static_cast<long long>(prefill_options.deployment.expert_parallel),
                static_cast<long long>(prefill_options.deployment.attention_data_parallel));
    std::printf("decode pool:  %lld worker(s) of %lld GPU(s) (tp %lld, ep %lld, attention-dp %lld); %lld GPUs in all\n",
                static_cast<long long>(w.decode_workers), static_cast<long long>(r.decode_gpus),
                static_cast<long long>(decode_options.deployment.tensor_parallel),
                static_cast<long long>(decode_options.deployment.expert_parallel),
                static_cast<long long>(decode_options.deployment.attention_data_parallel),
                static_cast<long long>(gpus));
    std::printf("workload: ISL %lld, OSL %lld, concurrency %lld\n\n", static_cast<long long>(w.input_len),
                static_cast<long long>(w.output_len), static_cast<long long>(w.concurrency));
    std::printf("  TTFT (mean)                %10.2f ms\n", r.ttft_ms);
    std::printf("    admission                %10.2f ms\n", r.admission_ms);
    std::printf("    waiting for prefill      %10.2f ms   (prefill pool %.0f%% busy)\n", r.prefill_queue_ms,
                100 * r.prefill_utilization);
    std::printf("    prefill                  %10.2f ms\n", r.prefill_ms);
    std::printf("    KV transfer              %10.2f ms   (%.1f MB per GPU link over %s)\n", r.transfer_ms,
                r.kv_transfer_bytes / 1e6, r.transfer_over_network ? "the network" : "NVLink");
    std::printf("    waiting for a decode slot%10.2f ms\n", r.decode_wait_ms);
    if (r.first_answer_ms > 0) {
        std::printf("    until its first answer   %10.2f ms   (%.0f decode steps)\n", r.first_answer_ms,
                    r.decode_step_ms > 0 ? r.first_answer_ms / r.decode_step_ms : 0.0);
    }
    std::printf("  TPOT (mean)                %10.3f ms   (%.1f requests decoding per replica, %.0f slots)\n",
                r.tpot_ms, r.decode_batch, r.decode_slots);
    std::printf("  request latency (mean)     %10.1f ms\n", r.e2e_ms);
    std::printf("  output tokens/s per GPU    %10.1f\n", r.output_throughput_tok_s_gpu);
    std::printf("  requests/s (deployment)    %10.3f\n", r.request_throughput_req_s);
    print_load_warnings(warnings);
    return 0;
}

}  // namespace mfusim::cli
