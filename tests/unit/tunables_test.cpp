// The descriptor tables of the tunables (issue #25): GPU constants (gpu/constants.cpp), engine fields
// (engines::engine_fields()), weight formats (config/quantization.cpp). Each is the one place its rows live; this
// test holds the relations between their columns, and the docs' tables written from them:
//     MFUSIM_DOCS_WRITE=1 build/tests/mfusim_unit_tests --gtest_filter='Tunables.*'
// rewrites the generated blocks of docs/gpu-profiles.md and docs/calibration.md.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "common/numbers.hpp"
#include "config/quantization.hpp"
#include "engines/engine_profile.hpp"
#include "engines/engine_version.hpp"
#include "gpu/constants.hpp"
#include "support/reference.hpp"

namespace mfusim {
namespace {

std::string repo_file(const std::string& relative) {
    return testing::fixtures_dir() + "/../../" + relative;
}

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string range(double min, double max) {
    return "[" + shortest_text(min) + ", " + shortest_text(max) + "]";
}

std::string gpu_constants_table() {
    std::string t = "| field | unit | JSON range | fitted (family: bounds) | meaning |\n|---|---|---|---|---|\n";
    for (const gpu::GpuConstant& c : gpu::gpu_constants()) {
        std::string json = range(c.json_min, c.json_max) + (c.zero_is_none ? " or 0" : "");
        if (c.datasheet) json += ", required without a base";
        std::string fit = c.fit_family ? std::string(c.fit_family) + ": " + range(c.fit_min, c.fit_max) : "";
        t += "| `" + std::string(c.key) + "` | " + c.unit + " | " + json + " | " + fit + " | " + c.doc + " |\n";
    }
    return t;
}

std::string engine_fields_table() {
    std::string t = "| field | unit | JSON range | fitted (bounds) | where it acts |\n|---|---|---|---|---|\n";
    for (const engines::EngineField& f : engines::engine_fields()) {
        const std::string json = f.number || f.integer ? range(f.min, f.max) : "";
        const std::string fit = f.fit_max > 0 ? range(0, f.fit_max) : "";
        t += "| `" + std::string(f.key) + "` | " + f.unit + " | " + json + " | " + fit + " | " + f.doc + " |\n";
    }
    return t;
}

// The defaults that changed between engine releases (engines::version_defaults()), one row each.
std::string version_defaults_table() {
    std::string t = "| engine | from release | field | value | source |\n|---|---|---|---|---|\n";
    for (const engines::VersionDefault& d : engines::version_defaults()) {
        t += std::string("| `") + d.engine + "` | " + d.since + " | `" + d.field + "` | " + (d.value ? "on" : "off") +
             " | " + d.source + " |\n";
    }
    return t;
}

std::string kernel_constants_table() {
    std::string t = "| constant | mainly fitted by | unit | fit bounds | grid |\n|---|---|---|---|---|\n";
    for (const gpu::KernelConstant& c : gpu::kernel_constants()) {
        std::string grid;
        for (double g : c.grid) grid += (grid.empty() ? "" : ", ") + shortest_text(g);
        t += "| `" + std::string(c.name) + "` | " + c.family + " | " + c.unit + " | " + range(c.min, c.max) + " | " +
             grid + " |\n";
    }
    return t;
}

// The block between <!-- name:begin --> and <!-- name:end --> of a doc equals `table`, or is rewritten to it.
void check_block(const std::string& doc, const std::string& name, const std::string& table) {
    const std::string path = repo_file(doc);
    std::string text = read(path);
    const std::string begin = "<!-- " + name + ":begin -->\n", end = "<!-- " + name + ":end -->";
    const std::size_t a = text.find(begin), b = text.find(end);
    ASSERT_NE(a, std::string::npos) << doc << " has no " << begin;
    ASSERT_NE(b, std::string::npos) << doc << " has no " << end;
    const std::string current = text.substr(a + begin.size(), b - a - begin.size());
    if (std::getenv("MFUSIM_DOCS_WRITE")) {
        text.replace(a + begin.size(), b - a - begin.size(), table);
        std::ofstream(path) << text;
        return;
    }
    EXPECT_EQ(current, table) << doc << "'s " << name << " table is not the one its descriptor table gives; "
                              << "rerun with MFUSIM_DOCS_WRITE=1";
}

TEST(Tunables, GpuConstantsFitInsideWhatLoads) {
    std::set<std::string> keys;
    for (const gpu::GpuConstant& c : gpu::gpu_constants()) {
        SCOPED_TRACE(c.key);
        EXPECT_TRUE(keys.insert(c.key).second) << "one row per key";
        EXPECT_NE(c.number == nullptr, c.integer == nullptr) << "a number or an integer";
        EXPECT_LT(c.json_min, c.json_max);
        if (!c.fit_family) continue;
        // A fitted value must load from a calibration or a JSON profile: the fit's bounds lie inside the JSON range.
        EXPECT_GE(c.fit_min, c.json_min);
        EXPECT_LE(c.fit_max, c.json_max);
        ASSERT_FALSE(c.fit_grid.empty());
        for (std::size_t i = 0; i < c.fit_grid.size(); ++i) {
            EXPECT_GE(c.fit_grid[i], c.fit_min);
            EXPECT_LE(c.fit_grid[i], c.fit_max);
            if (i > 0) {
                EXPECT_LT(c.fit_grid[i - 1], c.fit_grid[i]);
            }
        }
    }
    // Every built-in GPU's value lies in its JSON range, so a profile written from a built-in loads back.
    for (const gpu::GpuProfile& g : gpu::builtin_gpus()) {
        for (const gpu::GpuConstant& c : gpu::gpu_constants()) {
            const double v = c.number ? g.*c.number : static_cast<double>(g.*c.integer);
            const bool zero_ok = c.zero_is_none || c.json_min == 0;
            EXPECT_TRUE((v == 0 && zero_ok) || (v >= c.json_min && v <= c.json_max))
                << g.name << " " << c.key << " " << v;
        }
    }
}

TEST(Tunables, EngineTermsFitInsideWhatLoads) {
    for (const engines::EngineField& f : engines::engine_fields()) {
        SCOPED_TRACE(f.key);
        EXPECT_STRNE(f.unit, "") << "every field says its unit (docs/engine.md's table)";
        EXPECT_STRNE(f.doc, "") << "every field says where it acts";
        if (f.fit_max <= 0) continue;
        EXPECT_LE(f.fit_max, f.max);
        EXPECT_NE(f.number, nullptr);
        // The built-in engines' values are inside the fit's bounds: a fit starting from them can return them.
        for (const engines::EngineProfile& e : engines::builtin_engines()) {
            EXPECT_GE(e.*f.number, 0) << e.name;
            EXPECT_LE(e.*f.number, f.fit_max) << e.name;
        }
    }
    EXPECT_EQ(engines::fitted_engine_terms().size(), 7u);
}

TEST(Tunables, HeaderNamesEveryWeightFormat) {
    const std::string header = read(repo_file("include/mfusim.h"));
    ASSERT_FALSE(header.empty());
    const std::size_t quant = header.find("Roofline: weight quantization of the linear layers");
    ASSERT_NE(quant, std::string::npos);
    const std::string comment = header.substr(quant, header.find("*/", quant) - quant);
    std::stringstream names(config::weight_format_names());  // "bf16, fp8, ..."
    std::string name;
    while (std::getline(names >> std::ws, name, ',')) {
        EXPECT_NE(comment.find("\"" + name + "\""), std::string::npos) << name << " missing from options.quant's doc";
    }
}

TEST(Tunables, DocsTablesAreWrittenFromTheDescriptors) {
    check_block("docs/gpu-profiles.md", "gpu-constants", gpu_constants_table());
    check_block("docs/engine.md", "engine-fields", engine_fields_table());
    check_block("docs/engine.md", "version-defaults", version_defaults_table());
    check_block("docs/calibration.md", "kernel-constants", kernel_constants_table());
}

}  // namespace
}  // namespace mfusim
