// What the opaque handles of mfusim.h are.
#pragma once

#include <mfusim.h>

#include <string>

#include "calibrate/calibrate_run.hpp"
#include "engine/estimator.hpp"
#include "query/query.hpp"

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
