// Fitting the roofline model to measured engine steps (docs/calibration.md). Given each step's breakdown by
// operation (computed once with the detailed evaluator), the step time is linear in the coefficients fitted:
//   t = sum over families f of m_f * kernel_f + sum over engine terms j of e_j * count_j + the rest
// (the rest: linear-attention layers and small element-wise kernels, not calibrated). The fit is bounded least
// squares on the relative error (each row divided by its measured time), Huber-reweighted, with a weak prior that
// pulls coefficients the steps cannot tell apart towards the defaults. Accuracy is reported by group k-fold
// cross-validation: every fold holds out whole groups, so a group's test error comes from a fit that never saw it.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "calibrate/step_trace.hpp"
#include "calibration/calibration.hpp"
#include "compare/compare.hpp"
#include "engine/estimator.hpp"
#include "roofline/efficiency.hpp"

namespace mfusim::calibrate {

// The fitted coefficients, in order: the four efficiency multipliers, then the engine terms step_us, request_us,
// layer_us, eager_layer_us, tp_sync_us.
inline constexpr std::size_t kStepColumns = roofline::kEfficiencyFamilies + 5;
const std::array<const char*, kStepColumns>& step_column_names();

// One measured step, linearised: measured ~ fixed_us + sum_j x[j] * coefficient_j.
struct StepRow {
    double measured_us = 0;
    double base_us = 0;   // the model's prediction with its defaults (no calibration)
    double fixed_us = 0;  // the part no coefficient scales
    std::array<double, kStepColumns> x{};
    std::size_t group = 0;
};

struct LinearisedSteps {
    std::vector<StepRow> rows;
    std::vector<std::string> groups;              // names; StepRow::group indexes them
    std::string grouping;                         // "given" (by the trace's "group") or "composition" (by batch class)
    std::array<double, kStepColumns> defaults{};  // the base model's coefficients
};

// Evaluates every step of `trace` on `estimator` (roofline mode, uncalibrated) once. Error(...) naming the file
// and line of a step the library refuses.
LinearisedSteps linearise_steps(const StepTrace& trace, const engine::Estimator& estimator);

// The batch-composition class of a step, the groups used when the trace names none: decode-only, mixed or
// prefill-only, and a size bucket by new tokens (<=16, <=128, <=1024, >1024), e.g. "mixed/tokens<=1024".
std::string composition_class(const mfusim_request* requests, std::size_t n);

struct Coefficient {
    std::string name;
    double value = 0;                   // fitted on every row
    double fold_min = 0, fold_max = 0;  // over the cross-validation folds
    double default_value = 0;
    double lower = 0, upper = 0;
    bool identified = true;  // false: the steps cannot tell it from another coefficient (the prior decided)
};

struct GroupScore {
    std::string group;  // "(all)" last
    std::size_t rows = 0;
    compare::ErrorStats before, train, test;  // relative errors: defaults; fit on all rows; held-out fold
};

struct StepFit {
    std::size_t rows = 0, folds = 0;
    std::string grouping;
    std::vector<Coefficient> coefficients;
    std::vector<GroupScore> groups;
    std::vector<std::string> notes;        // what the steps could not identify, in words
    bool cross_validated = false;          // false when there is a single group (nothing to hold out)
    bool improved = false;                 // the cross-validated median |error| beats the defaults'
    calibration::Calibration calibration;  // the coefficients fitted on every row, as a calibration
    // Per row, in the steps' order: relative errors (predicted / measured - 1) of the defaults, and of the fit
    // that did not see the row (held out; the fit on every row when there is nothing to hold out). The
    // residual plot draws them.
    std::vector<double> before_error, fitted_error;
};

// Fits `steps`; `base_engine` names the engine profile the terms replace. k = min(folds, groups).
StepFit fit_steps(const LinearisedSteps& steps, const std::string& base_engine, std::size_t folds = 5);

std::string format_step_fit(const StepFit& fit);
nlohmann::ordered_json step_fit_json(const StepFit& fit);  // the "cross_validation" object of the file

}  // namespace mfusim::calibrate
