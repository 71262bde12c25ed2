#include "simulate/trace.hpp"

#include <cmath>

#include "common/error.hpp"
#include "tables/csv.hpp"

namespace mfusim::simulate {

std::vector<TraceRequest> read_trace_csv(const std::string& path) {
    const tables::CsvText csv = tables::read_csv_file(path);
    if (csv.lines.empty()) throw Error(Status::parse, path + ": empty file");
    const tables::CsvLine& header = csv.lines.front();
    constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
    std::size_t arrival = kAbsent, input = kAbsent, output = kAbsent, prefix_id = kAbsent, prefix_len = kAbsent;
    for (std::size_t i = 0; i < header.fields.size(); ++i) {
        const std::string_view name = header.fields[i];
        std::size_t* slot = name == "arrival_s"    ? &arrival
                            : name == "input_len"  ? &input
                            : name == "output_len" ? &output
                            : name == "prefix_id"  ? &prefix_id
                            : name == "prefix_len" ? &prefix_len
                                                   : nullptr;
        if (!slot) {
            throw Error(Status::parse, located(path, 1, i + 1,
                                               "unknown column '" + std::string(name) +
                                                   "' (columns: arrival_s, input_len, output_len, prefix_id, "
                                                   "prefix_len)"));
        }
        if (*slot != kAbsent)
            throw Error(Status::parse, located(path, 1, i + 1, "column '" + std::string(name) + "' twice"));
        *slot = i;
    }
    for (auto [column, name] : {std::pair{arrival, "arrival_s"}, {input, "input_len"}, {output, "output_len"}}) {
        if (column == kAbsent) throw Error(Status::parse, path + ":1: header lacks column '" + name + "'");
    }
    if ((prefix_id == kAbsent) != (prefix_len == kAbsent)) {
        throw Error(Status::parse, path + ":1: prefix_id and prefix_len come together");
    }
    std::vector<TraceRequest> out;
    double previous = 0;
    for (std::size_t i = 1; i < csv.lines.size(); ++i) {
        const tables::CsvLine& line = csv.lines[i];
        if (line.fields.size() != header.fields.size()) {
            throw Error(Status::parse, located(path, line.line_number, 1,
                                               std::to_string(line.fields.size()) + " fields, the header has " +
                                                   std::to_string(header.fields.size())));
        }
        tables::CsvFieldReader f(csv, line);
        auto at = [&](std::size_t column, const std::string& what) {
            return Error(Status::parse, located(path, line.line_number, column + 1, what));
        };
        TraceRequest r;
        r.arrival_s = f.number(arrival, "arrival_s");
        if (!(r.arrival_s >= previous && r.arrival_s <= 1e9)) {
            throw at(arrival, "column 'arrival_s': must be at most 1e9 and not before the previous row's");
        }
        previous = r.arrival_s;
        r.input_len = f.integer_at_most(input, "input_len", int64_t{1} << 24);
        r.output_len = f.integer_at_most(output, "output_len", int64_t{1} << 24);
        if (r.input_len < 1) throw at(input, "column 'input_len': must be at least 1");
        if (r.output_len < 1) throw at(output, "column 'output_len': must be at least 1");
        if (prefix_id != kAbsent) {
            r.prefix_id = f.integer(prefix_id, "prefix_id");
            r.prefix_len = f.integer(prefix_len, "prefix_len");
            if (r.prefix_len < 0 || r.prefix_len > r.input_len) {
                throw at(prefix_len, "column 'prefix_len': must be between 0 and the row's input_len");
            }
            if (r.prefix_len > 0 && r.prefix_id < 0) throw at(prefix_id, "column 'prefix_id': must be >= 0");
        }
        out.push_back(r);
        if (out.size() > (std::size_t{1} << 20)) throw at(0, "more than 2^20 requests");
    }
    if (out.empty()) throw Error(Status::parse, path + ": no requests after the header");
    return out;
}

}  // namespace mfusim::simulate
