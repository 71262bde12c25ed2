#include "cli/serving_flags.hpp"

namespace mfusim::cli {

std::vector<FlagSpec> serving_flags(bool with_concurrency) {
    std::vector<FlagSpec> flags = {{"--isl", "N", "prompt tokens per request [1024]"},
                                   {"--osl", "N", "generated tokens per request [128]"}};
    if (with_concurrency) flags.push_back({"--concurrency", "N", "requests the clients keep in flight [16]"});
    flags.push_back({"--max-batched-tokens", "N", "scheduler token budget per step [the engine's]"});
    flags.push_back({"--max-seqs", "N", "most requests running at once [the engine's]"});
    flags.push_back(
        {"--gpu-memory-utilization", "X",
         "share of GPU memory for weights and KV (TensorRT-LLM: of the memory the weights leave) [the engine's]"});
    flags.push_back({"--requests-per-client", "K",
                     "means over K requests per client, the first wave (all clients arriving at once) included; "
                     "0: steady state [0]"});
    flags.push_back({"--min-length-ratio", "R",
                     "each request's lengths uniform in [R x isl, isl] and [R x osl, osl], as InferenceX's and "
                     "SGLang's bench_serving draw --random-range-ratio R (the closed form keeps the given lengths "
                     "and takes the clients out of lockstep waves; with --disagg it answers the mean lengths); 1: "
                     "fixed [1]"});
    flags.push_back({"--simulate", "",
                     "answer by simulating the benchmark (K x concurrency requests from closed-loop clients, K the "
                     "requests per client, at least 1) with the engine's scheduler instead of the closed form"});
    return flags;
}

serving::Workload serving_workload(const ParsedArgs& args) {
    serving::Workload w;
    w.input_len = args.integer_or("--isl", w.input_len);
    w.output_len = args.integer_or("--osl", w.output_len);
    if (args.flag("--concurrency")) w.concurrency = args.integer_or("--concurrency", w.concurrency);
    w.max_batched_tokens = args.integer_or("--max-batched-tokens", 0);
    w.max_seqs = args.integer_or("--max-seqs", 0);
    w.gpu_memory_utilization = args.number_or("--gpu-memory-utilization", 0);
    w.requests_per_client = args.number_or("--requests-per-client", 0);
    w.min_length_ratio = min_length_ratio(args);
    return w;
}

double min_length_ratio(const ParsedArgs& args) {
    return args.number_or("--min-length-ratio", 1);
}

void require_gpu_for_rows(const ParsedArgs& args, const std::string& path, bool any_system) {
    if (!any_system && !args.text("--gpu")) {
        throw UsageError(path + ": its rows name no system (no system column): give --gpu NAME");
    }
}

std::optional<int64_t> num_prompts(const ParsedArgs& args) {
    if (!args.flag("--num-prompts")) return std::nullopt;
    if (args.flag("--requests-per-client")) {
        throw UsageError("--num-prompts and --requests-per-client both say how many requests each run sent; give one");
    }
    return args.count_or("--num-prompts", 1000, 1, 100000000);
}

}  // namespace mfusim::cli
