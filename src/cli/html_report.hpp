// A self-contained HTML report (`--html FILE` on plan and sweep): the command's chart inline (SVG), its data as a
// sortable table, and a few lines of script: clicking a legend entry hides or shows that series, clicking a column
// heading sorts by it. No network access: no external script, style, font or image; the data travel inside the
// file as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mfusim::cli {

struct HtmlReport {
    std::string title;
    std::string subtitle;
    std::string svg;                    // render_svg's output, or "" for a report without a chart
    std::vector<std::string> columns;   // table columns, keys of each row
    nlohmann::ordered_json rows;        // array of objects
    std::vector<std::string> warnings;  // shown under the table
};

std::string render_html(const HtmlReport& report);

}  // namespace mfusim::cli
