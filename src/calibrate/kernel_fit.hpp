// Fitting a GPU profile's own constants to measured kernels (`mfusim calibrate --kernels DIR`, docs/calibration.md):
// memory efficiency, GEMM plateau and launch cost, attention constants, all-reduce constants. The measurements are
// an AIConfigurator-format directory as `compare` reads it (src/compare/compare.hpp); the constants are fitted on
// the train half of its shapes (compare::split_of) and the fit is reported on the test half, before (the profile's
// own constants) and after.
//
// The search: coordinate descent over every constant's coarse grid, then a refinement at +-5% steps (3 significant
// digits, inside the constant's physical bounds), minimising the sum over families of
//     median |pred/meas - 1| + |median (pred/meas - 1)| + 0.1 x p90 |pred/meas - 1|
// on each family's train rows (a one-sided model is penalised twice; the small tail term breaks the median's ties).
// Constants of one family are also tried in pairs over their grids when no single move improves. Which families a
// constant moves is found by probing it once; a trial of it re-evaluates only those families, each on its own rows.
// Deterministic: the order is that of kernel_constants(), and ties keep the current value.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "compare/compare.hpp"
#include "gpu/constants.hpp"
#include "gpu/gpu_profile.hpp"
#include "tables/tables.hpp"

namespace mfusim::calibrate {

using gpu::find_kernel_constant;
using gpu::kernel_constant_names;
using gpu::kernel_constants;
using gpu::KernelConstant;

// What the fit minimises for one family.
double kernel_objective(const compare::ErrorStats& stats);

struct FittedConstant {
    std::string name, unit;
    std::string families;  // the families whose predictions it moves, "gemm, generation_attention"
    double before = 0, after = 0;
    bool exercised = false;  // some family's rows depend on it: it was fitted (and is written)
};

struct FamilyFit {
    std::string family;
    std::size_t train_rows = 0, test_rows = 0;
    compare::ErrorStats train_before, train_after, test_before, test_after;
    bool fitted = false;  // the family has train rows and some constant moves them
};

struct KernelFit {
    std::string gpu;  // the base profile's name
    std::vector<FittedConstant> constants;
    std::vector<FamilyFit> families;
    gpu::GpuProfile fitted;       // the base profile with every fitted constant
    double test_before = 0;       // sum over the fitted families of the test-half objective, with the base constants
    double test_after = 0;        // the same with the fitted constants
    bool improved = false;        // test_after < test_before
    std::size_t evaluations = 0;  // family evaluations the search made
};

// Fits the constants the families present in `measured` depend on (read_aic: both halves; the fit uses the train
// half and reports on the test half). Error(invalid_argument) when no family has train rows.
// What the search is doing, for a person waiting (the CLI's stderr): a short line per stage, with the family
// evaluations made so far. Called between evaluations, never concurrently; empty: nothing is reported.
using FitProgress = std::function<void(const std::string& stage, std::size_t evaluations)>;

KernelFit fit_kernels(const compare::MeasuredKernels& measured, const gpu::GpuProfile& base,
                      std::shared_ptr<const tables::BenchData> tables = nullptr, const FitProgress& progress = {});

// The fitted constants a calibration file keeps: those the rows exercised.
std::vector<std::pair<std::string, double>> fitted_gpu_constants(const KernelFit& fit);

// The report: per family rows and median / p90 / bias of the test half before and after (and the train half's
// objective), then the constants with their defaults, then the verdict.
std::string format_kernel_fit(const KernelFit& fit);
nlohmann::ordered_json kernel_fit_json(const KernelFit& fit);

}  // namespace mfusim::calibrate
