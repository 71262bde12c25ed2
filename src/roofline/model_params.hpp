// Parameter counts of a model as its config describes it: what model cards publish as "total" and "active"
// parameters, so a config can be checked against its card and a deployment sized before it is timed.
#pragma once

#include "config/model_config.hpp"

namespace mfusim::roofline {

struct ModelParams {
    double total = 0;   // every weight: embedding, LM head (unless tied), attention, MLPs, all experts, towers
    double vision = 0;  // of total: the vision tower (config::encoder_params), which runs per image, not per token
    double audio = 0;   // of total: the audio tower, which runs per clip, not per token
    double active = 0;  // weights one token runs through: routed experts counted top-k per MoE layer
};

// Norms, biases and convolution kernels are left out (well under 0.1% of any model here); multi-token-prediction
// layers are not part of the model served, so they are left out too.
ModelParams model_params(const config::ModelConfig& m);

}  // namespace mfusim::roofline
