// Locating ../shared/reference for tests that validate against real data.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mfusim::testing {

// $MFUSIM_REFERENCE_DIR if set, else ../shared/reference beside the repository; nullopt if it does not exist.
std::optional<std::string> reference_dir();

// Every real model config under `ref`: model_configs_aic/<org>--<name>_config.json (not the hf_quant_config files)
// and model_configs/<name>/config.json, sorted.
std::vector<std::string> reference_configs(const std::string& ref);

// The header of `ref`/measured/silicon/`file` and its rows that contain every one of `needles` (plain substrings
// of the CSV line: a measurement day, ",trtllm,", a model id), written to a file of this process's own in the
// temporary directory, whose path is returned for read_silicon_csv; the caller removes it. The rows are read as
// the reader reads them, so a finding about some runs is tested on exactly those runs.
std::string silicon_rows_csv(const std::string& ref, const std::string& file, const std::vector<std::string>& needles);

// The fixture directory of the project's own small test inputs (tests/fixtures).
std::string fixtures_dir();

// The repository's example launch file (examples/launches/inferencex.json), beside the fixtures.
std::string example_launch_file();

// The text of the fixture `relative` (a path under tests/fixtures); empty if it cannot be read, which the caller's
// parse then reports.
std::string fixture_text(const std::string& relative);

}  // namespace mfusim::testing

// Skips the current test with a message that says what is missing and how to provide it.
#define MFUSIM_REQUIRE_REFERENCE(var)                                                                          \
    auto var##_opt = ::mfusim::testing::reference_dir();                                                       \
    if (!var##_opt) {                                                                                          \
        GTEST_SKIP() << "reference data absent: ../shared/reference not found and MFUSIM_REFERENCE_DIR unset"; \
    }                                                                                                          \
    const std::string var = *var##_opt
