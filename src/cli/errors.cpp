#include <cstdio>
#include <new>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "common/error.hpp"

namespace mfusim::cli {

int report_errors(const std::string& command, int (*body)(const Args&), const Args& args) {
    try {
        int code = body(args);
        // Everything the command printed must have arrived: `mfusim gpus > /dev/full` is a failure.
        finish_output(stdout, "stdout");
        return code;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "mfusim %s: %s\n", command.c_str(), e.what());
        return 2;
    } catch (const Error& e) {
        std::fprintf(stderr, "mfusim %s: error: %s\n", command.c_str(), e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "mfusim %s: error: out of memory\n", command.c_str());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mfusim %s: internal error: %s (please report)\n", command.c_str(), e.what());
        return 1;
    }
}

}  // namespace mfusim::cli
