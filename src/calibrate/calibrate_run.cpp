#include "calibrate/calibrate_run.hpp"

#include <chrono>
#include <cstdio>
#include <memory>

#include "calibrate/kernel_fit.hpp"
#include "calibration/calibration.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/hash.hpp"
#include "common/json.hpp"
#include "compare/compare.hpp"
#include "gpu/gpu_profile.hpp"
#include "tables/tables.hpp"

namespace mfusim::calibrate {

StepCalibrationRun run_step_calibration(const std::string& path,
                                        const std::function<engine::Options(const TraceHeader&)>& options_for,
                                        std::size_t folds) {
    if (folds < 2) throw Error(Status::invalid_argument, "folds must be at least 2");
    StepCalibrationRun run;
    const std::string text = read_file(path, kStepStreamLimit);
    run.trace = parse_step_trace(path, text);
    if (run.trace.steps.empty()) throw Error(Status::invalid_argument, path + " holds no measured steps");
    run.options = options_for(run.trace.header);
    if (!run.options.calibration.empty()) {
        throw Error(Status::invalid_argument,
                    "calibration: steps are fitted from the uncalibrated model (a fit on top of a calibration would "
                    "compound it)");
    }
    const engine::Estimator estimator(run.options);
    const LinearisedSteps steps = linearise_steps(run.trace, estimator);
    const std::string engine_name = estimator.roofline()->engine().name;
    run.fit = fit_steps(steps, engine_name, folds);

    nlohmann::ordered_json fitted_on;
    fitted_on["steps"] = {{"file", path},
                          {"fnv1a64", fnv1a64_hex(text)},
                          {"bytes", text.size()},
                          {"rows", run.trace.steps.size()},
                          {"requests", run.trace.requests.size()}};
    fitted_on["model"] = shown_option(run.options.model, "(JSON model)");
    fitted_on["gpu"] = shown_option(run.options.gpu, "(JSON GPU)");
    fitted_on["tp"] = run.options.deployment.tensor_parallel;
    fitted_on["engine"] = engine_name;
    fitted_on["bench_data"] = run.options.bench_data_dir;
    run.document =
        calibration::calibration_json(run.fit.calibration, fitted_on, {{"cross_validation", step_fit_json(run.fit)}});
    run.report = format_step_fit(run.fit);
    run.improved = run.fit.improved;
    run.why_not = run.fit.cross_validated ? "does not improve the cross-validated error over the defaults"
                                          : "cannot be cross-validated with a single group";
    return run;
}

CalibrationRun run_kernel_calibration(const std::string& dir, const std::string& gpu, const std::string& bench_data,
                                      const FitProgress& progress, const std::string& configs_dir) {
    const gpu::GpuProfile base = gpu::resolve_gpu(gpu);
    std::shared_ptr<const tables::BenchData> tables;
    if (!bench_data.empty()) {
        tables = std::make_shared<tables::BenchData>(tables::load_bench_data(bench_data, base.table_folder));
    }
    if (progress) progress("reading " + dir, 0);
    const compare::MeasuredKernels measured = compare::read_aic(dir, configs_dir);
    const auto start = std::chrono::steady_clock::now();
    const KernelFit fit = fit_kernels(measured, base, tables, progress);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    calibration::Calibration fitted;
    fitted.gpu = {base.name, fitted_gpu_constants(fit)};
    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    for (const compare::MeasuredFile& f : measured.files) {
        files.push_back({{"file", f.file}, {"bytes", f.bytes}, {"fnv1a64", f.fnv1a64}});
    }
    nlohmann::ordered_json rows = nlohmann::ordered_json::object();
    for (const FamilyFit& f : fit.families) rows[f.family] = {{"train", f.train_rows}, {"test", f.test_rows}};
    nlohmann::ordered_json fitted_on;
    fitted_on["kernels"] = {{"dir", dir},
                            {"fnv1a64", measured.fnv1a64},
                            {"files", files},
                            {"rows", rows},
                            {"split", "train half of the shapes (FNV-1a of family and shape key, as compare --split)"}};
    fitted_on["gpu"] = shown_option(gpu, "(JSON GPU)");
    fitted_on["bench_data"] = bench_data;

    CalibrationRun run;
    run.document = calibration::calibration_json(fitted, fitted_on, {{"kernel_fit", kernel_fit_json(fit)}});
    run.report = "calibrate --kernels " + dir + " on " + base.name + " with " +
                 (tables ? "tables " + bench_data : std::string("no tables (analytical model)")) + "\n" +
                 format_kernel_fit(fit);
    char timing[96];
    std::snprintf(timing, sizeof timing, "(%zu family evaluations in %.1f s)\n", fit.evaluations, seconds);
    run.report += timing;
    for (const std::string& note : measured.notes) run.report += "note: " + note + "\n";
    run.improved = fit.improved;
    run.why_not = "does not improve the test half's error over the GPU's own constants";
    return run;
}

}  // namespace mfusim::calibrate
