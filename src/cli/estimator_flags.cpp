#include "cli/estimator_flags.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "common/json.hpp"
#include "common/numbers.hpp"

namespace mfusim::cli {

std::vector<FlagSpec> estimator_flags() {
    return {
        {"--model", "NAME|PATH|JSON",
         "built-in model (see 'mfusim models'; HF ids such as Qwen/Qwen3-8B match it), config.json path, or JSON "
         "text [qwen3-8b]"},
        {"--gpu", "NAME|PATH|JSON",
         "built-in GPU (see 'mfusim gpus'), JSON profile path, or JSON text such as {\"base\": \"H100\", "
         "\"memory_gb\": 94} [H20 infersim, H100 roofline]"},
        {"--mode", "infersim|roofline", "InferSim-exact compat model, or the per-step roofline model [roofline]"},
        {"--bench-data", "DIR", "bench_data directory of MFU tables (none: fallbacks, said in the output)"},
        {"--tp", "N", "tensor-parallel degree [1]"},
        {"--world-size", "N", "GPUs in the deployment [1]"},
        {"--nodes", "N", "nodes [1]"},
        {"--fp8-gemm", "", "FP8 weights and FP8 peak for GEMMs"},
        {"--fp8-kv", "", "FP8 KV cache"},
        {"--deepep", "", "DeepEP expert-parallel communication"},
        {"--tbo", "", "two-batch overlap (InferSim)"},
        {"--sm-ratio", "X", "SM share of compute under TBO prefill [108/132]"},
        {"--engine", "NAME|JSON",
         "roofline: serving engine around the kernels: vllm, sglang, trtllm, none, or "
         "{\"base\": \"vllm\", ...} overrides (docs/engine.md) [vllm]"},
        {"--engine-version", "RELEASE",
         "roofline: the engine's release (0.14.0): defaults that changed between releases follow it, such as "
         "vLLM's async scheduling, on from 0.14.0 (docs/engine.md, \"Defaults by engine version\") [none named: "
         "the profile's own values; vllm: async scheduling off]"},
        {"--quant", "FORMAT",
         "roofline: weight format overriding the checkpoint's: bf16, fp8, fp8_block, nvfp4, "
         "mxfp4, int8_wo, int4_wo [as the checkpoint states]"},
        {"--kv-quant", "FORMAT",
         "KV-cache format: auto, bf16 or fp8 (same as --fp8-kv); auto: 16-bit, or the checkpoint's FP8 where the "
         "engine's default follows it (docs/engine.md) [auto]"},
        {"--ep", "N", "roofline: expert-parallel degree (MoE experts sharded over N GPUs) [1]"},
        {"--attention-dp", "N", "roofline: attention data-parallel replicas; GPUs = tp x attention-dp [1]"},
        {"--moe-routing", "random|power-law:ALPHA",
         "roofline: how MoE tokens spread over the experts: as served, each token's top-k at random, or expert "
         "popularity as a power law x^-ALPHA (AIConfigurator's; 0 < ALPHA <= 10); the busiest EP rank timed [random]"},
        {"--calibration", "FILE|JSON",
         "roofline: a calibration written by 'mfusim calibrate' (engine terms and kernel-family multipliers, "
         "and/or fitted GPU constants; docs/calibration.md) [none]"},
        {"--speculative", "mtp|eagle|ngram|draft_model",
         "roofline: speculative decoding's drafter: the model's MTP layer, an EAGLE head (one layer of the "
         "model's shape), n-gram lookup (no GPU work) or a separate draft model (--draft-model); "
         "docs/speculative.md [none]"},
        {"--draft-model", "MODEL",
         "with --speculative draft_model: the draft model (catalogue name or config.json path), run whole per "
         "draft pass at the target's tensor parallelism"},
        {"--num-speculative-tokens", "K",
         "with --speculative: draft tokens per request and step [mtp: num_nextn_predict_layers]"},
        {"--acceptance-rate", "A",
         "with --speculative: probability that a draft token is accepted; a step then makes "
         "(1 - A^(K+1)) / (1 - A) tokens"},
        {"--mean-accepted-length", "L",
         "with --speculative: tokens a request advances per step, the target's own included (1..K+1), instead "
         "of --acceptance-rate"},
        {"--images-per-request", "N",
         "roofline: images each request brings; the model's vision tower (vision_config) encodes them in the "
         "step of the request's first prefill chunk; the prompt length counts their image tokens "
         "(docs/architectures.md) [0]"},
        {"--image-size", "WxH|N", "with --images-per-request: image width x height in pixels (N: N x N) [1024]"},
        {"--audio-seconds-per-request", "S",
         "roofline: seconds of audio each request brings (one clip); the model's audio tower (audio_config) "
         "encodes it in the step of the request's first prefill chunk; the prompt length counts its audio tokens "
         "(docs/architectures.md) [0]"},
    };
}

std::vector<FlagSpec> speculation_flags() {
    std::vector<FlagSpec> out;
    for (FlagSpec& f : estimator_flags()) {
        if (std::find(kSpeculationFlags.begin(), kSpeculationFlags.end(), f.name) != kSpeculationFlags.end()) {
            out.push_back(std::move(f));
        }
    }
    return out;
}

query::Speculation speculation_options(const ParsedArgs& args) {
    query::Speculation spec;
    if (auto drafter = args.text("--speculative")) {
        auto parsed = query::parse_drafter(*drafter);
        if (!parsed) {
            throw UsageError("--speculative must be one of " + query::drafter_names() + ", got '" + *drafter + "'");
        }
        spec.drafter = *parsed;
    } else {
        for (const char* flag : std::span(kSpeculationFlags).subspan(1)) {
            if (args.flag(flag)) {
                throw UsageError(std::string(flag) + " needs --speculative (" + query::drafter_names() + ")");
            }
        }
    }
    spec.draft_model = args.text_or("--draft-model", "");
    if (args.flag("--num-speculative-tokens")) spec.tokens = args.count_or("--num-speculative-tokens", 1, 1, 16);
    spec.acceptance_rate = args.number_or("--acceptance-rate", 0);
    spec.mean_accepted_length = args.number_or("--mean-accepted-length", 0);
    if (args.flag("--acceptance-rate") && args.flag("--mean-accepted-length")) {
        throw UsageError("give --acceptance-rate or --mean-accepted-length, not both");
    }
    return spec;
}

engine::Options estimator_options(const ParsedArgs& args) {
    engine::Options o;
    std::string mode = args.text_or("--mode", "roofline");
    if (mode == "infersim" || mode == "compat") {
        o.mode = engine::Mode::infersim;
    } else if (mode == "roofline") {
        o.mode = engine::Mode::roofline;
    } else {
        throw UsageError("--mode must be 'infersim' or 'roofline', got '" + mode + "'");
    }
    if (o.mode == engine::Mode::roofline) {
        // InferSim's options that the roofline model has no use for: refused, not silently ignored (roofline
        // multi-node and TBO are expressed with --tp, --ep and --attention-dp).
        for (const char* flag : {"--nodes", "--sm-ratio"}) {
            if (args.flag(flag)) {
                throw UsageError(std::string(flag) +
                                 " is an InferSim (--mode infersim) option; the roofline model "
                                 "does not use it");
            }
        }
    }
    o.model = args.text_or("--model", "qwen3-8b");
    o.gpu = args.text_or("--gpu", o.mode == engine::Mode::infersim ? "H20" : "H100");
    o.bench_data_dir = args.text_or("--bench-data", "");
    o.deployment.tensor_parallel = args.integer_or("--tp", 1);
    o.deployment.world_size = args.integer_or("--world-size", 1);
    o.deployment.num_nodes = args.integer_or("--nodes", 1);
    o.deployment.fp8_gemm = args.flag("--fp8-gemm");
    o.deployment.fp8_kv = args.flag("--fp8-kv");
    o.deployment.deepep = args.flag("--deepep");
    o.deployment.two_batch_overlap = args.flag("--tbo");
    o.deployment.sm_ratio = args.number_or("--sm-ratio", 108.0 / 132.0);
    o.deployment.expert_parallel = args.integer_or("--ep", 1);
    o.deployment.attention_data_parallel = args.integer_or("--attention-dp", 1);
    if (auto routing = args.text("--moe-routing")) {
        auto alpha = query::parse_moe_routing(*routing);
        if (!alpha) {
            throw UsageError("--moe-routing must be 'random' or 'power-law:ALPHA' with 0 < ALPHA <= 10, got '" +
                             *routing + "'");
        }
        o.deployment.moe_routing_alpha = *alpha;
    }
    o.engine = args.text_or("--engine", "");
    o.engine_version = args.text_or("--engine-version", "");
    o.quant = args.text_or("--quant", "");
    o.calibration = args.text_or("--calibration", "");
    o.deployment.speculation = speculation_options(args);
    if (args.flag("--images-per-request")) {
        o.deployment.images.per_request = args.count_or("--images-per-request", 0, 0, 64);
        const std::string size = args.text_or("--image-size", "1024");
        const std::size_t x = size.find('x');
        auto side = [&](const std::string& text) -> int64_t {
            if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) {
                throw UsageError("--image-size must be WxH or N pixels (1 to 16384), got '" + size + "'");
            }
            const int64_t v = std::stoll(text);
            if (v < 1 || v > 16384) {
                throw UsageError("--image-size must be WxH or N pixels (1 to 16384), got '" + size + "'");
            }
            return v;
        };
        o.deployment.images.width = side(size.substr(0, x));
        o.deployment.images.height = x == std::string::npos ? o.deployment.images.width : side(size.substr(x + 1));
    } else if (args.flag("--image-size")) {
        throw UsageError("--image-size needs --images-per-request");
    }
    o.deployment.audio.seconds_per_request = args.number_or("--audio-seconds-per-request", 0);
    if (const double s = o.deployment.audio.seconds_per_request; !(std::isfinite(s) && s >= 0 && s <= 3600)) {
        throw UsageError("--audio-seconds-per-request must be 0 to 3600 seconds, got '" +
                         *args.text("--audio-seconds-per-request") + "'");
    }
    if (auto kv = args.text("--kv-quant")) {
        if (*kv == "fp8") {
            o.deployment.fp8_kv = true;
        } else if (*kv == "bf16" || *kv == "fp16") {
            // Explicit: a checkpoint's stated FP8 KV cache does not apply (the engine's --kv-cache-dtype bfloat16).
            if (o.deployment.fp8_kv) throw UsageError("--kv-quant " + *kv + " contradicts --fp8-kv");
            o.deployment.bf16_kv = true;
        } else if (!(kv->empty() || *kv == "auto")) {
            throw UsageError("--kv-quant must be auto, bf16 or fp8, got '" + *kv + "'");
        }
    }
    return o;
}

std::string describe(const engine::Options& o) {
    std::string model = shown_option(o.model, "(JSON model)");
    std::string parallel = "tp " + std::to_string(o.deployment.tensor_parallel);
    if (o.deployment.expert_parallel > 1) parallel += ", ep " + std::to_string(o.deployment.expert_parallel);
    if (o.deployment.attention_data_parallel > 1) {
        parallel += ", attention dp " + std::to_string(o.deployment.attention_data_parallel);
    }
    if (o.mode == engine::Mode::infersim) parallel += ", world size " + std::to_string(o.deployment.world_size);
    std::string engine_name = o.engine.empty() ? "vllm" : shown_option(o.engine, "custom");
    if (!o.engine_version.empty()) engine_name += " " + o.engine_version;
    if (o.mode == engine::Mode::roofline) parallel += ", engine " + engine_name;
    if (!o.quant.empty()) parallel += ", quant " + o.quant;
    if (!o.calibration.empty()) parallel += ", calibrated";
    if (o.deployment.moe_routing_alpha > 0) {
        parallel += ", power-law routing " + shortest_text(o.deployment.moe_routing_alpha);
    }
    if (o.deployment.speculation.drafter != query::Drafter::none) {
        parallel += std::string(", speculative ") + query::drafter_name(o.deployment.speculation.drafter);
    }
    if (o.deployment.images.active()) {
        parallel += ", " + std::to_string(o.deployment.images.per_request) + " image(s) of " +
                    std::to_string(o.deployment.images.width) + "x" + std::to_string(o.deployment.images.height);
    }
    if (o.deployment.audio.active()) {
        parallel += ", " + shortest_text(o.deployment.audio.seconds_per_request) + " s of audio";
    }
    std::string gpu = shown_option(o.gpu, "(JSON GPU)");
    return model + " on " + gpu + " (" + std::string(engine::mode_name(o.mode)) + " mode, " + parallel +
           ", tables: " + (o.bench_data_dir.empty() ? std::string("none") : o.bench_data_dir) + ")";
}

}  // namespace mfusim::cli
