// mfusim_options and what it becomes: one conversion for the estimator and the calibration entry points.
#pragma once

#include <mfusim.h>

#include "engine/estimator.hpp"

namespace mfusim::api {

// The defaults mfusim_options_init writes.
mfusim_options default_options();
// Error(invalid_argument) for a NULL model or gpu when `names_required` (a calibration's step trace may name them
// instead), or an unknown mode.
engine::Options to_engine_options(const mfusim_options& o, bool names_required = true);

}  // namespace mfusim::api
