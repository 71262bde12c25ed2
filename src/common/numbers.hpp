// Exact text <-> number conversions shared by every parser. Correct rounding matters: compat mode must
// reproduce InferSim bit for bit, and Python's float() is correctly rounded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mfusim {

// Whole text must be a decimal integer (optional sign), no spaces; nullopt otherwise or on overflow.
std::optional<int64_t> parse_int64(std::string_view text);

// Whole text must be a finite or non-finite decimal floating-point number as Python's float() accepts
// (no surrounding spaces); correctly rounded. nullopt if not a number.
std::optional<double> parse_double(std::string_view text);

// The shortest text that reads back as the same double ("1e-300", "0.1", "-0"), for messages that quote a value.
std::string shortest_text(double x);

// A fraction as a percentage with one decimal, for reports: 0.123 -> "12.3%"; signed: "+12.3%" / "-4.0%".
std::string percent_text(double fraction);
std::string signed_percent_text(double fraction);

// Python's round(x, 3): the exact binary value rounded to 3 decimals (ties to even), back to the nearest double.
double round3(double x);

}  // namespace mfusim
