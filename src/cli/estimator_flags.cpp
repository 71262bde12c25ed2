#include "cli/estimator_flags.hpp"

namespace mfusim::cli {

std::vector<FlagSpec> estimator_flags() {
    return {
        {"--model", "NAME|PATH", "built-in model name (see 'mfusim models') or config.json path [qwen3-8b]"},
        {"--gpu", "NAME|PATH", "built-in GPU (see 'mfusim gpus') or JSON profile [H20 infersim, H100 roofline]"},
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
    };
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
    return o;
}

std::string describe(const engine::Options& o) {
    std::string model = o.model.find('{') != std::string::npos ? std::string("(JSON model)") : o.model;
    return model + " on " + o.gpu + " (" + std::string(engine::mode_name(o.mode)) + " mode, tp " +
           std::to_string(o.deployment.tensor_parallel) + ", world size " + std::to_string(o.deployment.world_size) +
           ", tables: " + (o.bench_data_dir.empty() ? std::string("none") : o.bench_data_dir) + ")";
}

}  // namespace mfusim::cli
