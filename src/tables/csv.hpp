// Strict reader for the bench_data CSV dialect: plain comma-separated text, no quoting, LF or CRLF, optional
// UTF-8 BOM, the last line may lack its newline. Every problem is reported with file, line and column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mfusim::tables {

struct CsvLine {
    std::size_t line_number = 0;  // 1-based physical line
    std::vector<std::string_view> fields;
};

struct CsvText {
    std::string path;   // as given; used in messages
    std::string bytes;  // owns the text the fields view into
    std::vector<CsvLine> lines;
};

// Splits `bytes` into lines and fields. Error(parse) for a blank line between data lines, or a NUL byte.
// Trailing blank lines are ignored. An empty file yields no lines.
CsvText split_csv(std::string path, std::string bytes);

// Reads a whole file and splits it (Error(io) if unreadable).
CsvText read_csv_file(const std::string& path);

// Field access with located errors: "<path>:<line>:<col>: column 'mfu': expected a number, found 'abc'".
class CsvFieldReader {
  public:
    CsvFieldReader(const CsvText& text, const CsvLine& line) : text_(text), line_(line) {}
    int64_t integer(std::size_t column, std::string_view name) const;
    // An integer no larger than `max`: "<path>:<line>:<col>: column 'batch_size': must be at most <max>, found <n>".
    int64_t integer_at_most(std::size_t column, std::string_view name, int64_t max) const;
    // An integer in [min, max]: "<path>:<line>:<col>: column '<name>': must be between <min> and <max>, found <n>".
    int64_t integer_between(std::size_t column, std::string_view name, int64_t min, int64_t max) const;
    double number(std::size_t column, std::string_view name) const;  // finite only
    std::string_view text(std::size_t column, std::string_view name) const;

  private:
    std::size_t column_offset(std::size_t column) const;
    [[noreturn]] void fail(std::size_t column, std::string_view name, const std::string& what) const;
    const CsvText& text_;
    const CsvLine& line_;
};

}  // namespace mfusim::tables
