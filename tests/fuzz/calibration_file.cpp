// Fuzz target: a calibration file's JSON (docs/calibration.md), as load_calibration reads it from
// Estimator(calibration=...): loaded, applied over the vllm engine and the H100 (whose constants it may name), and
// used by a roofline estimator of Qwen3-8B on the H100 to time steps; a calibration that loads is written back
// (calibration_json, as `mfusim calibrate` writes) and must load again to the same values.
#include <cmath>

#include "calibration/calibration.hpp"
#include "engine/estimator.hpp"
#include "fuzz_support.hpp"

namespace {

using mfusim::fuzz::handled;
using mfusim::fuzz::require;

// `b` is `a` written and read back: the same in everything that acts. A GPU part without constants acts on no GPU
// (calibrated_gpu returns the profile as it is) and is not written. A calibration with no part that acts (a file
// holding only its version) is written with the step part's defaults (base engine vllm, multipliers 1), so that the
// file is never empty, and reads back as a step fit on vllm: the same times, only the engine it applies over is
// then named.
void same(const mfusim::calibration::Calibration& a, const mfusim::calibration::Calibration& b) {
    const bool gpu_part = !a.gpu.constants.empty();
    require(!(a.step_fit || gpu_part) || (a.step_fit == b.step_fit && a.base_engine == b.base_engine),
            "written back: same engine");
    require(a.engine_terms == b.engine_terms, "written back: same engine terms");
    require(a.efficiency.multiplier == b.efficiency.multiplier, "written back: same multipliers");
    require(a.gpu.constants == b.gpu.constants && (!gpu_part || a.gpu.gpu == b.gpu.gpu), "written back: same GPU");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text = mfusim::fuzz::as_text(data, size);
    if (text.empty() || text.front() != '{') return 0;  // a path otherwise: not this target's input
    handled([&] {
        const mfusim::calibration::Calibration cal = mfusim::calibration::load_calibration(text);
        for (double m : cal.efficiency.multiplier) require(std::isfinite(m) && m > 0, "multipliers finite, positive");
        for (const auto& [name, value] : cal.engine_terms) require(std::isfinite(value), "engine terms finite");
        same(cal, mfusim::calibration::load_calibration(mfusim::calibration::calibration_json(cal, {}, {})));

        mfusim::engine::Options o;
        o.model = "qwen3-8b";
        o.gpu = cal.gpu.gpu.empty() ? "H100" : cal.gpu.gpu;
        o.calibration = text;
        handled([&] {
            const mfusim::engine::Estimator est(o);
            const mfusim_request step[] = {{2048, 4096, 0, 0}, {1, 100, 0, 0}, {1, 30000, 0, 0}};
            for (std::size_t n = 0; n <= 3; ++n) {
                const double us = est.step_time_us(step, n);
                require(std::isfinite(us) && us >= 0, "calibrated step time finite and not negative");
            }
            mfusim_serving_result r{};
            r.struct_size = sizeof r;
            handled([&] { est.serve(mfusim::serving::Workload{}, r); });
        });
    });
    return 0;
}
