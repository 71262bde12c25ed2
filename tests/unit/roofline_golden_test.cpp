// The roofline model's figures over a grid, pinned: every step time, breakdown, memory fact, engine count,
// parameter count and load warning of the fixture models (and, where ../shared/reference is present, of every real
// config in it) over several GPUs, deployments, weight formats, engines and steps, printed with %.17g and hashed.
// The hashes in tests/fixtures/roofline_golden.txt were written by the code before the operation plan
// (issue #25), so a refactor that is meant to change no number proves it here.
//
// A change that is meant to move numbers regenerates the golden on purpose:
//     MFUSIM_GOLDEN_WRITE=1 build/tests/mfusim_unit_tests --gtest_filter='RooflineGolden.*'
// rewrites tests/fixtures/roofline_golden.txt; commit it with the change and say why the figures moved.
// MFUSIM_GOLDEN_DUMP=<dir> writes the full dumps there (fixtures.txt, reference.txt) to diff two builds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/hash.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/model_params.hpp"
#include "roofline/roofline_model.hpp"
#include "support/reference.hpp"
#include "tables/tables.hpp"

namespace mfusim {
namespace {

namespace fs = std::filesystem;

class Dump {
  public:
    void num(const char* key, double v) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        out_ << key << '=' << buf << ' ';
    }
    void text(const char* key, const std::string& v) { out_ << key << "=[" << v << "] "; }
    void line() { out_ << '\n'; }
    std::string str() const { return out_.str(); }

  private:
    std::ostringstream out_;
};

std::vector<std::vector<mfusim_request>> steps() {
    std::vector<std::vector<mfusim_request>> s;
    s.push_back({});
    s.push_back({{1, 1000, 0u, 0u}});
    std::vector<mfusim_request> decodes;
    for (int i = 0; i < 64; ++i) decodes.push_back({1, 100 + 997 * i, 0u, 0u});
    s.push_back(decodes);
    s.push_back({{2048, 0, 0u, 0u}});
    s.push_back({{512, 8192, MFUSIM_REQUEST_NO_OUTPUT, 0u}, {0, 50, 0u, 0u}});
    std::vector<mfusim_request> mixed;  // the benchmark's 256-request mixed step
    mixed.push_back({512, 1024, MFUSIM_REQUEST_NO_OUTPUT, 0u});
    for (int i = 1; i < 256; ++i) mixed.push_back({1, 512 + 37 * i, 0u, 0u});
    s.push_back(mixed);
    std::vector<mfusim_request> long_context;  // past every sliding window and DSA's top-k
    for (int i = 0; i < 8; ++i) long_context.push_back({1, 100000 + 4096 * i, 0u, 0u});
    long_context.push_back({3000, 120000, 0u, 0u});
    long_context.push_back({7, 3, 0u, 0u});
    s.push_back(long_context);
    return s;
}

void dump_detail(Dump& d, const mfusim_step_result& r) {
    d.num("total", r.total_us);
    d.num("bound", r.bound);
    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
        const mfusim_op_detail& o = r.ops[op];
        if (o.time_us == 0 && o.flops == 0 && o.bytes == 0) continue;
        d.num("op", op);
        d.num("t", o.time_us);
        d.num("f", o.flops);
        d.num("b", o.bytes);
        d.num("e", o.efficiency);
        d.num("bd", o.bound);
        d.num("s", o.source);
        d.num("dist", o.distance);
        d.text("tab", o.table);
    }
}

void dump_model(Dump& d, const roofline::RooflineModel& m) {
    const roofline::MemoryFacts& f = m.memory();
    d.num("w", f.weight_bytes);
    d.num("kv", f.kv_bytes_per_token);
    d.num("wkv", f.windowed_kv_bytes_per_token);
    d.num("win", static_cast<double>(f.kv_window));
    d.num("state", f.state_bytes_per_request);
    d.num("gpus", static_cast<double>(f.gpus));
    d.num("rep", static_cast<double>(f.replicas));
    d.text("warn", m.load_warnings());
    d.line();
    for (const auto& step : steps()) {
        d.num("step", m.step_time_us(step.data(), step.size()));
        mfusim_step_result r{};
        r.struct_size = sizeof r;
        m.step_detail(step.data(), step.size(), r);
        dump_detail(d, r);
        roofline::EngineUnits u = m.engine_units(step.data(), step.size());
        d.num("u", u.step);
        d.num("u", u.requests);
        d.num("u", u.layers);
        d.num("u", u.eager_layers);
        d.num("u", u.tp_sync);
        d.line();
    }
    roofline::StepMix mix;
    mix.decodes = 100;
    mix.decode_context = 3000;
    mix.chunks = 2;
    mix.chunk_tokens = 1024;
    mix.chunk_context = 9000;
    mix.chunk_outputs = false;
    mfusim_step_result r{};
    r.struct_size = sizeof r;
    d.num("mix", m.mix_time_us(mix));
    m.mix_time_us(mix, &r);
    dump_detail(d, r);
    d.line();
    query::Scenario scenario;
    scenario.input_len = 3000;
    scenario.output_len = 500;
    scenario.max_prefill_tokens = 1024;
    scenario.decode_batch = 32;
    query::Report report = m.estimate(scenario);
    for (const auto& [name, value] : report.values) d.num(name.c_str(), value);
    for (const std::string& w : report.warnings) d.text("w", w);
    d.line();
}

struct Case {
    std::string gpu;
    bool tables = false;
    int64_t tp = 1, ep = 1, dp = 1;
    std::string quant;
    std::string engine = "vllm";
    bool fp8_kv = false;
    bool calibrated = false;
};

Case make(std::string gpu, bool tables, int64_t tp, int64_t ep = 1, int64_t dp = 1, std::string quant = "",
          std::string engine = "vllm", bool fp8_kv = false, bool calibrated = false) {
    return Case{std::move(gpu), tables, tp, ep, dp, std::move(quant), std::move(engine), fp8_kv, calibrated};
}

std::vector<Case> cases(bool moe, bool with_tables) {
    std::vector<Case> c;
    for (int64_t tp : {1, 2, 8}) {
        c.push_back(make("H100", false, tp));
        if (with_tables) c.push_back(make("H100", true, tp));
    }
    c.push_back(make("A100", false, 4));
    c.push_back(make("B200", false, 1, 1, 1, "nvfp4"));
    c.push_back(make("H100", false, 2, 1, 1, "fp8"));
    c.push_back(make("H100", with_tables, 1, 1, 1, "int4_wo", "sglang", true));
    c.push_back(make("H20", false, 1, 1, 1, "mxfp4", "none"));
    c.push_back(make("L40S", false, 2, 1, 1, "", "trtllm", false, true));
    if (moe) {
        c.push_back(make("H100", with_tables, 8, 8));
        c.push_back(make("H100", false, 1, 8, 8, "fp8"));
        c.push_back(make("B200", false, 2, 4, 2, "", "sglang", true, true));
    }
    return c;
}

void dump_config(Dump& d, const std::string& label, const std::string& path, const std::string& ref) {
    config::ModelConfig model;
    try {
        model = config::parse_model_config(config::resolve_model_source(path));
    } catch (const Error& e) {
        d.text(label.c_str(), std::string("refused ") + e.what());
        d.line();
        return;
    }
    const roofline::ModelParams p = roofline::model_params(model);
    d.text("model", label);
    d.num("total", p.total);
    d.num("active", p.active);
    d.line();
    static std::shared_ptr<const tables::BenchData> h100_tables;
    if (!ref.empty() && !h100_tables) {
        h100_tables =
            std::make_shared<tables::BenchData>(tables::load_bench_data(ref + "/blis-h100/bench_data", "h100"));
    }
    for (const Case& c : cases(model.is_moe(), !ref.empty())) {
        query::Deployment dep;
        dep.tensor_parallel = c.tp;
        dep.expert_parallel = c.ep;
        dep.attention_data_parallel = c.dp;
        dep.fp8_kv = c.fp8_kv;
        roofline::Efficiency eff;
        if (c.calibrated) eff.multiplier = {1.25, 0.8, 1.1, 1.5};
        d.text("case", c.gpu + (c.tables ? "+tables" : "") + " tp" + std::to_string(c.tp) + " ep" +
                           std::to_string(c.ep) + " dp" + std::to_string(c.dp) + " q" + c.quant + " " + c.engine +
                           (c.fp8_kv ? " fp8kv" : "") + (c.calibrated ? " calibrated" : ""));
        try {
            roofline::RooflineModel m(model, gpu::resolve_gpu(c.gpu), c.tables ? h100_tables : nullptr, dep,
                                      engines::resolve_engine(c.engine), c.quant, eff);
            dump_model(d, m);
        } catch (const Error& e) {
            d.text("error", e.what());
            d.line();
        }
    }
}

std::map<std::string, std::string> golden() {
    std::map<std::string, std::string> g;
    std::ifstream in(testing::fixtures_dir() + "/roofline_golden.txt");
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string name, hash;
        fields >> name >> hash;
        g[name] = hash;
    }
    return g;
}

void check(const std::string& name, const std::string& dump) {
    const std::string hash = fnv1a64_hex(dump);
    if (const char* dir = std::getenv("MFUSIM_GOLDEN_DUMP")) {
        std::ofstream(std::string(dir) + "/" + name + ".txt") << dump;
    }
    if (std::getenv("MFUSIM_GOLDEN_WRITE")) {
        std::map<std::string, std::string> g = golden();
        g[name] = hash;
        std::ofstream out(testing::fixtures_dir() + "/roofline_golden.txt");
        out << "# FNV-1a 64 of the roofline golden dumps (tests/unit/roofline_golden_test.cpp says how to "
               "regenerate)\n";
        for (const auto& [n, h] : g) out << n << ' ' << h << '\n';
        return;
    }
    const auto g = golden();
    auto it = g.find(name);
    ASSERT_NE(it, g.end()) << "no golden hash for " << name << " in tests/fixtures/roofline_golden.txt";
    EXPECT_EQ(it->second, hash) << "the roofline figures of the " << name
                                << " grid changed; rerun with MFUSIM_GOLDEN_DUMP=<dir> before and after to diff";
}

TEST(RooflineGolden, FixtureModels) {
    Dump d;
    std::vector<std::string> paths;
    for (const auto& e : fs::directory_iterator(testing::fixtures_dir() + "/models")) paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    for (const std::string& path : paths) dump_config(d, fs::path(path).filename().string(), path, "");
    check("fixtures", d.str());
}

TEST(RooflineGolden, ReferenceModels) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    Dump d;
    const std::vector<std::string> paths = testing::reference_configs(ref);
    for (const std::string& path : paths) {
        dump_config(d, fs::relative(path, ref).string(), path, ref);
    }
    check("reference", d.str());
}

}  // namespace
}  // namespace mfusim
