#include "common/answer.hpp"

#include <cmath>

#include "common/error.hpp"
#include "common/numbers.hpp"

namespace mfusim {

namespace {

[[noreturn]] void not_an_answer(std::string_view what, double value, const char* expected) {
    throw Error(Status::unsupported, std::string(what) + " came out as " + shortest_text(value) + ", not a " +
                                         expected +
                                         ": the inputs (GPU profile, tables, manifest, engine, step, measurements) "
                                         "are outside what the model can evaluate");
}

}  // namespace

double checked_time(double value, std::string_view what) {
    if (!(std::isfinite(value) && value >= 0)) not_an_answer(what, value, "finite, non-negative time");
    return value;
}

double checked_finite(double value, std::string_view what) {
    if (!std::isfinite(value)) not_an_answer(what, value, "finite number");
    return value;
}

bool is_usable_measurement(double value) {
    return value > 0 && std::isnormal(value);
}

}  // namespace mfusim
