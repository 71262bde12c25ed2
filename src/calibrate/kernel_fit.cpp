#include "calibrate/kernel_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

#include "compare/families.hpp"

#include "common/error.hpp"
#include "common/named.hpp"
#include "common/numbers.hpp"
#include "gpu/constants.hpp"

namespace mfusim::calibrate {

namespace {

using compare::ErrorStats;
using compare::MeasuredFamily;
using gpu::GpuProfile;

// Refinement around the coarse optimum: multiplicative steps of this size, values kept to 3 significant digits.
constexpr double kRefineStep = 0.05;
constexpr int kSignificantDigits = 3;
constexpr int kCoarseRounds = 6;
constexpr int kRefineRounds = 4;
constexpr int kRefineMovesPerRound = 20;
// Weight of the 90th percentile of |error| in the objective: small, it breaks the median's ties. Without it, a
// family whose rows fall in two regimes (all-reduce: latency-bound and bandwidth-bound) is "fitted" by any constants
// that reproduce just over half of its rows.
constexpr double kTailWeight = 0.1;
// Objective differences below this are ties (a median moves by whole rows; rounding noise is far smaller).
constexpr double kTie = 1e-12;

double round_significant(double v) {
    if (v == 0 || !std::isfinite(v)) return v;
    const double exponent = std::floor(std::log10(std::fabs(v)));
    const double scale = std::pow(10.0, kSignificantDigits - 1 - exponent);
    return std::round(v * scale) / scale;
}

const MeasuredFamily* family_in(const compare::MeasuredKernels& measured, const std::string& name) {
    for (const MeasuredFamily& f : measured.families) {
        if (f.family == name) return &f;
    }
    return nullptr;
}

// The families in fitting order: that of their first constant in kernel_constants() (decode before prefill: the
// attention launch cost decode rows fit is one prefill rows then see), then any family without constants.
std::vector<std::string> fitting_order(const compare::MeasuredKernels& measured) {
    std::vector<std::string> order;
    for (const KernelConstant& c : kernel_constants()) {
        if (std::find(order.begin(), order.end(), c.family) == order.end()) order.emplace_back(c.family);
    }
    std::vector<std::string> present;
    for (const std::string& name : order) {
        if (family_in(measured, name)) present.push_back(name);
    }
    for (const MeasuredFamily& f : measured.families) {
        if (std::find(present.begin(), present.end(), f.family) == present.end()) present.push_back(f.family);
    }
    return present;
}

// The search over every constant at once: the objective is the sum of the families' objectives on their train rows,
// and a trial of one constant re-evaluates only the families whose rows it moves (found by probing, so that a new
// constant or a change of the kernel models needs no hand-kept list).
class Search {
  public:
    Search(const compare::MeasuredKernels& train, std::vector<std::string> families,
           std::shared_ptr<const tables::BenchData> tables, std::size_t& evaluations)
        : families_(std::move(families)), tables_(std::move(tables)), evaluations_(evaluations) {
        for (const std::string& name : families_) rows_.push_back(family_in(train, name));
    }

    std::vector<double> errors(std::size_t family, const GpuProfile& gpu) {
        ++evaluations_;
        return compare::family_errors(*rows_[family], gpu, tables_);
    }
    double score(std::size_t family, const GpuProfile& gpu) {
        return kernel_objective(compare::error_stats(errors(family, gpu)));
    }

    // The families (indices) whose predictions change when `c` moves away from its value in `gpu`.
    std::vector<std::size_t> moved_by(const KernelConstant& c, const GpuProfile& gpu,
                                      const std::vector<std::vector<double>>& base_errors) {
        const double v = gpu.*c.member;
        double probe = v == 0 ? c.grid.back() : v * 1.25;
        if (probe > c.max) probe = v * 0.8;
        GpuProfile trial = gpu;
        trial.*c.member = std::clamp(probe, c.min, c.max);
        std::vector<std::size_t> moved;
        if (trial.*c.member == v) return moved;
        for (std::size_t f = 0; f < families_.size(); ++f) {
            if (errors(f, trial) != base_errors[f]) moved.push_back(f);
        }
        return moved;
    }

    std::size_t size() const { return families_.size(); }

  private:
    std::vector<std::string> families_;
    std::vector<const MeasuredFamily*> rows_;
    std::shared_ptr<const tables::BenchData> tables_;
    std::size_t& evaluations_;
};

// Coordinate descent over the coarse grids, then +-kRefineStep line moves, on `gpu` in place. `moved[i]`: the
// families constant i moves (none: it is left alone).
void coordinate_descent(Search& search, const std::vector<const KernelConstant*>& constants,
                        const std::vector<std::vector<std::size_t>>& moved, GpuProfile& gpu,
                        const FitProgress& progress, const std::size_t& evaluations) {
    auto say = [&](const std::string& stage) {
        if (progress) progress(stage, evaluations);
    };
    std::vector<double> scores(search.size());
    for (std::size_t f = 0; f < search.size(); ++f) scores[f] = search.score(f, gpu);
    // Tries constant i at v (and constant j at w, when j is given): keeps the trial when the families they move
    // score lower in sum.
    auto try_values = [&](std::size_t i, double v, std::optional<std::size_t> j = std::nullopt, double w = 0) {
        GpuProfile trial = gpu;
        trial.*constants[i]->member = v;
        std::vector<std::size_t> families = moved[i];
        if (j) {
            trial.*constants[*j]->member = w;
            for (std::size_t f : moved[*j]) {
                if (std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
            }
        }
        double before = 0, after = 0;
        std::vector<double> trial_scores = scores;
        for (std::size_t f : families) {
            trial_scores[f] = search.score(f, trial);
            before += scores[f];
            after += trial_scores[f];
        }
        if (after < before - kTie) {
            gpu = trial;
            scores = std::move(trial_scores);
            return true;
        }
        return false;
    };
    auto try_value = [&](std::size_t i, double v) { return try_values(i, v); };
    // Two constants of one family can trade off (all-reduce latency against the per-hop latency, HBM efficiency
    // against the launch cost), so that no move of either alone improves: their grids are also tried together.
    auto share_a_family = [&](std::size_t i, std::size_t j) {
        return std::string_view(constants[i]->family) == constants[j]->family;
    };
    // Single-constant sweeps until none improves, then one sweep of the pairs; back to single sweeps when it did.
    for (int round = 0; round < kCoarseRounds; ++round) {
        bool changed = false;
        for (std::size_t i = 0; i < constants.size(); ++i) {
            if (moved[i].empty()) continue;
            say("grid round " + std::to_string(round + 1) + ": " + constants[i]->name);
            for (double v : constants[i]->grid) {
                if (v != gpu.*constants[i]->member) changed = try_value(i, v) || changed;
            }
        }
        if (changed) continue;
        for (std::size_t i = 0; i < constants.size(); ++i) {
            for (std::size_t j = i + 1; j < constants.size(); ++j) {
                if (moved[i].empty() || moved[j].empty() || !share_a_family(i, j)) continue;
                say("grid round " + std::to_string(round + 1) + ": " + constants[i]->name + " with " +
                    constants[j]->name);
                for (double v : constants[i]->grid) {
                    for (double w : constants[j]->grid) {
                        if (v == gpu.*constants[i]->member || w == gpu.*constants[j]->member) continue;
                        changed = try_values(i, v, j, w) || changed;
                    }
                }
            }
        }
        if (!changed) break;
    }
    for (int round = 0; round < kRefineRounds; ++round) {
        bool changed = false;
        for (std::size_t i = 0; i < constants.size(); ++i) {
            if (moved[i].empty()) continue;
            const KernelConstant& c = *constants[i];
            say("refining, round " + std::to_string(round + 1) + ": " + c.name);
            for (double direction : {1.0, -1.0}) {
                for (int move = 0; move < kRefineMovesPerRound; ++move) {
                    const double current = gpu.*c.member;
                    const double v =
                        std::clamp(round_significant(current * (1 + direction * kRefineStep)), c.min, c.max);
                    if (v == current || !try_value(i, v)) break;
                    changed = true;
                }
            }
        }
        if (!changed) break;
    }
}

ErrorStats stats_of(const MeasuredFamily* family, const GpuProfile& gpu,
                    const std::shared_ptr<const tables::BenchData>& tables) {
    if (family == nullptr || family->rows.empty()) return ErrorStats{};
    return compare::error_stats(compare::family_errors(*family, gpu, tables));
}

nlohmann::ordered_json stats_json(const ErrorStats& s) {
    return {{"count", s.count}, {"median_abs", s.median_abs}, {"p90_abs", s.p90_abs}, {"bias", s.median_signed}};
}

}  // namespace

double kernel_objective(const ErrorStats& stats) {
    return stats.median_abs + std::fabs(stats.median_signed) + kTailWeight * stats.p90_abs;
}

KernelFit fit_kernels(const compare::MeasuredKernels& measured, const GpuProfile& base,
                      std::shared_ptr<const tables::BenchData> tables, const FitProgress& progress) {
    const compare::MeasuredKernels train = compare::only_half(measured, compare::Split::train);
    const compare::MeasuredKernels test = compare::only_half(measured, compare::Split::test);
    KernelFit fit;
    fit.gpu = base.name;
    fit.fitted = base;
    // The families with train rows take part in the search; the report lists every family present.
    std::vector<std::string> searched;
    for (const std::string& name : fitting_order(measured)) {
        const MeasuredFamily* rows = family_in(train, name);
        if (rows && !rows->rows.empty()) searched.push_back(name);
    }
    if (searched.empty()) {
        throw Error(Status::invalid_argument, measured.dir + ": no measured row in the train half of any family");
    }
    Search search(train, searched, tables, fit.evaluations);
    if (progress) progress("errors with the base constants", fit.evaluations);
    std::vector<std::vector<double>> base_errors;
    for (std::size_t f = 0; f < search.size(); ++f) base_errors.push_back(search.errors(f, base));
    // Constants in table order: a family's own constants first (gemm, decode, prefill, all-reduce), so that the
    // constants several families share (memory efficiency, launch costs) are placed by the family that pins them.
    std::vector<const KernelConstant*> constants;
    std::vector<std::vector<std::size_t>> moved;
    // A constant is fitted where its own family is measured: a families directory (MoE, MLA, ...) fits the
    // families' constants, not the GEMM or attention constants their models share (those are the GEMM, attention
    // and all-reduce files' to pin).
    for (const KernelConstant& c : kernel_constants()) {
        constants.push_back(&c);
        const bool own = std::find(searched.begin(), searched.end(), std::string(c.family)) != searched.end() ||
                         compare::is_large_model_family(c.family);
        moved.push_back(own ? search.moved_by(c, base, base_errors) : std::vector<std::size_t>{});
    }
    coordinate_descent(search, constants, moved, fit.fitted, progress, fit.evaluations);
    if (progress) progress("reporting on the test half", fit.evaluations);

    std::vector<bool> family_fitted(search.size(), false);
    for (std::size_t i = 0; i < constants.size(); ++i) {
        for (std::size_t f : moved[i]) family_fitted[f] = true;
        std::string families;
        for (std::size_t f : moved[i]) families += (families.empty() ? "" : ", ") + searched[f];
        fit.constants.push_back({constants[i]->name, constants[i]->unit, families, base.*constants[i]->member,
                                 fit.fitted.*constants[i]->member, !moved[i].empty()});
    }
    for (const std::string& name : fitting_order(measured)) {
        FamilyFit family;
        family.family = name;
        const MeasuredFamily* train_rows = family_in(train, name);
        const MeasuredFamily* test_rows = family_in(test, name);
        family.train_rows = train_rows ? train_rows->rows.size() : 0;
        family.test_rows = test_rows ? test_rows->rows.size() : 0;
        auto at = std::find(searched.begin(), searched.end(), name);
        family.fitted = at != searched.end() && family_fitted[static_cast<std::size_t>(at - searched.begin())];
        // Every family with the base constants and with all fitted ones.
        family.train_before = stats_of(train_rows, base, tables);
        family.train_after = stats_of(train_rows, fit.fitted, tables);
        family.test_before = stats_of(test_rows, base, tables);
        family.test_after = stats_of(test_rows, fit.fitted, tables);
        if (family.fitted && family.test_rows > 0) {
            fit.test_before += kernel_objective(family.test_before);
            fit.test_after += kernel_objective(family.test_after);
        }
        fit.families.push_back(std::move(family));
    }
    fit.improved = fit.test_after < fit.test_before - kTie;
    return fit;
}

std::vector<std::pair<std::string, double>> fitted_gpu_constants(const KernelFit& fit) {
    std::vector<std::pair<std::string, double>> out;
    for (const FittedConstant& c : fit.constants) {
        if (c.exercised) out.emplace_back(c.name, c.after);
    }
    return out;
}

std::string format_kernel_fit(const KernelFit& fit) {
    std::string out;
    char buf[320];
    out += "GPU constants of " + fit.gpu + ": fitted on the train half of the shapes, reported on the test half\n";
    std::snprintf(buf, sizeof buf, "%-22s %7s %7s | %-24s | %-24s | %s\n", "family", "train", "test",
                  "test before: median p90", "test after: median p90", "bias before -> after");
    out += buf;
    for (const FamilyFit& f : fit.families) {
        std::snprintf(buf, sizeof buf, "%-22s %7zu %7zu | %11s %12s | %10s %13s | %7s -> %-7s%s\n", f.family.c_str(),
                      f.train_rows, f.test_rows, percent_text(f.test_before.median_abs).c_str(),
                      percent_text(f.test_before.p90_abs).c_str(), percent_text(f.test_after.median_abs).c_str(),
                      percent_text(f.test_after.p90_abs).c_str(),
                      signed_percent_text(f.test_before.median_signed).c_str(),
                      signed_percent_text(f.test_after.median_signed).c_str(),
                      !f.fitted                                                                 ? "  (not fitted)"
                      : kernel_objective(f.test_after) > kernel_objective(f.test_before) + kTie ? "  (worse)"
                                                                                                : "");
        out += buf;
    }
    out += "(error = predicted / measured - 1; median and p90 of |error|; bias = median error)\n\n";
    std::snprintf(buf, sizeof buf, "%-32s %10s %10s   %-34s %s\n", "constant", "before", "after", "unit",
                  "families it moves");
    out += buf;
    for (const FittedConstant& c : fit.constants) {
        std::snprintf(buf, sizeof buf, "  %-30s %10s %10s   %-34s %s\n", c.name.c_str(),
                      shortest_text(c.before).c_str(), c.exercised ? shortest_text(c.after).c_str() : "-",
                      c.unit.c_str(),
                      c.exercised ? c.families.c_str() : "(none of these rows: not fitted, not written)");
        out += buf;
    }
    std::snprintf(
        buf, sizeof buf,
        "\ntest half, median |error| + |bias| + 0.1 p90 summed over the fitted families: %.3f with %s's constants, "
        "%.3f fitted",
        fit.test_before, fit.gpu.c_str(), fit.test_after);
    out += buf;
    out += fit.improved ? ": the fit helps on shapes it did not see\n"
                        : ": the fit does not improve on shapes it did not see\n";
    return out;
}

nlohmann::ordered_json kernel_fit_json(const KernelFit& fit) {
    nlohmann::ordered_json j;
    j["gpu"] = fit.gpu;
    j["split"] = "fitted on the train half of the shapes (compare::split_of), reported on the test half";
    j["objective"] = "sum over families of median |error| + |median error| + 0.1 p90 |error|, on the train half";
    j["families"] = nlohmann::ordered_json::array();
    for (const FamilyFit& f : fit.families) {
        j["families"].push_back(
            {{"family", f.family},
             {"fitted", f.fitted},
             {"train_rows", f.train_rows},
             {"test_rows", f.test_rows},
             {"train", {{"before", stats_json(f.train_before)}, {"after", stats_json(f.train_after)}}},
             {"test", {{"before", stats_json(f.test_before)}, {"after", stats_json(f.test_after)}}}});
    }
    j["constants"] = nlohmann::ordered_json::array();
    for (const FittedConstant& c : fit.constants) {
        j["constants"].push_back({{"name", c.name},
                                  {"families", c.families},
                                  {"unit", c.unit},
                                  {"before", c.before},
                                  {"after", c.after},
                                  {"exercised", c.exercised}});
    }
    j["test_objective"] = {{"before", fit.test_before}, {"after", fit.test_after}};
    j["improved"] = fit.improved;
    j["evaluations"] = fit.evaluations;
    return j;
}

}  // namespace mfusim::calibrate
