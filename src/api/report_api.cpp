// Scenario estimates and their reports.
#include <mfusim.h>

#include <memory>

#include "api/boundary.hpp"
#include "api/handles.hpp"
#include "api/layouts.hpp"
#include "engine/estimator.hpp"

using mfusim::api::guarded;
using mfusim::api::require;

extern "C" {

namespace {

mfusim_scenario default_scenario() {
    mfusim::query::Scenario defaults;
    mfusim_scenario s{};
    s.struct_size = sizeof s;
    s.input_len = defaults.input_len;
    s.output_len = defaults.output_len;
    s.max_prefill_tokens = defaults.max_prefill_tokens;
    s.decode_batch = defaults.decode_batch;
    s.target_tgs = defaults.target_tgs;
    s.target_tpot_ms = defaults.target_tpot_ms;
    s.phases = MFUSIM_PHASES_BOTH;
    return s;
}

}  // namespace

mfusim_status mfusim_scenario_init(mfusim_scenario* scenario, size_t struct_size, mfusim_error* error) {
    return guarded(error, [&] { mfusim::api::init_versioned(scenario, struct_size, default_scenario(), "scenario"); });
}

mfusim_status mfusim_estimate(const mfusim_estimator* estimator, const mfusim_scenario* scenario, mfusim_report** out,
                              mfusim_error* error) {
    return guarded(error, [&] {
        require(estimator != nullptr, "estimator is NULL");
        require(out != nullptr, "out is NULL");
        const mfusim_scenario s = mfusim::api::read_versioned(scenario, default_scenario(), "scenario");
        if (s.phases < MFUSIM_PHASES_BOTH || s.phases > MFUSIM_PHASES_DECODE_ONLY) {
            throw mfusim::Error(mfusim::Status::invalid_argument, "scenario.phases must be 0, 1 or 2");
        }
        mfusim::query::Scenario q;
        q.input_len = s.input_len;
        q.output_len = s.output_len;
        q.max_prefill_tokens = s.max_prefill_tokens;
        q.decode_batch = s.decode_batch;
        q.target_tgs = s.target_tgs;
        q.target_tpot_ms = s.target_tpot_ms;
        q.phases = static_cast<mfusim::query::Phases>(s.phases);
        auto report = std::make_unique<mfusim_report>();
        report->report = estimator->engine.estimate(q);
        report->warnings = report->report.joined_warnings();
        report->soft_errors = report->report.joined_soft_errors();
        *out = report.release();
    });
}

void mfusim_report_free(mfusim_report* report) {
    delete report;
}

size_t mfusim_report_count(const mfusim_report* report) {
    return report ? report->report.values.size() : 0;
}

const char* mfusim_report_name(const mfusim_report* report, size_t index) {
    if (!report || index >= report->report.values.size()) return nullptr;
    return report->report.values[index].first.c_str();
}

double mfusim_report_value_at(const mfusim_report* report, size_t index) {
    if (!report || index >= report->report.values.size()) return 0.0;
    return report->report.values[index].second;
}

mfusim_status mfusim_report_value(const mfusim_report* report, const char* name, double* out, mfusim_error* error) {
    return guarded(error, [&] {
        require(report != nullptr, "report is NULL");
        require(name != nullptr, "name is NULL");
        require(out != nullptr, "out is NULL");
        const double* value = report->report.find(name);
        if (!value) {
            throw mfusim::Error(mfusim::Status::not_found,
                                std::string("the report has no quantity '") + name + "' (a phase that did not run?)");
        }
        *out = *value;
    });
}

const char* mfusim_report_warnings(const mfusim_report* report) {
    return report ? report->warnings.c_str() : "";
}
const char* mfusim_report_soft_errors(const mfusim_report* report) {
    return report ? report->soft_errors.c_str() : "";
}

}  // extern "C"
