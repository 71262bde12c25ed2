#include "cli/html_report.hpp"

#include <cmath>
#include <cstdio>

#include "cli/svg_chart.hpp"
#include "common/json.hpp"

namespace mfusim::cli {

namespace {

// Sorting by a column, toggling a series from its legend entry, and marking the document ready (what the CI's
// headless browser check reads). Plain DOM, no library.
const char* const kScript = R"JS(
(function () {
  var table = document.getElementById('data-table');
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.dataset.order !== 'asc';
      th.dataset.order = up ? 'asc' : 'desc';
      rows.sort(function (a, b) {
        var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v, nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : String(x).localeCompare(String(y));
        return up ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  document.querySelectorAll('svg [data-legend]').forEach(function (entry) {
    entry.style.cursor = 'pointer';
    entry.addEventListener('click', function () {
      var i = entry.getAttribute('data-legend');
      document.querySelectorAll('svg [data-series="' + i + '"]').forEach(function (g) {
        g.style.display = g.style.display === 'none' ? '' : 'none';
      });
      entry.style.opacity = entry.style.opacity === '0.35' ? '' : '0.35';
    });
  });
  document.body.dataset.ready = String(table.tBodies[0].rows.length);
})();
)JS";

std::string cell_text(const nlohmann::ordered_json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) {
        // Four significant digits, without an exponent for the thousands a throughput reaches.
        const double x = v.get<double>();
        char buf[48];
        std::snprintf(buf, sizeof buf, std::fabs(x) >= 1000 && std::fabs(x) < 1e15 ? "%.1f" : "%.4g", x);
        return buf;
    }
    return v.dump();
}

}  // namespace

std::string render_html(const HtmlReport& report) {
    std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    xml_escape(report.title) + "</title>\n";
    h += "<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;font-size:13px}"
         "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{cursor:pointer;background:#f3f3f3}"
         "td:first-child,th:first-child{text-align:left}.warnings{color:#8a5a00}</style>\n</head>\n<body>\n";
    h += "<h1>" + xml_escape(report.title) + "</h1>\n<p>" + xml_escape(report.subtitle) + "</p>\n";
    if (!report.svg.empty()) {
        // Inline SVG: the XML declaration does not belong inside an HTML document.
        std::string svg = report.svg;
        if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);
        h += "<figure>\n" + svg +
             "<figcaption>Click a legend entry to hide or show its series; hover a point for "
             "its values.</figcaption>\n</figure>\n";
    }
    h += "<table id=\"data-table\">\n<thead><tr>";
    for (const std::string& c : report.columns) h += "<th>" + xml_escape(c) + "</th>";
    h += "</tr></thead>\n<tbody>\n";
    for (const auto& row : report.rows) {
        h += "<tr>";
        for (const std::string& c : report.columns) {
            const nlohmann::ordered_json v = row.contains(c) ? row[c] : nlohmann::ordered_json();
            const std::string text = cell_text(v);
            const std::string sort_key = v.is_number() ? v.dump() : text;
            h += "<td data-v=\"" + xml_escape(sort_key) + "\">" + xml_escape(text) + "</td>";
        }
        h += "</tr>\n";
    }
    h += "</tbody>\n</table>\n";
    if (!report.warnings.empty()) {
        h += "<ul class=\"warnings\">\n";
        for (const std::string& w : report.warnings) h += "<li>" + xml_escape(w) + "</li>\n";
        h += "</ul>\n";
    }
    // The data as JSON for anyone reading the file with a script; "</" escaped so it cannot end the element.
    std::string data = json_text(report.rows);
    for (std::size_t at = data.find("</"); at != std::string::npos; at = data.find("</", at + 3)) {
        data.replace(at, 2, "<\\/");
    }
    h += "<script type=\"application/json\" id=\"data\">" + data + "</script>\n";
    h += "<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
    return h;
}

}  // namespace mfusim::cli
