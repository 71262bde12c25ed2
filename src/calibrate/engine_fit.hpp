// Fitting an engine profile's terms to measured serving runs (docs/engine.md, "Fitting"). The serving estimate is
// linear in the engine's time terms (they add to every step, or once to a request, and the step mix does not
// depend on them), so each row is linearised once - its prediction with the terms at zero, and what one unit of
// each adds - and the fit is a bounded least-squares problem in the relative errors of TTFT and TPOT, made
// robust to outlying runs by Huber reweighting. Accuracy is reported by leave-one-group-out cross-validation.
#pragma once

#include <string>
#include <vector>

#include "compare/serving_compare.hpp"
#include "engines/engine_profile.hpp"

namespace mfusim::calibrate {

using engines::EngineTerm;
using engines::fitted_engine_terms;

struct FittedTerm {
    std::string name, unit, meaning;
    double value = 0;                   // fitted on every row
    double fold_min = 0, fold_max = 0;  // over the cross-validation folds
};

struct ServingFit {
    std::string backend;
    double requests_per_client = 0;  // the measurement protocol the rows were scored with
    int64_t num_prompts = 0;         // or: N requests in all per run (calibrate --num-prompts); 0: per client
    double min_length_ratio = 1;     // (the lengths of the simulated benchmark)
    compare::ServingMethod method = compare::ServingMethod::closed_form;
    std::size_t rows = 0, refused = 0;
    std::vector<std::string> groups;  // the cross-validation groups (models), each held out once
    std::vector<FittedTerm> terms;
    engines::EngineProfile profile;                      // the base profile with the terms fitted on every row
    std::vector<compare::ServingGroup> before;           // the base profile as it is
    std::vector<compare::ServingGroup> in_sample;        // the fit on every row, scored on them
    std::vector<compare::ServingGroup> cross_validated;  // each model predicted by a fit without it
};

// The terms a fit by `method` moves. The closed form: all of fitted_engine_terms(). The simulation: only the
// per-request terms outside the step (admission_us, input_token_us) - the simulator reproduces the queueing and
// the step mix that the closed form's step terms absorb, so the step terms stay the base profile's.
std::vector<EngineTerm> terms_fitted_by(compare::ServingMethod method);

// Fits `base`'s terms to `rows` (all of one engine), grouping by model for the cross-validation. Rows the
// library refuses are counted and left out; Error(invalid_argument) with the first refusal when all are.
// By the simulation, each row is linearised by finite differences of a twentieth of each term's bound: the
// per-request terms delay a request outside the engine, so TTFT moves almost exactly linearly with them.
ServingFit fit_serving(const std::vector<compare::ServingRow>& rows, const std::string& configs_dir,
                       const std::string& gpu, const engines::EngineProfile& base,
                       compare::ServingMethod method = compare::ServingMethod::closed_form);

// The fit as a reusable engine profile: {"base": ..., "<term>": value, ..., "_fit": {what it was fitted on and
// its cross-validated figures}} - `--engine FILE` and options.engine read it back.
std::string fit_json(const ServingFit& fit, const std::string& source);
std::string format_fit(const ServingFit& fit);

}  // namespace mfusim::calibrate
