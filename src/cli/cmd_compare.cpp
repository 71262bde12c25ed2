// mfusim compare: lands with the roofline model (src/compare).
#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace mfusim::cli {

int run_compare(const Args&) {
    throw UsageError("compare is not built yet");
}

}  // namespace mfusim::cli
