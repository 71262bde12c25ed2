// mfusim_serving and what it becomes: one conversion for the serving estimate and the planner.
#pragma once

#include <mfusim.h>

#include "serving/serving.hpp"

namespace mfusim::api {

// The defaults mfusim_serving_init writes.
mfusim_serving default_serving();
serving::Workload to_workload(const mfusim_serving& s);

}  // namespace mfusim::api
