// The row parsers of each table family: split CSV text -> typed rows, exactly as load_bench_data parses the files
// it reads (header detection, column aliases, range checks). The loader is their production caller; they are
// declared here so that tests and fuzzers can parse a table from memory (split_csv + one of these).
#pragma once

#include <vector>

#include "tables/csv.hpp"
#include "tables/tables.hpp"

namespace mfusim::tables {

// Each sets `first_line_is_header` and returns the data rows in file order; Error(parse) naming path, line,
// column and field for an empty table, a missing column, a non-number, a non-finite or out-of-range value
// (integers must lie in [1, 2^31 - 1], efficiencies and latencies must not be negative).
std::vector<GemmRow> parse_gemm_rows(const CsvText& text, bool& first_line_is_header);
std::vector<AttentionPrefillRow> parse_attention_prefill_rows(const CsvText& text, bool& first_line_is_header);
std::vector<AttentionDecodeRow> parse_attention_decode_rows(const CsvText& text, bool& first_line_is_header);
std::vector<GroupedGemmRow> parse_grouped_gemm_rows(const CsvText& text, bool& first_line_is_header);
std::vector<GdnRow> parse_gdn_rows(const CsvText& text, bool& first_line_is_header);

}  // namespace mfusim::tables
