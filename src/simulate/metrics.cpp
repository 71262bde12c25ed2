#include "simulate/metrics.hpp"

#include <algorithm>
#include <cmath>

namespace mfusim::simulate {

double percentile(const std::vector<std::pair<double, int64_t>>& sorted, double p) {
    int64_t n = 0;
    for (const auto& [v, c] : sorted) n += c;
    if (n == 0) return 0;
    const double rank = p / 100 * static_cast<double>(n - 1);
    const auto lo = static_cast<int64_t>(std::floor(rank));
    const double frac = rank - static_cast<double>(lo);
    // The values at expanded positions lo and lo + 1.
    double at_lo = sorted.back().first, at_hi = sorted.back().first;
    int64_t seen = 0;
    bool have_lo = false;
    for (const auto& [v, c] : sorted) {
        if (!have_lo && lo < seen + c) {
            at_lo = v;
            have_lo = true;
        }
        if (lo + 1 < seen + c) {
            at_hi = v;
            break;
        }
        seen += c;
    }
    return frac > 0 ? at_lo + frac * (at_hi - at_lo) : at_lo;
}

Summary summarize(std::vector<std::pair<double, int64_t>>& w) {
    Summary s;
    std::erase_if(w, [](const auto& e) { return e.second <= 0; });
    if (w.empty()) return s;
    std::sort(w.begin(), w.end());
    std::size_t out = 0;
    for (std::size_t i = 1; i < w.size(); ++i) {
        if (w[i].first == w[out].first) {
            w[out].second += w[i].second;
        } else {
            w[++out] = w[i];
        }
    }
    w.resize(out + 1);
    double sum = 0;
    for (const auto& [v, c] : w) {
        s.count += c;
        sum += v * static_cast<double>(c);
    }
    s.mean = sum / static_cast<double>(s.count);
    double sq = 0;
    for (const auto& [v, c] : w) sq += (v - s.mean) * (v - s.mean) * static_cast<double>(c);
    s.std = std::sqrt(sq / static_cast<double>(s.count));
    s.median = percentile(w, 50);
    s.p90 = percentile(w, 90);
    s.p95 = percentile(w, 95);
    s.p99 = percentile(w, 99);
    s.min = w.front().first;
    s.max = w.back().first;
    return s;
}

Summary summarize(std::vector<double> values) {
    std::vector<std::pair<double, int64_t>> w;
    w.reserve(values.size());
    for (double v : values) w.emplace_back(v, 1);
    return summarize(w);
}

}  // namespace mfusim::simulate
