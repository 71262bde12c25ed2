#include "simulate/workload.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "simulate/random.hpp"

namespace mfusim::simulate {

namespace {

constexpr int64_t kMaxLen = int64_t{1} << 24;
// A million requests keep the results (about 200 bytes a request) near 200 MB; 2^32 tokens bound the steps.
constexpr int64_t kMaxPrompts = int64_t{1} << 20;
constexpr int64_t kMaxTokens = int64_t{1} << 32;
constexpr double kMinRequestRate = 1e-3;  // requests per second (validate)

[[noreturn]] void fail(const std::string& field, const std::string& what) {
    throw Error(Status::invalid_argument, "workload." + field + ": " + what);
}

void check_length(const LengthDistribution& d, const std::string& field) {
    if (!(std::isfinite(d.mean) && d.mean >= 1 && d.mean <= static_cast<double>(kMaxLen))) {
        fail(field + ".mean", "must be between 1 and 2^24 tokens, got " + std::to_string(d.mean));
    }
    if (!(std::isfinite(d.spread) && d.spread >= 0 && d.spread <= static_cast<double>(kMaxLen))) {
        fail(field + ".spread", "must be between 0 and 2^24 tokens, got " + std::to_string(d.spread));
    }
}

int64_t clamp_len(double tokens) {
    if (!(tokens >= 1)) return 1;  // NaN cannot arise from the checked inputs; clamp all the same
    return static_cast<int64_t>(std::min(std::nearbyint(tokens), static_cast<double>(kMaxLen)));
}

int64_t draw(const LengthDistribution& d, Rng& rng) {
    switch (d.kind) {
        case LengthDistribution::Kind::fixed:
            return clamp_len(d.mean);
        case LengthDistribution::Kind::uniform: {
            const auto lo = clamp_len(d.mean - d.spread), hi = clamp_len(d.mean + d.spread);
            const auto span = static_cast<uint64_t>(hi - lo + 1);
            return lo + static_cast<int64_t>(rng.next() % span);  // span <= 2^24: the modulo bias is < 2^-40
        }
        case LengthDistribution::Kind::normal:
            return clamp_len(d.mean + d.spread * rng.normal());
        case LengthDistribution::Kind::lognormal: {
            const double s2 = std::log1p((d.spread / d.mean) * (d.spread / d.mean));
            return clamp_len(std::exp(std::log(d.mean) - s2 / 2 + std::sqrt(s2) * rng.normal()));
        }
    }
    return clamp_len(d.mean);
}

}  // namespace

LengthDistribution::Kind length_kind(const std::string& name) {
    for (auto k : {LengthDistribution::Kind::fixed, LengthDistribution::Kind::uniform, LengthDistribution::Kind::normal,
                   LengthDistribution::Kind::lognormal}) {
        if (name == length_kind_name(k)) return k;
    }
    throw Error(Status::invalid_argument,
                "length distribution '" + name + "' is not one of fixed, uniform, normal, lognormal");
}

const char* length_kind_name(LengthDistribution::Kind kind) {
    switch (kind) {
        case LengthDistribution::Kind::fixed:
            return "fixed";
        case LengthDistribution::Kind::uniform:
            return "uniform";
        case LengthDistribution::Kind::normal:
            return "normal";
        case LengthDistribution::Kind::lognormal:
            return "lognormal";
    }
    return "fixed";
}

void validate(const WorkloadSpec& s) {
    const bool traced = !s.trace.empty();
    if (!traced && (s.num_prompts < 1 || s.num_prompts > kMaxPrompts)) {
        fail("num_prompts", "must be between 1 and 2^20, got " + std::to_string(s.num_prompts));
    }
    const int64_t n = traced ? static_cast<int64_t>(s.trace.size()) : s.num_prompts;
    if (traced && n > kMaxPrompts) fail("trace", "holds more than 2^20 requests");
    if (s.warmup < 0 || s.warmup >= n) {
        fail("warmup", "must be at least 0 and fewer than the " + std::to_string(n) + " requests, got " +
                           std::to_string(s.warmup));
    }
    const Arrivals& a = s.arrivals;
    // At least 1e-3 a second: 2^20 requests then arrive within about 1e9 s, the span a trace may cover, where the
    // simulated clock (double) still resolves a microsecond. Slower rates lose the latencies to rounding (1e-300
    // answered a TTFT of 17 ms for 51).
    if (std::isnan(a.request_rate) || a.request_rate < kMinRequestRate ||
        (std::isfinite(a.request_rate) && a.request_rate > 1e9)) {
        fail("request_rate",
             "must be between 0.001 and 1e9 requests per second, or infinite, got " + shortest_text(a.request_rate));
    }
    if (!(std::isfinite(a.burstiness) && a.burstiness >= 1e-3 && a.burstiness <= 1e3)) {
        fail("burstiness", "must be between 0.001 and 1000, got " + std::to_string(a.burstiness));
    }
    if (a.max_concurrency < 0 || a.max_concurrency > (int64_t{1} << 24)) {
        fail("max_concurrency", "must be between 0 (no limit) and 2^24, got " + std::to_string(a.max_concurrency));
    }
    if (!(std::isfinite(a.ramp_up_s) && a.ramp_up_s >= 0 && a.ramp_up_s <= 1e6)) {
        fail("ramp_up_s", "must be between 0 and 1e6 seconds, got " + std::to_string(a.ramp_up_s));
    }
    if (a.ramp_up_s > 0 && (std::isfinite(a.request_rate) || a.max_concurrency == 0 || traced)) {
        fail("ramp_up_s",
             "staggers closed-loop clients: it needs max_concurrency, an infinite request_rate and no trace");
    }
    check_length(s.input, "input");
    check_length(s.output, "output");
    if (s.num_prefix_prompts < 0 || s.num_prefix_prompts > kMaxPrompts) {
        fail("num_prefix_prompts", "must be between 0 and 2^20, got " + std::to_string(s.num_prefix_prompts));
    }
    if (s.prefix_len < 0 || s.prefix_len > kMaxLen) {
        fail("prefix_len", "must be between 0 and 2^24 tokens, got " + std::to_string(s.prefix_len));
    }
    double previous = 0;
    for (std::size_t i = 0; i < s.trace.size(); ++i) {
        const TraceRequest& r = s.trace[i];
        const std::string at = "trace[" + std::to_string(i) + "].";
        if (!(std::isfinite(r.arrival_s) && r.arrival_s >= previous && r.arrival_s <= 1e9)) {
            fail(at + "arrival_s", "must be finite, at most 1e9 s and not before the previous request's");
        }
        previous = r.arrival_s;
        if (r.input_len < 1 || r.input_len > kMaxLen) fail(at + "input_len", "must be between 1 and 2^24");
        if (r.output_len < 1 || r.output_len > kMaxLen) fail(at + "output_len", "must be between 1 and 2^24");
        if (r.prefix_len < 0 || r.prefix_len > r.input_len) {
            fail(at + "prefix_len", "must be between 0 and the request's input_len");
        }
        if (r.prefix_len > 0 && r.prefix_id < 0) fail(at + "prefix_id", "must be >= 0 where prefix_len is set");
    }
}

namespace {

// The whole run computes every prompt and output token at least once: bounded, so a run cannot take hours.
void check_total(const std::vector<TraceRequest>& out) {
    int64_t tokens = 0;
    for (const TraceRequest& r : out) tokens += r.input_len + r.output_len;  // each <= 2^25, at most 2^20 of them
    if (tokens > kMaxTokens) {
        fail("num_prompts",
             "the requests add up to " + std::to_string(tokens) + " tokens, more than the 2^32 a simulation takes");
    }
}

}  // namespace

std::vector<TraceRequest> requests(const WorkloadSpec& s) {
    validate(s);
    if (!s.trace.empty()) {
        check_total(s.trace);
        return s.trace;
    }
    std::vector<TraceRequest> out(static_cast<std::size_t>(s.num_prompts));
    Rng rng(s.seed);
    const Arrivals& a = s.arrivals;
    double t = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        TraceRequest& r = out[i];
        r.input_len = draw(s.input, rng);
        r.output_len = draw(s.output, rng);
        if (s.num_prefix_prompts > 0 && s.prefix_len > 0) {
            r.prefix_id = static_cast<int64_t>(i) % s.num_prefix_prompts;
            r.prefix_len = std::min(s.prefix_len, r.input_len);
        }
        r.arrival_s = t;
        if (a.ramp_up_s > 0) {  // client i starts at i x ramp / c; later requests wait for a slot
            const auto clients = static_cast<double>(a.max_concurrency);
            r.arrival_s = std::min(static_cast<double>(i), clients - 1) * a.ramp_up_s / clients;
        } else if (std::isfinite(a.request_rate)) {
            // vLLM bench: gaps ~ Gamma(shape = burstiness, scale = 1 / (rate x burstiness)), mean 1 / rate.
            const double gap =
                a.constant ? 1.0 / a.request_rate : rng.gamma(a.burstiness) / (a.request_rate * a.burstiness);
            t += gap;
        }
    }
    check_total(out);
    return out;
}

}  // namespace mfusim::simulate
