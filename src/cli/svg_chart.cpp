#include "cli/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mfusim::cli {

namespace {

constexpr double kPlotWidth = 610, kHeight = 560;
constexpr double kLeft = 90, kMinRight = 200, kTop = 70, kBottom = 60;  // the right margin holds the legend
// Text width estimates for sans-serif (no font metrics in a dependency-free file): generous, so text never clips.
constexpr double kCharWidth12 = 7.2, kCharWidth16 = 10.0;
// The data span this far inside the frame at each end (of the axis length), so end points are not on it.
constexpr double kInset = 0.04;
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
    if (x_axis) {
        for (const ChartSeries& s : chart.series) {
            for (const auto& r : s.refused) {
                if (!std::isfinite(r.first) || (log && r.first <= 0)) continue;
                lo = std::min(lo, r.first);
                hi = std::max(hi, r.first);
            }
        }
    }
    if (!std::isfinite(lo)) return {1, 10, log};  // no data: an empty frame rather than NaNs in the file
    if (log) {
        if (!(hi > lo)) hi = lo * 10;
        // Inset in log space: both ends move by the same factor.
        const double f = std::pow(hi / lo, kInset);
        if (std::isnormal(lo / f) && std::isfinite(hi * f)) return {lo / f, hi * f, true};
        return {lo, hi, true};
    }
    if (!std::isfinite(hi - lo)) return {lo, hi, false};  // a span past the doubles: ticks() draws none
    // Linear value axes start at zero so bars of different heights compare honestly; x keeps its range.
    if (!x_axis) lo = std::min(lo, 0.0);
    if (hi <= lo) hi = lo + 1;
    const double pad = (hi - lo) * kInset;
    if (!x_axis) return {lo, hi + pad, false};  // zero stays on the frame: it is the axis' origin
    return {lo - pad, hi + pad, false};
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
    const bool any_refused =
        std::any_of(chart.series.begin(), chart.series.end(), [](const ChartSeries& s) { return !s.refused.empty(); });
    const bool any_hollow = !chart.hollow_legend.empty();
    const bool legend = chart.series.size() > 1 || (chart.series.size() == 1 && !chart.series[0].name.empty()) ||
                        any_refused || any_hollow;
    // The legend's column is as wide as its longest entry, and the picture as wide as its title and subtitle.
    std::size_t longest = 0;
    for (const ChartSeries& s : chart.series) longest = std::max(longest, s.name.size());
    if (any_refused) longest = std::max<std::size_t>(longest, 22);  // "refused by the library"
    if (any_hollow) longest = std::max(longest, chart.hollow_legend.size());
    const double right =
        legend ? std::max(kMinRight, 16 + 28 + kCharWidth12 * static_cast<double>(longest) + 12) : kMinRight;
    const double width =
        std::max({kLeft + kPlotWidth + right, kCharWidth16 * static_cast<double>(chart.title.size()) + 40,
                  kCharWidth12 * static_cast<double>(chart.subtitle.size()) + 40});
    double pw = kPlotWidth, ph = kHeight - kTop - kBottom;
    auto px = [&](double v) { return kLeft + ax.scale(v) * pw; };
    auto py = [&](double v) { return kTop + (1 - ay.scale(v)) * ph; };
    auto placeable = [](const Axis& a, double v) { return std::isfinite(v) && (!a.log || v > 0); };

    std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(kHeight) +
         "\" viewBox=\"0 0 " + num(width) + " " + num(kHeight) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    s += "<title>" + xml_escape(chart.title) + "</title>\n";
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s += "<text x=\"" + num(width / 2) + "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" +
         xml_escape(chart.title) + "</text>\n";
    if (!chart.subtitle.empty()) {
        s += "<text x=\"" + num(width / 2) + "\" y=\"48\" text-anchor=\"middle\" fill=\"#444\">" +
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
    // Labels must not overlap: highlight labels are placed first (below their point, else further down or above),
    // then each point label goes where it overlaps nothing placed, or is left to its tooltip.
    struct Box {
        double x0, y0, x1, y1;
        bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
    };
    std::vector<Box> placed;
    auto free_at = [&](const Box& b) {
        return std::none_of(placed.begin(), placed.end(), [&](const Box& o) { return b.overlaps(o); });
    };
    std::vector<std::pair<double, double>> highlight_text;  // where each highlight's label goes (x, baseline)
    for (const ChartHighlight& h : chart.highlights) {
        const double w = kCharWidth12 * static_cast<double>(h.label.size()), x = px(h.x) + 10;
        double y = py(h.y) + 16;
        for (double dy : {0.0, 16.0, 32.0, -36.0, -52.0, 48.0, 64.0}) {
            if (free_at({x, py(h.y) + 16 + dy - 12, x + w, py(h.y) + 16 + dy + 3})) {
                y = py(h.y) + 16 + dy;
                break;
            }
        }
        placed.push_back({x, y - 12, x + w, y + 3});
        highlight_text.emplace_back(x, y);
    }
    auto place_label = [&](double x, double y, const std::string& text) {
        Box b{x, y - 8, x + 5.4 * static_cast<double>(text.size()), y + 2};
        if (!free_at(b)) return false;
        placed.push_back(b);
        return true;
    };
    // Series, then the legend beside the plot so it never hides data.
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
        const ChartSeries& series = chart.series[i];
        std::string colour = kColours[i % (sizeof kColours / sizeof *kColours)];
        s += "<g class=\"series\" data-series=\"" + std::to_string(i) + "\" stroke=\"" + colour + "\" fill=\"" +
             colour + "\">\n";
        std::string points;
        for (std::size_t k = 0; k < series.x.size() && k < series.y.size(); ++k) {
            if (!placeable(ax, series.x[k]) || !placeable(ay, series.y[k])) continue;
            const std::string cx = num(px(series.x[k])), cy = num(py(series.y[k]));
            const bool hollow = k < series.hollow.size() && series.hollow[k];
            const std::string label = k < series.labels.size() ? series.labels[k] : "";
            points += cx + "," + cy + " ";
            s += "<circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"" + (hollow ? "3.5\" fill=\"white" : "3") +
                 "\"><title>" + xml_escape(series.name) + (series.name.empty() ? "" : ": ") +
                 (label.empty() ? "" : xml_escape(label) + ": ") + tick_label(series.x[k]) + ", " +
                 tick_label(series.y[k]) + "</title></circle>\n";
            if (!label.empty() && place_label(px(series.x[k]) + 5, py(series.y[k]) - 5, label)) {
                s += "<text class=\"point-label\" x=\"" + num(px(series.x[k]) + 5) + "\" y=\"" +
                     num(py(series.y[k]) - 5) + "\" font-size=\"9\" stroke=\"none\">" + xml_escape(label) + "</text>\n";
            }
        }
        if (chart.lines && !points.empty()) {
            points.pop_back();
            s += "<polyline fill=\"none\" stroke-width=\"2\" points=\"" + points + "\"/>\n";
        }
        // Refused points: a cross on the x axis at their x, the library's reason as its tooltip.
        for (const auto& [x, why] : series.refused) {
            if (!placeable(ax, x)) continue;
            const double cx = px(x), cy = kTop + ph - 7;
            s += "<path class=\"refused\" d=\"M" + num(cx - 4) + "," + num(cy - 4) + "L" + num(cx + 4) + "," +
                 num(cy + 4) + "M" + num(cx - 4) + "," + num(cy + 4) + "L" + num(cx + 4) + "," + num(cy - 4) +
                 "\" stroke-width=\"2\" fill=\"none\"><title>" + xml_escape(series.name) +
                 (series.name.empty() ? "" : ": ") + tick_label(x) + " refused: " + xml_escape(why) +
                 "</title></path>\n";
        }
        s += "</g>\n";
    }
    for (std::size_t i = 0; i < chart.highlights.size(); ++i) {
        const ChartHighlight& h = chart.highlights[i];
        if (!placeable(ax, h.x) || !placeable(ay, h.y)) continue;
        s += "<g class=\"highlight\"><circle cx=\"" + num(px(h.x)) + "\" cy=\"" + num(py(h.y)) +
             "\" r=\"8\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/><text x=\"" + num(highlight_text[i].first) +
             "\" y=\"" + num(highlight_text[i].second) + "\" font-weight=\"bold\">" + xml_escape(h.label) +
             "</text></g>\n";
    }
    if (legend) {
        s += "<g class=\"legend\">\n";
        const double x = kLeft + pw + 16;
        double y = kTop + 10;
        for (std::size_t i = 0; i < chart.series.size(); ++i, y += 20) {
            if (chart.series[i].name.empty()) continue;
            std::string colour = kColours[i % (sizeof kColours / sizeof *kColours)];
            // data-legend: the HTML report's script toggles the series of the same number on a click.
            s += "<g data-legend=\"" + std::to_string(i) + "\"><line x1=\"" + num(x) + "\" y1=\"" + num(y) +
                 "\" x2=\"" + num(x + 22) + "\" y2=\"" + num(y) + "\" stroke=\"" + colour +
                 "\" stroke-width=\"2\"/><circle cx=\"" + num(x + 11) + "\" cy=\"" + num(y) + "\" r=\"3\" fill=\"" +
                 colour + "\"/><text x=\"" + num(x + 28) + "\" y=\"" + num(y + 4) + "\">" +
                 xml_escape(chart.series[i].name) + "</text></g>\n";
        }
        if (any_hollow) {
            s += "<circle cx=\"" + num(x + 11) + "\" cy=\"" + num(y) +
                 "\" r=\"3.5\" fill=\"white\" stroke=\"#333\"/><text x=\"" + num(x + 28) + "\" y=\"" + num(y + 4) +
                 "\">" + xml_escape(chart.hollow_legend) + "</text>\n";
            y += 20;
        }
        if (any_refused) {
            s += "<path d=\"M" + num(x + 7) + "," + num(y - 4) + "L" + num(x + 15) + "," + num(y + 4) + "M" +
                 num(x + 7) + "," + num(y + 4) + "L" + num(x + 15) + "," + num(y - 4) +
                 "\" stroke=\"#333\" stroke-width=\"2\"/><text x=\"" + num(x + 28) + "\" y=\"" + num(y + 4) +
                 "\">refused by the library</text>\n";
        }
        s += "</g>\n";
    }
    s += "</svg>\n";
    return s;
}

}  // namespace mfusim::cli
