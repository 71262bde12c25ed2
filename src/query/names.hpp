// Names of the public enums (status, operation, bound, source), owned by the core so the C API, the CLI and the
// models' reports all spell them the same way. Static storage; "unknown ..." for values out of range.
#pragma once

#include <mfusim.h>

namespace mfusim::query {

const char* status_name(mfusim_status status);
const char* op_name(mfusim_op op);
const char* bound_name(mfusim_bound bound);
const char* source_name(mfusim_source source);

}  // namespace mfusim::query
