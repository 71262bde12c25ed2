#include "cli/launch_commands.hpp"

namespace mfusim::cli {

namespace {

// A Hugging Face id ("org/name") or a path is what the engines load; a catalogue name is not.
std::string model_argument(const std::string& model) {
    if (model.find('/') != std::string::npos) return model;
    return "<hf-id-of-" + model + ">";
}

}  // namespace

// Flags, as each engine's documentation states them:
//  vLLM `vllm serve MODEL`: --tensor-parallel-size, --enable-expert-parallel (the EP size follows TP x DP),
//    --max-num-seqs (running requests), --max-model-len (docs.vllm.ai, serving/expert_parallel_deployment,
//    serving/parallelism_scaling);
//  SGLang `python -m sglang.launch_server`: --model-path, --tp, --ep-size, --max-running-requests,
//    --context-length (docs.sglang.io, advanced_features/server_arguments);
//  TensorRT-LLM `trtllm-serve MODEL`: --backend pytorch, --tp_size, --ep_size, --max_batch_size, --max_seq_len
//    (nvidia.github.io/TensorRT-LLM, commands/trtllm-serve).
// Speculative decoding (docs/speculative.md): vLLM --speculative-config {"method", "num_speculative_tokens"} (an
// EAGLE head or a draft model needs its checkpoint as "model"); SGLang --speculative-algorithm (EAGLE, which also runs
// MTP heads, NGRAM, or STANDALONE for a draft model, with --speculative-draft-model-path) with --speculative-num-steps
// k, --speculative-eagle-topk 1 and --speculative-num-draft-tokens k + 1 (a chain, as modelled). TensorRT-LLM takes it
// in an --extra_llm_api_options YAML (speculative_config), not a flag: its line says so.
std::vector<std::pair<std::string, std::string>> launch_commands(const LaunchDeployment& d) {
    const std::string model = model_argument(d.model);
    const std::string tp = std::to_string(d.tp), ep = std::to_string(d.ep), c = std::to_string(d.concurrency),
                      len = std::to_string(d.max_context);
    std::string vllm = "vllm serve " + model + " --tensor-parallel-size " + tp +
                       (d.ep > 1 ? " --enable-expert-parallel" : "") + " --max-num-seqs " + c +
                       (d.max_context > 0 ? " --max-model-len " + len : "");
    std::string sglang = "python -m sglang.launch_server --model-path " + model + " --tp " + tp +
                         (d.ep > 1 ? " --ep-size " + ep : "") + " --max-running-requests " + c +
                         (d.max_context > 0 ? " --context-length " + len : "");
    std::string trtllm = "trtllm-serve " + model + " --backend pytorch --tp_size " + tp +
                         (d.ep > 1 ? " --ep_size " + ep : "") + " --max_batch_size " + c +
                         (d.max_context > 0 ? " --max_seq_len " + len : "");
    if (!d.drafter.empty()) {
        // 0 drafts given: MTP's default (its layer count), which both engines also take when the count is left out.
        const std::string k = std::to_string(d.draft_tokens), drafts = std::to_string(d.draft_tokens + 1);
        const bool standalone = d.drafter == "draft_model";
        const std::string head = standalone ? model_argument(d.draft_model) : "<eagle-head-id>";
        vllm += " --speculative-config '{\"method\": \"" + d.drafter + "\"" +
                (d.draft_tokens > 0 ? ", \"num_speculative_tokens\": " + k : "") +
                (d.drafter == "eagle" || standalone ? ", \"model\": \"" + head + "\"" : "") + "}'";
        sglang += std::string(" --speculative-algorithm ") +
                  (d.drafter == "ngram" ? "NGRAM"
                   : standalone         ? "STANDALONE"
                                        : "EAGLE") +
                  (d.drafter == "eagle" || standalone ? " --speculative-draft-model-path " + head : "") +
                  (d.draft_tokens > 0 ? " --speculative-num-steps " + k +
                                            " --speculative-eagle-topk 1 --speculative-num-draft-tokens " + drafts
                                      : "");
        trtllm += " --extra_llm_api_options <yaml with speculative_config for " + d.drafter + ">";
    }
    return {{"vllm", vllm}, {"sglang", sglang}, {"trtllm", trtllm}};
}

}  // namespace mfusim::cli
