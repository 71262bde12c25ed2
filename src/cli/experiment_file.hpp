// Experiment files: one YAML file holding the options of `mfusim plan`, `sweep` or `simulate` (model, GPU, engine,
// parallelism, workload, the axes searched or swept, the outputs), read with `--config FILE`. As vLLM's
// `vllm serve --config config.yaml`, a key is an option's long name without the dashes, and an option given on the
// command line wins over the file (command line > file > default). Keys may be grouped under the sections
// `deployment`, `workload`, `output` and one named after the command (`plan:`, `sweep:`, `simulate:`); a
// top-level `command:` names the command the file was written for and is checked. docs/experiments.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace mfusim::cli {

// One key of the file with its value, before it is checked against a command's options.
struct ExperimentSetting {
    std::string section;                                                 // "" at the top level
    std::string key;                                                     // "isl"
    enum class Kind { text, boolean, list, section } kind = Kind::text;  // section: the keys after it with
    // this name as `section` belong to it
    std::string value;  // the scalar; "true"/"false" for a boolean; a list's items joined with ','
    std::size_t line = 0, column = 0;
};

struct Experiment {
    std::string file;
    std::string command;  // "" when the file has no `command:` key
    std::size_t command_line = 0;
    std::vector<ExperimentSetting> settings;
};

// Parses the YAML text of an experiment file (`file` names it in messages). Error(parse) located at
// file:line:column for malformed YAML, a document that is not one mapping, a duplicate key, a value that is neither
// a scalar, a list of scalars nor (at the top level) a section. Never consults a command's options.
Experiment parse_experiment(const std::string& text, const std::string& file);

// The experiment file at `path`, read (at most 1 MiB, a regular file: src/common/files.hpp) and parsed.
Experiment read_experiment(const std::string& path);

// The command-line arguments the settings stand for under `spec` ("--isl", "1024", "--json", ...), in file order.
// Error(config) located at the key for an unknown key or section (with "did you mean"), a `command:` naming
// another command, a boolean given to an option that takes a value or a value to a switch, and `config`/`help`.
std::vector<std::string> experiment_arguments(const Experiment& experiment, const CommandSpec& spec);

// Runs `body` with the arguments `raw` plus, when `raw` has --config FILE, the file's settings before them (the
// command line wins). A usage or library error about an option that came from the file names its line.
int run_with_experiment(const CommandSpec& spec, const Args& raw, int (*body)(const Args&));

// The --config option's description, for a command's CommandSpec.
FlagSpec experiment_flag();

}  // namespace mfusim::cli
