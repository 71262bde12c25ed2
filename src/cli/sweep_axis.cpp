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
};

const ParamInfo kParams[] = {
    {SweepParam::decode_batch, "decode-batch", "decode_batch", "decode batch (requests)"},
    {SweepParam::context, "context", "context", "context per decode (tokens)"},
    {SweepParam::chunk, "chunk", "chunk", "prefill chunk (tokens)"},
    {SweepParam::concurrency, "concurrency", "concurrency", "concurrency (requests in flight)"},
    {SweepParam::isl, "isl", "isl", "ISL (prompt tokens)"},
    {SweepParam::osl, "osl", "osl", "OSL (output tokens)"},
    {SweepParam::tp, "tp", "tp", "tensor parallel (GPUs)"},
    {SweepParam::gpu, "gpu", "gpu", "GPU"},
    {SweepParam::model, "model", "model", "model"},
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

int64_t integer(const std::string& text, const std::string& flag) {
    auto v = parse_int64(text);
    if (!v || *v < 0) throw UsageError(flag + ": '" + text + "' is not a non-negative integer");
    return *v;
}

}  // namespace

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
            add(std::to_string(integer(item, flag)));
        } else {
            // A..B doubles from A (the scale most serving quantities are explored on); A..B:S steps by S.
            std::string rest = item.substr(dots + 2);
            std::size_t colon = rest.find(':');
            int64_t from = integer(item.substr(0, dots), flag);
            int64_t to = integer(rest.substr(0, colon), flag);
            if (to < from) throw UsageError(flag + ": range '" + item + "' runs backwards");
            if (colon != std::string::npos) {
                int64_t step = integer(rest.substr(colon + 1), flag);
                if (step <= 0) throw UsageError(flag + ": range '" + item + "' needs a positive step");
                for (int64_t v = from; v <= to; v += step) add(std::to_string(v));
            } else {
                if (from <= 0) throw UsageError(flag + ": a doubling range '" + item + "' must start above 0");
                for (int64_t v = from; v <= to; v *= 2) add(std::to_string(v));
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
