// Warnings as scripts read them: the library reports load warnings one per line; JSON outputs carry them as an
// array of strings so a script can count and match them without parsing text.
#pragma once

#include <string>
#include <vector>

#include "common/lines.hpp"

namespace mfusim::cli {

// Text outputs end with them, one indented line each after a "load warnings:" heading; nothing when there are none.
void print_load_warnings(const std::string& text);

}  // namespace mfusim::cli
