#include "cli/sweep_axis.hpp"

#include "cli/args.hpp"
#include "common/numbers.hpp"

namespace mfusim::cli {

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

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        std::size_t end = text.find(sep, start);
        out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return out;
        start = end + 1;
    }
}

int64_t integer(const std::string& text, const std::string& flag, const ParamInfo& param) {
    auto v = parse_int64(text);
    if (!v || *v < 0) throw UsageError(flag + ": '" + text + "' is not a non-negative integer");
    if (*v > param.max) {
        throw UsageError(flag + ": " + param.name + " " + text + " is above its limit of " + std::to_string(param.max));
    }
    return *v;
}

}  // namespace

int64_t sweep_param_max(SweepParam p) {
    return info(p).max;
}

SweepAxis parse_sweep_axis(const std::string& spec, const std::string& flag) {
    std::size_t eq = spec.find('=');
    if (eq == std::string::npos) {
        throw UsageError(flag + " expects PARAM=VALUES (e.g. decode-batch=1..512), got '" + spec + "'");
    }
    std::string name = spec.substr(0, eq), list = spec.substr(eq + 1);
    const ParamInfo* found = nullptr;
    for (const ParamInfo& i : kParams) {
        if (name == i.name || name == i.column) found = &i;
    }
    if (found == nullptr) throw UsageError(flag + ": unknown parameter '" + name + "'; one of " + sweep_param_names());
    SweepAxis axis{found->param, found->name, {}};
    auto add = [&](std::string value) {
        if (axis.values.size() >= kMaxSweepValues) {
            throw UsageError(flag + ": more than " + std::to_string(kMaxSweepValues) + " values");
        }
        axis.values.push_back(std::move(value));
    };
    for (const std::string& item : split(list, ',')) {
        if (item.empty()) throw UsageError(flag + ": empty value in '" + list + "'");
        std::size_t dots = item.find("..");
        if (!is_numeric(axis.param)) {
            add(item);
        } else if (dots == std::string::npos) {
            add(std::to_string(integer(item, flag, *found)));
        } else {
            // A..B doubles from A (the scale most serving quantities are explored on); A..B:S steps by S.
            std::string rest = item.substr(dots + 2);
            std::size_t colon = rest.find(':');
            int64_t from = integer(item.substr(0, dots), flag, *found);
            int64_t to = integer(rest.substr(0, colon), flag, *found);
            if (to < from) throw UsageError(flag + ": range '" + item + "' runs backwards");
            if (colon != std::string::npos) {
                auto step = parse_int64(rest.substr(colon + 1));
                if (!step || *step <= 0) throw UsageError(flag + ": range '" + item + "' needs a positive step");
                // Checked: v + step must not overflow past `to` (a step near 2^63).
                for (int64_t v = from;; v += *step) {
                    add(std::to_string(v));
                    if (*step > to - v) break;
                }
            } else {
                if (from <= 0) throw UsageError(flag + ": a doubling range '" + item + "' must start above 0");
                for (int64_t v = from;; v *= 2) {
                    add(std::to_string(v));
                    if (v > to / 2) break;  // checked: 2v would pass `to` (or overflow)
                }
            }
        }
    }
    return axis;
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

}  // namespace mfusim::cli
