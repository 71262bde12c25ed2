// mfusim: estimate TTFT/TPOT, time engine steps, replay step streams, inspect tables, compare with measurements.
#include <mfusim.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "common/suggest.hpp"

namespace {

const char* kUsage =
    "Usage: mfusim <command> [options]\n"
    "\n"
    "Predicts how long LLM serving-engine steps take on a GPU from kernel-efficiency (MFU) tables.\n"
    "\n"
    "Commands:\n"
    "  serve      TTFT, TPOT and throughput at a concurrency (aggregated in-flight batching)\n"
    "  simulate   a serving benchmark simulated: request rates, percentiles, goodput (vLLM bench's metrics)\n"
    "  sweep      vary one or two parameters: step time or serving metrics as CSV, JSON and an SVG chart\n"
    "  plan       the best TP/EP and concurrency per GPU for a model under TTFT/TPOT limits\n"
    "  estimate   TTFT and TPOT of a workload (InferSim's question), in either mode\n"
    "  step       time of one engine step read as JSON from stdin, with its breakdown\n"
    "  replay     times of a JSONL stream of steps, at full speed\n"
    "  tables     what a bench_data directory holds, its coverage and its problems\n"
    "  compare    predictions against measured kernel times or serving runs (AIConfigurator format)\n"
    "  calibrate  fit the engine's terms to your own serving measurements, cross-validated\n"
    "  models     the built-in models\n"
    "  gpus       the built-in GPU profiles\n"
    "  inspect    parameters, layers by kind, memory and KV capacity of a deployment\n"
    "  run        the command a YAML experiment file names, with its options (docs/experiments.md)\n"
    "\n"
    "'mfusim <command> --help' describes each. 'mfusim --version' prints the library version.\n"
    "plan, sweep and simulate also read their options from a YAML experiment file: --config FILE.\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace mfusim::cli;
    // `mfusim help COMMAND` is `mfusim COMMAND --help`.
    const bool help_for_command = argc == 3 && std::strcmp(argv[1], "help") == 0;
    if (!help_for_command && (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
                              std::strcmp(argv[1], "help") == 0)) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : exit_after_stdout(0);
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        std::printf("mfusim %s\n", MFUSIM_VERSION_STRING);
        return exit_after_stdout(0);
    }
    const char* const help_args[] = {"--help"};
    Args args = help_for_command ? Args(std::begin(help_args), std::end(help_args)) : Args(argv + 2, argv + argc);
    const char* name = help_for_command ? argv[2] : argv[1];
    struct Command {
        const char* name;
        int (*run)(const Args&);
    };
    const Command commands[] = {{"estimate", run_estimate},   {"step", run_step},
                                {"replay", run_replay},       {"tables", run_tables},
                                {"compare", run_compare},     {"models", run_models},
                                {"gpus", run_gpus},           {"inspect", run_inspect},
                                {"serve", run_serve},         {"simulate", run_simulate},
                                {"calibrate", run_calibrate}, {"sweep", run_sweep},
                                {"plan", run_plan},           {"run", run_run}};
    for (const Command& c : commands) {
        if (std::strcmp(name, c.name) == 0) return report_errors(c.name, c.run, args);
    }
    std::vector<std::string> names;
    for (const Command& c : commands) names.emplace_back(c.name);
    std::string hint = mfusim::did_you_mean(name, names);
    std::fprintf(stderr, "mfusim: unknown command '%s'%s\n", name,
                 hint.empty() ? "; run 'mfusim --help' for the list" : hint.c_str());
    return 2;
}
