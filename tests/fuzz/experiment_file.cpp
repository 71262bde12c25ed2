// Fuzz target: an experiment file's YAML (docs/experiments.md), as `mfusim plan|sweep|simulate --config FILE` reads
// it: parsed, then turned into the arguments of a command whose options are a switch, a value and a list. Checks
// that every argument made is one of the command's options, and that a switch never carries a value.
#include <algorithm>

#include "cli/experiment_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    using mfusim::cli::CommandSpec;
    static const CommandSpec spec{
        "plan", "", "", {{"--model", "NAME", ""}, {"--json", "", ""}, {"--tp-list", "LIST", ""}}, {}};
    mfusim::fuzz::handled([&] {
        const auto experiment = mfusim::cli::parse_experiment(mfusim::fuzz::as_text(data, size), "fuzz.yaml");
        for (const std::string& arg : mfusim::cli::experiment_arguments(experiment, spec)) {
            const std::string name = arg.substr(0, arg.find('='));
            const bool known =
                std::any_of(spec.flags.begin(), spec.flags.end(), [&](const auto& f) { return f.name == name; });
            mfusim::fuzz::require(known, "every argument is one of the command's options");
            mfusim::fuzz::require(name != "--json" || arg == "--json", "a switch carries no value");
        }
    });
    return 0;
}
