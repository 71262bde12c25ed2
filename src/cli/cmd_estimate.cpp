// mfusim estimate: InferSim's scenario (TTFT, TPOT) in either mode.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/warnings.hpp"
#include "common/json.hpp"

namespace mfusim::cli {

namespace {

CommandSpec estimate_spec() {
    CommandSpec spec{"estimate",
                     "mfusim estimate [options]",
                     "Estimates time to first token (TTFT) and time per output token (TPOT) of a workload: prefill of\n"
                     "--isl tokens in steps of --max-prefill-tokens per GPU, then decode at --decode-bs requests per\n"
                     "GPU. In infersim mode the numbers are InferSim's (alibaba/InferSim @ f2293dab) to 1e-9.",
                     estimator_flags(),
                     {}};
    std::vector<FlagSpec> scenario = {
        {"--isl", "N", "input sequence length [4096]"},
        {"--osl", "N", "output sequence length [2048]"},
        {"--max-prefill-tokens", "N", "tokens per prefill step per GPU [4096]"},
        {"--decode-bs", "N", "decode batch per GPU [ceil(target-tgs x target-tpot / 1000) = 128]"},
        {"--target-tgs", "X", "tokens/GPU/s goal used for the default batch [2560]"},
        {"--target-tpot", "MS", "TPOT SLO in ms [50]"},
        {"--prefill-only", "", "only the prefill phase"},
        {"--decode-only", "", "only the decode phase"},
        {"--json", "", "print one JSON object whose result keys are InferSim's column names"},
    };
    spec.flags.insert(spec.flags.end(), scenario.begin(), scenario.end());
    return spec;
}

void print_table(const engine::Options& options, const query::Report& report, const std::string& load_warnings) {
    std::printf("mfusim estimate: %s\n", describe(options).c_str());
    if (options.bench_data_dir.empty()) {
        std::printf(
            options.mode == engine::Mode::infersim
                ? "note: no --bench-data: every MFU lookup takes InferSim's fallback, as InferSim does without\n"
                  "      its tables (the GPU's default MFU; 0.9 for prefill attention); see the warnings.\n"
                : "note: no --bench-data: efficiencies come from the analytical model (see provenance).\n");
    }
    std::printf("\n");
    struct Headline {
        const char* key;
        const char* label;
        const char* unit;
    };
    const Headline headlines[] = {{"prefill.ttft_ms", "TTFT", "ms"},
                                  {"prefill.throughput_tgs_tok_gpu_s", "prefill throughput", "tok/GPU/s"},
                                  {"decode.tpot_ms", "TPOT", "ms"},
                                  {"decode.throughput_tgs_tok_gpu_s", "decode throughput", "tok/GPU/s"}};
    for (const Headline& h : headlines) {
        if (const double* v = report.find(h.key)) std::printf("  %-22s %14.3f %s\n", h.label, *v, h.unit);
    }
    std::printf("\n  %-48s %s\n", "quantity", "value");
    for (const auto& [name, value] : report.values) std::printf("  %-48s %.6g\n", name.c_str(), value);
    if (!report.soft_errors.empty()) {
        std::printf("\nsoft errors (InferSim's messages; numbers unaffected):\n");
        for (const auto& e : report.soft_errors) std::printf("  %s\n", e.c_str());
    }
    if (!report.warnings.empty()) {
        std::printf("\nwarnings (fallbacks taken):\n");
        for (const auto& w : report.warnings) std::printf("  %s\n", w.c_str());
    }
    // The estimator's own fallbacks (tables that do not match the GPU, options this mode ignores), as step and
    // serve show them: numbers from an analytical fallback must never look measured.
    print_load_warnings(load_warnings);
}

// Counts (steps, batch size, context, token budgets) print as integers; times, rates and ratios stay numbers
// even when integral, so a script sees one type per key.
bool is_count(const std::string& key, double value) {
    for (const char* unit : {"_us", "_ms", "_s", "_mfu"}) {
        std::string u(unit);
        if (key.size() >= u.size() && key.compare(key.size() - u.size(), u.size(), u) == 0) return false;
    }
    return std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 9.0e15;
}

void print_json(const engine::Options& options, const query::Report& report, const std::string& load_warnings) {
    nlohmann::ordered_json out;
    out["mode"] = std::string(engine::mode_name(options.mode));
    out["model"] = shown_option(options.model, "(JSON model)");
    out["gpu"] = options.gpu;
    for (const auto& [name, value] : report.values) {
        if (is_count(name, value)) {
            out[name] = static_cast<int64_t>(value);
        } else {
            out[name] = value;
        }
    }
    out["sim_errors"] = report.soft_errors;
    // "warnings" holds every warning the text output shows, as in the other commands' JSON: the load warnings
    // (no tables for this GPU, analytical fallback) first, then the answer's own; "load_warnings" the first part.
    std::vector<std::string> loading = warning_lines(load_warnings), all = loading;
    all.insert(all.end(), report.warnings.begin(), report.warnings.end());
    out["warnings"] = all;
    out["answer_warnings"] = report.warnings;
    out["load_warnings"] = loading;
    std::printf("%s\n", json_text(out).c_str());
}

}  // namespace

int run_estimate(const Args& raw) {
    static const CommandSpec spec = estimate_spec();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    engine::Options options = estimator_options(args);
    query::Scenario scenario;
    scenario.input_len = args.integer_or("--isl", scenario.input_len);
    scenario.output_len = args.integer_or("--osl", scenario.output_len);
    scenario.max_prefill_tokens = args.integer_or("--max-prefill-tokens", scenario.max_prefill_tokens);
    scenario.decode_batch = args.integer_or("--decode-bs", -1);
    if (args.flag("--decode-bs") && scenario.decode_batch < 0) throw UsageError("--decode-bs must be >= 0");
    // Limits: NaN would compare false and pass for "no limit", so only finite positive values are taken.
    scenario.target_tgs = args.positive_number("--target-tgs").value_or(scenario.target_tgs);
    scenario.target_tpot_ms = args.positive_number("--target-tpot").value_or(scenario.target_tpot_ms);
    if (args.flag("--prefill-only") && args.flag("--decode-only")) {
        throw UsageError("--prefill-only and --decode-only exclude each other; give at most one");
    }
    if (args.flag("--prefill-only")) scenario.phases = query::Phases::prefill_only;
    if (args.flag("--decode-only")) scenario.phases = query::Phases::decode_only;
    engine::Estimator estimator(options);
    query::Report report = estimator.estimate(scenario);
    if (args.flag("--json")) {
        print_json(options, report, estimator.load_warnings());
    } else {
        print_table(options, report, estimator.load_warnings());
    }
    return 0;
}

}  // namespace mfusim::cli
