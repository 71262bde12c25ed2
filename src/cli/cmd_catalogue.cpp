// mfusim models / mfusim gpus: the built-in catalogues.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "common/json.hpp"
#include "config/catalogue.hpp"
#include "config/model_config.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/model_params.hpp"

namespace mfusim::cli {

int run_models(const Args& raw) {
    static const CommandSpec spec{
        "models",
        "mfusim models [--json]",
        "Lists the built-in models with their shapes.",
        {{"--json", "",
          "print an array of {name, layers, hidden, heads, kv_heads, head_dim, "
          "experts, experts_per_token, attention, linear_attention, params_total, params_active}"}},
        {}};
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    if (parsed->flag("--json")) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < config::catalogue_model_count(); ++i) {
            const auto& entry = config::catalogue_model(i);
            config::ModelConfig m = config::parse_model_config({entry.name, entry.config_json});
            nlohmann::ordered_json j;
            j["name"] = entry.name;
            j["layers"] = m.num_layers;
            j["hidden"] = m.hidden_size;
            j["heads"] = m.num_heads;
            j["kv_heads"] = m.num_kv_heads;
            j["head_dim"] = m.head_dim;
            j["experts"] = m.is_moe() ? m.num_experts : 0;
            j["experts_per_token"] = m.is_moe() ? m.experts_per_token : 0;
            j["attention"] = m.attention == config::AttentionKind::mla ? "MLA" : "GQA";
            j["linear_attention"] = m.linear_layer_count != 0;
            const roofline::ModelParams params = roofline::model_params(m);
            j["params_total"] = params.total;
            j["params_active"] = params.active;
            list.push_back(j);
        }
        std::printf("%s\n", json_text(list).c_str());
        return 0;
    }
    std::printf("%-44s %6s %6s %5s %4s %5s %9s %s\n", "name", "layers", "hidden", "heads", "kv", "hdim", "experts",
                "attention");
    for (std::size_t i = 0; i < config::catalogue_model_count(); ++i) {
        const auto& entry = config::catalogue_model(i);
        config::ModelConfig m = config::parse_model_config({entry.name, entry.config_json});
        std::string experts =
            m.is_moe() ? std::to_string(m.experts_per_token) + "/" + std::to_string(m.num_experts) : "dense";
        std::printf("%-44s %6lld %6lld %5lld %4lld %5lld %9s %s%s\n", entry.name, static_cast<long long>(m.num_layers),
                    static_cast<long long>(m.hidden_size), static_cast<long long>(m.num_heads),
                    static_cast<long long>(m.num_kv_heads), static_cast<long long>(m.head_dim), experts.c_str(),
                    m.attention == config::AttentionKind::mla ? "MLA" : "GQA",
                    m.linear_layer_count ? " + linear (GDN)" : "");
    }
    return 0;
}

int run_gpus(const Args& raw) {
    static const CommandSpec spec{"gpus",
                                  "mfusim gpus [--json]",
                                  "Lists the built-in GPU profiles (datasheet figures).",
                                  {{"--json", "",
                                    "print an array of {name, tables, architecture, peak_bf16_tflops, "
                                    "peak_fp8_tflops, peak_fp4_tflops, memory_gb, memory_bandwidth_gbs, "
                                    "nvlink_bandwidth_gbs, sm_count}"}},
                                  {}};
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    if (parsed->flag("--json")) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& g : gpu::builtin_gpus()) {
            nlohmann::ordered_json j;
            j["name"] = g.name;
            j["tables"] = g.table_folder;
            j["peak_bf16_tflops"] = g.peak_bf16_tflops;
            j["architecture"] = gpu::architecture_name(g.architecture);
            j["peak_fp8_tflops"] = g.peak_fp8_tflops;
            j["peak_fp4_tflops"] = g.peak_fp4_tflops;
            j["memory_gb"] = g.capacity_gb();
            j["memory_bandwidth_gbs"] = g.streaming_bandwidth_gbs();
            j["nvlink_bandwidth_gbs"] = g.nvlink_bandwidth_gbs;
            j["sm_count"] = g.sm_count;
            list.push_back(j);
        }
        std::printf("%s\n", json_text(list).c_str());
        return 0;
    }
    // The memory and HBM columns are what the roofline model holds and streams at (GB200: one GPU's 186 GB and 8 TB/s;
    // compat keeps InferSim's).
    // The name and table columns are as wide as the longest entry ("RTX-PRO-6000"), so the rows stay aligned.
    int name_width = 9, table_width = 9;
    for (const auto& g : gpu::builtin_gpus()) {
        name_width = std::max(name_width, static_cast<int>(g.name.size()));
        table_width = std::max(table_width, static_cast<int>(g.table_folder.size()));
    }
    std::printf("%-*s %-*s %-9s %9s %9s %9s %7s %9s %9s %5s\n", name_width, "name", table_width, "tables", "arch",
                "bf16 TF/s", "fp8 TF/s", "fp4 TF/s", "mem GB", "HBM GB/s", "link GB/s", "SMs");
    for (const auto& g : gpu::builtin_gpus()) {
        std::printf("%-*s %-*s %-9s %9.1f %9.1f %9.1f %7.0f %9.0f %9.0f %5d\n", name_width, g.name.c_str(), table_width,
                    g.table_folder.c_str(), gpu::architecture_name(g.architecture), g.peak_bf16_tflops,
                    g.peak_fp8_tflops, g.peak_fp4_tflops, g.capacity_gb(), g.streaming_bandwidth_gbs(),
                    g.nvlink_bandwidth_gbs > 0 ? g.nvlink_bandwidth_gbs : g.pcie_bandwidth_gbs, g.sm_count);
    }
    return 0;
}

}  // namespace mfusim::cli
