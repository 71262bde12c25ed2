// mfusim serve --disagg: the disaggregated (prefill pool + decode pool) serving estimate (docs/disagg.md).
#pragma once

#include <vector>

#include "cli/args.hpp"

namespace mfusim::cli {

// --disagg and the two pools' flags, appended to serve's.
std::vector<FlagSpec> disagg_flags();
// Prints the estimate (text or --json); 0 on success.
int run_serve_disagg(const ParsedArgs& args);

}  // namespace mfusim::cli
