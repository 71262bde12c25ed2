// What a bench_data directory holds: per table its coverage and every problem a user should know about.
#pragma once

#include <string>
#include <vector>

#include "tables/tables.hpp"

namespace mfusim::tables {

struct TableSummary {
    std::string relative_path;
    std::string gpu;
    std::string kind;      // "gemm", "attention prefill", ...
    std::size_t rows = 0;  // data rows as loaded
    std::string coverage;  // one line: the grid's extent
    std::string peak;      // "fp8 (convention)" / "bf16 (manifest, 989.4 TFLOP/s)"
    std::vector<std::string> problems;
};

std::vector<TableSummary> inspect(const BenchData& data);

}  // namespace mfusim::tables
