// The engines' overlap scheduler (EngineProfile::overlap_scheduler, docs/simulate.md section 2): the batch of
// step n+1 is taken while step n runs (TensorRT-LLM's PyExecutor._executor_loop_overlap and SGLang's
// Scheduler.event_loop_overlap fetch and schedule, launch, and only then wait for the previous step), so a request
// arriving during a step joins the step after next. The built-in `trtllm` and `sglang` profiles have it on, as the
// engines do by default; each test compares it with the same profile off.
#include <gtest/gtest.h>

#include <string>

#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "simulate/simulator.hpp"

namespace mfusim::simulate {
namespace {

roofline::RooflineModel model(const std::string& engine, const std::string& name = "qwen3-8b") {
    return roofline::RooflineModel(config::parse_model_config(config::resolve_model_source(name)),
                                   gpu::resolve_gpu("H100"), nullptr, query::Deployment{},
                                   engines::resolve_engine(engine));
}

Result run(const roofline::RooflineModel& m, int64_t clients, int64_t isl, int64_t osl) {
    Options o;
    o.scheduler = scheduler_config(m.engine());
    o.workload.arrivals.max_concurrency = clients;
    o.workload.num_prompts = 12 * clients;
    o.workload.warmup = 2 * clients;
    o.workload.input = {LengthDistribution::Kind::uniform, static_cast<double>(isl), 0.1 * static_cast<double>(isl)};
    o.workload.output = {LengthDistribution::Kind::uniform, static_cast<double>(osl), 0.1 * static_cast<double>(osl)};
    return simulate(m, o);
}

constexpr const char* kOff = R"({"base":"trtllm","overlap_scheduler":false})";

TEST(TrtllmOverlapScheduler, OnInTheBuiltInProfilesAndReadFromJson) {
    EXPECT_TRUE(engines::resolve_engine("trtllm").overlap_scheduler);
    EXPECT_FALSE(engines::resolve_engine("vllm").overlap_scheduler);
    EXPECT_TRUE(engines::resolve_engine("sglang").overlap_scheduler);
    EXPECT_FALSE(engines::resolve_engine(kOff).overlap_scheduler);
}

// SGLang turns its overlap loop off for a model with recurrent layers (ServerArgs._handle_mamba_radix_cache), the
// case its serial_host_step_us charges; TensorRT-LLM, which charges no such term, keeps it.
TEST(TrtllmOverlapScheduler, SglangTurnsItOffForRecurrentModels) {
    EXPECT_TRUE(model("sglang").overlaps_scheduling());
    EXPECT_FALSE(model("sglang", "qwen3.5-35b-a3b").overlaps_scheduling());
    EXPECT_TRUE(model("trtllm", "qwen3.5-35b-a3b").overlaps_scheduling());
    EXPECT_FALSE(model(kOff).overlaps_scheduling());
}

// With clients that keep the engine decoding, a new prompt arrives during a step and, its batch already taken,
// waits for the step after it: TTFT grows by one step (about one TPOT), half a step more than the wait for the
// running step's end that both loops share; TPOT barely moves (the decodes run back to back either way).
TEST(TrtllmOverlapScheduler, ArrivalDuringAStepWaitsOneStepMore) {
    const Result off = run(model(kOff), 8, 1024, 256);
    const Result on = run(model("trtllm"), 8, 1024, 256);
    const double added = (on.ttft_ms.mean - off.ttft_ms.mean) / off.tpot_ms.mean;
    EXPECT_GT(added, 0.6) << on.ttft_ms.mean << " vs " << off.ttft_ms.mean;
    EXPECT_LT(added, 1.4);
    EXPECT_NEAR(on.tpot_ms.mean / off.tpot_ms.mean, 1, 0.03);
}

// An idle engine's fetch blocks, so a prompt reaching it starts at once: one client at a time sees no difference.
TEST(TrtllmOverlapScheduler, IdleEngineStartsAtOnce) {
    const Result off = run(model(kOff), 1, 1024, 64);
    const Result on = run(model("trtllm"), 1, 1024, 64);
    EXPECT_DOUBLE_EQ(on.ttft_ms.mean, off.ttft_ms.mean);
    EXPECT_DOUBLE_EQ(on.tpot_ms.mean, off.tpot_ms.mean);
}

}  // namespace
}  // namespace mfusim::simulate
