// mfusim tables DIR: per GPU and table, what it holds, its coverage and every problem found.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "common/json.hpp"
#include "tables/inspect.hpp"

namespace mfusim::cli {

int run_tables(const Args& raw) {
    static const CommandSpec spec{
        "tables",
        "mfusim tables DIR [--gpu NAME] [--json]",
        "Loads a bench_data directory (InferSim/BLIS layout) strictly and lists, per GPU and\n"
        "table, the rows, the grid covered, the peak its MFU refers to, and every problem\n"
        "found. A malformed table stops the load with file, line and column.",
        {{"--gpu", "FOLDER", "only this GPU folder (e.g. h100)"}, {"--json", "", "machine-readable output"}},
        {"DIR"}};
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    const std::string& dir = args.positional()[0];
    tables::BenchData data = tables::load_bench_data(dir, args.text_or("--gpu", ""));
    std::vector<tables::TableSummary> summaries = tables::inspect(data);
    std::size_t problems = 0;
    for (const auto& s : summaries) problems += s.problems.size();
    if (args.flag("--json")) {
        nlohmann::ordered_json out;
        out["directory"] = dir;
        out["tables"] = nlohmann::ordered_json::array();
        for (const auto& s : summaries) {
            out["tables"].push_back({{"path", s.relative_path},
                                     {"gpu", s.gpu},
                                     {"kind", s.kind},
                                     {"rows", s.rows},
                                     {"coverage", s.coverage},
                                     {"peak", s.peak},
                                     {"problems", s.problems}});
        }
        out["ignored"] = data.notes;
        std::printf("%s\n", json_text(out).c_str());
        return 0;
    }
    std::printf("%s: %zu tables, %zu problems, %zu ignored entries\n", dir.c_str(), summaries.size(), problems,
                data.notes.size());
    std::string gpu;
    for (const auto& s : summaries) {
        if (s.gpu != gpu) {
            gpu = s.gpu;
            std::printf("\nGPU %s\n", gpu.c_str());
        }
        std::printf("  %-44s %-18s %5zu rows  %s; MFU vs %s peak\n", s.relative_path.c_str(), s.kind.c_str(), s.rows,
                    s.coverage.c_str(), s.peak.c_str());
        for (const auto& p : s.problems) std::printf("      problem: %s\n", p.c_str());
    }
    if (!data.notes.empty()) {
        std::printf("\nignored:\n");
        for (const auto& n : data.notes) std::printf("  %s\n", n.c_str());
    }
    return 0;
}

}  // namespace mfusim::cli
