// "Did you mean ...": the known names closest to a mistyped one, by edit distance, for error messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mfusim {

// Levenshtein distance, case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `limit` candidates nearest to `name`, nearest first, ties in candidate order; only those within a
// distance a typo or a missing word explains (a third of the longer name, at least 2), so an unrelated name
// suggests nothing.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t limit = 3);

// "; did you mean 'a' or 'b'?" or "" when nothing is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// As did_you_mean, for names people abbreviate (model names: "llama-3.1-8b", "llama3-8b" for
// "llama-3.1-8b-instruct"): when no name is within a typo's distance, the candidates whose letters and digits
// contain the name's in order (at least 4 of them), shortest first.
std::string did_you_mean_abbreviated(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace mfusim
