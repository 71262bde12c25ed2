// Fuzz target: a whole bench_data directory. The input is a small archive of files:
//   === gemm/h100/data.csv
//   m,k,n,latency_us,mfu
//   ...
//   === mha/decode/h20/32-8-128.csv
//   ...
// Each "=== <path>" line starts a file (a path ending in '/' is an empty folder). Paths are confined to the
// scratch tree: [A-Za-z0-9._-] components, no "." or "..", at most 6 deep, at most 32 entries. The tree is written
// to a fresh scratch folder, loaded, inspected, and then (when it loads) used as the tables of a compat and a
// roofline model of Qwen3-30B-A3B on the H20, whose lookups and steps must still give errors or finite times.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

#include "compat/compat_model.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "fuzz_support.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"
#include "tables/inspect.hpp"
#include "tables/tables.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch_root() {
    std::error_code ec;
    fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string pattern = (base / "mfusim-fuzz-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    return pattern;
}

// A safe relative path, or "" when the archive's path is not acceptable.
std::string sanitize(std::string_view raw) {
    std::string out;
    int depth = 0;
    std::size_t start = 0;
    while (start <= raw.size()) {
        std::size_t slash = raw.find('/', start);
        std::string_view part = raw.substr(start, (slash == std::string_view::npos ? raw.size() : slash) - start);
        if (part.empty() && slash == std::string_view::npos && !out.empty()) {
            out += '/';  // trailing slash: a folder
            break;
        }
        if (part.empty() || part == "." || part == ".." || part.size() > 64 || ++depth > 6) return "";
        for (char c : part) {
            bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
            if (!ok) return "";
        }
        out += (out.empty() ? "" : "/") + std::string(part);
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

void write_tree(const fs::path& root, const std::string& archive) {
    std::error_code ec;
    fs::create_directories(root, ec);
    std::size_t at = 0, entries = 0;
    std::string path;
    std::string content;
    auto flush = [&] {
        if (path.empty()) return;
        fs::path target = root / path;
        if (path.back() == '/') {
            fs::create_directories(target, ec);
        } else {
            fs::create_directories(target.parent_path(), ec);
            std::ofstream(target, std::ios::binary) << content;
        }
    };
    while (at < archive.size() && entries < 32) {
        std::size_t end = archive.find('\n', at);
        std::string_view line(archive.data() + at, (end == std::string::npos ? archive.size() : end) - at);
        at = end == std::string::npos ? archive.size() : end + 1;
        if (line.substr(0, 4) == "=== ") {
            flush();
            path = sanitize(line.substr(4));
            content.clear();
            ++entries;
        } else if (!path.empty()) {
            content.append(line.data(), line.size());
            if (end != std::string::npos) content += '\n';
        }
    }
    flush();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const fs::path root = scratch_root();
    static const mfusim::gpu::GpuProfile h20 = *mfusim::gpu::find_builtin_gpu("H20");
    static const mfusim::config::ModelSource model = mfusim::config::resolve_model_source("qwen3-30b-a3b");
    static const mfusim::config::ModelConfig model_config = mfusim::config::parse_model_config(model);
    const fs::path tree = root / "bench_data";
    std::error_code ec;
    fs::remove_all(tree, ec);
    write_tree(tree, mfusim::fuzz::as_text(data, size));

    mfusim::fuzz::handled([&] {
        auto tables = std::make_shared<const mfusim::tables::BenchData>(mfusim::tables::load_bench_data(tree.string()));
        mfusim::tables::inspect(*tables);
        const mfusim_request step[] = {{1024, 0, 0, 0}, {1, 2048, 0, 0}, {1, 300, 0, 0}, {100, 7000, 0, 0}};
        mfusim::fuzz::handled([&] {
            mfusim::compat::CompatModel compat(model, h20, tables, mfusim::query::Deployment{});
            for (std::size_t n = 1; n <= 4; ++n) {
                mfusim::fuzz::handled([&] {
                    double us = compat.step_time_us(step, n);
                    mfusim::fuzz::require(std::isfinite(us) && us > 0, "compat step time finite and positive");
                });
            }
        });
        mfusim::fuzz::handled([&] {
            mfusim::roofline::RooflineModel roofline(model_config, h20, tables, mfusim::query::Deployment{});
            for (std::size_t n = 0; n <= 4; ++n) {
                // An empty step costs the engine's per-step term, which may be 0; any work costs time.
                double us = roofline.step_time_us(step, n);
                mfusim::fuzz::require(std::isfinite(us) && (n == 0 ? us >= 0 : us > 0),
                                      "roofline step time finite, and positive for a step with work");
            }
        });
    });
    fs::remove_all(tree, ec);
    return 0;
}
