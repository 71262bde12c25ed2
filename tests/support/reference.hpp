// Locating ../shared/reference for tests that validate against real data.
#pragma once

#include <optional>
#include <string>

namespace mfusim::testing {

// $MFUSIM_REFERENCE_DIR if set, else ../shared/reference beside the repository; nullopt if it does not exist.
std::optional<std::string> reference_dir();

// The fixture directory of the project's own small test inputs (tests/fixtures).
std::string fixtures_dir();

}  // namespace mfusim::testing

// Skips the current test with a message that says what is missing and how to provide it.
#define MFUSIM_REQUIRE_REFERENCE(var)                                                                          \
    auto var##_opt = ::mfusim::testing::reference_dir();                                                       \
    if (!var##_opt) {                                                                                          \
        GTEST_SKIP() << "reference data absent: ../shared/reference not found and MFUSIM_REFERENCE_DIR unset"; \
    }                                                                                                          \
    const std::string var = *var##_opt
