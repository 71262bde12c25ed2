// A calibration as `mfusim calibrate --steps|--kernels` runs it, in one place for the CLI and the C API
// (mfusim_calibrate_steps / mfusim_calibrate_kernels): read the measurements, fit, cross-validate, and build the
// calibration file's document with its provenance and report.
#pragma once

#include <functional>
#include <string>

#include "calibrate/kernel_fit.hpp"
#include "calibrate/step_fit.hpp"
#include "calibrate/step_trace.hpp"
#include "engine/estimator.hpp"

namespace mfusim::calibrate {

struct CalibrationRun {
    std::string document;   // the calibration file's JSON text (options.calibration / --calibration take it)
    std::string report;     // the fit's report for a human: coefficients, errors before and after
    bool improved = false;  // beats the defaults on data the fit did not see (else not written unless forced)
    std::string why_not;    // when not improved: why, for the refusal's message
};

struct StepCalibrationRun : CalibrationRun {
    StepTrace trace;
    StepFit fit;
    engine::Options options;  // the deployment the steps were fitted on
};

// Fits the measured steps of the JSONL file at `path` (step_trace.hpp). `options_for` gives the deployment from the
// trace's header (the caller's own settings first). Error(...) naming the file and line for a malformed trace,
// Error(invalid_argument) for fewer than 2 folds or a trace with no steps or a calibration in the options (a fit
// on top of a calibration would compound it).
StepCalibrationRun run_step_calibration(const std::string& path,
                                        const std::function<engine::Options(const TraceHeader&)>& options_for,
                                        std::size_t folds);

// Fits the GPU profile `gpu` (a name, a path or JSON) to the measured kernels of the AIConfigurator-format
// directory `dir` (compare::read_aic), with the MFU tables of `bench_data` ("" for none); `configs_dir` ("" for
// none): the model configs whose MoE routers route the fused MoE rows (compare::read_moe_routers).
CalibrationRun run_kernel_calibration(const std::string& dir, const std::string& gpu, const std::string& bench_data,
                                      const FitProgress& progress = {}, const std::string& configs_dir = "");

}  // namespace mfusim::calibrate
