// Built-in models by name. Each entry is a compact Hugging Face config (only the keys a model reads), written as
// facts about the published model, so the same text feeds both the compat parser and the library's own parser.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
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
// A looser match for names as Hugging Face writes them: lower-cased, the organisation of an "org/name" id stripped and
// '_' read as '-', so "meta-llama/Llama-3.1-70B-Instruct" finds "llama-3.1-70b-instruct". Tried after exact names
// and files, so a local folder named like a catalogue entry keeps its own config.
std::optional<CatalogueModel> match_catalogue_model(std::string_view name);
// The normalised form match_catalogue_model compares.
std::string normalise_model_name(std::string_view name);

}  // namespace mfusim::config
