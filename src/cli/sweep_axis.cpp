#include "cli/sweep_axis.hpp"

#include "cli/args.hpp"
#include "common/numbers.hpp"

namespace mfusim::cli {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        std::size_t end = text.find(sep, start);
        out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return out;
        start = end + 1;
    }
}

int64_t integer(const std::string& text, const std::string& flag, SweepParam param) {
    auto v = parse_int64(text);
    if (!v || *v < 0) throw UsageError(flag + ": '" + text + "' is not a non-negative integer");
    if (*v > sweep_param_max(param)) {
        throw UsageError(flag + ": " + sweep_param_name(param) + " " + text + " is above its limit of " +
                         std::to_string(sweep_param_max(param)));
    }
    return *v;
}

}  // namespace

SweepAxis parse_sweep_axis(const std::string& spec, const std::string& flag) {
    std::size_t eq = spec.find('=');
    if (eq == std::string::npos) {
        throw UsageError(flag + " expects PARAM=VALUES (e.g. decode-batch=1..512), got '" + spec + "'");
    }
    std::string name = spec.substr(0, eq), list = spec.substr(eq + 1);
    const std::optional<SweepParam> found = planning::find_sweep_param(name);
    if (!found) throw UsageError(flag + ": unknown parameter '" + name + "'; one of " + planning::sweep_param_names());
    SweepAxis axis{*found, sweep_param_name(*found), {}};
    auto add = [&](std::string value) {
        if (axis.values.size() >= planning::kMaxSweepValues) {
            throw UsageError(flag + ": more than " + std::to_string(planning::kMaxSweepValues) + " values");
        }
        axis.values.push_back(std::move(value));
    };
    for (const std::string& item : split(list, ',')) {
        if (item.empty()) throw UsageError(flag + ": empty value in '" + list + "'");
        std::size_t dots = item.find("..");
        if (!is_numeric(axis.param)) {
            add(item);
        } else if (dots == std::string::npos) {
            add(std::to_string(integer(item, flag, *found)));
        } else {
            // A..B doubles from A (the scale most serving quantities are explored on); A..B:S steps by S.
            std::string rest = item.substr(dots + 2);
            std::size_t colon = rest.find(':');
            int64_t from = integer(item.substr(0, dots), flag, *found);
            int64_t to = integer(rest.substr(0, colon), flag, *found);
            if (to < from) throw UsageError(flag + ": range '" + item + "' runs backwards");
            if (colon != std::string::npos) {
                auto step = parse_int64(rest.substr(colon + 1));
                if (!step || *step <= 0) throw UsageError(flag + ": range '" + item + "' needs a positive step");
                // Checked: v + step must not overflow past `to` (a step near 2^63).
                for (int64_t v = from;; v += *step) {
                    add(std::to_string(v));
                    if (*step > to - v) break;
                }
            } else {
                if (from <= 0) throw UsageError(flag + ": a doubling range '" + item + "' must start above 0");
                for (int64_t v = from;; v *= 2) {
                    add(std::to_string(v));
                    if (v > to / 2) break;  // checked: 2v would pass `to` (or overflow)
                }
            }
        }
    }
    return axis;
}

}  // namespace mfusim::cli
