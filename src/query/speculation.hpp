// Speculative decoding as a deployment option (docs/speculative.md): a drafter proposes `tokens` draft tokens per
// decoding request and step, the target model verifies them in the next step (k + 1 query tokens per request), and
// a request advances by the tokens accepted per step on average.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mfusim::query {

// How drafts are made. mtp: the model's own multi-token-prediction layer (num_nextn_predict_layers), one pass
// through it per draft token; eagle: an EAGLE head, one decoder layer of the target's shape fed its hidden
// states, timed as one target layer; ngram: prompt lookup on the CPU, no GPU work; draft_model: a separate, smaller
// model (`draft_model`) run whole per draft pass (vLLM's "draft_model" method, SGLang's STANDALONE).
enum class Drafter : uint8_t { none, mtp, eagle, ngram, draft_model };

struct Speculation {
    Drafter drafter = Drafter::none;
    int64_t tokens = 0;  // k: draft tokens per request and step (vLLM num_speculative_tokens); mtp 0: its layers
    double acceptance_rate = 0;       // a: probability that a draft token is accepted, given its predecessors were
    double mean_accepted_length = 0;  // tokens a request advances per verify step, bonus token included; > 0 wins
    std::string draft_model;          // draft_model only: the drafter's model (catalogue name, config path or JSON)

    bool active() const { return drafter != Drafter::none && tokens > 0; }
    // Tokens a decoding request gains per step: mean_accepted_length when given, else expected_tokens(a, k).
    double tokens_per_step() const;
};

// Expected tokens per verify step with per-token acceptance `a` and `k` drafts: the accepted prefix plus the
// target's own token, (1 - a^(k+1)) / (1 - a) (Leviathan et al. 2023, "Fast Inference from Transformers via
// Speculative Decoding", eq. 1); k + 1 at a = 1.
double expected_tokens(double a, int64_t k);

std::optional<Drafter> parse_drafter(std::string_view name);
const char* drafter_name(Drafter drafter);
std::string drafter_names();  // "mtp, eagle, ngram, draft_model"

// Error(invalid_argument) naming the field: tokens out of 0..16 with a drafter (0: no drafts, plain decodes) or not 0
// without one, an acceptance rate outside [0, 1], a mean accepted length outside [1, k + 1], or, with drafts, neither
// rate nor length given; a draft_model drafter without its model, or a draft model named for another drafter.
void validate(const Speculation& s);

}  // namespace mfusim::query
