// mfusim inspect: what a model is and what a deployment of it holds, before timing anything: parameter counts,
// layers by kind, KV bytes per token, weights and memory per GPU, KV capacity.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/warnings.hpp"
#include "common/error.hpp"
#include "common/json.hpp"
#include "common/numbers.hpp"
#include "config/model_config.hpp"
#include "roofline/model_params.hpp"
#include "serving/serving.hpp"

namespace mfusim::cli {

namespace {

constexpr double kGiB = gpu::GpuProfile::kGiB;

CommandSpec inspect_spec() {
    CommandSpec spec{"inspect",
                     "mfusim inspect --model M [--gpu G] [--tp N --ep N] [--json]",
                     "Describes a model and one deployment of it: parameters (total and active per token), layers\n"
                     "by kind, KV-cache bytes per token, weights and memory per GPU, and the KV capacity left for\n"
                     "the engine's cache (roofline mode). Architectures the model cannot time are refused, naming\n"
                     "the config key.",
                     estimator_flags(),
                     {}};
    spec.flags.push_back({"--json", "", "print the same facts as one JSON object"});
    return spec;
}

}  // namespace

int run_inspect(const Args& raw) {
    static const CommandSpec spec = inspect_spec();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    engine::Options options = estimator_options(*parsed);
    if (options.mode != engine::Mode::roofline) {
        throw UsageError("inspect describes roofline-mode deployments; drop --mode infersim");
    }
    const config::ModelConfig model = config::parse_model_config(config::resolve_model_source(options.model));
    const roofline::ModelParams params = roofline::model_params(model);
    engine::Estimator estimator(options);
    const roofline::RooflineModel& roofline = *estimator.roofline();
    const roofline::MemoryFacts& mem = roofline.memory();
    const engines::EngineProfile& engine = roofline.engine();
    const double usable = serving::usable_bytes(roofline, engine.gpu_memory_utilization);
    const double kv_space = serving::cache_space_bytes(roofline, engine.gpu_memory_utilization);
    const double kv_per_token = mem.kv_bytes_per_token + mem.windowed_kv_bytes_per_token;
    // Capacity in tokens of long requests: windowed layers then hold only their window per request.
    const double kv_tokens = kv_space <= 0                ? 0
                             : mem.kv_bytes_per_token > 0 ? kv_space / mem.kv_bytes_per_token
                             : kv_per_token > 0           ? kv_space / kv_per_token
                                                          : 0;
    const int64_t linear = model.linear_layer_count, windowed = model.windowed_layers;
    const int64_t full = model.full_attention_layers() - windowed;

    nlohmann::ordered_json j;
    j["model"] = options.model;
    j["gpu"] = roofline.gpu().name;
    j["tensor_parallel"] = options.deployment.tensor_parallel;
    j["expert_parallel"] = options.deployment.expert_parallel;
    j["params_total"] = params.total;
    j["params_active"] = params.active;
    j["params_vision"] = params.vision;
    j["params_audio"] = params.audio;
    if (options.deployment.images.active()) {
        const roofline::EncoderCost& image = roofline.encoder_per_image();
        j["images"] = {{"per_request", options.deployment.images.per_request},
                       {"width", options.deployment.images.width},
                       {"height", options.deployment.images.height},
                       {"patches_per_image", image.grid.patches},
                       {"tokens_per_image", image.grid.tokens},
                       {"encoder_ms_per_image", image.total_us / 1000}};
    }
    if (options.deployment.audio.active()) {
        const roofline::EncoderCost& clip = roofline.encoder_per_audio();
        j["audio"] = {{"seconds_per_request", options.deployment.audio.seconds_per_request},
                      {"encoder_positions", clip.grid.patches},
                      {"tokens_per_request", clip.grid.tokens},
                      {"encoder_ms_per_request", clip.total_us / 1000}};
    }
    j["layers"] = {{"total", model.num_layers},      {"full_attention", full},
                   {"windowed_attention", windowed}, {"attention_window", model.attention_window},
                   {"linear_attention", linear},     {"mamba2", model.mamba_layer_count},
                   {"moe", model.moe_layers()},      {"dense_ffn", model.dense_ffn_layers()}};
    // Dense MLPs by width: one entry for a uniform model, one per width for heterogeneous blocks (block_configs).
    const std::vector<config::DenseFfnGroup> ffn_groups = model.dense_ffn_groups();
    j["dense_ffn_widths"] = nlohmann::ordered_json::array();
    for (const config::DenseFfnGroup& g : ffn_groups) {
        j["dense_ffn_widths"].push_back({{"intermediate_size", g.intermediate_size}, {"layers", g.layers}});
    }
    j["attention"] = model.attention == config::AttentionKind::mla ? "MLA" : "GQA";
    j["kv_bytes_per_token"] = kv_per_token;
    j["kv_cache_dtype"] = roofline.kv_cache().fp8 ? "fp8" : "bf16";
    j["kv_cache_from"] = roofline.kv_cache().from;
    j["state_bytes_per_request"] = mem.state_bytes_per_request;
    j["weights_gb_per_gpu"] = mem.weight_bytes / kGiB;
    j["gpu_memory_gb"] = roofline.gpu().capacity_gb();
    j["usable_gb_per_gpu"] = usable / kGiB;
    j["activation_reserve_gb"] = engine.activation_reserve_gb;
    j["weights_fit"] = kv_space > 0;
    j["kv_capacity_tokens"] = kv_tokens;
    j["load_warnings"] = warning_lines(estimator.load_warnings());
    if (parsed->flag("--json")) {
        std::printf("%s\n", json_text(j).c_str());
        return 0;
    }
    std::printf("%s on %s (tp %lld, ep %lld)\n", options.model.c_str(), roofline.gpu().name.c_str(),
                static_cast<long long>(options.deployment.tensor_parallel),
                static_cast<long long>(options.deployment.expert_parallel));
    std::printf("  parameters        %.3f B total, %.3f B active per token\n", params.total / 1e9, params.active / 1e9);
    if (params.vision > 0) std::printf("  vision tower      %.3f B parameters (of the total)\n", params.vision / 1e9);
    if (options.deployment.images.active()) {
        const roofline::EncoderCost& image = roofline.encoder_per_image();
        std::printf(
            "  images            %lld per request, %lldx%lld: %lld patches, %lld tokens, encoder %.3f ms each\n",
            static_cast<long long>(options.deployment.images.per_request),
            static_cast<long long>(options.deployment.images.width),
            static_cast<long long>(options.deployment.images.height), static_cast<long long>(image.grid.patches),
            static_cast<long long>(image.grid.tokens), image.total_us / 1000);
    }
    if (params.audio > 0) std::printf("  audio tower       %.3f B parameters (of the total)\n", params.audio / 1e9);
    if (options.deployment.audio.active()) {
        const roofline::EncoderCost& clip = roofline.encoder_per_audio();
        std::printf("  audio             %s s per request: %lld encoder positions, %lld tokens, encoder %.3f ms\n",
                    shortest_text(options.deployment.audio.seconds_per_request).c_str(),
                    static_cast<long long>(clip.grid.patches), static_cast<long long>(clip.grid.tokens),
                    clip.total_us / 1000);
    }
    std::printf(
        "  layers            %lld: %lld full attention, %lld windowed (%lld keys), %lld linear attention, "
        "%lld Mamba2; %lld MoE, %lld dense FFN\n",
        static_cast<long long>(model.num_layers), static_cast<long long>(full), static_cast<long long>(windowed),
        static_cast<long long>(model.attention_window), static_cast<long long>(linear),
        static_cast<long long>(model.mamba_layer_count), static_cast<long long>(model.moe_layers()),
        static_cast<long long>(model.dense_ffn_layers()));
    if (ffn_groups.size() > 1) {
        std::printf("  dense FFN widths ");
        for (const config::DenseFfnGroup& g : ffn_groups) {
            std::printf(" %lld x %lld", static_cast<long long>(g.layers), static_cast<long long>(g.intermediate_size));
        }
        std::printf(" (layers x intermediate_size)\n");
    }
    std::printf("  KV per token      %.0f bytes per GPU, %s\n", kv_per_token, roofline.kv_cache().why.c_str());
    if (mem.state_bytes_per_request > 0) {
        std::printf("  state per request %.0f bytes per GPU (recurrent layers, any context)\n",
                    mem.state_bytes_per_request);
    }
    std::printf("  weights per GPU   %.2f GiB of %.1f GiB (%.2f usable, %.2f reserved for activations)\n",
                mem.weight_bytes / kGiB, roofline.gpu().capacity_gb(), usable / kGiB, engine.activation_reserve_gb);
    if (kv_space > 0) {
        std::printf("  KV capacity       %.0f tokens per GPU\n", kv_tokens);
    } else {
        std::printf("  KV capacity       none: the weights do not fit; use more GPUs (--tp, --ep)\n");
    }
    for (const std::string& w : warning_lines(estimator.load_warnings())) std::printf("  warning: %s\n", w.c_str());
    return 0;
}

}  // namespace mfusim::cli
