// Fuzz target: a step trace, the JSONL of measured steps `mfusim calibrate --steps` and mfusim_calibrate_steps read
// (calibrate/step_trace.hpp): parsed; a trace that parses is linearised on a roofline estimator of Qwen3-8B on the
// H100 (the steps timed once each) and fitted with 2-fold cross-validation when it has at most 64 steps; the fit's
// calibration is written as `mfusim calibrate` writes it and must load back.
#include <cmath>

#include "calibrate/step_fit.hpp"
#include "calibrate/step_trace.hpp"
#include "calibration/calibration.hpp"
#include "engine/estimator.hpp"
#include "fuzz_support.hpp"

using mfusim::fuzz::handled;
using mfusim::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const mfusim::engine::Estimator estimator([] {
        mfusim::engine::Options o;
        o.model = "qwen3-8b";
        o.gpu = "H100";
        return o;
    }());
    const std::string text = mfusim::fuzz::as_text(data, size);
    handled([&] {
        const mfusim::calibrate::StepTrace trace = mfusim::calibrate::parse_step_trace("fuzz.jsonl", text);
        require(!trace.header.tp || *trace.header.tp >= 1, "header tp at least 1");
        std::size_t requests = 0;
        for (const auto& s : trace.steps) {
            require(std::isfinite(s.measured_us) && s.measured_us > 0, "measured time finite and positive");
            require(s.first_request == requests, "steps' requests contiguous");
            requests += s.request_count;
        }
        require(requests == trace.requests.size(), "every request in a step");
        const mfusim::calibrate::LinearisedSteps steps = mfusim::calibrate::linearise_steps(trace, estimator);
        require(steps.rows.size() == trace.steps.size(), "a row per step");
        if (steps.rows.empty() || steps.rows.size() > 64) return;  // a fit per execution stays short
        const mfusim::calibrate::StepFit fit = mfusim::calibrate::fit_steps(steps, "vllm", 2);
        for (const auto& c : fit.coefficients) {
            require(std::isfinite(c.value) && c.value >= c.lower && c.value <= c.upper, "coefficients in bounds");
        }
        const std::string document =
            mfusim::calibration::calibration_json(fit.calibration, {{"steps", "fuzz.jsonl"}}, {});
        mfusim::calibration::load_calibration(document);  // what the library writes, it reads
        mfusim::calibrate::format_step_fit(fit);
    });
    return 0;
}
