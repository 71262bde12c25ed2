// A small, dependency-free SVG line chart: the charts of `sweep` and `plan`. The file is self-contained (no
// scripts, fonts or external references) so it opens in any browser and embeds in any document.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mfusim::cli {

struct ChartSeries {
    std::string name;          // legend entry; "" for a chart with one series and no legend
    std::vector<double> x, y;  // same length; points are drawn in this order, joined when `lines`
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
};

std::string render_svg(const Chart& chart);

// Text escaped for XML character data and attribute values.
std::string xml_escape(const std::string& text);

}  // namespace mfusim::cli
