#include "common/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace mfusim {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t above = row[j];
            bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t limit) {
    std::vector<std::pair<std::size_t, std::size_t>> scored;  // (distance, index)
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        std::size_t d = edit_distance(name, candidates[i]);
        std::size_t allowed = std::max<std::size_t>(2, std::max(name.size(), candidates[i].size()) / 3);
        if (d <= allowed) scored.emplace_back(d, i);
    }
    std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (std::size_t k = 0; k < scored.size() && k < limit; ++k) out.push_back(candidates[scored[k].second]);
    return out;
}

namespace {

std::string phrase(const std::vector<std::string>& near) {
    if (near.empty()) return "";
    std::string out = "; did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + ("'" + near[i] + "'");
    }
    return out + "?";
}

std::string letters_and_digits(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

bool is_subsequence(std::string_view part, std::string_view whole) {
    std::size_t k = 0;
    for (char c : whole) {
        if (k < part.size() && part[k] == c) ++k;
    }
    return k == part.size();
}

}  // namespace

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
    return phrase(closest_names(name, candidates));
}

std::string did_you_mean_abbreviated(std::string_view name, const std::vector<std::string>& candidates) {
    std::vector<std::string> near = closest_names(name, candidates);
    const std::string wanted = letters_and_digits(name);
    if (near.empty() && wanted.size() >= 4) {
        std::vector<std::string> containing;
        for (const std::string& c : candidates) {
            if (is_subsequence(wanted, letters_and_digits(c))) containing.push_back(c);
        }
        std::stable_sort(containing.begin(), containing.end(),
                         [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
        if (containing.size() > 3) containing.resize(3);
        near = std::move(containing);
    }
    return phrase(near);
}

}  // namespace mfusim
