// Sweeping (src/planning) through the C API: mfusim_options, mfusim_serving and mfusim_sweep_request in, an owned
// mfusim_sweep_result of rows out. Conversions only; the sweep lives in planning::sweep.
#include <mfusim.h>

#include <memory>
#include <string>
#include <vector>

#include "api/boundary.hpp"
#include "api/layouts.hpp"
#include "api/options.hpp"
#include "api/workload.hpp"
#include "planning/sweep.hpp"

using mfusim::api::guarded;
using mfusim::api::require;
namespace planning = mfusim::planning;

struct mfusim_sweep_result {
    std::vector<mfusim_sweep_row> rows;
    std::vector<std::string> details;
    std::vector<std::string> errors;
    std::string warnings;  // joined once, so the borrowed pointer stays valid
};

namespace {

mfusim_sweep_request default_request() {
    const planning::StepShape step;
    mfusim_sweep_request r{};
    r.struct_size = sizeof r;
    r.vary = MFUSIM_SWEEP_DECODE_BATCH;
    r.series = MFUSIM_SWEEP_NONE;
    r.decode_batch = step.decode_batch;
    r.context = step.context;
    r.chunk = step.chunk;
    return r;
}

[[noreturn]] void bad(const std::string& field, const std::string& what) {
    throw mfusim::Error(mfusim::Status::invalid_argument, "sweep_request." + field + ": " + what);
}

planning::SweepParam param(mfusim_sweep_param p, const char* field) {
    static_assert(MFUSIM_SWEEP_DECODE_BATCH == static_cast<int>(planning::SweepParam::decode_batch) &&
                  MFUSIM_SWEEP_MODEL == static_cast<int>(planning::SweepParam::model));
    if (p < MFUSIM_SWEEP_DECODE_BATCH || p > MFUSIM_SWEEP_MODEL) {
        bad(field, "is no mfusim_sweep_param (0..8), got " + std::to_string(p));
    }
    return static_cast<planning::SweepParam>(p);
}

planning::SweepAxis axis(mfusim_sweep_param p, const char* const* values, size_t count, const char* field,
                         const char* values_field) {
    planning::SweepAxis a{param(p, field), "", {}};
    a.name = planning::sweep_param_name(a.param);
    if (values == nullptr || count == 0 || count > planning::kMaxSweepValues) {
        bad(values_field, "needs 1 to " + std::to_string(planning::kMaxSweepValues) + " values");
    }
    for (size_t i = 0; i < count; ++i) {
        if (values[i] == nullptr) bad(values_field, "entry " + std::to_string(i) + " is NULL");
        a.values.emplace_back(values[i]);
    }
    return a;
}

bool flag(int32_t value, const char* field) {
    if (value != 0 && value != 1) bad(field, "must be 0 or 1, got " + std::to_string(value));
    return value != 0;
}

planning::SweepRequest to_request(const mfusim_options& options, const mfusim_serving& serving,
                                  const mfusim_sweep_request& r) {
    planning::SweepRequest q;
    q.options = mfusim::api::to_engine_options(options, false);  // a varied model or GPU may leave its own NULL
    q.workload = mfusim::api::to_workload(serving);
    q.step = {r.decode_batch, r.context, r.chunk};
    q.step_kind = !flag(r.serving, "serving");
    q.simulate = flag(r.simulate, "simulate");
    q.vary = axis(r.vary, r.vary_values, r.vary_count, "vary", "vary_values");
    if (r.series != MFUSIM_SWEEP_NONE) {
        q.series = axis(r.series, r.series_values, r.series_count, "series", "series_values");
    }
    return q;
}

}  // namespace

static_assert(sizeof(mfusim_sweep_row) == 64, "fixed layout (mfusim.h)");

extern "C" {

mfusim_status mfusim_sweep_request_init(mfusim_sweep_request* request, size_t struct_size, mfusim_error* error) {
    return guarded(error,
                   [&] { mfusim::api::init_versioned(request, struct_size, default_request(), "sweep_request"); });
}

mfusim_status mfusim_sweep(const mfusim_options* options, const mfusim_serving* serving,
                           const mfusim_sweep_request* request, mfusim_sweep_result** out, mfusim_error* error) {
    return guarded(error, [&] {
        require(options != nullptr, "options is NULL");
        require(request != nullptr, "request is NULL");
        require(out != nullptr, "out is NULL");
        const mfusim_options o = mfusim::api::read_versioned(options, mfusim::api::default_options(), "options");
        const mfusim_serving s = mfusim::api::read_versioned(serving, mfusim::api::default_serving(), "serving");
        const mfusim_sweep_request r = mfusim::api::read_versioned(request, default_request(), "sweep_request");
        const planning::SweepRequest q = to_request(o, s, r);
        const planning::SweepResult found = planning::sweep(q);
        auto handle = std::make_unique<mfusim_sweep_result>();
        const std::size_t per_series = q.vary.values.size();
        for (std::size_t i = 0; i < found.points.size(); ++i) {
            const planning::SweepPoint& p = found.points[i];
            mfusim_sweep_row row{};
            row.vary_index = static_cast<int32_t>(i % per_series);
            row.series_index = static_cast<int32_t>(i / per_series);
            row.ok = p.metrics.empty() ? 0 : 1;
            if (!p.metrics.empty() && q.step_kind) row.step_ms = p.metrics[0];
            if (!p.metrics.empty() && !q.step_kind) {
                row.ttft_ms = p.metrics[0];
                row.tpot_ms = p.metrics[1];
                row.output_tok_s_gpu = p.metrics[2];
                row.e2e_ms = p.metrics[3];
                row.request_throughput_req_s = p.metrics[4];
            }
            handle->rows.push_back(row);
            handle->details.push_back(p.error.empty() ? p.detail : std::string());
            handle->errors.push_back(p.error);
        }
        for (const std::string& w : found.warnings) handle->warnings += w + "\n";
        *out = handle.release();
    });
}

void mfusim_sweep_result_free(mfusim_sweep_result* result) {
    delete result;
}

const mfusim_sweep_row* mfusim_sweep_result_rows(const mfusim_sweep_result* result, size_t* count) {
    if (count) *count = result ? result->rows.size() : 0;
    return result && !result->rows.empty() ? result->rows.data() : nullptr;
}

const char* mfusim_sweep_result_detail(const mfusim_sweep_result* result, size_t row) {
    return result && row < result->details.size() ? result->details[row].c_str() : nullptr;
}

const char* mfusim_sweep_result_error(const mfusim_sweep_result* result, size_t row) {
    return result && row < result->errors.size() ? result->errors[row].c_str() : nullptr;
}

const char* mfusim_sweep_result_warnings(const mfusim_sweep_result* result) {
    return result ? result->warnings.c_str() : nullptr;
}

}  // extern "C"
