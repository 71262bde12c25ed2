// Fuzz target: the engine simulator (src/simulate) driven by arbitrary workloads and scheduler settings, small
// enough to run thousands of times a second: every value the bytes give goes through the simulator's own checks
// (rates and burstiness from raw doubles, NaN and infinities included), and a run that is accepted ends with every
// request completed, every time finite and not negative, and the same numbers when run again.
#include <cmath>

#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "fuzz_support.hpp"
#include "simulate/simulator.hpp"

using mfusim::fuzz::handled;
using mfusim::fuzz::require;
namespace sim = mfusim::simulate;

namespace {

const mfusim::roofline::RooflineModel& model(int which) {
    auto make = [](const char* engine) {
        return mfusim::roofline::RooflineModel(
            mfusim::config::parse_model_config(mfusim::config::resolve_model_source("qwen3-8b")),
            mfusim::gpu::resolve_gpu("H100"), nullptr, mfusim::query::Deployment{},
            mfusim::engines::resolve_engine(engine));
    };
    static const mfusim::roofline::RooflineModel vllm = make("vllm"), sglang = make("sglang"), trtllm = make("trtllm");
    return which == 0 ? vllm : which == 1 ? sglang : trtllm;
}

double raw_double(mfusim::fuzz::Bytes& in) {
    const uint64_t bits = in.u64();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    mfusim::fuzz::Bytes in(data, size);
    const int engine = in.u8() % 3;
    const auto& m = model(engine);
    sim::Options o;
    o.scheduler = sim::scheduler_config(m.engine());
    sim::WorkloadSpec& w = o.workload;
    const uint8_t shape = in.u8();
    w.num_prompts = static_cast<int64_t>(in.u8() % 48) + (shape & 1 ? 0 : 1);  // 0 sometimes: refused
    w.warmup = static_cast<int64_t>(in.u8() % 4);
    w.arrivals.max_concurrency = static_cast<int64_t>(in.u8() % 40);
    if (shape & 2) w.arrivals.request_rate = raw_double(in);
    if (shape & 4) w.arrivals.burstiness = raw_double(in);
    w.arrivals.constant = (shape & 8) != 0;
    const auto kind = static_cast<sim::LengthDistribution::Kind>(in.u8() % 4);
    w.input = {kind, static_cast<double>(in.u16() % 6000), static_cast<double>(in.u16() % 3000)};
    w.output = {kind, static_cast<double>(in.u8()), static_cast<double>(in.u8() % 64)};
    w.num_prefix_prompts = in.u8() % 4;
    w.prefix_len = in.u16() % 5000;
    w.seed = in.u64();
    if (shape & 16) {  // a trace instead
        double t = 0;
        const int n = in.u8() % 24;
        for (int i = 0; i < n; ++i) {
            sim::TraceRequest r;
            t += static_cast<double>(in.u16()) / 1000;
            r.arrival_s = (shape & 32) && i == n / 2 ? raw_double(in) : t;
            r.input_len = static_cast<int64_t>(in.u16() % 6000);
            r.output_len = static_cast<int64_t>(in.u8());
            r.prefix_id = static_cast<int64_t>(in.u8() % 3) - 1;
            r.prefix_len = static_cast<int64_t>(in.u16() % 3000);
            w.trace.push_back(r);
        }
    }
    sim::SchedulerConfig& s = o.scheduler;
    if (shape & 64) {
        s.max_batched_tokens = static_cast<int64_t>(in.u16()) - 8;
        s.max_seqs = static_cast<int64_t>(in.u8()) - 1;
        s.block_tokens = static_cast<int64_t>(in.u8()) - 1;
        s.long_prefill_token_threshold = static_cast<int64_t>(in.u16() % 4096);
        s.chunked_prefill = (in.u8() & 1) != 0;
        s.prefix_caching = (in.u8() & 1) != 0;
        s.gpu_memory_utilization = 0.2 + static_cast<double>(in.u8()) / 255;  // above 1 sometimes: refused
    }
    o.record_timeline = (shape & 128) != 0;
    handled([&] {
        const sim::Result r = sim::simulate(m, o);
        const int64_t total = w.trace.empty() ? w.num_prompts : static_cast<int64_t>(w.trace.size());
        require(r.completed == total - w.warmup, "every measured request completes");
        for (const sim::RequestResult& q : r.requests) {
            for (double v : {q.send_ms, q.ttft_ms, q.tpot_ms, q.e2el_ms, q.queue_ms}) {
                require(std::isfinite(v) && v >= 0, "request times finite and not negative");
            }
            require(q.e2el_ms >= q.ttft_ms, "the last token comes after the first");
        }
        for (double v : {r.duration_s, r.request_throughput, r.output_throughput, r.ttft_ms.p99, r.itl_ms.mean}) {
            require(std::isfinite(v) && v >= 0, "aggregates finite and not negative");
        }
        const sim::Result again = sim::simulate(m, o);
        require(again.steps == r.steps && again.ttft_ms.mean == r.ttft_ms.mean, "the same numbers when run again");
    });
    return 0;
}
