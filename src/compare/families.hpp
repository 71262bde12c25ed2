// The measured kernels of the families large models run (../shared/reference/measured/aic-<gpu>-families, read by
// `compare --aic` beside the GEMM, attention and all-reduce files): fused MoE, the MLA and DSA attention modules and
// the MLA kernel alone, the Gated-DeltaNet and Mamba2 kernels, DeepEP dispatch and combine. Each row keeps the
// inputs of its kernel model (roofline/families.hpp); docs/kernel-families.md lists the files, units and splits.
#pragma once

#include <string>
#include <vector>

#include "compare/compare.hpp"

namespace mfusim::compare {

// Reads every families file present under `dir` into `measured` (families, files, notes) and appends each file's
// name and fingerprint to `identity`. Files absent are skipped silently (a GPU measures some families only).
// `routers`: the model configs' MoE routers (read_moe_routers); a moe row whose shape one of them routes takes its
// expert groups.
void read_large_model_families(const std::string& dir, MeasuredKernels& measured, std::string& identity,
                               const std::vector<MoeRouter>& routers = {});

// Whether `family` is one of them, and its prediction for a row.
bool is_large_model_family(const std::string& family);
double predict_large_model_row(const std::string& family, const MeasuredRow& row, const gpu::GpuProfile& gpu);

}  // namespace mfusim::compare
