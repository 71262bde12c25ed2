#include "common/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mfusim {

std::optional<int64_t> parse_int64(std::string_view text) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    int64_t value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

std::optional<double> parse_double(std::string_view text) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    double value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    // from_chars reports out-of-range for subnormal/huge values; those texts are still numbers to Python.
    if (text.empty() || ptr != end) return std::nullopt;
    if (ec == std::errc::result_out_of_range) {
        std::string copy(text);
        return std::strtod(copy.c_str(), nullptr);
    }
    if (ec != std::errc()) return std::nullopt;
    return value;
}

std::string shortest_text(double x) {
    char buffer[32];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
    return ec == std::errc() ? std::string(buffer, end) : std::string("?");
}

double round3(double x) {
    if (!std::isfinite(x)) return x;
    // glibc's printf rounds the exact binary value correctly with ties-to-even, which is what Python does.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", x);
    return std::strtod(buf, nullptr);
}

std::string percent_text(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
    return buf;
}

std::string signed_percent_text(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * fraction);
    return buf;
}

}  // namespace mfusim
