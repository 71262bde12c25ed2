// mfusim simulate: a serving benchmark run against the engine simulator (docs/simulate.md). Flags and JSON keys
// follow vLLM's `bench serve` where it has them.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/experiment_file.hpp"
#include "cli/html_report.hpp"
#include "cli/output.hpp"
#include "cli/svg_chart.hpp"
#include "cli/warnings.hpp"
#include "common/error.hpp"
#include "engine/estimator.hpp"
#include "simulate/simulator.hpp"
#include "simulate/trace.hpp"

namespace mfusim::cli {

namespace {

CommandSpec simulate_spec() {
    CommandSpec spec{
        "simulate",
        "mfusim simulate --model M --gpu G [--tp N] [--ep N] [--attention-dp N] [--engine E] "
        "[--request-rate R | --max-concurrency C] [--num-prompts N] [--isl I --osl O | --trace FILE] [options]",
        "Simulates a serving benchmark against the deployment (roofline mode): requests sent at a rate\n"
        "(Poisson, or gamma gaps with --burstiness) or by closed-loop clients (--max-concurrency with the default\n"
        "infinite rate), scheduled by the engine's scheduler (vLLM V1, SGLang, TensorRT-LLM; --engine), each step\n"
        "timed by the roofline model. Prints vLLM bench's metrics: throughputs, goodput, and mean, median, std and\n"
        "percentiles of TTFT, TPOT, ITL and E2E latency. docs/simulate.md describes the simulator.",
        estimator_flags(),
        {}};
    const std::vector<FlagSpec> own = {
        {"--num-prompts", "N", "requests to send [1000]"},
        {"--request-rate", "R", "requests per second, or inf to send all at once [inf]"},
        {"--burstiness", "X", "gamma shape of the gaps between requests: 1 Poisson, < 1 burstier [1]"},
        {"--constant-rate", "", "send at exact intervals of 1 / rate"},
        {"--max-concurrency", "N", "most requests in flight (closed-loop clients with an infinite rate) [none]"},
        {"--ramp-up", "S", "closed-loop clients start one after another over S seconds instead of together [0]"},
        {"--isl", "N", "mean prompt tokens per request (vLLM bench --random-input-len) [1024]"},
        {"--osl", "N", "mean generated tokens per request (--random-output-len) [128]"},
        {"--length-distribution", "KIND", "fixed, uniform, normal or lognormal, for both lengths [fixed]"},
        {"--range-ratio", "X", "uniform lengths within mean x (1 +- X), as vLLM bench's --random-range-ratio [0]"},
        {"--isl-stddev", "N", "prompt length spread (standard deviation; normal or lognormal) [0]"},
        {"--osl-stddev", "N", "output length spread (standard deviation; normal or lognormal) [0]"},
        {"--num-prefix-prompts", "N", "distinct shared prefixes, request i using prefix i mod N (AIPerf) [0]"},
        {"--prefix-prompt-length", "N", "tokens of each shared prefix, within the prompt [0]"},
        {"--trace", "FILE", "CSV of requests (arrival_s,input_len,output_len[,prefix_id,prefix_len]) to replay"},
        {"--seed", "N", "random seed; the same seed gives the same numbers everywhere [0]"},
        {"--warmup", "N", "first requests left out of the statistics [0]"},
        {"--goodput", "SLOS", "SLOs for goodput, e.g. ttft:500,tpot:50,e2el:10000 (ms)"},
        {"--metric-percentiles", "LIST", "percentiles to print, e.g. 50,90,99 [99]"},
        {"--max-batched-tokens", "N", "scheduler token budget per step [the engine's]"},
        {"--max-seqs", "N", "most requests running at once [the engine's]"},
        {"--gpu-memory-utilization", "X",
         "share of GPU memory for weights and KV (TensorRT-LLM: of the memory the weights leave) [the engine's]"},
        {"--block-size", "N", "KV cache block size in tokens [the engine's]"},
        {"--long-prefill-token-threshold", "N", "vLLM: most tokens of one prompt per step [no cap]"},
        {"--no-chunked-prefill", "", "prompts are never split across steps (the trtllm profile's default)"},
        {"--no-prefix-caching", "", "no KV reuse between requests"},
        {"--scheduler", "NAME", "vllm-v1, sglang, trtllm or trtllm-max-utilization [the engine's]"},
        {"--timeline", "FILE", "write one CSV row per step: time, duration, running, waiting, tokens, KV use"},
        {"--result-file", "FILE", "write the JSON result (with per-request arrays) to FILE"},
        {"--json", "", "print the JSON result (vLLM bench's key names) instead of text"},
        {"--html", "FILE",
         "write a self-contained HTML report: TTFT, TPOT and E2E latency by percentile (chart) and the result's "
         "numbers (table)"},
    };
    for (const FlagSpec& f : own) spec.flags.push_back(f);
    spec.flags.push_back(experiment_flag());
    return spec;
}

std::vector<double> number_list(const std::string& flag, const std::string& text) {
    std::vector<double> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(v >= 0 && v <= 100)) {
            throw UsageError(flag + ": '" + item + "' is not a percentile between 0 and 100");
        }
        out.push_back(v);
    }
    if (out.empty() || out.size() > 32) throw UsageError(flag + ": give 1 to 32 percentiles");
    return out;
}

void parse_goodput(const std::string& text, simulate::Options& o) {
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto colon = item.find(':');
        char* end = nullptr;
        const double v = colon == std::string::npos ? NAN : std::strtod(item.c_str() + colon + 1, &end);
        if (colon == std::string::npos || *end != '\0' || !(v > 0 && std::isfinite(v))) {
            throw UsageError("--goodput: '" + item + "' is not NAME:MS with a positive number (ttft, tpot, e2el)");
        }
        const std::string name = item.substr(0, colon);
        double* slot = name == "ttft"   ? &o.slo_ttft_ms
                       : name == "tpot" ? &o.slo_tpot_ms
                       : name == "e2el" ? &o.slo_e2el_ms
                                        : nullptr;
        if (!slot) throw UsageError("--goodput: unknown metric '" + name + "' (ttft, tpot, e2el)");
        *slot = v;
    }
}

simulate::Options simulation_options(const ParsedArgs& args, const engines::EngineProfile& engine) {
    simulate::Options o;
    simulate::WorkloadSpec& w = o.workload;
    w.num_prompts = args.integer_or("--num-prompts", w.num_prompts);
    const std::string rate = args.text_or("--request-rate", "inf");
    w.arrivals.request_rate = rate == "inf" ? INFINITY : args.number_or("--request-rate", 0);
    w.arrivals.burstiness = args.number_or("--burstiness", 1);
    w.arrivals.constant = args.flag("--constant-rate");
    w.arrivals.max_concurrency = args.integer_or("--max-concurrency", 0);
    w.arrivals.ramp_up_s = args.number_or("--ramp-up", 0);
    const auto kind = simulate::length_kind(args.text_or("--length-distribution", "fixed"));
    w.input.kind = w.output.kind = kind;
    w.input.mean = static_cast<double>(args.integer_or("--isl", 1024));
    w.output.mean = static_cast<double>(args.integer_or("--osl", 128));
    if (args.flag("--range-ratio")) {
        if (kind != simulate::LengthDistribution::Kind::uniform) {
            throw UsageError("--range-ratio needs --length-distribution uniform");
        }
        const double r = args.number_or("--range-ratio", 0);
        if (!(r >= 0 && r < 1)) throw UsageError("--range-ratio must be at least 0 and below 1");
        w.input.spread = r * w.input.mean;
        w.output.spread = r * w.output.mean;
    }
    for (auto [flag, dist] : {std::pair{"--isl-stddev", &w.input}, {"--osl-stddev", &w.output}}) {
        if (!args.flag(flag)) continue;
        if (kind != simulate::LengthDistribution::Kind::normal &&
            kind != simulate::LengthDistribution::Kind::lognormal) {
            throw UsageError(std::string(flag) + " needs --length-distribution normal or lognormal");
        }
        dist->spread = args.number_or(flag, 0);
    }
    w.num_prefix_prompts = args.integer_or("--num-prefix-prompts", 0);
    w.prefix_len = args.integer_or("--prefix-prompt-length", 0);
    const int64_t seed = args.integer_or("--seed", 0);
    if (seed < 0) throw UsageError("--seed must be at least 0");
    w.seed = static_cast<uint64_t>(seed);
    w.warmup = args.integer_or("--warmup", 0);
    if (auto trace = args.text("--trace")) {
        for (const char* f : {"--isl", "--osl", "--num-prompts", "--request-rate", "--length-distribution"}) {
            if (args.flag(f)) throw UsageError(std::string(f) + " and --trace exclude each other (the trace gives it)");
        }
        w.trace = simulate::read_trace_csv(*trace);
    }
    if (auto slos = args.text("--goodput")) parse_goodput(*slos, o);

    simulate::SchedulerConfig& s = o.scheduler;
    s = simulate::scheduler_config(engine);
    if (auto name = args.text("--scheduler")) s.policy = engines::scheduler_policy_named(*name);
    s.max_batched_tokens = args.integer_or("--max-batched-tokens", s.max_batched_tokens);
    s.max_seqs = args.integer_or("--max-seqs", s.max_seqs);
    s.gpu_memory_utilization = args.number_or("--gpu-memory-utilization", s.gpu_memory_utilization);
    s.block_tokens = args.integer_or("--block-size", s.block_tokens);
    s.long_prefill_token_threshold = args.integer_or("--long-prefill-token-threshold", 0);
    if (args.flag("--no-chunked-prefill")) s.chunked_prefill = false;
    s.prefix_caching = !args.flag("--no-prefix-caching");
    o.record_timeline = args.flag("--timeline");
    return o;
}

void put_summary(nlohmann::ordered_json& j, const std::string& metric, const simulate::Summary& s,
                 const std::vector<double>& percentiles, const std::function<double(double)>& at) {
    j["mean_" + metric + "_ms"] = s.mean;
    j["median_" + metric + "_ms"] = s.median;
    j["std_" + metric + "_ms"] = s.std;
    for (double p : percentiles) {
        char name[48];
        std::snprintf(name, sizeof name, "p%g_%s_ms", p, metric.c_str());
        j[name] = at(p);
    }
}

}  // namespace

// The command itself; run_simulate adds the experiment file's options.
static int simulate_body(const Args& raw) {
    static const CommandSpec spec = simulate_spec();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    engine::Options options = estimator_options(args);
    if (options.mode != engine::Mode::roofline) throw UsageError("simulate answers in roofline mode only");
    const std::vector<double> percentiles =
        number_list("--metric-percentiles", args.text_or("--metric-percentiles", "99"));
    engine::Estimator estimator(options);
    const roofline::RooflineModel& model = *estimator.roofline();
    const simulate::Options o = simulation_options(args, model.engine());
    for (const char* flag : {"--timeline", "--result-file", "--html"}) {
        if (auto path = args.text(flag)) check_output_path(*path, flag);
    }
    const simulate::Result r = simulate::simulate(model, o);

    nlohmann::ordered_json j;
    j["duration"] = r.duration_s;
    j["completed"] = r.completed;
    j["total_input_tokens"] = r.total_input_tokens;
    j["total_output_tokens"] = r.total_output_tokens;
    j["request_throughput"] = r.request_throughput;
    j["request_goodput"] = r.request_goodput;
    j["output_throughput"] = r.output_throughput;
    j["total_token_throughput"] = r.total_token_throughput;
    const std::tuple<const char*, simulate::Metric, const simulate::Summary*> metrics[] = {
        {"ttft", simulate::Metric::ttft, &r.ttft_ms},
        {"tpot", simulate::Metric::tpot, &r.tpot_ms},
        {"itl", simulate::Metric::itl, &r.itl_ms},
        {"e2el", simulate::Metric::e2el, &r.e2el_ms}};
    for (const auto& [metric, id, summary] : metrics) {
        const auto values = simulate::metric_values(r, id);  // sorted and merged
        put_summary(j, metric, *summary, percentiles, [&](double p) { return simulate::percentile(values, p); });
    }
    j["steps"] = r.steps;
    j["preemptions"] = r.preemptions;
    j["prefix_hit_tokens"] = r.prefix_hit_tokens;
    j["mean_running_requests"] = r.mean_running;
    j["mean_batch_tokens"] = r.mean_batch_tokens;
    j["scheduler"] = engines::scheduler_policy_name(o.scheduler.policy);
    j["warnings"] = warning_lines(estimator.load_warnings());
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it->is_number_float() && !(std::isfinite(it->get<double>()) && it->get<double>() >= 0)) {
            throw Error(Status::internal, "simulate: " + it.key() + " is not a finite, non-negative number");
        }
    }

    std::string timeline;
    if (o.record_timeline) {
        timeline = "start_ms,duration_ms,running,waiting,prefill_tokens,decode_tokens,kv_used\n";
        char line[192];
        for (const simulate::StepRecord& s : r.timeline) {
            std::snprintf(line, sizeof line, "%.6f,%.6f,%d,%d,%d,%d,%.6f\n", s.start_ms, s.duration_ms, s.running,
                          s.waiting, s.prefill_tokens, s.decode_tokens, s.kv_used);
            timeline += line;
        }
    }
    std::string result_file;
    if (args.flag("--result-file")) {
        nlohmann::ordered_json full = j;
        for (const char* key : {"input_lens", "output_lens", "ttfts", "tpots", "e2els"})
            full[key] = nlohmann::json::array();
        for (const simulate::RequestResult& q : r.requests) {
            if (q.warmup) continue;
            full["input_lens"].push_back(q.input_len);
            full["output_lens"].push_back(q.output_len);
            full["ttfts"].push_back(q.ttft_ms / 1000);  // seconds, as vLLM bench writes them
            full["tpots"].push_back(q.tpot_ms / 1000);
            full["e2els"].push_back(q.e2el_ms / 1000);
        }
        result_file = full.dump(2) + "\n";
    }
    std::string html;
    if (args.flag("--html")) {
        // Latency by percentile, one line per metric (log scale: E2E is orders above TPOT), then every number of
        // the JSON result as a table.
        Chart chart;
        chart.title = "Simulated latency by percentile";
        chart.subtitle = describe(options);
        chart.x_label = "percentile of requests";
        chart.y_label = "latency (ms)";
        chart.log_y = true;
        for (const auto& [metric, id, summary] : metrics) {
            if (id == simulate::Metric::itl) continue;  // per token, as TPOT; its tail is in the table
            const auto values = simulate::metric_values(r, id);
            ChartSeries line{id == simulate::Metric::ttft   ? "TTFT"
                             : id == simulate::Metric::tpot ? "TPOT"
                                                            : "E2E latency"};
            for (int p = 1; p <= 99; ++p) {
                line.x.push_back(p);
                line.y.push_back(simulate::percentile(values, p));
            }
            chart.series.push_back(std::move(line));
        }
        HtmlReport report{"mfusim simulate",
                          describe(options),
                          render_svg(chart),
                          {"quantity", "value"},
                          nlohmann::ordered_json::array(),
                          warning_lines(estimator.load_warnings())};
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (it.key() == "warnings") continue;
            report.rows.push_back({{"quantity", it.key()}, {"value", *it}});
        }
        html = render_html(report);
    }
    // Every output is formed before any is written.
    Outputs outputs;
    if (auto path = args.text("--html")) outputs.add(*path, std::move(html));
    if (auto path = args.text("--timeline")) outputs.add(*path, std::move(timeline));
    if (auto path = args.text("--result-file")) outputs.add(*path, std::move(result_file));
    outputs.commit();
    if (args.flag("--json")) {
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf("mfusim simulate: %s, scheduler %s\n", describe(options).c_str(),
                engines::scheduler_policy_name(o.scheduler.policy));
    std::printf("============ Serving Benchmark Result (simulated) ============\n");
    std::printf("%-40s %12lld\n", "Successful requests:", static_cast<long long>(r.completed));
    std::printf("%-40s %12.2f\n", "Benchmark duration (s):", r.duration_s);
    std::printf("%-40s %12lld\n", "Total input tokens:", static_cast<long long>(r.total_input_tokens));
    std::printf("%-40s %12lld\n", "Total generated tokens:", static_cast<long long>(r.total_output_tokens));
    std::printf("%-40s %12.2f\n", "Request throughput (req/s):", r.request_throughput);
    if (o.slo_ttft_ms > 0 || o.slo_tpot_ms > 0 || o.slo_e2el_ms > 0) {
        std::printf("%-40s %12.2f\n", "Request goodput (req/s):", r.request_goodput);
    }
    std::printf("%-40s %12.2f\n", "Output token throughput (tok/s):", r.output_throughput);
    std::printf("%-40s %12.2f\n", "Total token throughput (tok/s):", r.total_token_throughput);
    const std::pair<const char*, const char*> titles[] = {{"ttft", "Time to First Token"},
                                                          {"tpot", "Time per Output Token (excl. 1st token)"},
                                                          {"itl", "Inter-token Latency"},
                                                          {"e2el", "End-to-end Latency"}};
    for (const auto& [metric, title] : titles) {
        std::printf("%s\n", ("---------------" + std::string(title) + "---------------").c_str());
        const std::string upper = metric == std::string("e2el")   ? "E2EL"
                                  : metric == std::string("itl")  ? "ITL"
                                  : metric == std::string("ttft") ? "TTFT"
                                                                  : "TPOT";
        for (const char* stat : {"mean", "median", "std"}) {
            std::string key = std::string(stat) + "_" + metric + "_ms";
            std::string label = std::string(stat == std::string("std")    ? "Std"
                                            : stat == std::string("mean") ? "Mean"
                                                                          : "Median") +
                                " " + upper + " (ms):";
            std::printf("%-40s %12.2f\n", label.c_str(), j[key].get<double>());
        }
        for (double p : percentiles) {
            char key[48], label[48];
            std::snprintf(key, sizeof key, "p%g_%s_ms", p, metric);
            std::snprintf(label, sizeof label, "P%g %s (ms):", p, upper.c_str());
            std::printf("%-40s %12.2f\n", label, j[key].get<double>());
        }
    }
    std::printf("==============================================================\n");
    std::printf(
        "steps %lld, mean running %.1f, mean tokens per step %.0f, preemptions %lld, prefix-cache hits %lld tokens\n",
        static_cast<long long>(r.steps), r.mean_running, r.mean_batch_tokens, static_cast<long long>(r.preemptions),
        static_cast<long long>(r.prefix_hit_tokens));
    print_load_warnings(estimator.load_warnings());
    return 0;
}

int run_simulate(const Args& raw) {
    static const CommandSpec spec = simulate_spec();
    return run_with_experiment(spec, raw, simulate_body);
}

}  // namespace mfusim::cli
