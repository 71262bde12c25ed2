#include "calibrate/step_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "calibrate/box_least_squares.hpp"
#include "calibrate/engine_fit.hpp"
#include "common/error.hpp"
#include "common/numbers.hpp"

namespace mfusim::calibrate {

namespace {

using roofline::EfficiencyFamily;
constexpr std::size_t kFamilies = roofline::kEfficiencyFamilies;

// Relative errors beyond 10% weigh linearly: a step caught in a host stall must not drag the fit. Measured steps
// of a steady deployment scatter by a few percent, so honest rows stay quadratic.
constexpr double kHuberDelta = 0.1;
// The prior's weight, as a share of each column's own weight in the data. Enough to settle coefficients the steps
// cannot tell apart (step_us and layer_us when every step has the same layers) at their defaults' proportions
// and to keep coordinate descent well conditioned; small enough to move an identified coefficient by about 1% of
// its distance from the default.
constexpr double kPriorShare = 1e-6;

// The engine terms fitted from steps: those of fitted_engine_terms() that a step incurs (admission and input
// tokens belong to requests, not steps), with the counts RooflineModel::engine_units gives.
struct StepTerm {
    const char* name;
    double roofline::EngineUnits::*count;
};
constexpr std::array<StepTerm, 5> kStepTerms{{{"step_us", &roofline::EngineUnits::step},
                                              {"request_us", &roofline::EngineUnits::requests},
                                              {"layer_us", &roofline::EngineUnits::layers},
                                              {"eager_layer_us", &roofline::EngineUnits::eager_layers},
                                              {"tp_sync_us", &roofline::EngineUnits::tp_sync}}};
static_assert(kFamilies + kStepTerms.size() == kStepColumns);

const EngineTerm& engine_term(const char* name) {
    for (const EngineTerm& t : fitted_engine_terms()) {
        if (std::string(t.name) == name) return t;
    }
    throw Error(Status::internal, std::string("no engine term ") + name);
}

struct Bounds {
    std::vector<double> lower, upper;
};

Bounds column_bounds() {
    Bounds b;
    for (std::size_t j = 0; j < kFamilies; ++j) {
        b.lower.push_back(roofline::kMinMultiplier);
        b.upper.push_back(roofline::kMaxMultiplier);
    }
    for (const StepTerm& t : kStepTerms) {
        b.lower.push_back(0.0);
        b.upper.push_back(engine_term(t.name).max);
    }
    return b;
}

double predict(const StepRow& r, const std::vector<double>& x) {
    double t = r.fixed_us;
    for (std::size_t j = 0; j < kStepColumns; ++j) t += x[j] * r.x[j];
    return t;
}

// Bounded least squares on the relative errors of the rows in `use`, with the prior towards the defaults.
std::vector<double> solve(const LinearisedSteps& steps, const std::vector<char>& use, const Bounds& bounds) {
    const std::size_t k = kStepColumns;
    std::vector<double> a, b;
    std::array<double, kStepColumns> energy{};
    std::size_t used = 0;
    for (std::size_t i = 0; i < steps.rows.size(); ++i) {
        if (!use[i]) continue;
        const StepRow& r = steps.rows[i];
        for (std::size_t j = 0; j < k; ++j) {
            const double v = r.x[j] / r.measured_us;
            a.push_back(v);
            energy[j] += v * v;
        }
        b.push_back(1.0 - r.fixed_us / r.measured_us);
        ++used;
    }
    for (std::size_t j = 0; j < k; ++j) {
        // A column no step exercises (communication at TP 1) gets a unit prior: it stays at its default.
        const double weight = energy[j] > 0 ? std::sqrt(kPriorShare * energy[j]) : 1.0;
        for (std::size_t c = 0; c < k; ++c) a.push_back(c == j ? weight : 0.0);
        b.push_back(weight * steps.defaults[j]);
    }
    return huber_box_least_squares(a, b, k, bounds.lower, bounds.upper, kHuberDelta, used);
}

// Columns whose counts are proportional in every step: the steps identify only their combined time.
std::vector<std::vector<std::size_t>> confounded_columns(const LinearisedSteps& steps) {
    std::vector<std::vector<std::size_t>> classes;
    std::vector<char> placed(kStepColumns, 0);
    auto proportional = [&](std::size_t p, std::size_t q) {
        double ratio = 0;
        for (const StepRow& r : steps.rows) {
            if ((r.x[p] == 0) != (r.x[q] == 0)) return false;
            if (r.x[p] == 0) continue;
            const double v = r.x[q] / r.x[p];
            if (ratio == 0) ratio = v;
            if (std::fabs(v - ratio) > 1e-9 * std::fabs(ratio)) return false;
        }
        return ratio != 0;
    };
    for (std::size_t p = 0; p < kStepColumns; ++p) {
        if (placed[p]) continue;
        std::vector<std::size_t> members{p};
        for (std::size_t q = p + 1; q < kStepColumns; ++q) {
            if (!placed[q] && proportional(p, q)) {
                members.push_back(q);
                placed[q] = 1;
            }
        }
        if (members.size() > 1) classes.push_back(members);
    }
    return classes;
}

compare::ErrorStats stats_of(const std::vector<double>& errors) {
    return compare::error_stats(errors);
}

std::string bucket(int64_t tokens) {
    if (tokens <= 16) return "tokens<=16";
    if (tokens <= 128) return "tokens<=128";
    if (tokens <= 1024) return "tokens<=1024";
    return "tokens>1024";
}

}  // namespace

const std::array<const char*, kStepColumns>& step_column_names() {
    static const std::array<const char*, kStepColumns> names = {
        "gemm",       "prefill_attention", "decode_attention", "communication", "step_us",
        "request_us", "layer_us",          "eager_layer_us",   "tp_sync_us"};
    return names;
}

std::string composition_class(const mfusim_request* requests, std::size_t n) {
    int64_t tokens = 0;
    bool decode = false, prefill = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (requests[i].new_tokens <= 0) continue;
        tokens += requests[i].new_tokens;
        (requests[i].new_tokens == 1 ? decode : prefill) = true;
    }
    const char* kind = decode && prefill ? "mixed" : prefill ? "prefill-only" : decode ? "decode-only" : "empty";
    return std::string(kind) + "/" + bucket(tokens);
}

LinearisedSteps linearise_steps(const StepTrace& trace, const engine::Estimator& estimator) {
    const roofline::RooflineModel* model = estimator.roofline();
    if (!model) {
        throw Error(Status::unsupported,
                    "calibration fits the roofline model's coefficients; compat (infersim) mode "
                    "reproduces InferSim and has none");
    }
    for (int f = 0; f < roofline::kEfficiencyFamilies; ++f) {
        if (model->efficiency()[static_cast<EfficiencyFamily>(f)] != 1.0) {
            throw Error(Status::invalid_argument,
                        "fit from an uncalibrated estimator (no calibration option): a fit "
                        "on top of a calibration would compound it");
        }
    }
    LinearisedSteps out;
    for (std::size_t j = 0; j < kFamilies; ++j) out.defaults[j] = 1.0;
    for (std::size_t t = 0; t < kStepTerms.size(); ++t) {
        out.defaults[kFamilies + t] = model->engine().*(engine_term(kStepTerms[t].name).member);
    }
    bool given = trace.header.group.has_value();
    for (const TraceStep& s : trace.steps) given = given || s.group.has_value();
    out.grouping = given ? "given" : "composition";

    mfusim_step_result detail{};
    detail.struct_size = sizeof detail;
    out.rows.reserve(trace.steps.size());
    for (const TraceStep& s : trace.steps) {
        const mfusim_request* requests = trace.requests.data() + s.first_request;
        try {
            estimator.step_detail(requests, s.request_count, detail);
        } catch (const Error& e) {
            throw Error(e.status(), trace.origin + ":" + std::to_string(s.line) + ": " + e.what());
        }
        StepRow r;
        r.measured_us = s.measured_us;
        r.base_us = detail.total_us;
        double scaled = 0;
        for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
            const EfficiencyFamily f = roofline::family_of(op);
            if (f == EfficiencyFamily::none) continue;
            r.x[static_cast<std::size_t>(f)] += detail.ops[op].time_us;
            scaled += detail.ops[op].time_us;
        }
        const roofline::EngineUnits units = model->engine_units(requests, s.request_count);
        for (std::size_t t = 0; t < kStepTerms.size(); ++t) r.x[kFamilies + t] = units.*(kStepTerms[t].count);
        // The engine terms this fit does not refit (eager_moe_layer_us, serial_host_step_us) stay at the base engine's
        // value: fixed time.
        r.fixed_us = detail.total_us - scaled - detail.ops[MFUSIM_OP_ENGINE].time_us +
                     units.eager_moe_layers * model->engine().eager_moe_layer_us +
                     units.serial_steps * model->engine().serial_host_step_us;
        const std::string name = given ? s.group.value_or(trace.header.group.value_or("(ungrouped)"))
                                       : composition_class(requests, s.request_count);
        auto it = std::find(out.groups.begin(), out.groups.end(), name);
        r.group = static_cast<std::size_t>(it - out.groups.begin());
        if (it == out.groups.end()) out.groups.push_back(name);
        out.rows.push_back(r);
    }
    return out;
}

StepFit fit_steps(const LinearisedSteps& steps, const std::string& base_engine, std::size_t folds) {
    if (steps.rows.empty()) throw Error(Status::invalid_argument, "no measured steps to fit");
    StepFit fit;
    fit.rows = steps.rows.size();
    fit.grouping = steps.grouping;
    const Bounds bounds = column_bounds();
    const std::size_t n = steps.rows.size(), groups = steps.groups.size();

    const std::vector<double> x = solve(steps, std::vector<char>(n, 1), bounds);
    for (std::size_t j = 0; j < kStepColumns; ++j) {
        fit.coefficients.push_back(
            {step_column_names()[j], x[j], x[j], x[j], steps.defaults[j], bounds.lower[j], bounds.upper[j], true});
    }

    // Folds of whole groups, balanced by rows: the largest group first, each into the emptiest fold.
    std::vector<double> test(n, 0.0);
    fit.cross_validated = groups > 1;
    if (fit.cross_validated) {
        fit.folds = std::min(std::max<std::size_t>(folds, 2), groups);
        std::vector<std::size_t> size(groups, 0), order(groups), fold_of(groups), fold_rows(fit.folds, 0);
        for (const StepRow& r : steps.rows) ++size[r.group];
        for (std::size_t g = 0; g < groups; ++g) order[g] = g;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) { return size[p] > size[q]; });
        for (std::size_t g : order) {
            const std::size_t f =
                static_cast<std::size_t>(std::min_element(fold_rows.begin(), fold_rows.end()) - fold_rows.begin());
            fold_of[g] = f;
            fold_rows[f] += size[g];
        }
        for (std::size_t f = 0; f < fit.folds; ++f) {
            std::vector<char> use(n);
            for (std::size_t i = 0; i < n; ++i) use[i] = fold_of[steps.rows[i].group] != f;
            const std::vector<double> xf = solve(steps, use, bounds);
            for (std::size_t j = 0; j < kStepColumns; ++j) {
                fit.coefficients[j].fold_min = std::min(fit.coefficients[j].fold_min, xf[j]);
                fit.coefficients[j].fold_max = std::max(fit.coefficients[j].fold_max, xf[j]);
            }
            for (std::size_t i = 0; i < n; ++i) {
                if (!use[i]) test[i] = predict(steps.rows[i], xf) / steps.rows[i].measured_us - 1;
            }
        }
    }

    // Scores per group, then over all rows.
    std::vector<std::vector<double>> before(groups + 1), train(groups + 1), held(groups + 1);
    for (std::size_t i = 0; i < n; ++i) {
        const StepRow& r = steps.rows[i];
        for (std::size_t g : {r.group, groups}) {
            before[g].push_back(r.base_us / r.measured_us - 1);
            train[g].push_back(predict(r, x) / r.measured_us - 1);
            if (fit.cross_validated) held[g].push_back(test[i]);
        }
        fit.before_error.push_back(r.base_us / r.measured_us - 1);
        fit.fitted_error.push_back(fit.cross_validated ? test[i] : predict(r, x) / r.measured_us - 1);
    }
    for (std::size_t g = 0; g <= groups; ++g) {
        fit.groups.push_back({g < groups ? steps.groups[g] : "(all)", before[g].size(), stats_of(before[g]),
                              stats_of(train[g]), stats_of(held[g])});
    }
    const GroupScore& all = fit.groups.back();
    fit.improved = fit.cross_validated && all.test.median_abs < all.before.median_abs;

    // What the steps cannot tell apart, said in words.
    for (std::size_t j = 0; j < kStepColumns; ++j) {
        bool used = false;
        for (const StepRow& r : steps.rows) used = used || r.x[j] != 0;
        if (!used) {
            fit.coefficients[j].identified = false;
            fit.notes.push_back(std::string(step_column_names()[j]) + ": no step exercises it; kept at its default");
        }
    }
    for (const std::vector<std::size_t>& members : confounded_columns(steps)) {
        std::string names;
        double combined = 0;
        const StepRow& probe = *std::find_if(steps.rows.begin(), steps.rows.end(),
                                             [&](const StepRow& r) { return r.x[members.front()] != 0; });
        for (std::size_t j : members) {
            fit.coefficients[j].identified = false;
            names += (names.empty() ? "" : ", ") + std::string(step_column_names()[j]);
            combined += x[j] * probe.x[j];
        }
        char buf[96];
        std::snprintf(buf, sizeof buf, "%.1f us per step", combined);
        fit.notes.push_back(names + ": proportional in every step, so only their combined time is identified (" + buf +
                            "); the split between them follows the defaults");
    }

    fit.calibration.step_fit = true;
    fit.calibration.base_engine = base_engine;
    for (std::size_t j = 0; j < kFamilies; ++j) fit.calibration.efficiency.multiplier[j] = x[j];
    for (std::size_t t = 0; t < kStepTerms.size(); ++t) {
        fit.calibration.engine_terms.emplace_back(kStepTerms[t].name, x[kFamilies + t]);
    }
    return fit;
}

std::string format_step_fit(const StepFit& fit) {
    std::string s;
    char buf[320];
    std::snprintf(buf, sizeof buf, "%zu steps, %zu groups (%s)%s\n\n", fit.rows, fit.groups.size() - 1,
                  fit.grouping == "given" ? "as the trace names them" : "by batch composition class",
                  fit.cross_validated ? (", " + std::to_string(fit.folds) + "-fold group cross-validation").c_str()
                                      : ", one group: no cross-validation possible");
    s += buf;
    s += "coefficient           fitted   [fold min .. max]     default   bounds\n";
    for (const Coefficient& c : fit.coefficients) {
        std::snprintf(buf, sizeof buf, "  %-18s %9.4g  [%9.4g .. %9.4g]  %9.4g   [%g, %g]%s\n", c.name.c_str(), c.value,
                      c.fold_min, c.fold_max, c.default_value, c.lower, c.upper, c.identified ? "" : "  (*)");
        s += buf;
    }
    for (const std::string& note : fit.notes) s += "  (*) " + note + "\n";
    s += "\n|relative error|        rows   before: median   p90    train: median   p90    test (held out): median   "
         "p90\n";
    for (const GroupScore& g : fit.groups) {
        std::snprintf(buf, sizeof buf, "  %-22s %6zu   %14s %6s   %13s %6s   %23s %6s\n", g.group.c_str(), g.rows,
                      percent_text(g.before.median_abs).c_str(), percent_text(g.before.p90_abs).c_str(),
                      percent_text(g.train.median_abs).c_str(), percent_text(g.train.p90_abs).c_str(),
                      fit.cross_validated ? percent_text(g.test.median_abs).c_str() : "-",
                      fit.cross_validated ? percent_text(g.test.p90_abs).c_str() : "-");
        s += buf;
    }
    const GroupScore& all = fit.groups.back();
    if (!fit.cross_validated) {
        s += "\nnot verified: with one group nothing can be held out (name groups in the trace)\n";
    } else if (fit.improved) {
        s += "\ncross-validated median |error| " + percent_text(all.test.median_abs) + " against " +
             percent_text(all.before.median_abs) + " with the defaults: the calibration helps\n";
    } else {
        s += "\ncross-validated median |error| " + percent_text(all.test.median_abs) +
             " is no better than the defaults' " + percent_text(all.before.median_abs) +
             ": the calibration does not help on data it did not see\n";
    }
    return s;
}

nlohmann::ordered_json step_fit_json(const StepFit& fit) {
    nlohmann::ordered_json j;
    j["method"] = "group k-fold: each fold holds out whole groups; test errors come from fits without them";
    j["loss"] = "bounded least squares on relative error, Huber-reweighted beyond 10%, 1% prior towards defaults";
    j["grouping"] = fit.grouping == "given" ? "groups named in the trace" : "batch composition class";
    j["folds"] = fit.folds;
    j["improved"] = fit.improved;
    auto stats = [](const compare::ErrorStats& e) {
        return nlohmann::ordered_json{{"median_abs", e.median_abs}, {"p90_abs", e.p90_abs}, {"bias", e.median_signed}};
    };
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const GroupScore& g : fit.groups) {
        nlohmann::ordered_json row{
            {"group", g.group}, {"rows", g.rows}, {"before", stats(g.before)}, {"train", stats(g.train)}};
        if (fit.cross_validated) row["test"] = stats(g.test);
        groups.push_back(row);
    }
    j["groups"] = groups;
    nlohmann::ordered_json coefficients;
    for (const Coefficient& c : fit.coefficients) {
        coefficients[c.name] = {{"value", c.value},
                                {"fold_min", c.fold_min},
                                {"fold_max", c.fold_max},
                                {"default", c.default_value},
                                {"identified", c.identified}};
    }
    j["coefficients"] = coefficients;
    j["notes"] = fit.notes;
    return j;
}

}  // namespace mfusim::calibrate
