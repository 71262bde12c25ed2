// The model the serving and simulation benchmarks time: llama-3.1-8b on an H100 with the vLLM profile and
// analytical efficiencies (no tables), built once.
#pragma once

#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "roofline/roofline_model.hpp"

namespace mfusim::bench {

inline const roofline::RooflineModel& llama8b_h100() {
    static const roofline::RooflineModel instance(
        config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct")), gpu::resolve_gpu("H100"),
        nullptr, query::Deployment{}, engines::resolve_engine("vllm"));
    return instance;
}

}  // namespace mfusim::bench
