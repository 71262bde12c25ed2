// mfusim calibrate: fit the engine's terms to the user's own serving measurements (docs/engine.md, "Fitting").
#include <cstdio>
#include <fstream>

#include "calibrate/engine_fit.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "common/error.hpp"
#include "compare/serving_compare.hpp"
#include "engines/engine_profile.hpp"

namespace mfusim::cli {

int run_calibrate(const Args& raw) {
    static const CommandSpec spec{
        "calibrate",
        "mfusim calibrate --serving FILE.csv --configs DIR [--engine NAME|JSON|FILE] [--gpu NAME] [--out FILE]",
        "Fits the engine profile's time terms (per step, per request, per layer graphed and eager, TP\n"
        "synchronisation, per request admission, per prompt token) to measured serving runs: the rows of the CSV\n"
        "(AIConfigurator silicon layout) whose backend is the engine's. Bounded least squares on the relative errors\n"
        "of TTFT and TPOT, Huber-reweighted; reports the terms, the accuracy before, by leave-one-model-out\n"
        "cross-validation (the figure to trust), and in sample. --out writes the fitted profile as JSON, which\n"
        "--engine FILE reads back on every command.",
        {{"--serving", "FILE", "serving measurements (required)"},
         {"--configs", "DIR", "model configs of its rows, <org>--<name>_config.json (required)"},
         {"--engine", "NAME|JSON|FILE", "the profile to fit; its name selects the rows [vllm]"},
         {"--gpu", "NAME|PATH", "the GPU the runs were measured on [H100]"},
         {"--requests-per-client", "K", "the runs' requests per client (0: steady state); by default chosen "
                                        "among 0..10 by the cross-validated error"},
         {"--out", "FILE", "write the fitted profile here"}},
        {}};
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    auto serving = args.text("--serving");
    auto configs = args.text("--configs");
    if (!serving || !configs) throw UsageError("--serving FILE and --configs DIR are required");
    engines::EngineProfile base = engines::resolve_engine(args.text_or("--engine", "vllm"));
    std::vector<compare::ServingRow> rows;
    for (compare::ServingRow& r : compare::read_silicon_csv(*serving)) {
        if (r.backend == base.name) rows.push_back(std::move(r));
    }
    if (rows.empty()) throw UsageError(*serving + " has no rows of backend '" + base.name + "'");
    const std::string gpu = args.text_or("--gpu", "H100");
    std::vector<double> candidates = {0, 1, 2, 3, 4, 5, 6, 8, 10};
    if (args.flag("--requests-per-client")) candidates = {args.number_or("--requests-per-client", 0)};
    calibrate::ServingFit fit;
    double best = -1, chosen = 0;
    if (candidates.size() > 1) std::printf("requests per client: cross-validated median |error| TTFT + TPOT\n");
    for (double k : candidates) {
        for (compare::ServingRow& r : rows) r.workload.requests_per_client = k;
        calibrate::ServingFit candidate = calibrate::fit_serving(rows, *configs, gpu, base);
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
    std::printf("\nrequests per client: %g\n", chosen);
    std::fputs(calibrate::format_fit(fit).c_str(), stdout);
    if (auto out = args.text("--out")) {
        std::ofstream file(*out);
        file << calibrate::fit_json(fit, *serving);
        file.close();
        if (!file) throw Error(Status::io, *out + ": could not be written");
        std::printf("\nwrote %s\n", out->c_str());
    }
    return 0;
}

}  // namespace mfusim::cli
