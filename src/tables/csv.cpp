#include "tables/csv.hpp"

#include <cmath>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/numbers.hpp"

namespace mfusim::tables {

namespace {

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        std::size_t comma = line.find(',', start);
        if (comma == std::string_view::npos) {
            fields.push_back(line.substr(start));
            return fields;
        }
        fields.push_back(line.substr(start, comma - start));
        start = comma + 1;
    }
}

}  // namespace

CsvText split_csv(std::string path, std::string bytes) {
    CsvText text{std::move(path), std::move(bytes), {}};
    std::string_view all(text.bytes);
    if (all.size() >= 3 && all.substr(0, 3) == "\xEF\xBB\xBF") all.remove_prefix(3);
    if (all.find('\0') != std::string_view::npos) {
        throw Error(Status::parse, located(text.path, 0, 0, "binary data (a NUL byte): not a CSV text file"));
    }
    std::size_t line_number = 0;
    std::size_t pending_blank = 0;  // blank lines seen since the last data line
    while (!all.empty()) {
        ++line_number;
        std::size_t newline = all.find('\n');
        std::string_view line = all.substr(0, newline);
        all = newline == std::string_view::npos ? std::string_view() : all.substr(newline + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find_first_not_of(" \t") == std::string_view::npos) {
            ++pending_blank;
            continue;
        }
        if (pending_blank > 0 && !text.lines.empty()) {
            throw Error(Status::parse, located(text.path, line_number - pending_blank, 1,
                                               "blank line inside the table (InferSim would crash on it)"));
        }
        pending_blank = 0;
        text.lines.push_back({line_number, split_fields(line)});
    }
    return text;
}

CsvText read_csv_file(const std::string& path) {
    return split_csv(path, read_file(path, kTableFileLimit));
}

std::size_t CsvFieldReader::column_offset(std::size_t column) const {
    std::size_t offset = 1;
    for (std::size_t i = 0; i < column && i < line_.fields.size(); ++i) offset += line_.fields[i].size() + 1;
    return offset;
}

void CsvFieldReader::fail(std::size_t column, std::string_view name, const std::string& what) const {
    throw Error(Status::parse, located(text_.path, line_.line_number, column_offset(column),
                                       "column '" + std::string(name) + "': " + what));
}

std::string_view CsvFieldReader::text(std::size_t column, std::string_view name) const {
    if (column >= line_.fields.size()) {
        fail(column, name,
             "missing (the row has " + std::to_string(line_.fields.size()) + " fields, needs at least " +
                 std::to_string(column + 1) + ")");
    }
    return line_.fields[column];
}

int64_t CsvFieldReader::integer(std::size_t column, std::string_view name) const {
    std::string_view field = text(column, name);
    auto value = parse_int64(field);
    if (!value) fail(column, name, "expected an integer, found '" + std::string(field.substr(0, 40)) + "'");
    return *value;
}

int64_t CsvFieldReader::integer_at_most(std::size_t column, std::string_view name, int64_t max) const {
    int64_t value = integer(column, name);
    if (value > max) fail(column, name, "must be at most " + std::to_string(max) + ", found " + std::to_string(value));
    return value;
}

int64_t CsvFieldReader::integer_between(std::size_t column, std::string_view name, int64_t min, int64_t max) const {
    int64_t value = integer(column, name);
    if (value < min || value > max) {
        fail(column, name,
             "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", found " +
                 std::to_string(value));
    }
    return value;
}

double CsvFieldReader::number(std::size_t column, std::string_view name) const {
    std::string_view field = text(column, name);
    auto value = parse_double(field);
    if (!value) fail(column, name, "expected a number, found '" + std::string(field.substr(0, 40)) + "'");
    if (!std::isfinite(*value)) fail(column, name, "expected a finite number, found '" + std::string(field) + "'");
    return *value;
}

}  // namespace mfusim::tables
