// mfusim plan: for a model and a list of GPUs, the deployment (TP, EP, concurrency) with the most output tokens/s
// per GPU that meets TTFT/TPOT limits, per GPU, with the Pareto front of throughput per GPU against tokens/s per user.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/experiment_file.hpp"
#include "cli/html_report.hpp"
#include "cli/launch_commands.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/serve_disagg.hpp"
#include "cli/serving_flags.hpp"
#include "cli/svg_chart.hpp"
#include "common/error.hpp"
#include "common/json.hpp"
#include "common/numbers.hpp"
#include "planning/plan.hpp"

namespace mfusim::cli {

namespace {

CommandSpec plan_spec() {
    CommandSpec spec{
        "plan",
        "mfusim plan --model M [--gpus H100,H200,B200] --isl I --osl O [--max-ttft-ms T] [--max-tpot-ms T] "
        "[options]",
        "Searches, per GPU, tensor parallelism (--tp-list), expert parallelism for MoE models (1 or the TP degree)\n"
        "and concurrency (powers of two up to --max-concurrency) with the serving estimate of 'mfusim serve', and\n"
        "picks the deployment with the most output tokens/s per GPU whose mean TTFT and TPOT meet the limits.\n"
        "Deployments whose weights (or one request's KV cache) do not fit, or that the model cannot be sharded\n"
        "over, are skipped and counted. Prints a table per GPU; --json for scripts; --svg for throughput per GPU\n"
        "against tokens/s per user (1000 / TPOT) along each GPU's Pareto front; --top N for the N best per GPU.\n"
        "--disagg also searches disaggregated deployments (a prefill and a decode pool: per-pool layouts from\n"
        "--tp-list, decode batches from --decode-batch-list, worker counts matched to the pools' capacities within\n"
        "--gpu-budget GPUs; docs/disagg.md, section 6) and ranks them with the aggregated ones.",
        {},
        {}};
    // The estimator flags that describe the model and engine; the deployment flags are what plan searches.
    for (FlagSpec& f : estimator_flags()) {
        for (const char* keep :
             {"--model", "--bench-data", "--fp8-gemm", "--fp8-kv", "--engine", "--engine-version", "--quant",
              "--kv-quant", "--speculative", "--num-speculative-tokens", "--acceptance-rate", "--mean-accepted-length",
              "--draft-model", "--images-per-request", "--image-size", "--audio-seconds-per-request"}) {
            if (f.name == keep) spec.flags.push_back(f);
        }
    }
    spec.flags.push_back({"--gpus", "LIST", "GPUs to compare, comma-separated [H100,H200,B200]"});
    for (FlagSpec& f : serving_flags(false)) spec.flags.push_back(std::move(f));
    spec.flags.push_back({"--max-ttft-ms", "MS", "mean TTFT limit [none]"});
    spec.flags.push_back({"--max-tpot-ms", "MS", "mean TPOT limit [none]"});
    spec.flags.push_back({"--tp-list", "LIST", "tensor-parallel degrees to try [1,2,4,8]"});
    spec.flags.push_back({"--max-concurrency", "N", "largest concurrency tried (powers of two from 1) [512]"});
    spec.flags.push_back(
        {"--disagg", "", "also search disaggregated deployments (prefill and decode pools, docs/disagg.md section 6)"});
    spec.flags.push_back({"--gpu-budget", "N",
                          "most GPUs of one deployment (both pools together with --disagg) [aggregated: no limit; "
                          "--disagg: 16]"});
    spec.flags.push_back(
        {"--decode-batch-list", "LIST", "with --disagg: requests per decode replica to try [1,2,4,...,256]"});
    spec.flags.push_back({"--router", "MODE",
                          "with --disagg --simulate: the simulated router, round-robin (Dynamo's default) or "
                          "least-loaded [round-robin]"});
    spec.flags.push_back({"--json", "", "print the plan as JSON"});
    spec.flags.push_back(
        {"--svg", "FILE", "write throughput per GPU against tokens/s per user, the Pareto front per GPU"});
    spec.flags.push_back({"--html", "FILE",
                          "write a self-contained HTML report: the chart (series toggled from the legend) and every "
                          "deployment evaluated as a sortable table"});
    spec.flags.push_back({"--top", "N",
                          "also list, per GPU, the N best deployments meeting the limits, with tokens/s per user "
                          "(the field's Pareto axes: tokens/s per GPU against tokens/s per user) [0]"});
    spec.flags.push_back(experiment_flag());
    return spec;
}

using planning::Candidate;
using planning::DisaggPoint;
using planning::GpuPlan;
using planning::PoolLayout;

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = std::min(text.find(',', start), text.size());
        if (end > start) out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

nlohmann::ordered_json pool_json(const PoolLayout& l, int64_t workers) {
    nlohmann::ordered_json j;
    j["workers"] = workers;
    j["tp"] = l.tp;
    j["ep"] = l.ep;
    j["attention_dp"] = l.attention_dp;
    return j;
}

std::string pool_label(const PoolLayout& l) {
    std::string s = l.attention_dp > 1 ? "DP" + std::to_string(l.attention_dp) : "TP" + std::to_string(l.tp);
    if (l.attention_dp > 1 && l.tp > 1) s += "TP" + std::to_string(l.tp);
    if (l.ep > 1) s += "EP" + std::to_string(l.ep);
    return s;
}

// "TP4 c64", "TP8 EP8 c128", "2xTP8EP8 + 3xDP8EP8 b16 c384": a point's deployment, short enough to label it on the
// chart.
std::string deployment_label(const Candidate& c) {
    if (c.disagg) {
        const DisaggPoint& d = *c.disagg;
        return std::to_string(d.prefill_workers) + "x" + pool_label(d.prefill) + " + " +
               std::to_string(d.decode_workers) + "x" + pool_label(d.decode) + " b" + std::to_string(d.decode_batch) +
               " c" + std::to_string(c.concurrency);
    }
    return "TP" + std::to_string(c.tp) + (c.ep > 1 ? " EP" + std::to_string(c.ep) : "") + " c" +
           std::to_string(c.concurrency);
}

// "tp 8, ep 8, concurrency 64"; a disaggregated deployment by its label and GPUs.
std::string closest_label(const Candidate& c) {
    if (c.disagg) return deployment_label(c) + ", " + std::to_string(c.gpus) + " GPUs";
    return "tp " + std::to_string(c.tp) + ", ep " + std::to_string(c.ep) + ", concurrency " +
           std::to_string(c.concurrency);
}

nlohmann::ordered_json candidate_json(const Candidate& c) {
    nlohmann::ordered_json j;
    j["mode"] = c.disagg ? "disaggregated" : "aggregated";
    if (c.disagg) {
        j["prefill"] = pool_json(c.disagg->prefill, c.disagg->prefill_workers);
        j["decode"] = pool_json(c.disagg->decode, c.disagg->decode_workers);
        j["decode_batch"] = c.disagg->decode_batch;
    } else {
        j["tp"] = c.tp;
        j["ep"] = c.ep;
    }
    j["layout"] = deployment_label(c);
    j["gpus"] = c.gpus;
    j["concurrency"] = c.concurrency;
    j["ttft_ms"] = c.ttft_ms;
    j["tpot_ms"] = c.tpot_ms;
    j["output_tok_s_gpu"] = c.tok_s_gpu;
    j["meets_sla"] = c.meets;
    return j;
}

std::string format_limit(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "<= %g ms", ms);
    return buf;
}

}  // namespace

// The command itself; run_plan adds the experiment file's options.
static int plan_body(const Args& raw) {
    static const CommandSpec spec = plan_spec();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    engine::Options base = estimator_options(args);
    serving::Workload workload = serving_workload(args);
    const std::optional<double> max_ttft = args.positive_number("--max-ttft-ms");
    const std::optional<double> max_tpot = args.positive_number("--max-tpot-ms");
    const int64_t max_concurrency = args.count_or("--max-concurrency", 512, 1, int64_t{1} << 20);
    const std::string svg_path = args.text_or("--svg", "");
    const auto top = static_cast<std::size_t>(args.count_or("--top", 0, 0, 1000));
    auto launch_for = [&](const Candidate& c) {
        const query::Speculation& drafting = base.deployment.speculation;
        return LaunchDeployment{base.model,
                                c.tp,
                                c.ep,
                                c.concurrency,
                                workload.input_len + workload.output_len,
                                drafting.drafter != query::Drafter::none ? query::drafter_name(drafting.drafter) : "",
                                drafting.tokens,
                                drafting.draft_model};
    };
    if (!svg_path.empty()) check_output_path(svg_path, "--svg");
    const std::string html_path = args.text_or("--html", "");
    if (!html_path.empty()) check_output_path(html_path, "--html");
    std::vector<int64_t> tps;
    for (const std::string& t : split_list(args.text_or("--tp-list", "1,2,4,8"))) {
        auto v = parse_int64(t);
        // The estimator's bound on a degree; also bounds the search, which tries every value given.
        if (!v || *v < 1 || *v > 65536) throw UsageError("--tp-list expects integers from 1 to 65536, got '" + t + "'");
        if (tps.size() >= 64) throw UsageError("--tp-list: more than 64 degrees");
        tps.push_back(*v);
    }
    std::vector<std::string> gpus = split_list(args.text_or("--gpus", "H100,H200,B200"));
    if (gpus.empty() || tps.empty()) throw UsageError("--gpus and --tp-list need at least one value");
    if (gpus.size() > 64) throw UsageError("--gpus: more than 64 GPUs");
    const bool disagg = args.flag("--disagg");
    if (args.flag("--decode-batch-list") && !disagg) throw UsageError("--decode-batch-list needs --disagg");
    planning::PlanRequest request;
    request.options = base;
    request.workload = workload;
    request.max_ttft_ms = max_ttft;
    request.max_tpot_ms = max_tpot;
    request.gpus = gpus;
    request.tp_list = tps;
    request.max_concurrency = max_concurrency;
    // 0: no budget (aggregated plans searched the --tp-list alone before there was one).
    request.gpu_budget = args.flag("--gpu-budget") ? args.count_or("--gpu-budget", 16, 1, 65536) : 0;
    request.simulate = args.flag("--simulate");
    request.disagg = disagg;
    if (disagg) {
        if (base.mode != engine::Mode::roofline) throw UsageError("plan --disagg answers in roofline mode only");
        request.routing = disagg_router(args, args.flag("--simulate"));
        request.decode_batches.clear();
        for (const std::string& t : split_list(args.text_or("--decode-batch-list", "1,2,4,8,16,32,64,128,256"))) {
            auto v = parse_int64(t);
            if (!v || *v < 1 || *v > 65536) {
                throw UsageError("--decode-batch-list expects integers from 1 to 65536, got '" + t + "'");
            }
            if (request.decode_batches.size() >= 64) throw UsageError("--decode-batch-list: more than 64 batches");
            request.decode_batches.push_back(*v);
        }
        if (request.decode_batches.empty()) throw UsageError("--decode-batch-list needs at least one value");
    }

    Progress progress(isatty(STDERR_FILENO) != 0 && !args.flag("--json"));
    planning::PlanResult result =
        planning::plan(request, [&](std::size_t done, std::size_t total) { progress.update(done, total); });
    progress.finish();
    const std::vector<GpuPlan>& plans = result.gpus;
    const std::vector<std::string>& warnings = result.warnings;

    if (!svg_path.empty() || !html_path.empty()) {
        Chart chart;
        // The field's Pareto axes (AIConfigurator): throughput per GPU against the speed one user sees.
        chart.title = "Output tokens/s per GPU vs tokens/s per user (Pareto front per GPU)";
        chart.subtitle =
            "model " + base.model + " | engine " + (base.engine.empty() ? std::string("vllm") : base.engine) +
            " | ISL " + std::to_string(workload.input_len) + ", OSL " + std::to_string(workload.output_len) +
            (disagg ? " | aggregated and disaggregated deployments searched" : " | TP x EP x concurrency searched");
        chart.x_label = "output tokens/s per user (1000 / mean TPOT in ms)";
        chart.y_label = "output tokens/s per GPU";
        chart.log_x = true;  // TPOT spans decades between concurrency 1 and the largest batch
        if (max_tpot) {
            chart.x_marker = 1000 / *max_tpot;  // points right of it meet the TPOT limit
            char label[64];
            std::snprintf(label, sizeof label, "TPOT limit %g ms (%g tok/s/user)", *max_tpot, 1000 / *max_tpot);
            chart.x_marker_label = label;
        }
        // The TTFT limit is no axis here: the points that break it are drawn hollow.
        if (max_ttft) chart.hollow_legend = "TTFT over the limit of " + format_limit(*max_ttft).substr(3);
        for (const GpuPlan& p : plans) {
            // One front per GPU and mode, as AIConfigurator draws aggregated against disaggregated.
            for (bool of_disagg : disagg ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
                std::vector<Candidate> mode;
                for (const Candidate& c : p.evaluated) {
                    if (c.disagg.has_value() == of_disagg) mode.push_back(c);
                }
                ChartSeries s{p.gpu + (disagg ? (of_disagg ? " disaggregated" : " aggregated") : "")};
                for (const Candidate& c : pareto_front(mode)) {
                    s.x.push_back(tok_s_user(c));
                    s.y.push_back(c.tok_s_gpu);
                    s.labels.push_back(deployment_label(c));
                    s.hollow.push_back(max_ttft && c.ttft_ms > *max_ttft);
                }
                chart.series.push_back(std::move(s));
            }
            if (p.best) {
                chart.highlights.push_back(
                    {tok_s_user(*p.best), p.best->tok_s_gpu, "chosen for " + p.gpu + ": " + deployment_label(*p.best)});
            }
        }
        const std::string svg = render_svg(chart);
        if (!svg_path.empty()) write_output(svg_path, svg);
        if (!html_path.empty()) {
            HtmlReport report{chart.title, chart.subtitle, svg, {}, nlohmann::ordered_json::array(), warnings};
            report.columns = {"gpu",
                              "mode",
                              "layout",
                              "tp",
                              "ep",
                              "gpus",
                              "concurrency",
                              "ttft_ms",
                              "tpot_ms",
                              "output_tok_s_gpu",
                              "output_tok_s_user",
                              "meets_sla"};
            for (const GpuPlan& p : plans) {
                for (const Candidate& c : p.evaluated) {
                    nlohmann::ordered_json row = candidate_json(c);  // the table's columns set the order
                    row["gpu"] = p.gpu;
                    row["output_tok_s_user"] = tok_s_user(c);
                    report.rows.push_back(row);
                }
            }
            write_output(html_path, render_html(report));
        }
    }

    if (args.flag("--json")) {
        nlohmann::ordered_json j;
        j["model"] = base.model;
        j["isl"] = workload.input_len;
        j["osl"] = workload.output_len;
        j["max_ttft_ms"] = max_ttft ? nlohmann::ordered_json(*max_ttft) : nlohmann::ordered_json();
        j["max_tpot_ms"] = max_tpot ? nlohmann::ordered_json(*max_tpot) : nlohmann::ordered_json();
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const GpuPlan& p : plans) {
            nlohmann::ordered_json g;
            g["gpu"] = p.gpu;
            g["best"] = p.best ? candidate_json(*p.best) : nlohmann::ordered_json();
            if (p.best && !p.best->disagg) {
                for (const auto& [engine, command] : launch_commands(launch_for(*p.best))) {
                    g["best"]["launch"][engine] = command;
                }
            }
            // Nothing meets the limits: the deployment nearest to them, and by how much it misses (1.25: 25% over).
            auto closest = p.best ? std::nullopt : closest_to_limits(p.evaluated, max_ttft, max_tpot);
            g["closest"] = closest ? candidate_json(*closest) : nlohmann::ordered_json();
            if (closest) g["closest"]["limit_ratio"] = limit_ratio(*closest, max_ttft, max_tpot);
            g["evaluated"] = static_cast<int64_t>(p.evaluated.size());
            g["meeting_sla"] = std::count_if(p.evaluated.begin(), p.evaluated.end(), [](auto& c) { return c.meets; });
            g["skipped_not_fitting"] = p.skipped_not_fitting;
            g["skipped_invalid"] = p.skipped_invalid;
            g["last_skip_reason"] =
                p.last_skip.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(p.last_skip);
            nlohmann::ordered_json front = nlohmann::ordered_json::array();
            for (const Candidate& c : pareto_front(p.evaluated)) front.push_back(candidate_json(c));
            g["pareto"] = front;
            if (top > 0) {
                nlohmann::ordered_json best = nlohmann::ordered_json::array();
                for (const Candidate& c : top_candidates(p.evaluated, top)) {
                    nlohmann::ordered_json row = candidate_json(c);
                    row["output_tok_s_user"] = tok_s_user(c);
                    best.push_back(row);
                }
                g["top"] = best;
            }
            list.push_back(g);
        }
        j["gpus"] = list;
        j["warnings"] = warnings;
        std::printf("%s\n", json_text(j).c_str());
        return 0;
    }

    auto limit = [](const std::optional<double>& v) { return v ? format_limit(*v) : std::string("none"); };
    std::printf("mfusim plan: %s, ISL %lld, OSL %lld; limits: TTFT %s, TPOT %s; engine %s, tables: %s\n\n",
                base.model.c_str(), static_cast<long long>(workload.input_len),
                static_cast<long long>(workload.output_len), limit(max_ttft).c_str(), limit(max_tpot).c_str(),
                base.engine.empty() ? "vllm" : base.engine.c_str(),
                base.bench_data_dir.empty() ? "none" : base.bench_data_dir.c_str());
    // The GPU column is as wide as the longest name ("RTX-PRO-6000"), so the columns stay aligned.
    int gpu_width = 6;
    for (const GpuPlan& p : plans) gpu_width = std::max(gpu_width, static_cast<int>(p.gpu.size()));
    std::printf("  %-*s %3s %3s %5s %11s %10s %9s %11s   %s\n", gpu_width, "gpu", "tp", "ep", "gpus", "concurrency",
                "ttft_ms", "tpot_ms", "tok/s/gpu", "searched");
    for (const GpuPlan& p : plans) {
        long long meeting = std::count_if(p.evaluated.begin(), p.evaluated.end(), [](auto& c) { return c.meets; });
        std::string searched = std::to_string(p.evaluated.size()) + " points, " + std::to_string(meeting) +
                               " meet the limits; skipped " + std::to_string(p.skipped_not_fitting) +
                               " deployments that do not fit, " + std::to_string(p.skipped_invalid) + " invalid";
        if (!p.best) {
            const char* why = p.evaluated.empty() ? "no deployment fits (see below; try --tp-list or --quant)"
                                                  : "no deployment meets the limits";
            std::printf("  %-*s %s   %s\n", gpu_width, p.gpu.c_str(), why, searched.c_str());
            if (auto c = closest_to_limits(p.evaluated, max_ttft, max_tpot)) {
                std::printf(
                    "  %-*s closest: %s: TTFT %.1f ms, TPOT %.2f ms, %.1f "
                    "tok/s/gpu (%.0f%% over the limit it misses most)\n",
                    gpu_width, "", closest_label(*c).c_str(), c->ttft_ms, c->tpot_ms, c->tok_s_gpu,
                    100 * (limit_ratio(*c, max_ttft, max_tpot) - 1));
            }
            continue;
        }
        const Candidate& b = *p.best;
        if (b.disagg) {
            std::printf("  %-*s %s: %lld GPUs, concurrency %lld, TTFT %.1f ms, TPOT %.2f ms, %.1f tok/s/gpu   %s\n",
                        gpu_width, p.gpu.c_str(), deployment_label(b).c_str(), static_cast<long long>(b.gpus),
                        static_cast<long long>(b.concurrency), b.ttft_ms, b.tpot_ms, b.tok_s_gpu, searched.c_str());
            continue;
        }
        std::printf("  %-*s %3lld %3lld %5lld %11lld %10.1f %9.2f %11.1f   %s\n", gpu_width, p.gpu.c_str(),
                    static_cast<long long>(b.tp), static_cast<long long>(b.ep), static_cast<long long>(b.gpus),
                    static_cast<long long>(b.concurrency), b.ttft_ms, b.tpot_ms, b.tok_s_gpu, searched.c_str());
    }
    bool first_launch = true;
    for (const GpuPlan& p : plans) {
        if (!p.best || p.best->disagg) continue;  // the launch commands are for one aggregated replica
        if (first_launch) std::printf("\nlaunch the chosen deployment (one replica):\n");
        first_launch = false;
        for (const auto& [engine, command] : launch_commands(launch_for(*p.best))) {
            std::printf("  %-*s %-6s %s\n", gpu_width, p.gpu.c_str(), engine.c_str(), command.c_str());
        }
    }
    if (top > 0) {
        std::printf("\ntop %zu per GPU (meeting the limits, most tokens/s per GPU first):\n", top);
        std::printf("  %-*s %4s %-28s %5s %11s %10s %9s %11s %12s\n", gpu_width, "gpu", "rank", "layout", "gpus",
                    "concurrency", "ttft_ms", "tpot_ms", "tok/s/gpu", "tok/s/user");
        for (const GpuPlan& p : plans) {
            std::size_t rank = 0;
            for (const Candidate& c : top_candidates(p.evaluated, top)) {
                std::string layout = deployment_label(c);
                layout = layout.substr(0, layout.rfind(" c"));  // the concurrency has its own column
                std::printf("  %-*s %4zu %-28s %5lld %11lld %10.1f %9.2f %11.1f %12.1f\n", gpu_width, p.gpu.c_str(),
                            ++rank, layout.c_str(), static_cast<long long>(c.gpus),
                            static_cast<long long>(c.concurrency), c.ttft_ms, c.tpot_ms, c.tok_s_gpu, tok_s_user(c));
            }
            if (rank == 0) std::printf("  %-*s none meets the limits\n", gpu_width, p.gpu.c_str());
        }
    }
    for (const GpuPlan& p : plans) {
        if (!p.last_skip.empty())
            std::printf("\n%s: largest skipped deployment: %s", p.gpu.c_str(), p.last_skip.c_str());
    }
    if (!warnings.empty()) {
        std::printf("\n\nload warnings:\n");
        for (const std::string& w : warnings) std::printf("  %s\n", w.c_str());
    } else {
        std::printf("\n");
    }
    return 0;
}

int run_plan(const Args& raw) {
    static const CommandSpec spec = plan_spec();
    return run_with_experiment(spec, raw, plan_body);
}

}  // namespace mfusim::cli
