// Fitting calibrations (docs/calibration.md) through the C API: the runs `mfusim calibrate --steps|--kernels` make.
#include <mfusim.h>

#include <algorithm>
#include <memory>
#include <string>

#include "api/boundary.hpp"
#include "api/handles.hpp"
#include "api/layouts.hpp"
#include "api/options.hpp"
#include "calibrate/calibrate_run.hpp"
#include "common/error.hpp"

using mfusim::api::guarded;
using mfusim::api::require;

extern "C" {

mfusim_status mfusim_calibrate_steps(const mfusim_options* options, const char* steps_path, int32_t folds,
                                     mfusim_calibration** out, mfusim_error* error) {
    return guarded(error, [&] {
        require(out != nullptr, "out is NULL");
        require(steps_path != nullptr, "steps_path is NULL: pass a JSONL file of measured steps");
        const mfusim_options o = mfusim::api::read_versioned(options, mfusim::api::default_options(), "options");
        const mfusim::engine::Options given = mfusim::api::to_engine_options(o, false);
        // The caller's settings first, then the trace's header (as the CLI's flags come before it).
        auto options_for = [&](const mfusim::calibrate::TraceHeader& header) {
            mfusim::engine::Options e = given;
            if (e.model.empty() && header.model) e.model = *header.model;
            if (e.gpu.empty() && header.gpu) e.gpu = *header.gpu;
            if (e.engine.empty() && header.engine) e.engine = *header.engine;
            // tensor_parallel 0 takes the header's tp (else 1); any other value is the caller's and wins, as the
            // CLI's --tp does. 1 is also mfusim_options_init's default, which cannot be told from a value the
            // caller chose: against a header naming another tp it is an error, never silently one or the other.
            if (e.deployment.tensor_parallel == 0) {
                e.deployment.tensor_parallel = header.tp.value_or(1);
            } else if (e.deployment.tensor_parallel == 1 && header.tp && *header.tp != 1) {
                throw mfusim::Error(mfusim::Status::invalid_argument,
                                    "options.tensor_parallel is 1 but the steps' header says tp " +
                                        std::to_string(*header.tp) +
                                        ": set tensor_parallel to 0 to take the header's, or to the tp the steps "
                                        "were measured at");
            }
            require(!e.model.empty(), "options.model is NULL and the steps' header names no model");
            require(!e.gpu.empty(), "options.gpu is NULL and the steps' header names no gpu");
            return e;
        };
        auto calibration = std::make_unique<mfusim_calibration>();
        calibration->run = mfusim::calibrate::run_step_calibration(
            steps_path, options_for, folds == 0 ? 5 : static_cast<std::size_t>(std::max(folds, 1)));
        *out = calibration.release();
    });
}

mfusim_status mfusim_calibrate_kernels(const mfusim_options* options, const char* kernels_dir, mfusim_calibration** out,
                                       mfusim_error* error) {
    return guarded(error, [&] {
        require(out != nullptr, "out is NULL");
        require(kernels_dir != nullptr, "kernels_dir is NULL: pass an AIConfigurator-format kernel directory");
        const mfusim_options o = mfusim::api::read_versioned(options, mfusim::api::default_options(), "options");
        require(o.gpu != nullptr, "options.gpu is NULL: pass the GPU the kernels were measured on");
        auto calibration = std::make_unique<mfusim_calibration>();
        calibration->run =
            mfusim::calibrate::run_kernel_calibration(kernels_dir, o.gpu, o.bench_data_dir ? o.bench_data_dir : "");
        *out = calibration.release();
    });
}

void mfusim_calibration_free(mfusim_calibration* calibration) {
    delete calibration;
}

const char* mfusim_calibration_document(const mfusim_calibration* calibration) {
    return calibration ? calibration->run.document.c_str() : nullptr;
}

const char* mfusim_calibration_report(const mfusim_calibration* calibration) {
    return calibration ? calibration->run.report.c_str() : nullptr;
}

int32_t mfusim_calibration_improved(const mfusim_calibration* calibration) {
    return calibration && calibration->run.improved ? 1 : 0;
}

}  // extern "C"
