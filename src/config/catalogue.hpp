// Built-in models by name. Each entry is a compact Hugging Face config (only the keys a model reads), written as
// facts about the published model, so the same text feeds both the compat parser and the library's own parser.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace mfusim::config {

struct CatalogueModel {
    const char* name;         // lower-case, as users type it: "qwen3-8b"
    const char* config_json;  // compact HF config.json
};

std::size_t catalogue_model_count();
const CatalogueModel& catalogue_model(std::size_t index);
// Case-insensitive; nullopt if unknown.
std::optional<CatalogueModel> find_catalogue_model(std::string_view name);

}  // namespace mfusim::config
