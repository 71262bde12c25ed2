// The calibration file (docs/calibration.md): what `mfusim calibrate` fitted, in a form any estimator loads.
//   {"mfusim_calibration": 1, "base_engine": "vllm", "engine": {"step_us": ..., ...},
//    "efficiency": {"gemm": m, "prefill_attention": m, "decode_attention": m, "communication": m},
//    "units": {...}, "fitted_on": {...}, "cross_validation": {...}}
// "engine" gives engine-profile terms (absolute values, replacing the base engine's), "efficiency" multipliers on
// each kernel family's time (roofline/efficiency.hpp). "units", "fitted_on" and "cross_validation" document the
// fit and are not read back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engines/engine_profile.hpp"
#include "roofline/efficiency.hpp"

namespace mfusim::calibrate {

inline constexpr int kCalibrationVersion = 1;

struct Calibration {
    std::string base_engine = "vllm";
    std::vector<std::pair<std::string, double>> engine_terms;  // in file order; names of fitted_engine_terms()
    roofline::Efficiency efficiency;
};

// A path to a calibration file, or the JSON text itself (anything starting with '{'). Error(io) for an unreadable
// file, Error(parse) for malformed JSON, Error(config) naming the field for a missing version, a version this
// library does not read, an unknown term or family, or a value outside its bounds.
Calibration load_calibration(const std::string& path_or_json);

// `base` with the calibration's engine terms. Error(config) when `base` is not the engine the calibration was
// fitted on top of (its other fields would then be another engine's).
engines::EngineProfile calibrated_engine(const Calibration& calibration, const engines::EngineProfile& base);

// The file's text; `fitted_on` and `cross_validation` are written as given.
std::string calibration_json(const Calibration& calibration, const nlohmann::ordered_json& fitted_on,
                             const nlohmann::ordered_json& cross_validation);

}  // namespace mfusim::calibrate
