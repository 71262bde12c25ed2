// Multi-line text as a list: the library reports load warnings one per line; JSON outputs and the planning
// results carry them as an array of strings so a script can count and match them without parsing text.
#pragma once

#include <string>
#include <vector>

namespace mfusim {

// The non-empty lines of `text`, in order.
std::vector<std::string> warning_lines(const std::string& text);

}  // namespace mfusim
