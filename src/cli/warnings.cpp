#include "cli/warnings.hpp"

#include <cstdio>

namespace mfusim::cli {

std::vector<std::string> warning_lines(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t start = 0; start < text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        if (end > start) out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

void print_load_warnings(const std::string& text) {
    const std::vector<std::string> lines = warning_lines(text);
    if (lines.empty()) return;
    std::printf("\nload warnings:\n");
    for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
}

}  // namespace mfusim::cli
