// Fuzz target: a serving CSV in AIConfigurator's silicon layout, as `mfusim compare --serving` and `mfusim calibrate
// --serving` read it (read_silicon_csv), written to a scratch file: rows that read are answered by predict_serving
// (one estimator per deployment: backend, model, quant, tp, ep, attention dp from the row) against a scratch configs
// folder holding Qwen3-8B and Qwen3-30B-A3B, so each row's numbers reach the serving estimate. Every row gets an
// answer or a refusal naming its status; an answer is finite.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compare/serving_compare.hpp"
#include "config/model_source.hpp"
#include "fuzz_support.hpp"

namespace fs = std::filesystem;
using mfusim::fuzz::handled;
using mfusim::fuzz::require;

namespace {

fs::path scratch_root() {
    std::error_code ec;
    fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string pattern = (base / "mfusim-fuzz-serving-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    const fs::path root = pattern;
    fs::create_directories(root / "configs");
    for (const auto& [file, name] : {std::pair{"Qwen--Qwen3-8B_config.json", "qwen3-8b"},
                                     std::pair{"Qwen--Qwen3-30B-A3B_config.json", "qwen3-30b-a3b"}}) {
        std::ofstream(root / "configs" / file) << mfusim::config::resolve_model_source(name).json_text;
    }
    return root;
}

void write(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const fs::path root = scratch_root();
    const fs::path csv = root / "silicon.csv";
    write(csv, mfusim::fuzz::as_text(data, size));
    handled([&] {
        std::vector<mfusim::compare::ServingRow> rows = mfusim::compare::read_silicon_csv(csv.string());
        for (const auto& r : rows) {
            require(r.tp >= 1 && r.ep >= 1 && r.attention_dp >= 1, "degrees at least 1");
            require(r.ttft_ms > 0 && r.tpot_ms > 0 && std::isfinite(r.ttft_ms) && std::isfinite(r.tpot_ms),
                    "measured times finite and positive");
        }
        if (rows.size() > 6) rows.resize(6);  // each row is a serving estimate: keep an execution short
        const auto predictions = mfusim::compare::predict_serving(
            rows, (root / "configs").string(), "H100",
            [](const std::string& backend) { return mfusim::engines::resolve_engine(backend); });
        require(predictions.size() == rows.size(), "one prediction per row");
        for (const auto& p : predictions) {
            if (!p.answered) {
                require(!p.status.empty() && p.status != "internal error", "a refusal names its status");
                continue;
            }
            require(std::isfinite(p.result.ttft_ms) && p.result.ttft_ms >= 0 && std::isfinite(p.result.tpot_ms) &&
                        p.result.tpot_ms >= 0,
                    "predicted TTFT and TPOT finite and not negative");
        }
        mfusim::compare::format_serving(mfusim::compare::serving_groups(predictions), predictions);
    });
    return 0;
}
