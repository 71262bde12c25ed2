// Calibration from measured steps (docs/calibration.md): the trace reader, the calibration file, and the fit's
// ability to recover coefficients that generated the steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "calibrate/step_fit.hpp"
#include "calibrate/step_trace.hpp"
#include "calibration/calibration.hpp"
#include "common/error.hpp"
#include "engine/estimator.hpp"

namespace mfusim {
namespace {

engine::Options deployment(int64_t tp, const std::string& calibration = "") {
    engine::Options o;
    o.model = "qwen3-8b";
    o.gpu = "H100";
    o.deployment.tensor_parallel = tp;
    o.calibration = calibration;
    return o;
}

// A mix of decode-only, mixed and prefill-only steps of many sizes, as a serving engine runs them.
std::vector<std::vector<mfusim_request>> synthetic_steps(std::size_t count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    std::vector<std::vector<mfusim_request>> steps;
    for (std::size_t i = 0; i < count; ++i) {
        std::vector<mfusim_request> step;
        const int64_t kind = uniform(0, 2);  // 0 decode-only, 1 mixed, 2 prefill-only
        if (kind != 2) {
            for (int64_t d = uniform(1, 256); d > 0; --d) step.push_back({1, uniform(64, 16384), 0u, 0u});
        }
        if (kind != 0) {
            for (int64_t p = uniform(1, 3); p > 0; --p) step.push_back({uniform(16, 4096), uniform(0, 8192), 0u, 0u});
        }
        steps.push_back(std::move(step));
    }
    return steps;
}

// The truth the steps are generated from: every coefficient away from its default.
const char* kTruth = R"({"mfusim_calibration": 1, "base_engine": "vllm",
    "engine": {"step_us": 900, "request_us": 12, "layer_us": 25, "eager_layer_us": 40, "tp_sync_us": 150},
    "efficiency": {"gemm": 1.3, "prefill_attention": 0.8, "decode_attention": 1.6, "communication": 1.4}})";

calibrate::StepTrace trace_from(const std::vector<std::vector<mfusim_request>>& steps, const engine::Estimator& truth,
                                double noise, uint64_t seed) {
    std::mt19937_64 rng(seed);
    // Uniform multiplicative noise of standard deviation `noise` (half-width sqrt(3) sd): portable across
    // standard libraries, unlike std::normal_distribution.
    std::uniform_real_distribution<double> u(-std::sqrt(3.0) * noise, std::sqrt(3.0) * noise);
    calibrate::StepTrace trace;
    trace.origin = "synthetic";
    for (std::size_t i = 0; i < steps.size(); ++i) {
        calibrate::TraceStep s;
        s.first_request = trace.requests.size();
        s.request_count = steps[i].size();
        s.line = i + 1;
        s.measured_us = truth.step_time_us(steps[i].data(), steps[i].size()) * (1 + u(rng));
        s.group = "workload-" + std::to_string(i % 7);
        trace.requests.insert(trace.requests.end(), steps[i].begin(), steps[i].end());
        trace.steps.push_back(s);
    }
    return trace;
}

double coefficient(const calibrate::StepFit& fit, const std::string& name) {
    for (const calibrate::Coefficient& c : fit.coefficients) {
        if (c.name == name) return c.value;
    }
    ADD_FAILURE() << "no coefficient " << name;
    return 0;
}

TEST(StepCalibration, RecoversGeneratingCoefficientsAndCrossValidatesAtTheNoiseLevel) {
    const double noise = std::getenv("NOISE") ? std::atof(std::getenv("NOISE")) : 0.03;
    const engine::Estimator truth(deployment(2, kTruth));
    const engine::Estimator base(deployment(2));
    const calibrate::StepTrace trace = trace_from(synthetic_steps(3000, 11), truth, noise, 12);
    const calibrate::LinearisedSteps steps = calibrate::linearise_steps(trace, base);
    ASSERT_EQ(steps.grouping, "given");
    ASSERT_EQ(steps.groups.size(), 7u);
    const calibrate::StepFit fit = calibrate::fit_steps(steps, "vllm");
    ASSERT_TRUE(fit.cross_validated);
    EXPECT_EQ(fit.folds, 5u);
    if (std::getenv("SHOW")) std::puts(calibrate::format_step_fit(fit).c_str());

    const calibration::Calibration want = calibration::load_calibration(kTruth);
    // Tolerances follow each coefficient's share of the step time: with 3% noise per step, a family that is a
    // large share of many steps is pinned to a few percent, a small one much less.
    // GEMMs, prefill and decode attention: tens of percent of their steps; within 6% of the truth.
    using roofline::EfficiencyFamily;
    for (EfficiencyFamily f :
         {EfficiencyFamily::gemm, EfficiencyFamily::prefill_attention, EfficiencyFamily::decode_attention}) {
        const double expected = want.efficiency[f];
        EXPECT_NEAR(coefficient(fit, roofline::family_name(f)), expected, 0.06 * expected) << roofline::family_name(f);
    }
    // TP-2 all-reduces over NVLink: a few percent of a step, so 3% noise moves their multiplier by ~20%; within 30%.
    EXPECT_NEAR(coefficient(fit, "communication"), 1.4, 0.3 * 1.4);
    // Per-request time: 12 us against steps of milliseconds that also grow with the batch; within 10 us.
    EXPECT_NEAR(coefficient(fit, "request_us"), 12, 10);
    // Eager layers: 36 x 40 us in every step with a prefill chunk; within 20%.
    EXPECT_NEAR(coefficient(fit, "eager_layer_us"), 40, 0.2 * 40);
    // step_us, layer_us and tp_sync_us are the same in every non-empty step of one deployment: only their sum is
    // identified, and the fit says so. The sum is recovered within 5%.
    const double layers = 36;  // Qwen3-8B
    const double sum =
        coefficient(fit, "step_us") + layers * coefficient(fit, "layer_us") + coefficient(fit, "tp_sync_us");
    EXPECT_NEAR(sum, 900 + layers * 25 + 150, 0.05 * (900 + layers * 25 + 150));
    EXPECT_FALSE(fit.notes.empty());

    // Held-out error near the noise: the median |error| of uniform noise of sd 3% is 2.6%; the fit adds little.
    const calibrate::GroupScore& all = fit.groups.back();
    EXPECT_EQ(all.group, "(all)");
    EXPECT_LT(all.test.median_abs, 1.25 * std::sqrt(3.0) * noise / 2);
    EXPECT_GT(all.test.median_abs, 0.5 * std::sqrt(3.0) * noise / 2);
    EXPECT_TRUE(fit.improved);
    EXPECT_GT(all.before.median_abs, 2 * all.test.median_abs);
    for (const calibrate::Coefficient& c : fit.coefficients) {
        EXPECT_LE(c.fold_min, c.value);
        EXPECT_GE(c.fold_max, c.value);
        EXPECT_GE(c.fold_min, c.lower);
        EXPECT_LE(c.fold_max, c.upper);
    }
}

TEST(StepCalibration, ADefaultModelIsNotImprovedAndGroupsByCompositionWhenUnnamed) {
    const engine::Estimator base(deployment(1));
    calibrate::StepTrace trace = trace_from(synthetic_steps(400, 3), base, 0.03, 4);
    for (calibrate::TraceStep& s : trace.steps) s.group.reset();
    const calibrate::StepFit fit = calibrate::fit_steps(calibrate::linearise_steps(trace, base), "vllm");
    EXPECT_EQ(fit.grouping, "composition");
    EXPECT_TRUE(fit.cross_validated);
    // The defaults generated the steps: no calibration can beat them on held-out steps by more than noise.
    EXPECT_NEAR(fit.groups.back().test.median_abs, fit.groups.back().before.median_abs, 0.01);
    const std::string classes = [&] {
        std::string s;
        for (const calibrate::GroupScore& g : fit.groups) s += g.group + ";";
        return s;
    }();
    EXPECT_NE(classes.find("decode-only/"), std::string::npos) << classes;
    EXPECT_NE(classes.find("prefill-only/"), std::string::npos) << classes;
    EXPECT_NE(classes.find("mixed/"), std::string::npos) << classes;
}

TEST(CalibrationFile, RoundTripsAndScalesStepTimeAsItsCoefficientsSay) {
    calibration::Calibration c;
    c.base_engine = "vllm";
    c.efficiency.at(roofline::EfficiencyFamily::gemm) = 2.0;
    c.efficiency.at(roofline::EfficiencyFamily::decode_attention) = 0.5;
    const engine::Estimator base(deployment(1));
    const double request_us = base.roofline()->engine().request_us + 10;
    c.engine_terms = {{"request_us", request_us}};
    const std::string text =
        calibration::calibration_json(c, {{"steps", "none"}}, {{"cross_validation", {{"folds", 0}}}});
    const calibration::Calibration back = calibration::load_calibration(text);
    EXPECT_EQ(back.base_engine, "vllm");
    EXPECT_EQ(back.efficiency.multiplier, c.efficiency.multiplier);
    EXPECT_EQ(back.engine_terms, c.engine_terms);

    const engine::Estimator calibrated(deployment(1, text));
    std::vector<mfusim_request> step{{1, 2000, 0u, 0u}, {1, 500, 0u, 0u}, {512, 0, 0u, 0u}};
    mfusim_step_result before{}, after{};
    before.struct_size = after.struct_size = sizeof before;
    base.step_detail(step.data(), step.size(), before);
    calibrated.step_detail(step.data(), step.size(), after);
    double gemm = 0;
    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
        if (roofline::family_of(op) == roofline::EfficiencyFamily::gemm) gemm += before.ops[op].time_us;
    }
    const double expected = before.total_us + gemm - 0.5 * before.ops[MFUSIM_OP_ATTN_DECODE].time_us + 10 * 3;
    EXPECT_NEAR(after.total_us, expected, 1e-9 * expected);
    EXPECT_DOUBLE_EQ(calibrated.step_time_us(step.data(), step.size()), after.total_us);  // one evaluator
    EXPECT_NEAR(after.ops[MFUSIM_OP_ATTN_DECODE].time_us, 0.5 * before.ops[MFUSIM_OP_ATTN_DECODE].time_us, 1e-9);
}

TEST(CalibrationFile, RefusesWhatItCannotApply) {
    auto status_of = [](const std::string& text, engine::Options o = deployment(1)) {
        o.calibration = text;
        try {
            engine::Estimator e(o);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("ok");
    };
    EXPECT_NE(status_of(R"({"mfusim_calibration": 3})").find("version 3 is not one this library reads"),
              std::string::npos);
    EXPECT_NE(status_of(R"({"engine": {}})").find("not a calibration file"), std::string::npos);
    EXPECT_NE(status_of(R"({"mfusim_calibration": 1, "efficiency": {"gemm": 9}})").find("efficiency.gemm"),
              std::string::npos);
    EXPECT_NE(status_of(R"({"mfusim_calibration": 1, "efficiency": {"flash": 1}})").find("not a kernel family"),
              std::string::npos);
    EXPECT_NE(status_of(R"({"mfusim_calibration": 1, "engine": {"step_us": -1}})").find("engine.step_us"),
              std::string::npos);
    EXPECT_NE(status_of(R"({"mfusim_calibration": 1, "engine": {"warp_us": 1}})").find("not a calibrated engine term"),
              std::string::npos);
    engine::Options sglang = deployment(1);
    sglang.engine = "sglang";
    EXPECT_NE(status_of(R"({"mfusim_calibration": 1, "base_engine": "vllm"})", sglang).find("fitted on top of engine"),
              std::string::npos);
    engine::Options compat = deployment(1);
    compat.mode = engine::Mode::infersim;
    EXPECT_NE(status_of(R"({"mfusim_calibration": 1})", compat).find("roofline options"), std::string::npos);
    EXPECT_EQ(status_of(R"({"mfusim_calibration": 1})"), "ok");
}

TEST(StepTrace, ReadsHeaderGroupsAndFlags) {
    const calibrate::StepTrace t = calibrate::parse_step_trace(
        "steps.jsonl",
        "{\"model\": \"qwen3-8b\", \"gpu\": \"H100\", \"tp\": 2, \"engine\": \"vllm\", \"group\": \"run-a\"}\n"
        "\n"
        "{\"requests\": [{\"new_tokens\": 1, \"context\": 100}, {\"new_tokens\": 64, \"context\": 0, \"flags\": 1}],"
        " \"measured_us\": 1234.5}\r\n"
        "{\"requests\": [{\"new_tokens\": 1, \"context\": 7, \"no_output\": true}], \"measured_us\": 99, "
        "\"group\": \"run-b\"}\n");
    EXPECT_EQ(t.header.model.value_or(""), "qwen3-8b");
    EXPECT_EQ(t.header.tp.value_or(0), 2);
    EXPECT_EQ(t.header.group.value_or(""), "run-a");
    ASSERT_EQ(t.steps.size(), 2u);
    EXPECT_EQ(t.steps[0].line, 3u);
    EXPECT_EQ(t.steps[0].request_count, 2u);
    EXPECT_DOUBLE_EQ(t.steps[0].measured_us, 1234.5);
    EXPECT_FALSE(t.steps[0].group.has_value());
    EXPECT_EQ(t.steps[1].group.value_or(""), "run-b");
    ASSERT_EQ(t.requests.size(), 3u);
    EXPECT_EQ(t.requests[1].flags, MFUSIM_REQUEST_NO_OUTPUT);
    EXPECT_EQ(t.requests[2].flags, MFUSIM_REQUEST_NO_OUTPUT);
}

TEST(StepTrace, ErrorsNameFileLineAndField) {
    auto message = [](const std::string& text) {
        try {
            calibrate::parse_step_trace("steps.jsonl", text);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("ok");
    };
    const std::string ok = "{\"requests\": [{\"new_tokens\": 1, \"context\": 1}], \"measured_us\": 5}\n";
    EXPECT_EQ(message(ok + "{\"requests\": [], \"measured_us\": 5"),
              "steps.jsonl:2:34: invalid JSON: syntax error "
              "while parsing object - unexpected end of "
              "input; expected '}'");
    EXPECT_NE(message(ok + "{\"requests\": []}").find("steps.jsonl:2: field 'measured_us': missing"),
              std::string::npos);
    EXPECT_NE(message(ok + "{\"requests\": [], \"measured_us\": 0}").find("steps.jsonl:2: field 'measured_us'"),
              std::string::npos);
    // A step without "requests" (a const json's operator[] of the missing key read past the object: fuzzing).
    EXPECT_EQ(message(ok + "{\"measured_us\": 5, \"group\": \"g0\"}"),
              "steps.jsonl:2: field 'requests': missing (required): an array of requests");
    EXPECT_NE(message(ok + "{\"requests\": [{\"new_tokens\": 1, \"context\": -3}], \"measured_us\": 5}")
                  .find("steps.jsonl:2: field 'requests[0].context': must not be negative"),
              std::string::npos);
    EXPECT_NE(message(ok + "{\"requests\": [{\"new_tokens\": 1.5}], \"measured_us\": 5}")
                  .find("field 'requests[0].new_tokens': expected an integer"),
              std::string::npos);
    EXPECT_NE(message(ok + "{\"requests\": [{\"new_tokens\": 1, \"flags\": 6}], \"measured_us\": 5}")
                  .find("field 'requests[0].flags': unknown bits"),
              std::string::npos);
    EXPECT_NE(message(ok + "{\"requests\": [], \"measured_us\": 5, \"latency\": 1}").find("field 'latency': unknown"),
              std::string::npos);
    EXPECT_NE(message(ok + "{\"model\": \"x\"}").find("steps.jsonl:2: a header line"), std::string::npos);
    EXPECT_NE(message("[1, 2]").find("steps.jsonl:1: expected a step"), std::string::npos);
    EXPECT_NE(message("{\"tp\": 0}").find("field 'tp': must be between 1 and 65536, found 0"), std::string::npos);
}

}  // namespace
}  // namespace mfusim
