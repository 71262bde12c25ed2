// Every number of a GPU profile, described once (issue #25): its JSON key and GpuProfile member, unit, the range a
// JSON profile may give it, whether a profile written from scratch must, and, for the model constants that
// `calibrate --kernels` fits, the family that mainly determines it with the fit's bounds and coarse grid. The JSON
// reader (overrides.cpp), the kernel fit's table (calibrate/kernel_fit.cpp), the name lists of messages and the
// tables of docs/gpu-profiles.md and docs/calibration.md (tests/unit/tunables_test.cpp writes and checks them)
// all read this table. Adding a constant is one row here plus its use (docs/extending.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/gpu_profile.hpp"

namespace mfusim::gpu {

struct GpuConstant {
    const char* key;  // JSON key, GpuProfile member name
    double GpuProfile::*number = nullptr;
    int32_t GpuProfile::*integer = nullptr;
    const char* unit;
    // The range a JSON profile may set: wide (no real GPU is near its ends), and with positive lower bounds where
    // the models divide by the value, so every time stays finite. 0 is also accepted where zero_is_none.
    double json_min, json_max;
    bool zero_is_none = false;
    bool datasheet = false;  // required in a profile that names no base (the rest default to the H100's)
    const char* doc = "";    // one sentence: what it is
    // Fitted by `calibrate --kernels` when fit_family is set: the compare family that mainly determines it, the
    // physical bounds of a fit (inside the JSON range: a fitted value must load), and the coarse grid tried.
    const char* fit_family = nullptr;
    double fit_min = 0, fit_max = 0;
    std::vector<double> fit_grid = {};
};

// In one order: the datasheet, then the model constants, fitted ones in the order their families are fitted.
const std::vector<GpuConstant>& gpu_constants();
const GpuConstant* find_gpu_constant(const std::string& key);

// One fitted constant: a GpuProfile field (the JSON profile key), the measured family that determines it, its
// physical bounds and the coarse grid the search starts from: the fitted rows of gpu::gpu_constants().
struct KernelConstant {
    const char* name;  // GpuProfile field and JSON profile key
    double GpuProfile::*member;
    const char* family;  // the compare family that mainly determines it (others may depend on it too)
    const char* unit;
    double min, max;           // physical bounds; a calibration file outside them is refused
    std::vector<double> grid;  // coarse values tried (inside the bounds, increasing)
};
const std::vector<KernelConstant>& kernel_constants();
// The entry of `name`, or nullptr.
const KernelConstant* find_kernel_constant(const std::string& name);
// "memory_efficiency, gemm_max_efficiency, ...", for messages.
std::string kernel_constant_names();

}  // namespace mfusim::gpu
