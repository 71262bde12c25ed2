// The parameters a sweep can vary (planning/sweep.hpp), with their names, bounds and titles: one table
// (sweep_params.cpp) for the library's sweep, the command's --vary parsing and its outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mfusim::planning {

enum class SweepParam { decode_batch, context, chunk, concurrency, isl, osl, tp, gpu, model };

inline constexpr std::size_t kMaxSweepValues = 4096;

// One varied parameter and its values: names (GPUs, models) or canonical decimal integers within its bound.
struct SweepAxis {
    SweepParam param;
    std::string name;                 // sweep_param_name(param): "decode-batch"
    std::vector<std::string> values;  // at most kMaxSweepValues
};

// The parameter named `name` ("decode-batch" or its column "decode_batch"); nullopt for another word.
std::optional<SweepParam> find_sweep_param(std::string_view name);
// As the user writes it: "decode-batch".
std::string sweep_param_name(SweepParam p);
bool is_numeric(SweepParam p);
// The largest value a numeric parameter takes (its library bound), for the flags that set it too.
int64_t sweep_param_max(SweepParam p);
bool is_step_param(SweepParam p);     // a dimension of the timed step: decode batch, context, chunk
bool is_serving_param(SweepParam p);  // a dimension of the serving workload: concurrency, ISL, OSL
// The CSV/JSON column: "decode_batch".
std::string column_name(SweepParam p);
// An axis title with its unit: "decode batch (requests)".
std::string axis_title(SweepParam p);
// The parameter names for messages: "decode-batch, context, ...".
std::string sweep_param_names();

}  // namespace mfusim::planning
