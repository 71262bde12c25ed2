#include "support/reference.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

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

std::vector<std::string> reference_configs(const std::string& ref) {
    namespace fs = std::filesystem;
    std::vector<std::string> paths;
    for (const auto& e : fs::directory_iterator(ref + "/model_configs_aic")) {
        const std::string name = e.path().filename().string();
        if (name.ends_with("_config.json") && !name.ends_with("hf_quant_config.json")) paths.push_back(e.path());
    }
    for (const auto& e : fs::directory_iterator(ref + "/model_configs")) {
        if (fs::is_regular_file(e.path() / "config.json")) paths.push_back(e.path() / "config.json");
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

std::string silicon_rows_csv(const std::string& ref, const std::string& file, const std::vector<std::string>& needles) {
    std::ifstream in(ref + "/measured/silicon/" + file);
    const std::filesystem::path out =
        std::filesystem::temp_directory_path() / ("mfusim_rows_" + std::to_string(::getpid()) + "_" + file);
    std::ofstream o(out);
    std::string line;
    std::getline(in, line);
    o << line << '\n';
    while (std::getline(in, line)) {
        if (std::all_of(needles.begin(), needles.end(),
                        [&](const std::string& n) { return line.find(n) != std::string::npos; })) {
            o << line << '\n';
        }
    }
    return out.string();
}

std::string example_launch_file() {
    return (std::filesystem::path(fixtures_dir()) / ".." / ".." / "examples" / "launches" / "inferencex.json").string();
}

std::string fixtures_dir() {
#ifdef MFUSIM_FIXTURES_DIR
    return MFUSIM_FIXTURES_DIR;
#else
    const char* env = std::getenv("MFUSIM_FIXTURES_DIR");
    return env ? env : "tests/fixtures";
#endif
}

std::string fixture_text(const std::string& relative) {
    std::ifstream in(fixtures_dir() + "/" + relative);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace mfusim::testing
