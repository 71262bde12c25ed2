// Column positions of a measured CSV by header name, and the field readers the compare readers share
// (compare.cpp, families.cpp, serving_compare.cpp, disagg_compare.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "tables/csv.hpp"

namespace mfusim::compare {

class Header {
  public:
    Header(const tables::CsvText& text, std::vector<std::string> required) {
        if (text.lines.empty()) throw Error(Status::parse, located(text.path, 0, 0, "empty file: no header"));
        const auto& fields = text.lines.front().fields;
        for (const std::string& name : required) {
            auto it = std::find(fields.begin(), fields.end(), name);
            if (it == fields.end()) {
                throw Error(Status::parse, located(text.path, text.lines.front().line_number, 1,
                                                   "header lacks column '" + name + "'"));
            }
            columns_[name] = static_cast<std::size_t>(it - fields.begin());
        }
    }
    std::size_t operator[](const std::string& name) const { return columns_.at(name); }

  private:
    std::map<std::string, std::size_t> columns_;
};

// Sizes in measured tables: at most 2^31 - 1, like bench_data's (tables/load.cpp), so that products such as
// kv_heads * head_dim and step + 1 stay far inside int64. Zero and negative values are read as they are: the
// comparisons skip such rows.
constexpr int64_t kMaxMeasuredInteger = INT32_MAX;

inline int64_t bounded(const tables::CsvFieldReader& f, std::size_t column, const char* name) {
    return f.integer_at_most(column, name, kMaxMeasuredInteger);
}

// A parallel degree of a serving row (tp_size, moe_ep_size, prefill_tp_size, ...): empty or "0" means "not used",
// 1, as AIConfigurator's silicon files write it (H100 rows carry moe_ep_size 0); at most 4096. The reader's message
// names file, line and column.
inline int64_t parallel_degree(const tables::CsvFieldReader& f, std::size_t column, std::string_view name) {
    if (f.text(column, name).empty()) return 1;
    const int64_t v = f.integer_between(column, name, 0, 4096);
    return v == 0 ? 1 : v;
}

}  // namespace mfusim::compare
