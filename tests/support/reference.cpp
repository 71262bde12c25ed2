#include "support/reference.hpp"

#include <cstdlib>
#include <filesystem>

namespace mfusim::testing {

std::optional<std::string> reference_dir() {
    std::error_code ec;
    if (const char* env = std::getenv("MFUSIM_REFERENCE_DIR"); env && *env) {
        if (std::filesystem::is_directory(env, ec)) return std::string(env);
        return std::nullopt;
    }
#ifdef MFUSIM_REFERENCE_DIR_DEFAULT
    if (std::filesystem::is_directory(MFUSIM_REFERENCE_DIR_DEFAULT, ec))
        return std::string(MFUSIM_REFERENCE_DIR_DEFAULT);
#endif
    return std::nullopt;
}

std::string fixtures_dir() {
#ifdef MFUSIM_FIXTURES_DIR
    return MFUSIM_FIXTURES_DIR;
#else
    const char* env = std::getenv("MFUSIM_FIXTURES_DIR");
    return env ? env : "tests/fixtures";
#endif
}

}  // namespace mfusim::testing
