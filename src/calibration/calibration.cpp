#include "calibration/calibration.hpp"

#include <algorithm>
#include <cstdio>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/named.hpp"
#include "common/numbers.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/constants.hpp"

namespace mfusim::calibration {

namespace {

using engines::EngineTerm;
using engines::fitted_engine_terms;
using gpu::find_kernel_constant;
using gpu::kernel_constant_names;
using gpu::kernel_constants;
using gpu::KernelConstant;

using roofline::EfficiencyFamily;

const EngineTerm* find_term(const std::string& name) {
    return find_named(fitted_engine_terms(), name);
}

GpuConstants read_gpu_constants(const nlohmann::json& section, const std::string& origin) {
    JsonFields f(section, origin, "gpu.");
    for (const auto& item : section.items()) {
        if (item.key() != "name" && item.key() != "constants") {
            f.fail(item.key().c_str(), "unknown field (known: name, constants)");
        }
    }
    GpuConstants g;
    if (!f.has("name")) f.fail("name", "missing: the GPU profile the constants were fitted for");
    g.gpu = *f.optional_string("name");
    if (g.gpu.empty()) f.fail("name", "must name a GPU profile");
    if (!f.has("constants")) f.fail("constants", "missing");
    JsonFields constants(section["constants"], origin, "gpu.constants.");
    for (const auto& item : section["constants"].items()) {
        const KernelConstant* known = find_kernel_constant(item.key());
        if (!known) {
            constants.fail(item.key().c_str(), "not a fitted GPU constant (known: " + kernel_constant_names() + ")");
        }
        const double v = constants.number(item.key().c_str());
        if (!(v >= known->min && v <= known->max)) {
            constants.fail(item.key().c_str(), "must be in [" + shortest_text(known->min) + ", " +
                                                   shortest_text(known->max) + "] " + known->unit + ", found " +
                                                   shortest_text(v));
        }
        g.constants.emplace_back(item.key(), v);
    }
    // In the order of kernel_constants(), whatever the file's: one calibration, one representation.
    auto rank = [](const std::string& name) { return find_kernel_constant(name) - kernel_constants().data(); };
    std::sort(g.constants.begin(), g.constants.end(),
              [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
    return g;
}

}  // namespace

Calibration load_calibration(const std::string& path_or_json) {
    const bool inline_json = is_json_text(path_or_json);
    const std::string origin = inline_json ? "calibration" : path_or_json;
    const nlohmann::json doc = parse_json(inline_json ? path_or_json : read_file(path_or_json), origin);
    JsonFields f(doc, origin);
    // The fields read (provenance such as fitted_on may say null): a null there is a NaN written out, not "absent".
    for (const char* key : {"mfusim_calibration", "base_engine", "engine", "efficiency", "gpu"}) {
        if (doc.is_object() && doc.contains(key)) refuse_nulls(doc[key], origin, key);
    }
    if (!f.has("mfusim_calibration")) {
        f.fail("mfusim_calibration", "missing: not a calibration file (mfusim calibrate writes them)");
    }
    const int64_t version = f.integer("mfusim_calibration");
    if (version < kCalibrationVersionWithoutGpu || version > kCalibrationVersion) {
        f.fail("mfusim_calibration",
               "version " + std::to_string(version) + " is not one this library reads (it reads " +
                   std::to_string(kCalibrationVersionWithoutGpu) + " to " + std::to_string(kCalibrationVersion) + ")");
    }
    for (const auto& item : doc.items()) {
        const std::string& k = item.key();
        if (k != "mfusim_calibration" && k != "base_engine" && k != "engine" && k != "efficiency" && k != "gpu" &&
            k != "units" && k != "fitted_on" && k != "cross_validation" && k != "kernel_fit") {
            f.fail(k.c_str(),
                   "unknown field (known: mfusim_calibration, base_engine, engine, efficiency, gpu, units, "
                   "fitted_on, cross_validation, kernel_fit)");
        }
    }
    Calibration c;
    c.step_fit = f.has("base_engine") || f.has("engine") || f.has("efficiency");
    if (f.has("gpu")) {
        if (version < kCalibrationVersion) {
            f.fail("gpu", "GPU constants need \"mfusim_calibration\": " + std::to_string(kCalibrationVersion) +
                              " (this file says " + std::to_string(version) + ")");
        }
        c.gpu = read_gpu_constants(doc["gpu"], origin);
    }
    c.base_engine = f.optional_string("base_engine").value_or("vllm");
    engines::resolve_engine(c.base_engine);  // a known engine, or Error(unknown_name) naming them
    if (f.has("engine")) {
        JsonFields terms(doc["engine"], origin, "engine.");
        for (const auto& item : doc["engine"].items()) {
            const EngineTerm* term = find_term(item.key());
            if (!term)
                terms.fail(item.key().c_str(),
                           "not a calibrated engine term (known: " + joined_names(fitted_engine_terms()) + ")");
            const double v = terms.number(item.key().c_str());
            if (!(v >= 0 && v <= term->max)) {
                terms.fail(item.key().c_str(), "must be in [0, " + shortest_text(term->max) + "] " + term->unit +
                                                   ", found " + shortest_text(v));
            }
            c.engine_terms.emplace_back(item.key(), v);
        }
    }
    if (f.has("efficiency")) {
        JsonFields eff(doc["efficiency"], origin, "efficiency.");
        for (const auto& item : doc["efficiency"].items()) {
            int family = -1;
            for (int i = 0; i < roofline::kEfficiencyFamilies; ++i) {
                if (item.key() == roofline::family_name(static_cast<EfficiencyFamily>(i))) family = i;
            }
            if (family < 0) {
                eff.fail(item.key().c_str(),
                         "not a kernel family (known: gemm, prefill_attention, decode_attention, communication)");
            }
            const double m = eff.number(item.key().c_str());
            if (!(m >= roofline::kMinMultiplier && m <= roofline::kMaxMultiplier)) {
                eff.fail(item.key().c_str(), "a multiplier must be in [" + shortest_text(roofline::kMinMultiplier) +
                                                 ", " + shortest_text(roofline::kMaxMultiplier) + "], found " +
                                                 shortest_text(m));
            }
            c.efficiency.at(static_cast<EfficiencyFamily>(family)) = m;
        }
    }
    return c;
}

engines::EngineProfile calibrated_engine(const Calibration& calibration, const engines::EngineProfile& base) {
    if (!calibration.step_fit) return base;
    if (base.name != calibration.base_engine) {
        throw Error(Status::config, "the calibration was fitted on top of engine '" + calibration.base_engine +
                                        "', but the estimator asks for '" + base.name +
                                        "' (leave the engine unset to take the calibration's)");
    }
    engines::EngineProfile p = base;
    for (const auto& [name, value] : calibration.engine_terms) p.*(find_term(name)->member) = value;
    return p;
}

gpu::GpuProfile calibrated_gpu(const Calibration& calibration, const gpu::GpuProfile& base) {
    if (calibration.gpu.constants.empty()) return base;
    if (base.name != calibration.gpu.gpu) {
        throw Error(Status::config, "the calibration's GPU constants were fitted for '" + calibration.gpu.gpu +
                                        "', but the estimator's GPU is '" + base.name + "'");
    }
    nlohmann::json overrides = nlohmann::json::object();
    for (const auto& [name, value] : calibration.gpu.constants) overrides[name] = value;
    return gpu::apply_overrides(base, json_text(overrides, -1), "calibration: gpu.constants");
}

std::string calibration_json(const Calibration& calibration, const nlohmann::ordered_json& fitted_on,
                             const nlohmann::ordered_json& reports) {
    const bool has_gpu = !calibration.gpu.constants.empty();
    nlohmann::ordered_json j;
    j["mfusim_calibration"] = has_gpu ? kCalibrationVersion : kCalibrationVersionWithoutGpu;
    nlohmann::ordered_json units = nlohmann::ordered_json::object();
    if (calibration.step_fit || !has_gpu) {
        j["base_engine"] = calibration.base_engine;
        nlohmann::ordered_json engine = nlohmann::ordered_json::object();
        for (const auto& [name, value] : calibration.engine_terms) {
            engine[name] = value;
            units[name] = find_term(name)->unit;
        }
        nlohmann::ordered_json efficiency;
        for (int i = 0; i < roofline::kEfficiencyFamilies; ++i) {
            const auto family = static_cast<EfficiencyFamily>(i);
            efficiency[roofline::family_name(family)] = calibration.efficiency[family];
            units[roofline::family_name(family)] = "multiplier on the family's kernel time (2: twice as slow)";
        }
        j["engine"] = engine;
        j["efficiency"] = efficiency;
    }
    if (has_gpu) {
        nlohmann::ordered_json constants = nlohmann::ordered_json::object();
        for (const auto& [name, value] : calibration.gpu.constants) {
            constants[name] = value;
            units[name] = find_kernel_constant(name)->unit;
        }
        j["gpu"] = {{"name", calibration.gpu.gpu}, {"constants", constants}};
    }
    j["units"] = units;
    j["fitted_on"] = fitted_on;
    for (const auto& item : reports.items()) j[item.key()] = item.value();
    return json_text(j) + "\n";
}

}  // namespace mfusim::calibration
