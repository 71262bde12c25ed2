// GPU profiles from JSON: a built-in base plus overrides, or a complete profile.
#include <cmath>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "common/json.hpp"
#include "common/numbers.hpp"
#include "common/suggest.hpp"
#include "gpu/gpu_profile.hpp"

namespace mfusim::gpu {

namespace {

// A field's valid values are [min, max], plus 0 where `zero_is_none` (no FP8 tensor cores, no NVLink, no scale-out
// network, no InferSim default MFU). The lower bounds are far below any real GPU and keep every time the models
// divide by these figures finite: a tiny positive peak or bandwidth (1e-300) would give an infinite time.
struct NumberField {
    const char* key;
    double GpuProfile::*member;
    bool datasheet;  // required when there is no base
    double min, max;
    bool zero_is_none = false;
};

const NumberField kNumberFields[] = {
    {"peak_bf16_tflops", &GpuProfile::peak_bf16_tflops, true, 1e-3, 1e6},
    {"peak_fp8_tflops", &GpuProfile::peak_fp8_tflops, false, 1e-3, 1e6, true},
    {"peak_fp4_tflops", &GpuProfile::peak_fp4_tflops, false, 1e-3, 1e6, true},
    {"memory_gb", &GpuProfile::memory_gb, true, 1e-3, 1e6},
    {"memory_bandwidth_gbs", &GpuProfile::memory_bandwidth_gbs, true, 1e-3, 1e7},
    {"gpu_memory_bandwidth_gbs", &GpuProfile::gpu_memory_bandwidth_gbs, false, 1e-3, 1e7, true},
    {"nvlink_bandwidth_gbs", &GpuProfile::nvlink_bandwidth_gbs, false, 1e-3, 1e7, true},
    {"pcie_bandwidth_gbs", &GpuProfile::pcie_bandwidth_gbs, false, 1e-3, 1e7, true},
    {"network_bandwidth_gbs", &GpuProfile::network_bandwidth_gbs, false, 1e-3, 1e7, true},
    {"network_latency_us", &GpuProfile::network_latency_us, false, 0, 1e6},
    {"infersim_default_mfu", &GpuProfile::infersim_default_mfu, false, 1e-3, 1, true},
    {"exp_throughput_scale", &GpuProfile::exp_throughput_scale, false, 0.1, 16},
    {"memory_efficiency", &GpuProfile::memory_efficiency, false, 1e-3, 1},
    {"nvlink_efficiency", &GpuProfile::nvlink_efficiency, false, 1e-3, 1},
    {"nvls_efficiency", &GpuProfile::nvls_efficiency, false, 1e-3, 1},
    {"pcie_efficiency", &GpuProfile::pcie_efficiency, false, 1e-3, 1},
    {"allreduce_latency_us", &GpuProfile::allreduce_latency_us, false, 0, 1e6},
    {"allreduce_hop_latency_us", &GpuProfile::allreduce_hop_latency_us, false, 0, 1e6},
    {"allreduce_ll_efficiency", &GpuProfile::allreduce_ll_efficiency, false, 0, 1},
    {"allreduce_simple_latency_us", &GpuProfile::allreduce_simple_latency_us, false, 0, 1e6},
    {"custom_allreduce_latency_us", &GpuProfile::custom_allreduce_latency_us, false, 0, 1e6},
    {"custom_allreduce_peer_us", &GpuProfile::custom_allreduce_peer_us, false, 0, 1e6},
    {"custom_allreduce_efficiency", &GpuProfile::custom_allreduce_efficiency, false, 1e-3, 1},
    {"gemm_max_efficiency", &GpuProfile::gemm_max_efficiency, false, 1e-3, 1},
    {"gemm_max_efficiency_fp8", &GpuProfile::gemm_max_efficiency_fp8, false, 1e-3, 1},
    {"gemm_overlap_exponent", &GpuProfile::gemm_overlap_exponent, false, 1, 64},
    {"attention_max_efficiency", &GpuProfile::attention_max_efficiency, false, 1e-3, 1},
    {"kernel_launch_us", &GpuProfile::kernel_launch_us, false, 0, 1e6},
    {"attention_launch_us", &GpuProfile::attention_launch_us, false, 0, 1e6},
    {"attention_softmax_head_dim", &GpuProfile::attention_softmax_head_dim, false, 0, 1e5},
    {"attention_tile_overhead_blocks", &GpuProfile::attention_tile_overhead_blocks, false, 0, 1e4},
    {"decode_cta_overhead_us", &GpuProfile::decode_cta_overhead_us, false, 0, 1e6},
    {"decode_cta_bandwidth_gbs", &GpuProfile::decode_cta_bandwidth_gbs, false, 0, 1e7},
    {"attention_block_q", &GpuProfile::attention_block_q, false, 16, 1024},
    {"attention_block_k", &GpuProfile::attention_block_k, false, 16, 1024},
    {"linear_attention_efficiency", &GpuProfile::linear_attention_efficiency, false, 1e-3, 1},
    {"table_blend_octaves", &GpuProfile::table_blend_octaves, false, 0, 64},
    {"moe_overhead_us", &GpuProfile::moe_overhead_us, false, 0, 1e6},
    {"moe_gemm_efficiency", &GpuProfile::moe_gemm_efficiency, false, 1e-3, 1},
    {"mla_module_overhead_us", &GpuProfile::mla_module_overhead_us, false, 0, 1e6},
    {"mla_backend_overhead_us", &GpuProfile::mla_backend_overhead_us, false, 0, 1e6},
    {"dsa_decode_overhead_us", &GpuProfile::dsa_decode_overhead_us, false, 0, 1e6},
    {"dsa_prefill_overhead_us", &GpuProfile::dsa_prefill_overhead_us, false, 0, 1e6},
    {"gdn_chunk_efficiency", &GpuProfile::gdn_chunk_efficiency, false, 1e-3, 1},
    {"recurrent_launch_us", &GpuProfile::recurrent_launch_us, false, 0, 1e6},
    {"deepep_ll_latency_us", &GpuProfile::deepep_ll_latency_us, false, 0, 1e6},
    {"deepep_ll_efficiency", &GpuProfile::deepep_ll_efficiency, false, 1e-3, 1},
    {"deepep_normal_latency_us", &GpuProfile::deepep_normal_latency_us, false, 0, 1e6},
    {"deepep_normal_efficiency", &GpuProfile::deepep_normal_efficiency, false, 1e-3, 1},
};

struct IntegerField {
    const char* key;
    int32_t GpuProfile::*member;
    bool datasheet;
    int64_t min, max;
};

const IntegerField kIntegerFields[] = {
    {"sm_count", &GpuProfile::sm_count, true, 1, 100000},
    {"nvlink_generation", &GpuProfile::nvlink_generation, false, 0, 100},
    {"nvlink_domain_gpus", &GpuProfile::nvlink_domain_gpus, false, 0, 100000},
};

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
        for (const NumberField& field : kNumberFields) {
            if (!field.datasheet) base.*field.member = h100.*field.member;
        }
        base.peak_fp8_tflops = 0;
        base.peak_fp4_tflops = 0;
        base.gpu_memory_bandwidth_gbs = 0;
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
    for (const auto& [key, value] : json.items()) {
        if (key == "base" || key == "name" || key == "table_folder" || key == "architecture" ||
            key == "attention_kernel" || key.rfind("_", 0) == 0) {
            continue;  // handled below; "_comment" style keys are documentation
        }
        bool known = false;
        for (const NumberField& field : kNumberFields) known = known || key == field.key;
        for (const IntegerField& field : kIntegerFields) known = known || key == field.key;
        if (!known) {
            std::vector<std::string> names{"base", "name", "table_folder", "architecture", "attention_kernel"};
            for (const NumberField& field : kNumberFields) names.emplace_back(field.key);
            for (const IntegerField& field : kIntegerFields) names.emplace_back(field.key);
            std::string hint = did_you_mean(key, names);
            f.fail(key.c_str(), "not a GPU profile field" +
                                    (hint.empty() ? std::string(" (see docs/gpu-profiles.md for the list)") : hint));
        }
    }
    for (const NumberField& field : kNumberFields) {
        if (auto v = f.optional_number(field.key)) {
            // -0 compares equal to 0 but divides to -infinity: every zero is stored as +0.
            bool zero = *v == 0 && (field.zero_is_none || field.min == 0);
            if (!zero && (*v < field.min || *v > field.max)) {
                f.fail(field.key, "value " + shortest_text(*v) + " is outside [" + shortest_text(field.min) + ", " +
                                      shortest_text(field.max) + "]" + (field.zero_is_none ? " (or 0 for none)" : ""));
            }
            base.*field.member = zero ? 0.0 : *v;
        } else if (field.datasheet && !has_base) {
            f.fail(field.key, "missing (required when the profile names no \"base\")");
        }
    }
    for (const IntegerField& field : kIntegerFields) {
        if (auto v = f.optional_integer(field.key)) {
            if (*v < field.min || *v > field.max) {
                f.fail(field.key, "must be between " + std::to_string(field.min) + " and " + std::to_string(field.max));
            }
            base.*field.member = static_cast<int32_t>(*v);
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
