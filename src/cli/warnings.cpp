#include "cli/warnings.hpp"

#include <cstdio>

namespace mfusim::cli {

void print_load_warnings(const std::string& text) {
    const std::vector<std::string> lines = warning_lines(text);
    if (lines.empty()) return;
    std::printf("\nload warnings:\n");
    for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
}

}  // namespace mfusim::cli
