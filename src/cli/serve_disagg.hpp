// mfusim serve --disagg: the disaggregated (prefill pool + decode pool) serving estimate (docs/disagg.md).
#pragma once

#include <vector>

#include "cli/args.hpp"
#include "simulate/disagg_sim.hpp"

namespace mfusim::cli {

// --disagg and the two pools' flags, appended to serve's.
std::vector<FlagSpec> disagg_flags();
// --router round-robin|least-loaded (the two-pool simulation's router; round-robin without the flag); a UsageError
// for another word, or for the flag where the command does not simulate (`simulated` false).
simulate::DisaggRouting disagg_router(const ParsedArgs& args, bool simulated);
// Prints the estimate (text or --json); 0 on success.
int run_serve_disagg(const ParsedArgs& args);

}  // namespace mfusim::cli
