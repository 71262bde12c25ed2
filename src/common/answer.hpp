// The last word on every number that leaves the library or the CLI as an answer (a time, a throughput, an error
// ratio): it is finite and, where it is a time or a rate, non-negative, or the query fails with a message naming the
// quantity. The validated input ranges make a failure here unreachable; the check keeps it so, so that no new formula,
// range or CLI computation can ever print NaN or infinity with success (docs/reliability.md).
#pragma once

#include <string>
#include <string_view>

namespace mfusim {

// `what` is only read on failure, so the success path allocates nothing (step_time is allocation-free).
// `value` when finite and >= 0; else Error(unsupported) "<what> came out as <value>, not a finite, non-negative ...".
double checked_time(double value, std::string_view what);

// `value` when finite (a signed quantity: a relative error, a bias); else Error(unsupported) naming it.
double checked_finite(double value, std::string_view what);

// Whether a measurement read from the user's file can be divided by: positive and normal (a subnormal such as
// 1e-320 turns every ratio against it into infinity).
bool is_usable_measurement(double value);

}  // namespace mfusim
