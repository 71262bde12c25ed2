// Where a model description comes from: a catalogue name, a path to config.json, or JSON text.
#pragma once

#include <string>

namespace mfusim::config {

struct ModelSource {
    std::string origin;  // "catalogue model 'qwen3-8b'", "/path/config.json", or "model JSON text": for messages
    std::string json_text;
};

// Text starting with '{' (after spaces) is JSON; else a catalogue name; else a file path. Error(unknown_name)
// when it is neither a known name nor an existing file, listing a few names.
ModelSource resolve_model_source(const std::string& model);

}  // namespace mfusim::config
