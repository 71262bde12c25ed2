#include "cli/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mfusim::cli {

namespace {

constexpr double kWidth = 900, kHeight = 560;
constexpr double kLeft = 90, kRight = 200, kTop = 70, kBottom = 60;  // kRight leaves room for the legend
// Distinguishable on white and for the common colour-vision deficiencies (Okabe-Ito).
const char* const kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

// Tick labels: integers without decimals, small numbers with as few digits as they need.
std::string tick_label(double v) {
    char buf[32];
    if (std::fabs(v) >= 1e6 || (v != 0 && std::fabs(v) < 1e-3)) {
        std::snprintf(buf, sizeof buf, "%.0e", v);
    } else if (std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, std::fabs(v))) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
    } else {
        std::snprintf(buf, sizeof buf, "%.3g", v);
    }
    return buf;
}

struct Axis {
    double lo, hi;
    bool log;
    double scale(double v) const {
        double a = log ? std::log10(v) : v, l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
        return h > l ? (a - l) / (h - l) : 0.5;
    }
    // At most kMaxTicks, and none for a range the arithmetic cannot step through (an infinite or subnormal
    // bound would make the step zero or infinite and the loop never end): a chart without ticks, never a hang.
    std::vector<double> ticks() const {
        constexpr std::size_t kMaxTicks = 64;
        std::vector<double> out;
        if (!(std::isfinite(lo) && std::isfinite(hi) && hi > lo && (!log || lo > 0))) return out;
        if (log) {
            // Powers of two read better than decades when the data span less than three decades (batch sizes).
            double base = hi / lo < 1e3 ? 2.0 : 10.0;
            double t = std::pow(base, std::floor(std::log(lo) / std::log(base)));
            if (!(std::isnormal(t) && t > 0)) return out;
            for (; t <= hi * (1 + 1e-9) && out.size() < kMaxTicks; t *= base) {
                if (t >= lo * (1 - 1e-9)) out.push_back(t);
            }
            return out;
        }
        // 1, 2 or 5 times a power of ten, for about six ticks.
        double raw = (hi - lo) / 6, mag = std::pow(10.0, std::floor(std::log10(raw)));
        if (!(std::isnormal(raw) && std::isnormal(mag))) return out;
        double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
        // Counted, not accumulated: t += step stops advancing where step is below t's precision.
        const double first = std::ceil(lo / step) * step;
        for (std::size_t i = 0; i < kMaxTicks; ++i) {
            double t = first + static_cast<double>(i) * step;
            if (t > hi + step * 1e-9) break;
            out.push_back(t);
        }
        return out;
    }
};

Axis make_axis(const Chart& chart, bool x_axis) {
    bool log = x_axis ? chart.log_x : chart.log_y;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const ChartSeries& s : chart.series) {
        for (double v : x_axis ? s.x : s.y) {
            if (!std::isfinite(v) || (log && v <= 0)) continue;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    if (x_axis && chart.x_marker && std::isfinite(*chart.x_marker) && (!log || *chart.x_marker > 0)) {
        lo = std::min(lo, *chart.x_marker);
        hi = std::max(hi, *chart.x_marker);
    }
    if (!std::isfinite(lo)) return {1, 10, log};  // no data: an empty frame rather than NaNs in the file
    if (log) return {lo, hi > lo ? hi : lo * 10, true};
    if (!std::isfinite(hi - lo)) return {lo, hi, false};  // a span past the doubles: ticks() draws none
    // Linear value axes start at zero so bars of different heights compare honestly; x keeps its range.
    if (!x_axis) lo = std::min(lo, 0.0);
    if (hi <= lo) hi = lo + 1;
    if (!x_axis) hi += (hi - lo) * 0.05;
    return {lo, hi, false};
}

}  // namespace

std::string xml_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string render_svg(const Chart& chart) {
    Axis ax = make_axis(chart, true), ay = make_axis(chart, false);
    double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
    auto px = [&](double v) { return kLeft + ax.scale(v) * pw; };
    auto py = [&](double v) { return kTop + (1 - ay.scale(v)) * ph; };
    auto placeable = [](const Axis& a, double v) { return std::isfinite(v) && (!a.log || v > 0); };

    std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) +
         "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    s += "<title>" + xml_escape(chart.title) + "</title>\n";
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s += "<text x=\"" + num(kWidth / 2) + "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" +
         xml_escape(chart.title) + "</text>\n";
    if (!chart.subtitle.empty()) {
        s += "<text x=\"" + num(kWidth / 2) + "\" y=\"48\" text-anchor=\"middle\" fill=\"#444\">" +
             xml_escape(chart.subtitle) + "</text>\n";
    }
    // Grid and ticks.
    s += "<g class=\"grid\" stroke=\"#e0e0e0\">\n";
    for (double t : ax.ticks())
        s += "<line x1=\"" + num(px(t)) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(px(t)) + "\" y2=\"" +
             num(kTop + ph) + "\"/>\n";
    for (double t : ay.ticks())
        s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(py(t)) + "\" x2=\"" + num(kLeft + pw) + "\" y2=\"" +
             num(py(t)) + "\"/>\n";
    s += "</g>\n<g class=\"axes\">\n";
    s += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(pw) + "\" height=\"" + num(ph) +
         "\" fill=\"none\" stroke=\"#333\"/>\n";
    for (double t : ax.ticks())
        s += "<text x=\"" + num(px(t)) + "\" y=\"" + num(kTop + ph + 18) + "\" text-anchor=\"middle\">" +
             tick_label(t) + "</text>\n";
    for (double t : ay.ticks())
        s += "<text x=\"" + num(kLeft - 8) + "\" y=\"" + num(py(t) + 4) + "\" text-anchor=\"end\">" + tick_label(t) +
             "</text>\n";
    s += "<text class=\"x-label\" x=\"" + num(kLeft + pw / 2) + "\" y=\"" + num(kHeight - 16) +
         "\" text-anchor=\"middle\">" + xml_escape(chart.x_label + (chart.log_x ? " [log scale]" : "")) + "</text>\n";
    s += "<text class=\"y-label\" transform=\"translate(22," + num(kTop + ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + xml_escape(chart.y_label + (chart.log_y ? " [log scale]" : "")) +
         "</text>\n</g>\n";
    if (chart.x_marker && placeable(ax, *chart.x_marker)) {
        double x = px(*chart.x_marker);
        s += "<g class=\"marker\"><line x1=\"" + num(x) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(x) + "\" y2=\"" +
             num(kTop + ph) + "\" stroke=\"#c00\" stroke-dasharray=\"6,4\"/><text x=\"" + num(x + 4) + "\" y=\"" +
             num(kTop + 14) + "\" fill=\"#c00\">" + xml_escape(chart.x_marker_label) + "</text></g>\n";
    }
    // Series, then the legend beside the plot so it never hides data.
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
        const ChartSeries& series = chart.series[i];
        std::string colour = kColours[i % (sizeof kColours / sizeof *kColours)];
        s += "<g class=\"series\" stroke=\"" + colour + "\" fill=\"" + colour + "\">\n";
        std::string points;
        for (std::size_t k = 0; k < series.x.size() && k < series.y.size(); ++k) {
            if (!placeable(ax, series.x[k]) || !placeable(ay, series.y[k])) continue;
            points += num(px(series.x[k])) + "," + num(py(series.y[k])) + " ";
            s += "<circle cx=\"" + num(px(series.x[k])) + "\" cy=\"" + num(py(series.y[k])) + "\" r=\"3\"><title>" +
                 xml_escape(series.name) + (series.name.empty() ? "" : ": ") + tick_label(series.x[k]) + ", " +
                 tick_label(series.y[k]) + "</title></circle>\n";
        }
        if (chart.lines && !points.empty()) {
            points.pop_back();
            s += "<polyline fill=\"none\" stroke-width=\"2\" points=\"" + points + "\"/>\n";
        }
        s += "</g>\n";
    }
    if (chart.series.size() > 1 || (chart.series.size() == 1 && !chart.series[0].name.empty())) {
        s += "<g class=\"legend\">\n";
        for (std::size_t i = 0; i < chart.series.size(); ++i) {
            std::string colour = kColours[i % (sizeof kColours / sizeof *kColours)];
            double y = kTop + 10 + 20 * static_cast<double>(i), x = kLeft + pw + 16;
            s += "<line x1=\"" + num(x) + "\" y1=\"" + num(y) + "\" x2=\"" + num(x + 22) + "\" y2=\"" + num(y) +
                 "\" stroke=\"" + colour + "\" stroke-width=\"2\"/><circle cx=\"" + num(x + 11) + "\" cy=\"" + num(y) +
                 "\" r=\"3\" fill=\"" + colour + "\"/><text x=\"" + num(x + 28) + "\" y=\"" + num(y + 4) + "\">" +
                 xml_escape(chart.series[i].name) + "</text>\n";
        }
        s += "</g>\n";
    }
    s += "</svg>\n";
    return s;
}

}  // namespace mfusim::cli
