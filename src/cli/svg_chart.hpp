// A small, dependency-free SVG line chart: the charts of `sweep` and `plan`. The file is self-contained (no
// scripts, fonts or external references) so it opens in any browser and embeds in any document.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mfusim::cli {

struct ChartSeries {
    ChartSeries() = default;
    ChartSeries(std::string name_, std::vector<double> x_ = {}, std::vector<double> y_ = {})
        : name(std::move(name_)), x(std::move(x_)), y(std::move(y_)) {}

    std::string name;          // legend entry; "" for a chart with one series and no legend
    std::vector<double> x, y;  // same length; points are drawn in this order, joined when `lines`
    // Optional, per point (empty, or as long as x): a short label beside the point ("TP4 c64"), and points drawn
    // hollow (those that break a limit the axes cannot show, explained by Chart::hollow_legend).
    std::vector<std::string> labels;
    std::vector<bool> hollow;
    // Points the library refused (x and the reason): marked with a cross on the x axis, never silently dropped.
    std::vector<std::pair<double, std::string>> refused;
};

// A point singled out (the chosen deployment): a ring around it and a bold label.
struct ChartHighlight {
    double x = 0, y = 0;
    std::string label;
};

struct Chart {
    std::string title;
    std::string subtitle;  // the deployment the numbers are for: model, GPU, engine
    std::string x_label;   // with its unit: "decode batch (requests)"
    std::string y_label;   // with its unit: "step time (ms)"
    bool log_x = false;    // log scales drop non-positive values, which they cannot place
    bool log_y = false;
    bool lines = true;  // false: markers only (a scatter)
    std::vector<ChartSeries> series;
    // A dashed reference line at this x (an SLA), with its label.
    std::optional<double> x_marker;
    std::string x_marker_label;
    std::string hollow_legend;  // what a hollow point means, in the legend ("" when none is hollow)
    std::vector<ChartHighlight> highlights;
};

std::string render_svg(const Chart& chart);

// Text escaped for XML character data and attribute values.
std::string xml_escape(const std::string& text);

}  // namespace mfusim::cli
