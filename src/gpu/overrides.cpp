// GPU profiles from JSON: a built-in base plus overrides, or a complete profile.
#include <cmath>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "common/json.hpp"
#include "common/numbers.hpp"
#include "common/suggest.hpp"
#include "gpu/constants.hpp"
#include "gpu/gpu_profile.hpp"

namespace mfusim::gpu {

namespace {

std::optional<AttentionKernel> parse_attention_kernel(const std::string& name) {
    if (name == "fa2") return AttentionKernel::fa2;
    if (name == "fa3") return AttentionKernel::fa3;
    if (name == "trtllm") return AttentionKernel::trtllm;
    return std::nullopt;
}

}  // namespace

GpuProfile apply_overrides(GpuProfile base, const std::string& json_text, const std::string& origin) {
    nlohmann::json json = parse_json(json_text, origin);
    JsonFields f(json, origin);
    bool has_base = false;
    if (auto base_name = f.optional_string("base")) {
        // Built-in names only: a file here could name itself and recurse without end.
        auto builtin = find_builtin_gpu(*base_name);
        if (!builtin) {
            throw Error(Status::unknown_name, origin + ": field 'base': '" + *base_name +
                                                  "' is not a built-in GPU (built-in: " + builtin_gpu_names() + ")");
        }
        base = *builtin;
        has_base = true;
    } else if (!base.name.empty()) {
        has_base = true;
    } else {
        base = GpuProfile{};
        // Defaults for the model constants of a profile written from scratch: those of the built-in H100.
        GpuProfile h100 = *find_builtin_gpu("H100");
        for (const GpuConstant& field : gpu_constants()) {
            if (field.number && !field.datasheet) base.*field.number = h100.*field.number;
        }
        base.peak_fp8_tflops = 0;
        base.peak_fp4_tflops = 0;
        base.gpu_memory_bandwidth_gbs = 0;
        base.gpu_memory_gb = 0;
        base.nvlink_bandwidth_gbs = 0;
        base.pcie_bandwidth_gbs = 64;  // PCIe Gen4 x16 unless the profile says otherwise
        base.infersim_default_mfu = 0.4;
        base.network_bandwidth_gbs = 50;
    }
    // An architecture brings its kernel family and fitted constants; the profile's other keys then override them.
    if (auto arch_name = f.optional_string("architecture")) {
        auto arch = parse_architecture(*arch_name);
        if (!arch) f.fail("architecture", "'" + *arch_name + "' is not one of ampere, ada, hopper, blackwell");
        apply_architecture(base, *arch);
    }
    if (auto kernel_name = f.optional_string("attention_kernel")) {
        auto kernel = parse_attention_kernel(*kernel_name);
        if (!kernel) f.fail("attention_kernel", "'" + *kernel_name + "' is not one of fa2, fa3, trtllm");
        base.attention_kernel = *kernel;
    }
    // A new HBM figure replaces InferSim's and the datasheet one alike, unless the profile gives both.
    if (f.has("memory_bandwidth_gbs") && !f.has("gpu_memory_bandwidth_gbs")) base.gpu_memory_bandwidth_gbs = 0;
    if (f.has("memory_gb") && !f.has("gpu_memory_gb")) base.gpu_memory_gb = 0;  // the same for the capacity
    for (const auto& [key, value] : json.items()) {
        if (key == "base" || key == "name" || key == "table_folder" || key == "architecture" ||
            key == "attention_kernel" || key.rfind("_", 0) == 0) {
            continue;  // handled below; "_comment" style keys are documentation
        }
        if (!find_gpu_constant(key)) {
            std::vector<std::string> names{"base", "name", "table_folder", "architecture", "attention_kernel"};
            for (const GpuConstant& field : gpu_constants()) names.emplace_back(field.key);
            std::string hint = did_you_mean(key, names);
            f.fail(key.c_str(), "not a GPU profile field" +
                                    (hint.empty() ? std::string(" (see docs/gpu-profiles.md for the list)") : hint));
        }
    }
    for (const GpuConstant& field : gpu_constants()) {
        if (!field.number) continue;
        if (auto v = f.optional_number(field.key)) {
            // -0 compares equal to 0 but divides to -infinity: every zero is stored as +0.
            bool zero = *v == 0 && (field.zero_is_none || field.json_min == 0);
            if (!zero && (*v < field.json_min || *v > field.json_max)) {
                f.fail(field.key, "value " + shortest_text(*v) + " is outside [" + shortest_text(field.json_min) +
                                      ", " + shortest_text(field.json_max) + "]" +
                                      (field.zero_is_none ? " (or 0 for none)" : ""));
            }
            base.*field.number = zero ? 0.0 : *v;
        } else if (field.datasheet && !has_base) {
            f.fail(field.key, "missing (required when the profile names no \"base\")");
        }
    }
    for (const GpuConstant& field : gpu_constants()) {
        if (!field.integer) continue;
        if (auto v = f.optional_integer(field.key)) {
            const auto min = static_cast<int64_t>(field.json_min), max = static_cast<int64_t>(field.json_max);
            if (*v < min || *v > max) {
                f.fail(field.key, "must be between " + std::to_string(min) + " and " + std::to_string(max));
            }
            base.*field.integer = static_cast<int32_t>(*v);
        } else if (field.datasheet && !has_base) {
            f.fail(field.key, "missing (required when the profile names no \"base\")");
        }
    }
    if (auto name = f.optional_string("name")) {
        // Every reader of a GPU name (tables' folders, calibrations) refuses "", so it is refused where it enters.
        if (name->empty()) f.fail("name", "must not be empty");
        base.name = *name;
    } else if (!has_base) {
        f.fail("name", "missing (required when the profile names no \"base\")");
    }
    if (auto folder = f.optional_string("table_folder")) {
        base.table_folder = *folder;
    } else if (!has_base || f.has("name")) {
        base.table_folder.clear();
        for (char c : base.name) base.table_folder += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return base;
}

}  // namespace mfusim::gpu
