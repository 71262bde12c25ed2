// The calibration file (docs/calibration.md): what `mfusim calibrate` fitted, in a form any estimator loads.
//   {"mfusim_calibration": 2, "base_engine": "vllm", "engine": {"step_us": ..., ...},
//    "efficiency": {"gemm": m, "prefill_attention": m, "decode_attention": m, "communication": m},
//    "gpu": {"name": "A100", "constants": {"memory_efficiency": 0.71, ...}},
//    "units": {...}, "fitted_on": {...}, "cross_validation": {...}, "kernel_fit": {...}}
// "engine" gives engine-profile terms (absolute values, replacing the base engine's), "efficiency" multipliers on
// each kernel family's time (roofline/efficiency.hpp): both from `--steps`. "gpu" gives GPU profile constants
// fitted to kernel measurements (`--kernels`, calibrate/kernel_fit.hpp), applied to the profile named there as a
// JSON profile's overrides are. A file holds either part or both. "units", "fitted_on", "cross_validation" and
// "kernel_fit" document the fits and are not read back.
//
// Versions: 1 has no "gpu"; 2 adds it. A file without "gpu" is written as version 1, which every release reads.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/efficiency.hpp"

namespace mfusim::calibration {

inline constexpr int kCalibrationVersion = 2;  // the newest version this library reads and writes
inline constexpr int kCalibrationVersionWithoutGpu = 1;

// GPU profile constants fitted to measured kernels.
struct GpuConstants {
    std::string gpu;                                        // the profile's name they were fitted for; "" for none
    std::vector<std::pair<std::string, double>> constants;  // names and order of kernel_constants()
};

struct Calibration {
    // base_engine, engine terms and multipliers are given (a --steps fit): set by load_calibration when the file
    // has any of them. calibration_json writes them when set, or when there are no GPU constants.
    bool step_fit = false;
    std::string base_engine = "vllm";
    std::vector<std::pair<std::string, double>> engine_terms;  // in file order; names of fitted_engine_terms()
    roofline::Efficiency efficiency;
    GpuConstants gpu;
};

// A path to a calibration file, or the JSON text itself (anything starting with '{'). Error(io) for an unreadable
// file, Error(parse) for malformed JSON, Error(config) naming the field for a missing version, a version this
// library does not read, an unknown term or family, or a value outside its bounds.
Calibration load_calibration(const std::string& path_or_json);

// `base` with the calibration's engine terms (`base` itself when it has none). Error(config) when `base` is not
// the engine the calibration was fitted on top of (its other fields would then be another engine's).
engines::EngineProfile calibrated_engine(const Calibration& calibration, const engines::EngineProfile& base);

// `base` with the calibration's GPU constants, applied as a JSON profile's overrides (gpu::apply_overrides);
// `base` itself when it has none. Error(config) when `base` is not the GPU they were fitted for.
gpu::GpuProfile calibrated_gpu(const Calibration& calibration, const gpu::GpuProfile& base);

// The file's text; `fitted_on` is written as given, then each item of `reports` (an object: "cross_validation",
// "kernel_fit") as a top-level field.
std::string calibration_json(const Calibration& calibration, const nlohmann::ordered_json& fitted_on,
                             const nlohmann::ordered_json& reports);

}  // namespace mfusim::calibration
