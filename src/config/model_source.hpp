// Where a model description comes from: a catalogue name, a path to config.json, or JSON text.
#pragma once

#include <string>

namespace mfusim::config {

struct ModelSource {
    std::string origin;  // "catalogue model 'qwen3-8b'", "/path/config.json", or "model JSON text": for messages
    std::string json_text;
    // hf_quant_config.json beside a config file (TensorRT Model Optimizer checkpoints state their quantization
    // there); "" when there is none.
    std::string hf_quant_json_text = "";
};

// Text starting with '{' (after spaces) is JSON; else a catalogue name; else a file path. Error(unknown_name)
// when it is neither a known name nor an existing file, listing a few names. For a file, an hf_quant_config.json
// beside it is read too: in the same folder, or as `<prefix>hf_quant_config.json` for a `<prefix>config.json`.
ModelSource resolve_model_source(const std::string& model);

}  // namespace mfusim::config
