// The parameters `mfusim sweep` can vary, and their value lists: "1,2,4", "1..512" (powers of two), "0..8192:1024"
// (a linear step), or names "H100,H200" for GPUs and models.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mfusim::cli {

enum class SweepParam { decode_batch, context, chunk, concurrency, isl, osl, tp, gpu, model };

struct SweepAxis {
    SweepParam param;
    std::string name;                 // as the user wrote it: "decode-batch"
    std::vector<std::string> values;  // text as given (names), or canonical integers
};

// "PARAM=VALUES"; UsageError naming `flag` for an unknown parameter, malformed or empty values, a value above the
// parameter's bound (sweep_param_max), or over kMaxSweepValues values.
SweepAxis parse_sweep_axis(const std::string& spec, const std::string& flag);

inline constexpr std::size_t kMaxSweepValues = 4096;

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

}  // namespace mfusim::cli
