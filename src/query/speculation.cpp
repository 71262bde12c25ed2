#include "query/speculation.hpp"

#include <cmath>

#include "common/error.hpp"

namespace mfusim::query {

namespace {

constexpr int64_t kMaxTokens = 16;

[[noreturn]] void bad(const std::string& what) {
    throw Error(Status::invalid_argument, "speculative." + what);
}

}  // namespace

double expected_tokens(double a, int64_t k) {
    if (a >= 1) return static_cast<double>(k + 1);
    return (1 - std::pow(a, static_cast<double>(k + 1))) / (1 - a);
}

double Speculation::tokens_per_step() const {
    if (!active()) return 1;
    return mean_accepted_length > 0 ? mean_accepted_length : expected_tokens(acceptance_rate, tokens);
}

std::optional<Drafter> parse_drafter(std::string_view name) {
    if (name == "none" || name.empty()) return Drafter::none;
    if (name == "mtp") return Drafter::mtp;
    if (name == "eagle") return Drafter::eagle;
    if (name == "ngram") return Drafter::ngram;
    if (name == "draft_model") return Drafter::draft_model;
    return std::nullopt;
}

const char* drafter_name(Drafter drafter) {
    switch (drafter) {
        case Drafter::mtp:
            return "mtp";
        case Drafter::eagle:
            return "eagle";
        case Drafter::ngram:
            return "ngram";
        case Drafter::draft_model:
            return "draft_model";
        default:
            return "none";
    }
}

std::string drafter_names() {
    return "mtp, eagle, ngram, draft_model";
}

void validate(const Speculation& s) {
    if ((s.drafter == Drafter::draft_model) != !s.draft_model.empty()) {
        bad(s.draft_model.empty() ? "draft_model: the draft_model drafter needs the draft model (a catalogue name, "
                                    "a config.json path or its JSON text)"
                                  : "draft_model: a draft model is only run by the draft_model drafter, not by " +
                                        std::string(drafter_name(s.drafter)));
    }
    if (s.drafter == Drafter::none) {
        if (s.tokens != 0 || s.acceptance_rate != 0 || s.mean_accepted_length != 0) {
            bad("num_speculative_tokens, acceptance_rate and mean_accepted_length need a drafter (" + drafter_names() +
                ")");
        }
        return;
    }
    if (s.tokens < 0 || s.tokens > kMaxTokens) {
        bad("num_speculative_tokens must be between 0 (no drafts) and " + std::to_string(kMaxTokens) + ", got " +
            std::to_string(s.tokens));
    }
    if (s.tokens == 0) return;  // drafting nothing: plain decode steps
    if (!(s.acceptance_rate >= 0 && s.acceptance_rate <= 1)) {
        bad("acceptance_rate must be between 0 and 1, got " + std::to_string(s.acceptance_rate));
    }
    const double most = static_cast<double>(s.tokens + 1);
    if (s.mean_accepted_length != 0 && !(s.mean_accepted_length >= 1 && s.mean_accepted_length <= most)) {
        bad("mean_accepted_length must be between 1 and num_speculative_tokens + 1 (" + std::to_string(most) +
            "), got " + std::to_string(s.mean_accepted_length));
    }
    if (s.acceptance_rate == 0 && s.mean_accepted_length == 0) {
        bad("acceptance_rate: give an acceptance rate or a mean accepted length for " +
            std::string(drafter_name(s.drafter)) + " drafting");
    }
}

}  // namespace mfusim::query
