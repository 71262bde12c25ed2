#include "planning/sweep_params.hpp"

namespace mfusim::planning {

namespace {

struct ParamInfo {
    SweepParam param;
    const char* name;
    const char* column;
    const char* title;
    int64_t max;  // the library's bound on the value (a decode batch is materialised: 2^20 requests, 24 MiB)
};

constexpr int64_t kNoNumber = 0;
const ParamInfo kParams[] = {
    {SweepParam::decode_batch, "decode-batch", "decode_batch", "decode batch (requests)", int64_t{1} << 20},
    {SweepParam::context, "context", "context", "context per decode (tokens)", int64_t{1} << 40},
    {SweepParam::chunk, "chunk", "chunk", "prefill chunk (tokens)", int64_t{1} << 40},
    {SweepParam::concurrency, "concurrency", "concurrency", "concurrency (requests in flight)", int64_t{1} << 20},
    {SweepParam::isl, "isl", "isl", "ISL (prompt tokens)", int64_t{1} << 24},
    {SweepParam::osl, "osl", "osl", "OSL (output tokens)", int64_t{1} << 24},
    {SweepParam::tp, "tp", "tp", "tensor parallel (GPUs)", 65536},
    {SweepParam::gpu, "gpu", "gpu", "GPU", kNoNumber},
    {SweepParam::model, "model", "model", "model", kNoNumber},
};

const ParamInfo& info(SweepParam p) {
    for (const ParamInfo& i : kParams) {
        if (i.param == p) return i;
    }
    return kParams[0];
}

}  // namespace

std::optional<SweepParam> find_sweep_param(std::string_view name) {
    std::optional<SweepParam> found;
    for (const ParamInfo& i : kParams) {
        if (name == i.name || name == i.column) found = i.param;
    }
    return found;
}

std::string sweep_param_name(SweepParam p) {
    return info(p).name;
}

int64_t sweep_param_max(SweepParam p) {
    return info(p).max;
}

bool is_numeric(SweepParam p) {
    return p != SweepParam::gpu && p != SweepParam::model;
}
bool is_step_param(SweepParam p) {
    return p == SweepParam::decode_batch || p == SweepParam::context || p == SweepParam::chunk;
}
bool is_serving_param(SweepParam p) {
    return p == SweepParam::concurrency || p == SweepParam::isl || p == SweepParam::osl;
}
std::string column_name(SweepParam p) {
    return info(p).column;
}
std::string axis_title(SweepParam p) {
    return info(p).title;
}

std::string sweep_param_names() {
    std::string out;
    for (const ParamInfo& i : kParams) out += (out.empty() ? "" : ", ") + std::string(i.name);
    return out;
}

}  // namespace mfusim::planning
