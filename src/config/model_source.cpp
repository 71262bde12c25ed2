#include "config/model_source.hpp"

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/suggest.hpp"
#include "config/catalogue.hpp"

namespace mfusim::config {

namespace {

ModelSource from_file(const std::string& path) {
    ModelSource source{path, read_file(path), ""};
    const std::string suffix = "config.json";
    if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
        std::string sibling = path.substr(0, path.size() - suffix.size()) + "hf_quant_config.json";
        if (is_regular_file(sibling)) source.hf_quant_json_text = read_file(sibling);
    }
    return source;
}

}  // namespace

ModelSource resolve_model_source(const std::string& model) {
    if (is_json_text(model)) return {"model JSON text", model};
    if (model.empty())
        throw Error(Status::invalid_argument, "no model given: pass a catalogue name or a config.json path");
    // A path that exists wins over a catalogue name: `--model Qwen3-8B` beside a downloaded ./Qwen3-8B/ means that
    // checkpoint (whose config may differ from the built-in entry), as every other tool taking a path reads it.
    if (is_regular_file(model)) return from_file(model);
    if (is_directory(model) && is_regular_file(model + "/config.json")) return from_file(model + "/config.json");
    if (auto entry = find_catalogue_model(model)) {
        return {"catalogue model '" + std::string(entry->name) + "'", entry->config_json};
    }
    if (auto entry = match_catalogue_model(model)) {
        return {"catalogue model '" + std::string(entry->name) + "'", entry->config_json};
    }
    std::vector<std::string> names;
    std::string listed;
    for (std::size_t i = 0; i < catalogue_model_count(); ++i) {
        names.emplace_back(catalogue_model(i).name);
        listed += (i ? ", " : "") + names.back();
    }
    std::string hint = did_you_mean_abbreviated(normalise_model_name(model), names);
    throw Error(Status::unknown_name, "model '" + model + "' is neither a built-in model nor a readable config.json" +
                                          (hint.empty() ? " (built-in: " + listed + ")" : hint));
}

}  // namespace mfusim::config
