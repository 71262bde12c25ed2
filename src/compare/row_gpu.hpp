// The GPU a measured serving row is answered on. AIConfigurator's silicon layout names each run's system
// (`system`: h100_sxm, h200_sxm, b200_sxm, b300_sxm, gb200, gb300, l40s, rtx_pro_6000_server, the names of
// ai-dynamo/aiconfigurator `aic-core/src/aiconfigurator_core/systems/*.yaml`), and one file may hold several systems.
// A row is answered on the built-in GPU its system names (gpu::find_builtin_gpu), never silently on another: a
// --gpu that names a different GPU refuses the row instead of answering it there.
#pragma once

#include <string>
#include <string_view>

#include "gpu/gpu_profile.hpp"

namespace mfusim::compare {

struct RowGpu {
    std::string gpu;   // what engine::Options::gpu takes: a built-in name, or the caller's --gpu text
    std::string name;  // the GPU's name, for the report: "H200"
    // Whether the GPU answered on is of the Blackwell generation, FP4 tensor cores (B200, B300, GB200, GB300 and the
    // RTX PRO 6000, whose kernels this library times in the Ada class): the launch settings follow it
    // (launch_recipe.hpp).
    bool blackwell_generation = false;
    std::string status;   // empty where the row can be answered on `gpu`; else the refusal's status name
    std::string message;  // why not
};

class RowGpuResolver {
  public:
    // `gpu_flag`: the caller's --gpu (a built-in name, a profile path or JSON text), or "" to answer each row on its
    // own system. Error(unknown_name)/Error(parse) where the flag resolves to no GPU profile.
    explicit RowGpuResolver(std::string gpu_flag);

    // The GPU for a row whose `system` field is `system` ("" where the file has no such column or leaves it empty).
    // Refusals: a system that names no built-in GPU and no --gpu ("unknown system"); no system and no --gpu
    // ("no GPU"); a system whose GPU differs from the --gpu's ("system mismatch").
    RowGpu for_system(std::string_view system) const;

  private:
    std::string flag_, flag_name_;
    bool flag_blackwell_generation_ = false;
};

}  // namespace mfusim::compare
