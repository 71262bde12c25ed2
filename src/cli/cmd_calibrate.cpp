// mfusim calibrate: fit the model to the user's own measurements (docs/calibration.md). --steps fits the kernel
// families' efficiency multipliers and the engine's step terms to measured engine steps and writes a calibration
// file; --serving fits the engine's terms to measured serving runs and writes an engine profile (docs/engine.md).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "calibrate/calibrate_run.hpp"
#include "calibrate/engine_fit.hpp"
#include "calibrate/step_fit.hpp"
#include "calibrate/step_trace.hpp"
#include "calibration/calibration.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/output.hpp"
#include "cli/serving_flags.hpp"
#include "cli/svg_chart.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "compare/compare.hpp"
#include "compare/serving_compare.hpp"
#include "engines/engine_profile.hpp"

namespace mfusim::cli {

namespace {

std::optional<std::string> output_path(const ParsedArgs& args) {
    if (auto out = args.text("-o")) return out;
    return args.text("--out");
}

// Every output of the command, checked before the fit runs (a fit can take minutes; a mistyped directory should
// not cost them).
void check_outputs(const ParsedArgs& args) {
    if (auto out = output_path(args)) check_output_path(*out, args.flag("-o") ? "-o" : "--out");
    if (auto svg = args.text("--svg")) check_output_path(*svg, "--svg");
}

// The deployment: flags first, then the trace's header, then the defaults.
engine::Options steps_options(const ParsedArgs& args, const calibrate::TraceHeader& header) {
    engine::Options o = estimator_options(args);
    if (!args.flag("--model") && header.model) o.model = *header.model;
    if (!args.flag("--gpu") && header.gpu) o.gpu = *header.gpu;
    if (!args.flag("--tp") && header.tp) o.deployment.tensor_parallel = *header.tp;
    if (!args.flag("--engine") && header.engine) o.engine = *header.engine;
    return o;
}

// The residual plot: each step's relative error against its size (new tokens, log scale), before and after, with
// decode-only, mixed and prefill-only steps apart (their errors come from different kernels).
Chart residual_chart(const calibrate::StepTrace& trace, const calibrate::StepFit& fit, const std::string& deployment) {
    Chart chart;
    chart.title = "calibration residuals: error of each measured step";
    chart.subtitle = deployment;
    chart.x_label = "new tokens in the step";
    chart.y_label = "predicted / measured - 1 (%)";
    chart.log_x = true;
    chart.lines = false;
    const char* kinds[] = {"decode-only", "mixed", "prefill-only"};
    const std::string after = fit.cross_validated ? "calibrated, held out" : "calibrated, in sample";
    std::vector<ChartSeries> series;
    for (const char* kind : kinds) series.push_back({std::string("defaults, ") + kind, {}, {}});
    for (const char* kind : kinds) series.push_back({after + ", " + kind, {}, {}});
    for (std::size_t i = 0; i < trace.steps.size(); ++i) {
        const calibrate::TraceStep& step = trace.steps[i];
        const mfusim_request* requests = trace.requests.data() + step.first_request;
        double tokens = 0;
        for (std::size_t k = 0; k < step.request_count; ++k) tokens += static_cast<double>(requests[k].new_tokens);
        // The fit's own classes ("mixed/tokens<=1024"): their first part is the kind.
        const std::string composition = calibrate::composition_class(requests, step.request_count);
        std::size_t kind = 0;
        while (kind < 3 && composition.rfind(kinds[kind], 0) != 0) ++kind;
        if (kind == 3) continue;  // an empty step: no size to place it at
        series[kind].x.push_back(tokens);
        series[kind].y.push_back(100 * fit.before_error[i]);
        series[3 + kind].x.push_back(tokens);
        series[3 + kind].y.push_back(100 * fit.fitted_error[i]);
    }
    for (ChartSeries& s : series) {
        if (!s.x.empty()) chart.series.push_back(std::move(s));
    }
    return chart;
}

// The write decision of --steps and --kernels: only a fit that beats the defaults on data it did not see.
// Stages the file in `outputs`, written with the command's other outputs.
int write_calibration(const ParsedArgs& args, const calibrate::CalibrationRun& run, Outputs& outputs) {
    auto out = output_path(args);
    if (!out) {
        outputs.commit();
        return 0;
    }
    if (!run.improved && !args.flag("--force")) {
        outputs.commit();
        std::fprintf(stderr, "mfusim calibrate: %s not written: the calibration %s (--force writes it anyway)\n",
                     out->c_str(), run.why_not.c_str());
        return 1;
    }
    outputs.add(*out, run.document);
    outputs.commit();
    if (!args.flag("--json")) std::printf("\nwrote %s (load it with --calibration %s)\n", out->c_str(), out->c_str());
    return 0;
}

int calibrate_steps(const ParsedArgs& args, const std::string& path) {
    const int64_t folds = args.count_or("--folds", 5, 2, 1000);
    const calibrate::StepCalibrationRun run = calibrate::run_step_calibration(
        path, [&](const calibrate::TraceHeader& header) { return steps_options(args, header); },
        static_cast<std::size_t>(folds));
    if (args.flag("--json")) {
        std::fputs(run.document.c_str(), stdout);
    } else {
        std::printf("%s\n", describe(run.options).c_str());
        std::fputs(run.report.c_str(), stdout);
    }
    Outputs outputs;
    if (auto svg = args.text("--svg")) {
        outputs.add(*svg, render_svg(residual_chart(run.trace, run.fit, describe(run.options))));
    }
    return write_calibration(args, run, outputs);
}

int calibrate_kernels(const ParsedArgs& args, const std::string& dir) {
    auto gpu_name = args.text("--gpu");
    if (!gpu_name) {
        throw UsageError(
            "--kernels needs --gpu NAME|PATH|JSON: the GPU the kernels were measured on, whose constants "
            "are fitted");
    }
    // The fit takes up to a minute: on a terminal, one status line on stderr says what it is doing, erased when the
    // fit ends (or fails: before the error is printed).
    struct StatusLine {
        std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
        std::size_t shown = 0;
        void show(const std::string& stage, std::size_t evaluations) {
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::string line = "calibrate --kernels: " + stage + " (" + std::to_string(evaluations) + " evaluations, " +
                               std::to_string(static_cast<long long>(s)) + " s)";
            if (line.size() > 100) line.resize(100);
            std::fprintf(stderr, "\r%-*s", static_cast<int>(std::max(shown, line.size())), line.c_str());
            std::fflush(stderr);
            shown = line.size();
        }
        ~StatusLine() {
            if (shown > 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(shown), "");
        }
    } status;
    calibrate::FitProgress progress;
    if (isatty(STDERR_FILENO) != 0) {
        progress = [&status](const std::string& stage, std::size_t evaluations) { status.show(stage, evaluations); };
    }
    const calibrate::CalibrationRun run = calibrate::run_kernel_calibration(
        dir, *gpu_name, args.text_or("--bench-data", ""), progress, args.text_or("--configs", ""));
    std::fputs((args.flag("--json") ? run.document : run.report).c_str(), stdout);
    Outputs outputs;
    return write_calibration(args, run, outputs);
}

int calibrate_serving(const ParsedArgs& args, const std::string& serving) {
    auto configs = args.text("--configs");
    if (!configs) throw UsageError("--serving needs --configs DIR (the model configs of its rows)");
    engines::EngineProfile base =
        engines::resolve_engine(args.text_or("--engine", "vllm"), args.text_or("--engine-version", ""));
    std::vector<compare::ServingRow> rows;
    for (compare::ServingRow& r : compare::read_silicon_csv(serving)) {
        if (r.backend == base.name) rows.push_back(std::move(r));
    }
    if (rows.empty()) throw UsageError(serving + " has no rows of backend '" + base.name + "'");
    // Each row on its own system's GPU unless --gpu names one (compare/row_gpu.hpp).
    const std::string gpu = args.text_or("--gpu", "");
    require_gpu_for_rows(args, serving, std::any_of(rows.begin(), rows.end(), [](const compare::ServingRow& r) {
                             return !r.system.empty();
                         }));
    const bool simulated = args.flag("--simulate");
    const double length_ratio = min_length_ratio(args);
    const compare::ServingMethod method =
        simulated ? compare::ServingMethod::simulate : compare::ServingMethod::closed_form;
    // The closed form's requests per client stand in for what its steady state lacks, so they are chosen by the
    // fit; a simulation runs the benchmark itself, whose protocol is a fact about the runs, not a fit.
    std::vector<double> candidates = {0, 1, 2, 3, 4, 5, 6, 8, 10};
    if (simulated) candidates = {10};
    if (args.flag("--requests-per-client")) candidates = {args.number_or("--requests-per-client", 0)};
    calibrate::ServingFit fit;
    double best = -1, chosen = 0;
    const std::optional<int64_t> num_prompts = cli::num_prompts(args);
    if (num_prompts) candidates = {0};  // one protocol, the runs' own
    if (candidates.size() > 1) std::printf("requests per client: cross-validated median |error| TTFT + TPOT\n");
    for (double k : candidates) {
        compare::set_benchmark(rows, num_prompts, k, length_ratio);
        calibrate::ServingFit candidate = calibrate::fit_serving(rows, *configs, gpu, base, method);
        const auto& scored = candidate.cross_validated.empty() ? candidate.in_sample : candidate.cross_validated;
        double score = scored.back().ttft.median_abs + scored.back().tpot.median_abs;  // the "(all)" group
        if (candidates.size() > 1) std::printf("  %4g   %6.1f%%\n", k, 100 * score);
        if (best < 0 || score < best) {
            best = score;
            chosen = k;
            fit = std::move(candidate);
        }
    }
    fit.requests_per_client = chosen;
    if (num_prompts) {
        fit.num_prompts = *num_prompts;
        std::printf("\nrequests per run: %lld\n", static_cast<long long>(*num_prompts));
    } else {
        std::printf("\nrequests per client: %g\n", chosen);
    }
    std::fputs(calibrate::format_fit(fit).c_str(), stdout);
    if (auto out = output_path(args)) {
        write_output(*out, calibrate::fit_json(fit, serving));
        std::printf("\nwrote %s\n", out->c_str());
    }
    return 0;
}

}  // namespace

int run_calibrate(const Args& raw) {
    static const CommandSpec spec = [] {
        CommandSpec s{
            "calibrate",
            "mfusim calibrate --steps FILE.jsonl [--model M --gpu G --tp N --engine E ...] [-o CAL.json] [--json]\n"
            "       mfusim calibrate --kernels DIR --gpu G [--bench-data DIR] [--configs DIR] [-o CAL.json] [--json] "
            "[--force]\n"
            "       mfusim calibrate --serving FILE.csv --configs DIR [--engine NAME|JSON|FILE] [--gpu NAME] "
            "[--out FILE]",
            "--steps: fits the roofline model to measured engine steps (JSONL, one step per line with its batch\n"
            "composition and measured_us; docs/calibration.md): efficiency multipliers on the GEMM, prefill "
            "attention,\n"
            "decode attention and communication kernels, and the engine's step, request, layer, eager-layer and TP\n"
            "synchronisation terms. Bounded least squares on relative error; accuracy by group k-fold\n"
            "cross-validation (groups named in the trace, else batch composition classes). -o writes a calibration\n"
            "file that --calibration loads on every command, only when the cross-validated error beats the\n"
            "defaults' (--force writes it anyway).\n"
            "--kernels: fits the GPU profile's own constants (memory efficiency, GEMM plateau and launch cost,\n"
            "attention and all-reduce constants) to measured kernels in an AIConfigurator-format directory (as\n"
            "'compare --aic' reads it): per family, coordinate descent over small grids refined at 5% steps,\n"
            "minimising median |error| + |bias| on the train half of the shapes; reported on the test half before\n"
            "and after. -o writes a calibration file with the constants, only when the test half improves (--force\n"
            "writes it anyway); --calibration applies them to that GPU on every command.\n"
            "--serving: fits the engine profile's time terms to measured serving runs (AIConfigurator silicon CSV)\n"
            "by TTFT and TPOT relative errors, Huber-reweighted, leave-one-model-out cross-validated; --out writes\n"
            "the fitted engine profile, which --engine FILE reads back. Each row is answered on the GPU its `system`\n"
            "column names (h200_sxm: H200) unless --gpu names one; a row measured on another GPU is then refused.",
            {{"--steps", "FILE.jsonl", "measured engine steps (docs/calibration.md)"},
             {"--serving", "FILE.csv", "serving measurements"},
             {"--configs", "DIR",
              "--serving: model configs of its rows, <org>--<name>_config.json; --kernels: the models the MoE kernel "
              "benchmarks ran, whose router groups route their balanced rows (as compare --aic --configs)"},
             {"--kernels", "DIR",
              "measured kernels (AIConfigurator CSVs: gemm_bf16.csv, context_attention_bf16.csv, "
              "generation_attention_bf16.csv, nccl.csv) to fit the --gpu profile's constants to"},
             {"--requests-per-client", "K",
              "--serving: the runs' requests per client (0: steady state); by default "
              "chosen among 0..10 by the cross-validated error"},
             {"--num-prompts", "N",
              "--serving: each run sent N requests in all, whatever its concurrency (sglang.bench_serving's and "
              "vLLM bench's --num-prompts), instead of a count per client"},
             {"--simulate", "",
              "--serving: answer the rows by simulating their benchmarks and fit only the per-request terms "
              "outside the step (admission_us, input_token_us; docs/simulate.md section 7); requests per client "
              "then default to 10 (InferenceX's --num-prompts 10 x concurrency)"},
             {"--min-length-ratio", "R",
              "--serving --simulate: the runs' lengths uniform in [R x isl, isl] and [R x osl, osl] "
              "(bench_serving's --random-range-ratio R) [1: fixed]"},
             {"--folds", "K", "--steps: cross-validation folds (fewer when there are fewer groups) [5]"},
             {"--force", "", "--steps, --kernels: write the calibration even when it does not beat the defaults"},
             {"--json", "", "--steps, --kernels: print the calibration document (with its report) as JSON"},
             {"--svg", "FILE", "--steps: a residual plot (each step's error against its size, before and after)"},
             {"-o", "FILE", "write the result here (same as --out)"},
             {"--out", "FILE", "write the result here"}},
            {}};
        for (FlagSpec& f : estimator_flags()) {
            if (f.name != "--calibration") s.flags.push_back(std::move(f));
        }
        return s;
    }();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    auto steps = args.text("--steps");
    auto serving = args.text("--serving");
    auto kernels = args.text("--kernels");
    if ((steps ? 1 : 0) + (serving ? 1 : 0) + (kernels ? 1 : 0) > 1) {
        throw UsageError("give one of --steps, --kernels or --serving (each is a fit of its own)");
    }
    check_outputs(args);
    // Each fit reads its own flags; another's would be ignored without a word. --kernels and --serving take the
    // deployment from their files (the GPU measured; each row's model and parallelism).
    if (steps)
        args.refuse_in_mode({"--configs", "--requests-per-client", "--num-prompts", "--simulate", "--min-length-ratio"},
                            "--steps");
    if (kernels || serving) {
        args.refuse_in_mode({"--model", "--mode", "--tp", "--world-size", "--nodes", "--ep", "--attention-dp",
                             "--quant", "--kv-quant", "--fp8-gemm", "--fp8-kv", "--deepep", "--tbo", "--sm-ratio"},
                            kernels ? "--kernels" : "--serving");
    }
    if (kernels)
        args.refuse_in_mode({"--requests-per-client", "--num-prompts", "--folds", "--svg", "--engine", "--simulate",
                             "--min-length-ratio"},
                            "--kernels");
    if (serving) args.refuse_in_mode({"--folds", "--force", "--json", "--svg", "--bench-data"}, "--serving");
    if (steps) return calibrate_steps(args, *steps);
    if (kernels) return calibrate_kernels(args, *kernels);
    if (serving) return calibrate_serving(args, *serving);
    throw UsageError(
        "give --steps FILE.jsonl (engine step timings), --kernels DIR --gpu G (measured kernels) or --serving "
        "FILE.csv with --configs DIR");
}

}  // namespace mfusim::cli
