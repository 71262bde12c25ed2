// mfusim sweep: one or two parameters varied, step time or serving metrics at every point, as CSV, JSON and an
// SVG chart.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/experiment_file.hpp"
#include "cli/html_report.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/serving_flags.hpp"
#include "cli/svg_chart.hpp"
#include "cli/sweep_axis.hpp"
#include "common/error.hpp"
#include "common/json.hpp"
#include "common/numbers.hpp"
#include "planning/sweep.hpp"

namespace mfusim::cli {

namespace {

CommandSpec sweep_spec() {
    CommandSpec spec{
        "sweep",
        "mfusim sweep --vary PARAM=VALUES [--series PARAM=VALUES] [--y METRIC] [--csv FILE] [--json FILE] "
        "[--svg FILE] [options]",
        "Varies one parameter (and optionally a second, drawn as one series per value) and evaluates every point:\n"
        "  step time  (--y step_ms) of a step of decode-batch decodes at `context` tokens each plus one prefill\n"
        "             chunk of `chunk` new tokens: vary decode-batch, context, chunk, tp, gpu, model;\n"
        "  serving    (--y ttft_ms|tpot_ms|output_tok_s_gpu|e2e_ms|request_throughput_req_s, as 'mfusim serve'):\n"
        "             vary concurrency, isl, osl, tp, gpu, model.\n"
        "VALUES: 1,2,4 | 1..512 (doubling) | 0..8192:1024 (step) | H100,H200 (names). One estimator is built per\n"
        "distinct deployment. Points the library refuses (weights that do not fit, a TP that does not divide the\n"
        "heads) keep their row with the reason in `error`. With no output flag, CSV goes to stdout.\n"
        "Example: mfusim sweep --model llama-3.1-8b-instruct --vary decode-batch=1..512 --series gpu=H100,H200 \\\n"
        "           --svg step.svg --csv step.csv",
        estimator_flags(),
        {}};
    for (FlagSpec& f : serving_flags()) spec.flags.push_back(std::move(f));
    spec.flags.push_back({"--decode-batch", "N", "step: decode requests in the step [32]"});
    spec.flags.push_back({"--context", "N", "step: tokens each decode has cached [2048]"});
    spec.flags.push_back({"--chunk", "N", "step: new tokens of one prefill chunk in the step, 0 for none [0]"});
    spec.flags.push_back({"--vary", "PARAM=VALUES", "the x axis: " + planning::sweep_param_names()});
    spec.flags.push_back({"--series", "PARAM=VALUES", "a second parameter, one line per value"});
    spec.flags.push_back({"--y", "METRIC", "the charted metric [step_ms if a step parameter varies, else tpot_ms]"});
    spec.flags.push_back({"--csv", "FILE", "write the points as CSV ('-': stdout)"});
    spec.flags.push_back({"--json", "FILE", "write {\"points\": [...], \"warnings\": [...]} ('-': stdout)"});
    spec.flags.push_back({"--svg", "FILE", "write a chart of METRIC against the varied parameter"});
    spec.flags.push_back({"--html", "FILE",
                          "write a self-contained HTML report: the chart (series toggled from the legend) and every "
                          "point as a sortable table"});
    spec.flags.push_back({"--log-x", "", "log x axis [when the values span 32x or more]"});
    spec.flags.push_back({"--linear-x", "", "linear x axis"});
    spec.flags.push_back({"--log-y", "", "log y axis"});
    spec.flags.push_back(experiment_flag());
    return spec;
}

std::string metric_title(const std::string& metric) {
    if (metric == "step_ms") return "step time (ms)";
    if (metric == "ttft_ms") return "mean TTFT (ms)";
    if (metric == "tpot_ms") return "mean TPOT (ms)";
    if (metric == "output_tok_s_gpu") return "output tokens/s per GPU";
    if (metric == "e2e_ms") return "mean request latency (ms)";
    return "requests/s (deployment)";
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string format_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// Names the deployment in the chart's subtitle, with "varied" where a swept parameter takes the place of a value.
std::string subtitle(const engine::Options& o, const serving::Workload& w, const planning::StepShape& st,
                     bool step_kind, const std::vector<SweepParam>& varied) {
    auto value = [&](SweepParam p, const std::string& v) {
        return std::find(varied.begin(), varied.end(), p) != varied.end() ? std::string("varied") : v;
    };
    std::string model = shown_option(o.model, "(JSON model)");
    std::string gpu = shown_option(o.gpu, "(JSON GPU)");
    std::string s = "model " + value(SweepParam::model, model) + " | GPU " + value(SweepParam::gpu, gpu) +
                    " | engine " + (o.engine.empty() ? std::string("vllm") : o.engine) + " | " +
                    std::string(engine::mode_name(o.mode)) + " | TP " +
                    value(SweepParam::tp, std::to_string(o.deployment.tensor_parallel));
    if (step_kind) {
        s += " | decode batch " + value(SweepParam::decode_batch, std::to_string(st.decode_batch)) + " at context " +
             value(SweepParam::context, std::to_string(st.context)) + ", chunk " +
             value(SweepParam::chunk, std::to_string(st.chunk));
    } else {
        s += " | ISL " + value(SweepParam::isl, std::to_string(w.input_len)) + ", OSL " +
             value(SweepParam::osl, std::to_string(w.output_len)) + ", concurrency " +
             value(SweepParam::concurrency, std::to_string(w.concurrency));
    }
    return s;
}

}  // namespace

// The command itself; run_sweep adds the experiment file's options.
static int sweep_body(const Args& raw) {
    static const CommandSpec spec = sweep_spec();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    if (!args.text("--vary")) throw UsageError("--vary PARAM=VALUES is required (e.g. --vary decode-batch=1..512)");
    SweepAxis vary = parse_sweep_axis(*args.text("--vary"), "--vary");
    std::optional<SweepAxis> series;
    if (auto s = args.text("--series")) series = parse_sweep_axis(*s, "--series");
    if (series && series->param == vary.param) throw UsageError("--series must vary another parameter than --vary");

    bool step_params = is_step_param(vary.param) || (series && is_step_param(series->param));
    bool serving_params = is_serving_param(vary.param) || (series && is_serving_param(series->param));
    if (step_params && serving_params) {
        throw UsageError(
            "a sweep times either steps (decode-batch, context, chunk) or serving (concurrency, isl, "
            "osl), not both");
    }
    std::string y = args.text_or("--y", step_params ? "step_ms" : "tpot_ms");
    bool step_kind = y == "step_ms";
    const std::vector<std::string>& metrics = planning::sweep_metrics(step_kind);
    if (!step_kind && std::find(metrics.begin(), metrics.end(), y) == metrics.end()) {
        throw UsageError(
            "--y must be step_ms, ttft_ms, tpot_ms, output_tok_s_gpu, e2e_ms or "
            "request_throughput_req_s, got '" +
            y + "'");
    }
    if (step_kind && serving_params) throw UsageError("--y step_ms times steps; vary decode-batch, context or chunk");
    if (!step_kind && step_params) throw UsageError("--y " + y + " is a serving metric; vary concurrency, isl or osl");

    engine::Options base = estimator_options(args);
    if (!step_kind && base.mode != engine::Mode::roofline)
        throw UsageError("serving sweeps answer in roofline mode only");
    serving::Workload base_workload = serving_workload(args);
    planning::StepShape base_shape;
    // Bounded as the --vary values are: the decode batch is materialised as that many requests.
    base_shape.decode_batch =
        args.count_or("--decode-batch", base_shape.decode_batch, 0, sweep_param_max(SweepParam::decode_batch));
    base_shape.context = args.count_or("--context", base_shape.context, 0, sweep_param_max(SweepParam::context));
    base_shape.chunk = args.count_or("--chunk", base_shape.chunk, 0, sweep_param_max(SweepParam::chunk));

    std::string csv_path = args.text_or("--csv", ""), json_path = args.text_or("--json", ""),
                svg_path = args.text_or("--svg", ""), html_path = args.text_or("--html", "");
    if (csv_path.empty() && json_path.empty() && svg_path.empty() && html_path.empty()) csv_path = "-";
    if (csv_path == "-" && json_path == "-") throw UsageError("--csv and --json cannot both write to stdout");
    // Every output's place is checked before the sweep runs, and all are written together at the end.
    for (const auto& [path, flag] :
         {std::pair{csv_path, "--csv"}, {json_path, "--json"}, {svg_path, "--svg"}, {html_path, "--html"}}) {
        if (!path.empty()) check_output_path(path, flag);
    }
    Outputs outputs;
    if (!svg_path.empty() && !is_numeric(vary.param)) {
        throw UsageError("a chart needs a numeric --vary; vary " + vary.name + " as --series instead");
    }

    std::vector<std::string> series_values = series ? series->values : std::vector<std::string>{""};
    Progress progress(isatty(STDERR_FILENO) != 0);
    const planning::SweepResult result =
        planning::sweep({base, base_workload, base_shape, step_kind, args.flag("--simulate"), vary, series},
                        [&](std::size_t done, std::size_t total) { progress.update(done, total); });
    progress.finish();
    const std::vector<planning::SweepPoint>& points = result.points;
    const std::size_t total = points.size(), failed = result.failed;

    std::vector<std::string> warnings = result.warnings;
    if (failed > 0) {
        warnings.push_back(std::to_string(failed) + " of " + std::to_string(total) +
                           " points could not be evaluated (see their error)");
    }
    std::size_t y_index = static_cast<std::size_t>(std::find(metrics.begin(), metrics.end(), y) - metrics.begin());
    std::string detail_column = step_kind ? "bound" : "limited_by";

    if (!csv_path.empty()) {
        std::string csv = column_name(vary.param) + (series ? "," + column_name(series->param) : "");
        for (const std::string& m : metrics) csv += "," + m;
        csv += "," + detail_column + ",error\n";
        for (const planning::SweepPoint& p : points) {
            csv += csv_field(p.x) + (series ? "," + csv_field(p.series) : "");
            for (std::size_t i = 0; i < metrics.size(); ++i) {
                csv += "," + (p.metrics.empty() ? std::string() : format_number(p.metrics[i]));
            }
            csv += "," + p.detail + "," + csv_field(p.error) + "\n";
        }
        outputs.add(csv_path, std::move(csv));
    }
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();  // the points as JSON objects: --json, --html
    {
        auto value_json = [](SweepParam p, const std::string& v) {
            return is_numeric(p) ? nlohmann::ordered_json(parse_int64(v).value_or(0)) : nlohmann::ordered_json(v);
        };
        for (const planning::SweepPoint& p : points) {
            nlohmann::ordered_json row;
            row[column_name(vary.param)] = value_json(vary.param, p.x);
            if (series) row[column_name(series->param)] = value_json(series->param, p.series);
            for (std::size_t i = 0; i < metrics.size(); ++i) {
                row[metrics[i]] = p.metrics.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(p.metrics[i]);
            }
            row[detail_column] = p.error.empty() ? nlohmann::ordered_json(p.detail) : nlohmann::ordered_json();
            row["error"] = p.error.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(p.error);
            rows.push_back(row);
        }
    }
    if (!json_path.empty()) {
        nlohmann::ordered_json j;
        j["vary"] = column_name(vary.param);
        j["series"] = series ? nlohmann::ordered_json(column_name(series->param)) : nlohmann::ordered_json();
        j["y"] = y;
        j["deployment"] = describe(base);
        j["points"] = rows;
        j["warnings"] = warnings;
        outputs.add(json_path, json_text(j) + "\n");
    }
    std::string svg;
    if (!svg_path.empty() || (!html_path.empty() && is_numeric(vary.param))) {
        Chart chart;
        chart.title = metric_title(y) + " vs " + axis_title(vary.param);
        std::vector<SweepParam> varied{vary.param};
        if (series) varied.push_back(series->param);
        chart.subtitle = subtitle(base, base_workload, base_shape, step_kind, varied);
        chart.x_label = axis_title(vary.param);
        chart.y_label = metric_title(y);
        double lo = INFINITY, hi = 0;
        for (const std::string& x : vary.values) {
            double v = static_cast<double>(parse_int64(x).value_or(0));
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        chart.log_x = args.flag("--log-x") || (!args.flag("--linear-x") && lo > 0 && hi / lo >= 32);
        chart.log_y = args.flag("--log-y");
        for (const std::string& s : series_values) {
            ChartSeries line{series ? series->name + " " + s : "", {}, {}};
            for (const planning::SweepPoint& p : points) {
                if (p.series != s) continue;
                const double x = static_cast<double>(parse_int64(p.x).value_or(0));
                if (p.metrics.empty()) {
                    line.refused.emplace_back(x, p.error);  // marked on the x axis, not dropped
                    continue;
                }
                line.x.push_back(x);
                line.y.push_back(p.metrics[y_index]);
            }
            chart.series.push_back(std::move(line));
        }
        svg = render_svg(chart);
        if (!svg_path.empty()) outputs.add(svg_path, svg);
    }
    if (!html_path.empty()) {
        HtmlReport report{metric_title(y) + " vs " + axis_title(vary.param), describe(base), svg, {}, rows, warnings};
        if (!rows.empty()) {
            for (const auto& [column, value] : rows[0].items()) report.columns.push_back(column);
        }
        outputs.add(html_path, render_html(report));
    }
    outputs.commit();
    // Warnings reach a person even when stdout is a file: JSON carries them, and stderr says them once.
    for (const std::string& w : warnings) std::fprintf(stderr, "mfusim sweep: warning: %s\n", w.c_str());
    return 0;
}

int run_sweep(const Args& raw) {
    static const CommandSpec spec = sweep_spec();
    return run_with_experiment(spec, raw, sweep_body);
}

}  // namespace mfusim::cli
