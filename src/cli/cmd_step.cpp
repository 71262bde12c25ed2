// mfusim step: one engine step from JSON on stdin.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/step_output.hpp"
#include "cli/warnings.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/suggest.hpp"

namespace mfusim::cli {

namespace {

CommandSpec step_spec() {
    CommandSpec spec{
        "step",
        "mfusim step [options] < step.json",
        "Times one engine step read from stdin as\n"
        "  {\"model\": NAME|PATH, \"gpu\": NAME, \"tp\": N,\n"
        "   \"requests\": [{\"new_tokens\": n, \"context\": c, \"no_output\": false}, ...]}\n"
        "where context is the number of tokens already in the KV cache (a request with new_tokens 1 and\n"
        "context > 0 is a decode). Options given on the command line override the JSON's.\n"
        "Prints the total, the breakdown by operation, what bound each, and where each efficiency came from.",
        estimator_flags(),
        {}};
    spec.flags.push_back({"--json", "", "print {\"total_us\": ..., \"bound\": ..., \"breakdown\": {...}}"});
    return spec;
}

// A key the step does not read would be answered for the defaults without a word (a "gpus" typo times the H100):
// refused, with the nearest known key.
void refuse_unknown_keys(const JsonFields& f, const std::vector<std::string>& known, const char* what) {
    for (const auto& item : f.object().items()) {
        if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        std::string hint = did_you_mean(item.key(), known);
        f.fail(item.key().c_str(), std::string("unknown ") + what + (hint.empty() ? " (expected " + list + ")" : hint));
    }
}

mfusim_request parse_request(const nlohmann::json& item, std::size_t index) {
    JsonFields f(item, "stdin", "requests[" + std::to_string(index) + "].");
    mfusim_request r{};
    r.new_tokens = f.integer("new_tokens");
    r.context = f.optional_integer("context").value_or(0);
    if (f.optional_bool("no_output").value_or(false)) r.flags |= MFUSIM_REQUEST_NO_OUTPUT;
    refuse_unknown_keys(f, {"new_tokens", "context", "no_output"}, "request field");
    return r;
}

}  // namespace

int run_step(const Args& raw) {
    static const CommandSpec spec = step_spec();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    // Capped: `mfusim step < /dev/zero` must end with an error, not grow until the machine runs out of memory.
    std::string input = read_descriptor(STDIN_FILENO, "stdin", kStdinStepLimit);
    if (input.find_first_not_of(" \t\r\n") == std::string::npos) {
        throw UsageError(
            "no step on stdin; pipe one in, e.g. echo '{\"requests\":[{\"new_tokens\":512,\"context\":0}]}' | mfusim "
            "step");
    }
    nlohmann::json doc = parse_json(input, "stdin");
    JsonFields f(doc, "stdin");
    refuse_unknown_keys(f, {"model", "gpu", "tp", "bench_data", "requests"}, "field");
    engine::Options options = estimator_options(args);
    if (!args.flag("--model")) options.model = f.optional_string("model").value_or(options.model);
    if (!args.flag("--gpu")) {
        options.gpu = f.optional_string("gpu").value_or(options.gpu);
    }
    if (!args.flag("--tp")) options.deployment.tensor_parallel = f.optional_integer("tp").value_or(1);
    if (!args.flag("--bench-data"))
        options.bench_data_dir = f.optional_string("bench_data").value_or(options.bench_data_dir);
    if (!doc.contains("requests") || !doc["requests"].is_array()) f.fail("requests", "missing or not an array");
    std::vector<mfusim_request> requests;
    for (std::size_t i = 0; i < doc["requests"].size(); ++i) requests.push_back(parse_request(doc["requests"][i], i));

    engine::Estimator estimator(options);
    mfusim_step_result result{};
    result.struct_size = sizeof result;
    estimator.step_detail(requests.data(), requests.size(), result);
    if (args.flag("--json")) {
        nlohmann::ordered_json j = step_result_json(result);
        j["warnings"] = warning_lines(estimator.load_warnings());
        std::printf("%s\n", json_text(j).c_str());
    } else {
        std::printf("mfusim step: %s, %zu requests\n", describe(options).c_str(), requests.size());
        print_step_table(result);
        print_load_warnings(estimator.load_warnings());
    }
    return 0;
}

}  // namespace mfusim::cli
