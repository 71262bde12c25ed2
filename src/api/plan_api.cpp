// Planning (src/planning) through the C API: mfusim_options, mfusim_serving and mfusim_plan_request in, an owned
// mfusim_plan_result of rows out. Conversions only; the search lives in planning::plan.
#include <mfusim.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/boundary.hpp"
#include "api/layouts.hpp"
#include "api/options.hpp"
#include "api/workload.hpp"
#include "planning/plan.hpp"

using mfusim::api::guarded;
using mfusim::api::require;
namespace planning = mfusim::planning;

struct mfusim_plan_result {
    std::vector<mfusim_plan_row> rows;
    std::vector<mfusim_plan_gpu> gpus;
    std::vector<std::string> gpu_names;
    std::vector<std::string> last_skips;
    std::string warnings;  // joined once, so the borrowed pointer stays valid
};

namespace {

mfusim_plan_request default_request() {
    const planning::PlanRequest p;
    mfusim_plan_request r{};
    r.struct_size = sizeof r;
    r.max_concurrency = p.max_concurrency;
    return r;
}

[[noreturn]] void bad(const std::string& field, const std::string& what) {
    throw mfusim::Error(mfusim::Status::invalid_argument, "plan_request." + field + ": " + what);
}

bool flag(int32_t value, const char* field) {
    if (value != 0 && value != 1) bad(field, "must be 0 or 1, got " + std::to_string(value));
    return value != 0;
}

// A borrowed array of the request, bounded as the command's lists are; `fallback` when NULL with no count.
std::vector<int64_t> list(const int64_t* values, size_t count, const std::vector<int64_t>& fallback,
                          const char* field) {
    if (values == nullptr) {
        if (count != 0) bad(field, "is NULL but its count is " + std::to_string(count));
        return fallback;
    }
    if (count == 0 || count > 64) bad(field, "needs 1 to 64 values, got " + std::to_string(count));
    std::vector<int64_t> out(values, values + count);
    for (int64_t v : out) {
        if (v < 1 || v > 65536) bad(field, "values must be 1 to 65536, got " + std::to_string(v));
    }
    return out;
}

std::optional<double> limit(double ms, const char* field) {
    if (ms == 0) return std::nullopt;
    if (!(ms > 0 && ms < INFINITY)) bad(field, "must be 0 (none) or a finite time above 0 ms");
    return ms;
}

planning::PlanRequest to_request(const mfusim_options& options, const mfusim_serving& serving,
                                 const mfusim_plan_request& r) {
    planning::PlanRequest p;
    // The searched fields are set per point; any placeholder GPU passes the options' own check.
    mfusim_options o = options;
    if (o.gpu == nullptr) o.gpu = "H100";
    p.options = mfusim::api::to_engine_options(o);
    p.workload = mfusim::api::to_workload(serving);
    if (r.gpus == nullptr) {
        if (r.gpu_count != 0) bad("gpus", "is NULL but gpu_count is " + std::to_string(r.gpu_count));
    } else {
        if (r.gpu_count == 0 || r.gpu_count > 64)
            bad("gpu_count", "must be 1 to 64, got " + std::to_string(r.gpu_count));
        p.gpus.clear();
        for (size_t i = 0; i < r.gpu_count; ++i) {
            if (r.gpus[i] == nullptr || *r.gpus[i] == '\0') bad("gpus", "entry " + std::to_string(i) + " is empty");
            p.gpus.emplace_back(r.gpus[i]);
        }
    }
    p.tp_list = list(r.tp_list, r.tp_count, p.tp_list, "tp_list");
    if (r.max_concurrency < 1 || r.max_concurrency > (int64_t{1} << 20)) {
        bad("max_concurrency", "must be 1 to 1048576, got " + std::to_string(r.max_concurrency));
    }
    p.max_concurrency = r.max_concurrency;
    p.max_ttft_ms = limit(r.max_ttft_ms, "max_ttft_ms");
    p.max_tpot_ms = limit(r.max_tpot_ms, "max_tpot_ms");
    if (r.gpu_budget < 0 || r.gpu_budget > 65536) {
        bad("gpu_budget", "must be 0 (none) to 65536, got " + std::to_string(r.gpu_budget));
    }
    p.gpu_budget = r.gpu_budget;
    p.simulate = flag(r.simulate, "simulate");
    p.disagg = flag(r.disagg, "disagg");
    p.decode_batches = list(r.decode_batches, r.decode_batch_count, p.decode_batches, "decode_batches");
    p.routing = flag(r.least_loaded_router, "least_loaded_router") ? mfusim::simulate::DisaggRouting::least_loaded
                                                                   : mfusim::simulate::DisaggRouting::round_robin;
    if (r.reserved != 0) bad("reserved", "must be 0");
    return p;
}

mfusim_plan_row to_row(const planning::Candidate& c, int32_t gpu_index) {
    mfusim_plan_row row{};
    row.gpu_index = gpu_index;
    row.disaggregated = c.disagg ? 1 : 0;
    row.meets_limits = c.meets ? 1 : 0;
    row.tp = c.disagg ? 0 : c.tp;
    row.ep = c.disagg ? 0 : c.ep;
    row.gpus = c.gpus;
    row.concurrency = c.concurrency;
    if (c.disagg) {
        const planning::DisaggPoint& d = *c.disagg;
        row.prefill_workers = d.prefill_workers;
        row.prefill_tp = d.prefill.tp;
        row.prefill_ep = d.prefill.ep;
        row.prefill_attention_dp = d.prefill.attention_dp;
        row.decode_workers = d.decode_workers;
        row.decode_tp = d.decode.tp;
        row.decode_ep = d.decode.ep;
        row.decode_attention_dp = d.decode.attention_dp;
        row.decode_batch = d.decode_batch;
    }
    row.ttft_ms = c.ttft_ms;
    row.tpot_ms = c.tpot_ms;
    row.output_tok_s_gpu = c.tok_s_gpu;
    row.output_tok_s_user = planning::tok_s_user(c);
    return row;
}

}  // namespace

static_assert(sizeof(mfusim_plan_row) == 152 && sizeof(mfusim_plan_gpu) == 40, "fixed layouts (mfusim.h)");

extern "C" {

mfusim_status mfusim_plan_request_init(mfusim_plan_request* request, size_t struct_size, mfusim_error* error) {
    return guarded(error,
                   [&] { mfusim::api::init_versioned(request, struct_size, default_request(), "plan_request"); });
}

mfusim_status mfusim_plan(const mfusim_options* options, const mfusim_serving* serving,
                          const mfusim_plan_request* request, mfusim_plan_result** out, mfusim_error* error) {
    return guarded(error, [&] {
        require(options != nullptr, "options is NULL");
        require(out != nullptr, "out is NULL");
        const mfusim_options o = mfusim::api::read_versioned(options, mfusim::api::default_options(), "options");
        const mfusim_serving s = mfusim::api::read_versioned(serving, mfusim::api::default_serving(), "serving");
        const mfusim_plan_request r = mfusim::api::read_versioned(request, default_request(), "plan_request");
        const planning::PlanResult found = planning::plan(to_request(o, s, r));
        auto handle = std::make_unique<mfusim_plan_result>();
        for (std::size_t g = 0; g < found.gpus.size(); ++g) {
            const planning::GpuPlan& p = found.gpus[g];
            mfusim_plan_gpu summary{static_cast<int64_t>(p.evaluated.size()), 0, -1, p.skipped_not_fitting,
                                    p.skipped_invalid};
            bool marked = false;
            for (const planning::Candidate& c : p.evaluated) {
                mfusim_plan_row row = to_row(c, static_cast<int32_t>(g));
                summary.meeting_limits += row.meets_limits;
                // The best is the first row meeting the limits with the best's throughput (plan keeps the first).
                if (!marked && p.best && c.meets && c.tok_s_gpu == p.best->tok_s_gpu) {
                    row.best = 1;
                    summary.best_row = static_cast<int64_t>(handle->rows.size());
                    marked = true;
                }
                handle->rows.push_back(row);
            }
            handle->gpus.push_back(summary);
            handle->gpu_names.push_back(p.gpu);
            handle->last_skips.push_back(p.last_skip);
        }
        for (const std::string& w : found.warnings) handle->warnings += w + "\n";
        *out = handle.release();
    });
}

void mfusim_plan_result_free(mfusim_plan_result* result) {
    delete result;
}

const mfusim_plan_row* mfusim_plan_result_rows(const mfusim_plan_result* result, size_t* count) {
    if (count) *count = result ? result->rows.size() : 0;
    return result && !result->rows.empty() ? result->rows.data() : nullptr;
}

const mfusim_plan_gpu* mfusim_plan_result_gpus(const mfusim_plan_result* result, size_t* count) {
    if (count) *count = result ? result->gpus.size() : 0;
    return result && !result->gpus.empty() ? result->gpus.data() : nullptr;
}

const char* mfusim_plan_result_gpu_name(const mfusim_plan_result* result, size_t gpu_index) {
    return result && gpu_index < result->gpu_names.size() ? result->gpu_names[gpu_index].c_str() : nullptr;
}

const char* mfusim_plan_result_last_skip(const mfusim_plan_result* result, size_t gpu_index) {
    return result && gpu_index < result->last_skips.size() ? result->last_skips[gpu_index].c_str() : nullptr;
}

const char* mfusim_plan_result_warnings(const mfusim_plan_result* result) {
    return result ? result->warnings.c_str() : nullptr;
}

}  // extern "C"
