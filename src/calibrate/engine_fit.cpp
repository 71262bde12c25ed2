#include "calibrate/engine_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "calibrate/box_least_squares.hpp"
#include "common/error.hpp"
#include "common/json.hpp"

namespace mfusim::calibrate {

namespace {

using compare::ServingPrediction;
using engines::EngineProfile;

// One row's predictions as linear functions of the terms.
struct LinearRow {
    std::size_t row = 0;  // index into the rows
    std::string group;
    double ttft_base = 0, tpot_base = 0;
    std::vector<double> ttft_slope, tpot_slope;  // per unit of each term
};

constexpr double kHuberDelta = 0.2;  // relative errors beyond 20% weigh linearly, not quadratically

std::vector<double> fit_terms(const std::vector<EngineTerm>& terms, const std::vector<LinearRow>& lin,
                              const std::vector<compare::ServingRow>& rows, const std::vector<bool>& use) {
    const std::size_t k = terms.size();
    std::vector<double> a, b, lower(k, 0.0), upper;
    for (const EngineTerm& t : terms) upper.push_back(t.max);
    for (std::size_t i = 0; i < lin.size(); ++i) {
        if (!use[i]) continue;
        const compare::ServingRow& r = rows[lin[i].row];
        for (int metric = 0; metric < 2; ++metric) {
            const double y = metric == 0 ? r.ttft_ms : r.tpot_ms;
            const double base = metric == 0 ? lin[i].ttft_base : lin[i].tpot_base;
            const std::vector<double>& slope = metric == 0 ? lin[i].ttft_slope : lin[i].tpot_slope;
            for (std::size_t j = 0; j < k; ++j) a.push_back(slope[j] / y);
            b.push_back(1.0 - base / y);
        }
    }
    return huber_box_least_squares(a, b, k, lower, upper, kHuberDelta, b.size());
}

ServingPrediction predicted(const compare::ServingRow& row, const LinearRow& lin, const std::vector<double>& x) {
    ServingPrediction p;
    p.row = &row;
    p.answered = true;
    p.status = "ok";
    p.result.ttft_ms = lin.ttft_base;
    p.result.tpot_ms = lin.tpot_base;
    for (std::size_t j = 0; j < x.size(); ++j) {
        p.result.ttft_ms += x[j] * lin.ttft_slope[j];
        p.result.tpot_ms += x[j] * lin.tpot_slope[j];
    }
    return p;
}

EngineProfile with_terms(EngineProfile profile, const std::vector<EngineTerm>& terms, const std::vector<double>& x) {
    for (std::size_t j = 0; j < terms.size(); ++j) profile.*terms[j].member = x[j];
    return profile;
}

}  // namespace

std::vector<EngineTerm> terms_fitted_by(compare::ServingMethod method) {
    std::vector<EngineTerm> terms;
    for (const EngineTerm& t : fitted_engine_terms()) {
        const bool per_request = t.member == &EngineProfile::admission_us || t.member == &EngineProfile::input_token_us;
        if (method == compare::ServingMethod::closed_form || per_request) terms.push_back(t);
    }
    return terms;
}

ServingFit fit_serving(const std::vector<compare::ServingRow>& rows, const std::string& configs_dir,
                       const std::string& gpu, const EngineProfile& base, compare::ServingMethod method) {
    ServingFit fit;
    fit.backend = base.name;
    fit.rows = rows.size();
    fit.requests_per_client = rows.empty() ? 0 : rows.front().workload.requests_per_client;
    fit.min_length_ratio = rows.empty() ? 1 : rows.front().workload.min_length_ratio;
    fit.method = method;
    const std::vector<EngineTerm> terms = terms_fitted_by(method);
    const std::size_t k = terms.size();

    // Linearise: the prediction with every fitted term at zero, then with each at a probe value (one unit for
    // the closed form, which is linear in them; a twentieth of the bound for the simulation, whose steps are
    // discrete events).
    std::vector<double> zero(k, 0.0);
    auto predict = [&](const EngineProfile& profile) {
        return compare::predict_serving(
            rows, configs_dir, gpu, [&](const std::string&) { return profile; }, method);
    };
    std::vector<ServingPrediction> before = predict(base);
    fit.before = compare::serving_groups(before);
    std::vector<ServingPrediction> at_zero = predict(with_terms(base, terms, zero));
    std::vector<LinearRow> lin;
    std::vector<std::size_t> index_of(rows.size(), SIZE_MAX);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!at_zero[i].answered) {
            ++fit.refused;
            continue;
        }
        LinearRow l;
        l.row = i;
        l.group = rows[i].model_path;
        l.ttft_base = at_zero[i].result.ttft_ms;
        l.tpot_base = at_zero[i].result.tpot_ms;
        index_of[i] = lin.size();
        lin.push_back(std::move(l));
    }
    if (lin.empty()) {
        // Nothing left to fit (every row refused: a missing config, an ISL of 0): said with the first refusal's
        // reason, rather than fitted to nothing.
        std::string why = at_zero.empty()
                              ? std::string("there are no rows")
                              : "line " + std::to_string(at_zero.front().row->line) + ": " + at_zero.front().message;
        throw Error(Status::invalid_argument, "no row of engine '" + base.name + "' could be answered (" +
                                                  std::to_string(rows.size()) +
                                                  " refused), so there is nothing to "
                                                  "fit; the first: " +
                                                  why);
    }
    for (std::size_t j = 0; j < k; ++j) {
        const double probe = method == compare::ServingMethod::closed_form ? 1.0 : terms[j].max / 20;
        std::vector<double> unit(k, 0.0);
        unit[j] = probe;
        std::vector<ServingPrediction> p = predict(with_terms(base, terms, unit));
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (index_of[i] == SIZE_MAX) continue;
            LinearRow& l = lin[index_of[i]];
            if (!p[i].answered) {
                // The terms only delay work, so a row answered with them at zero is answered with them set.
                throw Error(Status::internal, "line " + std::to_string(rows[i].line) + " was refused with " +
                                                  terms[j].name + " = " + std::to_string(probe) + ": " + p[i].message);
            }
            l.ttft_slope.push_back((p[i].result.ttft_ms - l.ttft_base) / probe);
            l.tpot_slope.push_back((p[i].result.tpot_ms - l.tpot_base) / probe);
        }
    }

    // In sample: every row.
    std::vector<bool> all(lin.size(), true);
    std::vector<double> x = fit_terms(terms, lin, rows, all);
    std::vector<ServingPrediction> in_sample;
    for (const LinearRow& l : lin) in_sample.push_back(predicted(rows[l.row], l, x));
    fit.in_sample = compare::serving_groups(in_sample);
    fit.profile = with_terms(base, terms, x);
    for (std::size_t j = 0; j < k; ++j)
        fit.terms.push_back({terms[j].name, terms[j].unit, terms[j].meaning, x[j], x[j], x[j]});

    // Leave one model out.
    for (const LinearRow& l : lin) {
        if (std::find(fit.groups.begin(), fit.groups.end(), l.group) == fit.groups.end()) fit.groups.push_back(l.group);
    }
    std::vector<ServingPrediction> held_out;
    if (fit.groups.size() > 1) {
        for (const std::string& group : fit.groups) {
            std::vector<bool> use(lin.size());
            for (std::size_t i = 0; i < lin.size(); ++i) use[i] = lin[i].group != group;
            std::vector<double> xf = fit_terms(terms, lin, rows, use);
            for (std::size_t j = 0; j < k; ++j) {
                fit.terms[j].fold_min = std::min(fit.terms[j].fold_min, xf[j]);
                fit.terms[j].fold_max = std::max(fit.terms[j].fold_max, xf[j]);
            }
            for (const LinearRow& l : lin) {
                if (l.group == group) held_out.push_back(predicted(rows[l.row], l, xf));
            }
        }
        fit.cross_validated = compare::serving_groups(held_out);
    }
    return fit;
}

std::string fit_json(const ServingFit& fit, const std::string& source) {
    nlohmann::ordered_json j;
    j["base"] = fit.backend;
    for (const FittedTerm& t : fit.terms) j[t.name] = t.value;
    nlohmann::ordered_json meta;
    meta["what"] = "engine terms fitted by mfusim calibrate --serving (docs/engine.md)";
    meta["source"] = source;
    if (fit.num_prompts > 0) {
        meta["num_prompts"] = fit.num_prompts;
    } else {
        meta["requests_per_client"] = fit.requests_per_client;
    }
    meta["method"] = fit.method == compare::ServingMethod::simulate ? "simulate" : "closed_form";
    meta["min_length_ratio"] = fit.min_length_ratio;
    meta["rows"] = fit.rows;
    meta["refused"] = fit.refused;
    meta["groups"] = fit.groups;
    auto stats = [](const std::vector<compare::ServingGroup>& groups) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const compare::ServingGroup& g : groups) {
            out.push_back({{"model", g.model},
                           {"rows", g.rows - g.refused},
                           {"ttft_median_abs", g.ttft.median_abs},
                           {"ttft_p90_abs", g.ttft.p90_abs},
                           {"ttft_bias", g.ttft.median_signed},
                           {"tpot_median_abs", g.tpot.median_abs},
                           {"tpot_p90_abs", g.tpot.p90_abs},
                           {"tpot_bias", g.tpot.median_signed}});
        }
        return out;
    };
    meta["cross_validated_leave_one_model_out"] = stats(fit.cross_validated);
    meta["in_sample"] = stats(fit.in_sample);
    nlohmann::ordered_json spread;
    for (const FittedTerm& t : fit.terms) spread[t.name] = {t.fold_min, t.fold_max};
    meta["term_range_over_folds"] = spread;
    j["_fit"] = meta;
    return json_text(j) + "\n";
}

std::string format_fit(const ServingFit& fit) {
    std::string s;
    char buf[256];
    std::snprintf(buf, sizeof buf, "engine %s: %zu rows (%zu refused), %zu models\n\n", fit.backend.c_str(), fit.rows,
                  fit.refused, fit.groups.size());
    s += buf;
    s += "fitted terms (all rows; range over the leave-one-model-out folds):\n";
    for (const FittedTerm& t : fit.terms) {
        std::snprintf(buf, sizeof buf, "  %-16s %10.2f  [%8.2f .. %8.2f]  %-24s %s\n", t.name.c_str(), t.value,
                      t.fold_min, t.fold_max, t.unit.c_str(), t.meaning.c_str());
        s += buf;
    }
    std::vector<compare::ServingPrediction> none;
    s += "\nbefore (the profile as given):\n" + compare::format_serving(fit.before, none);
    if (!fit.cross_validated.empty()) {
        s += "\ncross-validated (each model predicted by a fit without it) - the headline:\n" +
             compare::format_serving(fit.cross_validated, none);
    }
    s += "\nin sample (fitted and scored on every row):\n" + compare::format_serving(fit.in_sample, none);
    return s;
}

}  // namespace mfusim::calibrate
