// mfusim serve: TTFT, TPOT and throughput of a closed-loop workload at a concurrency (docs/serving.md).
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/serve_disagg.hpp"
#include "cli/serving_flags.hpp"
#include "cli/step_output.hpp"
#include "cli/warnings.hpp"
#include "common/json.hpp"
#include "engine/estimator.hpp"

namespace mfusim::cli {

namespace {

CommandSpec serve_spec() {
    CommandSpec spec{"serve",
                     "mfusim serve --model M --gpu G [--tp N] [--ep N] [--attention-dp N] --isl I --osl O "
                     "--concurrency C [options]\n"
                     "       mfusim serve --disagg --prefill-workers N --prefill-tp N --decode-workers N --decode-tp N "
                     "[--prefill-ep N] [--decode-ep N] [--decode-batch N] ... --isl I --osl O --concurrency C",
                     "Steady-state serving estimate (roofline mode): `concurrency` clients each keep one request of\n"
                     "ISL prompt and OSL output tokens in flight, served by the engine (--engine) with aggregated\n"
                     "in-flight batching: decodes of running requests plus prefill chunks of arriving ones in every\n"
                     "step, within the token budget. Prints mean TTFT, mean TPOT, output tokens/s per GPU, the step\n"
                     "mix it assumed and the breakdown of its decode and mixed steps. docs/serving.md derives it.",
                     estimator_flags(),
                     {}};
    for (FlagSpec& f : serving_flags()) spec.flags.push_back(std::move(f));
    for (FlagSpec& f : disagg_flags()) spec.flags.push_back(std::move(f));
    spec.flags.push_back(
        {"--json", "", "print the result as JSON (keys ttft_ms, tpot_ms, output_throughput_tok_s_gpu, ...)"});
    return spec;
}

// The keys both answers share, first in their JSON.
nlohmann::ordered_json headline_json(const mfusim_serving_result& r) {
    nlohmann::ordered_json j;
    j["ttft_ms"] = r.ttft_ms;
    j["tpot_ms"] = r.tpot_ms;
    j["output_throughput_tok_s_gpu"] = r.output_throughput_tok_s_gpu;
    j["e2e_ms"] = r.e2e_ms;
    j["request_throughput_req_s"] = r.request_throughput_req_s;
    return j;
}

// serve --simulate: the workload's benchmark simulated; means and throughputs (no step mix: the steps vary).
int print_simulated(const ParsedArgs& args, const engine::Options& options, const engine::Estimator& estimator,
                    const serving::Workload& w) {
    mfusim_serving_result r{};
    r.struct_size = sizeof r;
    estimator.serve_simulated(w, r);
    if (args.flag("--json")) {
        nlohmann::ordered_json j = headline_json(r);
        j["queue_ms"] = r.queue_ms;
        j["running_requests"] = r.running_requests;
        j["method"] = "simulated";
        j["warnings"] = warning_lines(estimator.load_warnings());
        std::printf("%s\n", json_text(j).c_str());
        return 0;
    }
    std::printf("mfusim serve --simulate: %s\n", describe(options).c_str());
    std::printf("workload: ISL %lld, OSL %lld, concurrency %lld, %.0f request(s) per client (simulated)\n\n",
                static_cast<long long>(w.input_len), static_cast<long long>(w.output_len),
                static_cast<long long>(w.concurrency), std::max(1.0, w.requests_per_client));
    std::printf("  TTFT (mean)                %10.2f ms   (of which waiting in the engine's queue %.2f ms)\n",
                r.ttft_ms, r.queue_ms);
    std::printf("  TPOT (mean)                %10.3f ms\n", r.tpot_ms);
    std::printf("  request latency (mean)     %10.1f ms\n", r.e2e_ms);
    std::printf("  output tokens/s per GPU    %10.1f\n", r.output_throughput_tok_s_gpu);
    std::printf("  requests/s (deployment)    %10.3f\n", r.request_throughput_req_s);
    std::printf("  running requests (mean)    %10.1f\n", r.running_requests);
    print_load_warnings(estimator.load_warnings());
    return 0;
}

}  // namespace

int run_serve(const Args& raw) {
    static const CommandSpec spec = serve_spec();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    if (args.flag("--disagg")) return run_serve_disagg(args);
    for (const FlagSpec& f : disagg_flags()) {
        if (args.flag(f.name))
            throw UsageError(f.name + " describes a pool of a disaggregated deployment: add --disagg");
    }
    engine::Options options = estimator_options(args);
    if (options.mode != engine::Mode::roofline) throw UsageError("serve answers in roofline mode only");
    serving::Workload w = serving_workload(args);

    engine::Estimator estimator(options);
    mfusim_serving_result r{};
    r.struct_size = sizeof r;
    mfusim_step_result decode{}, mixed{};
    decode.struct_size = mixed.struct_size = sizeof decode;
    if (args.flag("--simulate")) return print_simulated(args, options, estimator, w);
    // Through the estimator, whose final check refuses a NaN or infinite answer (an engine with max_seqs 0).
    estimator.serve(w, r, &decode, &mixed);

    if (args.flag("--json")) {
        nlohmann::ordered_json j = headline_json(r);
        j["decode_step_ms"] = r.decode_step_ms;
        j["mixed_step_ms"] = r.mixed_step_ms;
        j["mixed_step_fraction"] = r.mixed_step_fraction;
        j["decode_batch"] = r.decode_batch;
        j["prefill_tokens_per_mixed_step"] = r.prefill_tokens_per_mixed_step;
        j["prefill_steps_per_request"] = r.prefill_steps_per_request;
        j["queue_ms"] = r.queue_ms;
        j["running_requests"] = r.running_requests;
        j["kv_capacity_tokens"] = static_cast<int64_t>(r.kv_capacity_tokens);  // whole tokens
        if (const roofline::RooflineModel* m = estimator.roofline()) {
            j["kv_cache_dtype"] = m->kv_cache().fp8 ? "fp8" : "bf16";
            j["kv_cache_from"] = m->kv_cache().from;
        }
        j["limited_by"] = limit_name(r.limited_by);
        j["decode_step"] = step_result_json(decode);
        j["mixed_step"] = step_result_json(mixed);
        j["warnings"] = warning_lines(estimator.load_warnings());
        std::printf("%s\n", json_text(j).c_str());
        return 0;
    }
    std::printf("mfusim serve: %s\n", describe(options).c_str());
    std::printf("workload: ISL %lld, OSL %lld, concurrency %lld\n\n", static_cast<long long>(w.input_len),
                static_cast<long long>(w.output_len), static_cast<long long>(w.concurrency));
    std::printf("  TTFT (mean)                %10.2f ms   (of which waiting for admission %.2f ms)\n", r.ttft_ms,
                r.queue_ms);
    std::printf("  TPOT (mean)                %10.3f ms\n", r.tpot_ms);
    std::printf("  request latency (mean)     %10.1f ms\n", r.e2e_ms);
    std::printf("  output tokens/s per GPU    %10.1f\n", r.output_throughput_tok_s_gpu);
    std::printf("  requests/s (deployment)    %10.3f\n\n", r.request_throughput_req_s);
    std::printf(
        "step mix: %.1f requests decoding, %.0f%% of steps also carry %.0f prefill tokens; a prompt spans "
        "%.0f step(s)\n",
        r.decode_batch, 100 * r.mixed_step_fraction, r.prefill_tokens_per_mixed_step, r.prefill_steps_per_request);
    std::printf("running requests %.1f (limited by %s), KV cache %.0f tokens per GPU\n", r.running_requests,
                limit_name(r.limited_by), r.kv_capacity_tokens);
    if (const roofline::RooflineModel* m = estimator.roofline())
        std::printf("KV cache %s\n", m->kv_cache().why.c_str());
    std::printf("\n");
    // The serving figures use step times interpolated at fractional request counts (63.9 decodes); a breakdown is
    // of one real step, with whole counts: both are in microseconds, and the heading says which is which.
    std::printf(
        "decode step %.3f us on average (%.1f requests decoding, interpolated between whole batches);\n"
        "breakdown of one decode step with whole request counts:\n",
        r.decode_step_ms * 1000, r.decode_batch);
    print_step_table(decode);
    std::printf(
        "\nmixed step %.3f us on average (%.0f prefill tokens per mixed step);\n"
        "breakdown of one mixed step with whole request counts:\n",
        r.mixed_step_ms * 1000, r.prefill_tokens_per_mixed_step);
    print_step_table(mixed);
    print_load_warnings(estimator.load_warnings());
    return 0;
}

}  // namespace mfusim::cli
