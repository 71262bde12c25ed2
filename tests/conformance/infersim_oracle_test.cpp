// Conformance of the compat model against InferSim's oracle (../shared/reference/infersim/oracle.csv): every
// numeric column of every `ok` row to 1e-9 relative (absent columns absent), the warnings and sim_errors strings
// exactly, and every crash row an Error(compat_crash) naming InferSim's exception.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/numbers.hpp"
#include "compat/compat_model.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "support/reference.hpp"
#include "tables/tables.hpp"

namespace {

using mfusim::compat::CompatModel;

// RFC 4180 reader: fields separated by commas, optionally quoted with "" as an escaped quote; CRLF or LF.
std::vector<std::vector<std::string>> read_quoted_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (quoted) {
            if (ch == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += ch;
            }
            continue;
        }
        if (ch == '"') {
            quoted = true;
            any = true;
        } else if (ch == ',') {
            row.push_back(std::move(field));
            field.clear();
            any = true;
        } else if (ch == '\n' || ch == '\r') {
            if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            if (any || !field.empty()) {
                row.push_back(std::move(field));
                rows.push_back(std::move(row));
            }
            field.clear();
            row.clear();
            any = false;
        } else {
            field += ch;
            any = true;
        }
    }
    if (any || !field.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

struct Oracle {
    std::vector<std::string> header;
    std::map<std::string, std::size_t> index;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::size_t> outputs;  // numeric output columns

    const std::string& get(const std::vector<std::string>& row, const char* column) const {
        return row.at(index.at(column));
    }
};

Oracle load_oracle(const std::string& path) {
    Oracle o;
    auto all = read_quoted_csv(mfusim::read_file(path));
    o.header = std::move(all.front());
    for (std::size_t i = 0; i < o.header.size(); ++i) o.index[o.header[i]] = i;
    o.rows.assign(std::make_move_iterator(all.begin() + 1), std::make_move_iterator(all.end()));
    const std::set<std::string> strings = {"device_type", "attn_type", "model_type", "cmd"};
    for (std::size_t i = o.index.at("warnings") + 1; i < o.header.size(); ++i) {
        if (!strings.count(o.header[i])) o.outputs.push_back(i);
    }
    return o;
}

struct Fixture {
    std::string root;
    Oracle oracle;
    std::shared_ptr<const mfusim::tables::BenchData> tables;
    std::map<std::string, std::unique_ptr<CompatModel>> models;

    const CompatModel& model_for(const std::vector<std::string>& row) {
        const Oracle& o = oracle;
        auto flag = [&](const char* c) { return o.get(row, c) == "1"; };
        std::string key;
        for (const char* c : {"model", "device", "world_size", "tp_size", "num_nodes", "enable_deepep", "enable_tbo",
                              "use_fp8_gemm", "use_fp8_kv"}) {
            key += o.get(row, c) + "|";
        }
        auto it = models.find(key);
        if (it != models.end()) return *it->second;
        mfusim::query::Deployment d;
        d.world_size = std::stoll(o.get(row, "world_size"));
        d.tensor_parallel = std::stoll(o.get(row, "tp_size"));
        d.num_nodes = std::stoll(o.get(row, "num_nodes"));
        d.deepep = flag("enable_deepep");
        d.two_batch_overlap = flag("enable_tbo");
        d.fp8_gemm = flag("use_fp8_gemm");
        d.fp8_kv = flag("use_fp8_kv");
        auto source = mfusim::config::resolve_model_source(root + "/hf_configs/" + o.get(row, "model"));
        auto gpu = mfusim::gpu::resolve_gpu(o.get(row, "device"));
        auto model = std::make_unique<CompatModel>(source, gpu, tables, d);
        return *models.emplace(key, std::move(model)).first->second;
    }

    mfusim::query::Scenario scenario_for(const std::vector<std::string>& row) const {
        mfusim::query::Scenario s;
        s.input_len = std::stoll(oracle.get(row, "target_isl"));
        s.output_len = std::stoll(oracle.get(row, "target_osl"));
        s.max_prefill_tokens = std::stoll(oracle.get(row, "max_prefill_tokens"));
        const std::string& bs = oracle.get(row, "decode_bs");
        s.decode_batch = bs.empty() ? -1 : std::stoll(bs);
        s.phases = oracle.get(row, "mode") == "prefill" ? mfusim::query::Phases::prefill_only
                                                        : mfusim::query::Phases::decode_only;
        return s;
    }
};

Fixture& fixture(const std::string& ref) {
    static std::unique_ptr<Fixture> f;
    if (!f) {
        f = std::make_unique<Fixture>();
        f->root = ref + "/infersim";
        f->oracle = load_oracle(f->root + "/oracle.csv");
        f->tables =
            std::make_shared<const mfusim::tables::BenchData>(mfusim::tables::load_bench_data(f->root + "/bench_data"));
    }
    return *f;
}

bool within(double got, double want) {
    return std::fabs(got - want) <= 1e-9 * std::fabs(want);
}

struct Mismatch {
    std::size_t count = 0;
    std::string first;
};

TEST(InferSimOracle, EveryRow) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    auto start = std::chrono::steady_clock::now();
    Fixture& f = fixture(ref);
    const Oracle& o = f.oracle;

    std::size_t ok_rows = 0, ok_good = 0, crash_rows = 0, crash_good = 0, values = 0, identical = 0;
    double max_rel = 0;
    std::map<std::string, Mismatch> mismatches;
    auto note = [&](const std::string& column, const std::string& case_id, const std::string& what) {
        Mismatch& m = mismatches[column];
        if (m.count++ == 0) m.first = "case " + case_id + ": " + what;
    };

    for (const auto& row : o.rows) {
        const std::string& case_id = o.get(row, "case_id");
        const std::string& status = o.get(row, "status");
        const CompatModel& model = f.model_for(row);
        const auto scenario = f.scenario_for(row);
        if (status != "ok") {
            ++crash_rows;
            try {
                (void)model.estimate(scenario);
                note("(crash)", case_id, "InferSim raises " + status + " but estimate() succeeded");
            } catch (const mfusim::Error& e) {
                std::string expected = "InferSim raises " + status;
                if (e.status() == mfusim::Status::compat_crash && std::string(e.what()).find(expected) == 0) {
                    ++crash_good;
                } else {
                    note("(crash)", case_id, std::string("wrong error: ") + e.what());
                }
            }
            continue;
        }
        ++ok_rows;
        mfusim::query::Report report;
        try {
            report = model.estimate(scenario);
        } catch (const std::exception& e) {
            note("(error)", case_id, e.what());
            continue;
        }
        bool good = true;
        std::set<std::string> seen;
        for (std::size_t col : o.outputs) {
            const std::string& name = o.header[col];
            const std::string& cell = row[col];
            const double* got = report.find(name);
            seen.insert(name);
            if (cell.empty()) {
                if (got) {
                    good = false;
                    note(name, case_id, "present (" + std::to_string(*got) + ") but InferSim does not print it");
                }
                continue;
            }
            if (!got) {
                good = false;
                note(name, case_id, "absent, InferSim prints " + cell);
                continue;
            }
            const double want = *mfusim::parse_double(cell);
            ++values;
            if (*got == want) ++identical;
            if (want != 0) max_rel = std::max(max_rel, std::fabs(*got - want) / std::fabs(want));
            if (!within(*got, want)) {
                good = false;
                char buf[160];
                std::snprintf(buf, sizeof buf, "got %.17g, want %.17g", *got, want);
                note(name, case_id, buf);
            }
        }
        for (const auto& [name, value] : report.values) {
            if (!seen.count(name)) {
                good = false;
                note(name, case_id, "not an oracle column");
            }
        }
        if (report.joined_warnings() != o.get(row, "warnings")) {
            good = false;
            note("warnings", case_id, "got '" + report.joined_warnings() + "'");
        }
        if (report.joined_soft_errors() != o.get(row, "sim_errors")) {
            good = false;
            note("sim_errors", case_id, "got '" + report.joined_soft_errors() + "'");
        }
        if (good) ++ok_good;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::printf("compat oracle: %zu/%zu ok rows within 1e-9\n", ok_good, ok_rows);
    for (const auto& [column, m] : mismatches) {
        std::printf("compat oracle:   %s: %zu mismatches (first: %s)\n", column.c_str(), m.count, m.first.c_str());
    }
    std::printf("compat oracle: %zu/%zu crash rows reproduced as errors\n", crash_good, crash_rows);
    std::printf("compat oracle: %zu values compared, %zu bit-identical, max relative error %.3g; %zu models; %.2f s\n",
                values, identical, max_rel, f.models.size(), seconds);
    EXPECT_GT(ok_rows, 0u);
    EXPECT_EQ(ok_good, ok_rows);
    EXPECT_EQ(crash_good, crash_rows);
}

// The compat step meaning: a homogeneous prefill step is InferSim's TTFT, a homogeneous decode step its TPOT.
TEST(InferSimOracle, HomogeneousStepsAreTtftAndTpot) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    Fixture& f = fixture(ref);
    const Oracle& o = f.oracle;
    std::size_t checked = 0, equal = 0;
    std::vector<mfusim_request> requests;
    for (const auto& row : o.rows) {
        if (o.get(row, "status") != "ok") continue;
        const CompatModel& model = f.model_for(row);
        const auto s = f.scenario_for(row);
        requests.clear();
        double want;
        if (s.phases == mfusim::query::Phases::prefill_only) {
            if (s.input_len == 0 || s.max_prefill_tokens % s.input_len != 0) continue;
            for (int64_t i = 0; i < s.max_prefill_tokens / s.input_len; ++i) requests.push_back({s.input_len, 0, 0, 0});
            want = *mfusim::parse_double(o.get(row, "prefill.ttft_ms")) * 1000;
        } else {
            const int64_t B = s.decode_batch < 0 ? 128 : s.decode_batch;
            const int64_t K =
                static_cast<int64_t>(static_cast<double>(s.input_len) + static_cast<double>(s.output_len) / 2.0);
            if (K == 0) continue;
            for (int64_t i = 0; i < B; ++i) requests.push_back({1, K, 0, 0});
            want = *mfusim::parse_double(o.get(row, "decode.tpot_ms")) * 1000;
        }
        ++checked;
        const double got = model.step_time_us(requests.data(), requests.size());
        if (within(got, want)) {
            ++equal;
        } else {
            ADD_FAILURE() << "case " << o.get(row, "case_id") << ": step " << got << " us, InferSim " << want << " us";
        }
    }
    std::printf("compat oracle steps: %zu/%zu homogeneous steps equal InferSim's TTFT/TPOT\n", equal, checked);
    EXPECT_GT(checked, 0u);
}

}  // namespace
