// Fuzz target: one bench_data table parsed from memory. First byte: the family; the rest: the CSV text.
// split_csv + the family's row parser (tables/rows.hpp) + inspect(), as the loader and `mfusim tables` run them.
#include "fuzz_support.hpp"
#include "tables/csv.hpp"
#include "tables/inspect.hpp"
#include "tables/rows.hpp"

namespace {

using namespace mfusim::tables;

template <class Row, class Parse>
void parse_into(std::map<std::string, Table<Row>>& into, const CsvText& text, Parse parse) {
    Table<Row> table;
    table.info.relative_path = text.path;
    table.info.gpu = "h100";
    table.rows = parse(text, table.info.first_line_is_header);
    mfusim::fuzz::require(!table.rows.empty(), "a parsed table has rows");
    into.emplace(text.path, std::move(table));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    mfusim::fuzz::Bytes in(data, size);
    const uint8_t family = in.u8() % 5;
    mfusim::fuzz::handled([&] {
        CsvText text = split_csv("fuzz.csv", in.rest());
        BenchData tables;
        switch (family) {
            case 0:
                parse_into(tables.gemm, text, parse_gemm_rows);
                break;
            case 1:
                parse_into(tables.attention_prefill, text, parse_attention_prefill_rows);
                break;
            case 2:
                parse_into(tables.attention_decode, text, parse_attention_decode_rows);
                break;
            case 3:
                parse_into(tables.grouped_gemm, text, parse_grouped_gemm_rows);
                break;
            default:
                parse_into(tables.gdn, text, parse_gdn_rows);
                break;
        }
        mfusim::fuzz::require(inspect(tables).size() == 1, "inspect summarises the one table");
    });
    return 0;
}
