#include "query/query.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "common/error.hpp"

namespace mfusim::query {

void Report::set(std::string name, double value) {
    for (auto& entry : values) {
        if (entry.first == name) {
            entry.second = value;
            return;
        }
    }
    values.emplace_back(std::move(name), value);
}

const double* Report::find(const std::string& name) const {
    for (const auto& entry : values) {
        if (entry.first == name) return &entry.second;
    }
    return nullptr;
}

namespace {
std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& part : parts) out += (out.empty() ? "" : " | ") + part;
    return out;
}
}  // namespace

std::string Report::joined_warnings() const {
    return join(warnings);
}
std::string Report::joined_soft_errors() const {
    return join(soft_errors);
}

void clear_step_result(mfusim_step_result& result) {
    std::size_t size = result.struct_size;
    std::memset(&result, 0, sizeof result);
    result.struct_size = size;
    result.n_ops = MFUSIM_OP_COUNT;
}

void validate_requests(const mfusim_request* requests, std::size_t n) {
    constexpr int64_t kMaxTokens = kMaxStepTokens;
    if (n > 0 && requests == nullptr) throw Error(Status::invalid_argument, "requests is NULL but n_requests > 0");
    int64_t total_new = 0, total_context = 0;  // each term <= 2^40 and the sums stop at 2^40: no overflow
    for (std::size_t i = 0; i < n; ++i) {
        const mfusim_request& r = requests[i];
        auto fail = [&](const std::string& what) {
            throw Error(Status::invalid_argument, "request " + std::to_string(i) + ": " + what);
        };
        if (r.new_tokens < 0) fail("new_tokens is negative (" + std::to_string(r.new_tokens) + ")");
        if (r.context < 0) fail("context is negative (" + std::to_string(r.context) + ")");
        if (r.new_tokens > kMaxTokens || r.context > kMaxTokens) {
            fail("more than 2^40 tokens: no engine schedules that; check the units");
        }
        if (r.reserved != 0) fail("reserved must be 0");
        if ((r.flags & ~MFUSIM_REQUEST_NO_OUTPUT) != 0) fail("unknown flag bits set");
        total_new += r.new_tokens;
        total_context += r.context;
        if (total_new > kMaxTokens || total_context > kMaxTokens) {
            fail(std::string("the step's ") + (total_new > kMaxTokens ? "new tokens" : "contexts") +
                 " add up to more than 2^40 tokens: no engine schedules that; check the units");
        }
    }
}

std::optional<double> parse_moe_routing(std::string_view text) {
    if (text == "random") return 0.0;
    constexpr std::string_view prefix = "power-law:";
    if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
    const std::string number(text.substr(prefix.size()));
    char* end = nullptr;
    const double alpha = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size()) return std::nullopt;
    if (!(alpha > 0 && alpha <= kMaxMoeRoutingAlpha)) return std::nullopt;
    return alpha;
}

}  // namespace mfusim::query
