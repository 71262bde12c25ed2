#include "compare/row_gpu.hpp"

#include <cctype>
#include <utility>

namespace mfusim::compare {

namespace {

bool same_name(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i])))
            return false;
    }
    return true;
}

}  // namespace

RowGpuResolver::RowGpuResolver(std::string gpu_flag) : flag_(std::move(gpu_flag)) {
    if (!flag_.empty()) {
        const gpu::GpuProfile g = gpu::resolve_gpu(flag_);
        flag_name_ = g.name;
        flag_blackwell_generation_ = g.has_fp4();
    }
}

RowGpu RowGpuResolver::for_system(std::string_view system) const {
    RowGpu out;
    const std::optional<gpu::GpuProfile> named = system.empty() ? std::nullopt : gpu::find_builtin_gpu(system);
    if (!flag_.empty()) {
        out.gpu = flag_;
        out.name = flag_name_;
        out.blackwell_generation = flag_blackwell_generation_;
        if (named && !same_name(named->name, flag_name_)) {
            out.status = "system mismatch";
            out.message = "the row was measured on " + std::string(system) + " (" + named->name + ") and --gpu is " +
                          flag_name_ + ": drop --gpu to answer every row on its own system";
        }
        return out;
    }
    if (named) {
        out.gpu = named->name;
        out.name = named->name;
        out.blackwell_generation = named->has_fp4();
        return out;
    }
    out.name = system.empty() ? "-" : std::string(system);
    if (system.empty()) {
        out.status = "no GPU";
        out.message = "the row names no system (no system column, or an empty one): give --gpu NAME";
    } else {
        out.status = "unknown system";
        out.message = "system '" + std::string(system) +
                      "' is not a built-in GPU (built-in: " + gpu::builtin_gpu_names() +
                      "): give --gpu NAME or a profile (docs/gpu-profiles.md)";
    }
    return out;
}

}  // namespace mfusim::compare
