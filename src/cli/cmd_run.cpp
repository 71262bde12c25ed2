// mfusim run FILE [options]: the command an experiment file names (`command: plan`), with the file's options.
#include <cstdio>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/experiment_file.hpp"
#include "common/error.hpp"
#include "common/suggest.hpp"

namespace mfusim::cli {

int run_run(const Args& raw) {
    static const CommandSpec spec{
        "run",
        "mfusim run FILE [options]",
        "Runs the command an experiment file names in its `command:` key (plan, sweep or simulate) with the\n"
        "file's options; options after FILE are that command's and win over the file. 'mfusim run FILE' is\n"
        "'mfusim COMMAND --config FILE' (docs/experiments.md).",
        {},
        {"FILE"}};
    // Only FILE is run's own; what follows it is the named command's, so it is not parsed here.
    if (raw.empty() || raw[0] == "--help" || raw[0] == "-h" || raw[0].rfind("--", 0) == 0) {
        if (!parse_command(spec, raw.empty() ? raw : Args{raw[0]})) return 0;  // --help printed
    }
    const std::string& file = raw[0];
    const Experiment experiment = read_experiment(file);
    struct Target {
        const char* name;
        int (*run)(const Args&);
    };
    const Target targets[] = {{"plan", run_plan}, {"sweep", run_sweep}, {"simulate", run_simulate}};
    std::vector<std::string> names;
    for (const Target& t : targets) {
        names.emplace_back(t.name);
        if (experiment.command == t.name) {
            Args args{"--config", file};
            args.insert(args.end(), raw.begin() + 1, raw.end());
            return t.run(args);
        }
    }
    if (experiment.command.empty()) {
        throw Error(Status::config, located(file, 1, 1,
                                            "no 'command:' key: say which command runs it (plan, sweep "
                                            "or simulate), or run 'mfusim COMMAND --config " +
                                                file + "'"));
    }
    throw Error(Status::config, located(file, experiment.command_line, 1,
                                        "unknown command '" + experiment.command + "'" +
                                            did_you_mean(experiment.command, names) + " (plan, sweep or simulate)"));
}

}  // namespace mfusim::cli
