// Calibrated efficiency multipliers (docs/calibration.md): a user's measurements may show that a family of kernels
// runs slower or faster on their deployment than the tables and the analytical model say. A multiplier m scales
// that family's kernel time (m = 2: the kernels take twice as long). Which operation belongs to which family is
// stated once here, for the evaluator that applies the multipliers and for the fit that estimates them.
#pragma once

#include <mfusim.h>

#include <array>

namespace mfusim::roofline {

enum class EfficiencyFamily : int { gemm = 0, prefill_attention, decode_attention, communication, none };
inline constexpr int kEfficiencyFamilies = 4;  // the calibrated ones; `none` is never scaled

// The JSON key of a family in a calibration file.
constexpr const char* family_name(EfficiencyFamily f) {
    constexpr const char* names[] = {"gemm", "prefill_attention", "decode_attention", "communication", "none"};
    return names[static_cast<int>(f)];
}

// The family of an operation of the breakdown. Weight loading is the part of a GEMM's time that streams weights
// beyond its compute, so it scales with the GEMM it came from; linear-attention layers, small element-wise kernels
// and the engine terms are not scaled (the engine terms are fitted directly).
constexpr EfficiencyFamily family_of(int op) {
    switch (op) {
        case MFUSIM_OP_QKV_PROJ:
        case MFUSIM_OP_O_PROJ:
        case MFUSIM_OP_FFN:
        case MFUSIM_OP_MOE_EXPERTS:
        case MFUSIM_OP_MOE_SHARED:
        case MFUSIM_OP_LM_HEAD:
        case MFUSIM_OP_WEIGHT_LOAD:
            return EfficiencyFamily::gemm;
        case MFUSIM_OP_ATTN_PREFILL:
            return EfficiencyFamily::prefill_attention;
        case MFUSIM_OP_ATTN_DECODE:
            return EfficiencyFamily::decode_attention;
        case MFUSIM_OP_TP_ALLREDUCE:
        case MFUSIM_OP_EP_COMM:
            return EfficiencyFamily::communication;
        default:
            return EfficiencyFamily::none;
    }
}

// Multipliers on the kernel time of each family; 1 everywhere is the uncalibrated model.
struct Efficiency {
    std::array<double, kEfficiencyFamilies> multiplier{1.0, 1.0, 1.0, 1.0};
    double operator[](EfficiencyFamily f) const {
        return f == EfficiencyFamily::none ? 1.0 : multiplier[static_cast<std::size_t>(f)];
    }
    double& at(EfficiencyFamily f) { return multiplier[static_cast<std::size_t>(f)]; }
};

// The bounds a multiplier may take, in a fit and in a calibration file: a kernel four times faster or slower than
// its table says is beyond what a deployment difference explains; past that the table or the model is wrong.
inline constexpr double kMinMultiplier = 0.25;
inline constexpr double kMaxMultiplier = 4.0;

}  // namespace mfusim::roofline
