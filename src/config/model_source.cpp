#include "config/model_source.hpp"

#include "common/error.hpp"
#include "common/files.hpp"
#include "config/catalogue.hpp"

namespace mfusim::config {

ModelSource resolve_model_source(const std::string& model) {
    std::size_t first = model.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && model[first] == '{') return {"model JSON text", model};
    if (model.empty())
        throw Error(Status::invalid_argument, "no model given: pass a catalogue name or a config.json path");
    if (auto entry = find_catalogue_model(model)) {
        return {"catalogue model '" + std::string(entry->name) + "'", entry->config_json};
    }
    if (is_regular_file(model)) return {model, read_file(model)};
    if (is_directory(model) && is_regular_file(model + "/config.json")) {
        return {model + "/config.json", read_file(model + "/config.json")};
    }
    std::string names;
    for (std::size_t i = 0; i < catalogue_model_count(); ++i) {
        names += (i ? ", " : "") + std::string(catalogue_model(i).name);
    }
    throw Error(
        Status::unknown_name,
        "model '" + model + "' is neither a built-in model nor a readable config.json (built-in: " + names + ")");
}

}  // namespace mfusim::config
