// What the opaque handles of mfusim.h are.
#pragma once

#include <mfusim.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/calibrate_run.hpp"
#include "engine/estimator.hpp"
#include "query/query.hpp"
#include "simulate/simulator.hpp"

struct mfusim_estimator {
    mfusim::engine::Estimator engine;
    // What it was built from, so that mfusim_disagg_estimate can build the same deployment in the decode-pool role
    // (engine::decode_pool_options) without a field in mfusim_options: built once, on first use, and only for an
    // engine that runs a disaggregated decode pool differently (disagg_decode_graphs_whole_batch).
    mfusim::engine::Options options;
    mutable std::once_flag decode_role_once;
    mutable std::optional<mfusim::engine::Estimator> decode_role;
};

struct mfusim_report {
    mfusim::query::Report report;
    std::string warnings;  // joined once, so the borrowed pointers stay valid
    std::string soft_errors;
};

struct mfusim_calibration {
    mfusim::calibrate::CalibrationRun run;
};

struct mfusim_simulation_result {
    mfusim::simulate::Result result;
    std::vector<mfusim_simulated_request> requests;  // result.requests in the C layout
    std::vector<mfusim_simulated_step> timeline;
    // Per mfusim_metric: the measured values, sorted and merged, for mfusim_simulation_result_percentile.
    std::array<std::vector<std::pair<double, int64_t>>, 5> values;
};
