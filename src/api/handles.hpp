// What the opaque handles of mfusim.h are.
#pragma once

#include <mfusim.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/calibrate_run.hpp"
#include "engine/estimator.hpp"
#include "query/query.hpp"
#include "simulate/simulator.hpp"

struct mfusim_estimator {
    mfusim::engine::Estimator engine;
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
