#include "compare/launch_file.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"

namespace mfusim::compare {

namespace {

constexpr std::size_t max_launch_entries = 10000;

bool is_date(std::string_view text) {
    if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
    for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
        if (text[i] < '0' || text[i] > '9') return false;
    }
    return true;
}

// Every key of `object` must be one of `known` (or a "_comment"-style key, which documents).
void refuse_unknown_keys(const JsonFields& f, std::initializer_list<const char*> known) {
    for (const auto& [key, value] : f.object().items()) {
        if (key.rfind('_', 0) == 0) continue;
        bool ok = false;
        for (const char* k : known) ok = ok || key == k;
        if (ok) continue;
        std::string names;
        for (const char* k : known) names += std::string(names.empty() ? "" : ", ") + k;
        f.fail(key.c_str(), "unknown key (known: " + names + ")");
    }
}

std::string text_field(const JsonFields& f, const char* key) {
    return f.optional_string(key).value_or("");
}

int64_t count_field(const JsonFields& f, const char* key) {
    const int64_t v = f.optional_integer(key).value_or(0);
    if (v < 0) f.fail(key, "must be at least 0 (0: any)");
    return v;
}

// A string or a list of non-empty strings.
std::vector<std::string> names_field(const JsonFields& f, const char* key) {
    if (!f.has(key)) return {};
    const nlohmann::json& v = f.object()[key];
    if (v.is_string()) return {v.get<std::string>()};
    if (!v.is_array() || v.empty()) f.fail(key, "expected a string or a non-empty list of strings");
    std::vector<std::string> names;
    for (const nlohmann::json& name : v) {
        if (!name.is_string() || name.get<std::string>().empty()) {
            f.fail(key, "expected a string or a non-empty list of strings, found " + name.dump().substr(0, 40));
        }
        names.push_back(name.get<std::string>());
    }
    return names;
}

bool named(const std::vector<std::string>& names, std::string_view value) {
    return names.empty() || std::find(names.begin(), names.end(), value) != names.end();
}

std::string date_field(const JsonFields& f, const char* key) {
    std::string v = text_field(f, key);
    if (!v.empty() && !is_date(v)) f.fail(key, "'" + v + "' is not a date YYYY-MM-DD");
    return v;
}

// A parallel degree the recipe ran at: 1 to 4096 GPUs, as a row's columns (columns.hpp, parallel_degree); 0 if absent.
int64_t layout_degree(const JsonFields& f, const char* key) {
    if (!f.has(key)) return 0;
    const int64_t v = f.optional_integer(key).value_or(0);
    if (v < 1 || v > 4096) f.fail(key, "must be a whole number of GPUs from 1 to 4096");
    return v;
}

query::Speculation read_speculation(const JsonFields& f) {
    refuse_unknown_keys(f,
                        {"method", "num_speculative_tokens", "acceptance_rate", "mean_accepted_length", "draft_model"});
    query::Speculation s;
    const std::string method = text_field(f, "method");
    const auto drafter = query::parse_drafter(method);
    if (!drafter || *drafter == query::Drafter::none) {
        f.fail("method", "'" + method + "' is not one of " + query::drafter_names());
    }
    s.drafter = *drafter;
    s.tokens = f.optional_integer("num_speculative_tokens").value_or(0);
    s.acceptance_rate = f.optional_number("acceptance_rate").value_or(0);
    s.mean_accepted_length = f.optional_number("mean_accepted_length").value_or(0);
    s.draft_model = text_field(f, "draft_model");
    if (f.has("acceptance_rate") && f.has("mean_accepted_length")) {
        f.fail("acceptance_rate", "give acceptance_rate or mean_accepted_length, not both");
    }
    try {
        query::validate(s);
    } catch (const Error& e) {
        f.fail("method", e.what());
    }
    return s;
}

LaunchMatch read_match(const JsonFields& f) {
    refuse_unknown_keys(f, {"backend", "model", "quant", "system", "isl", "osl", "tp_min", "tp_max", "attention_dp",
                            "concurrency_min", "concurrency_max", "measured_from", "measured_until"});
    LaunchMatch m;
    m.backend = text_field(f, "backend");
    m.models = names_field(f, "model");
    m.quants = names_field(f, "quant");
    m.systems = names_field(f, "system");
    m.isl = count_field(f, "isl");
    m.osl = count_field(f, "osl");
    m.tp_min = count_field(f, "tp_min");
    m.tp_max = count_field(f, "tp_max");
    m.attention_dp = count_field(f, "attention_dp");
    m.concurrency_min = count_field(f, "concurrency_min");
    m.concurrency_max = count_field(f, "concurrency_max");
    m.measured_from = date_field(f, "measured_from");
    m.measured_until = date_field(f, "measured_until");
    if (m.tp_max > 0 && m.tp_min > m.tp_max) f.fail("tp_min", "is above tp_max: the entry would match nothing");
    if (m.concurrency_max > 0 && m.concurrency_min > m.concurrency_max) {
        f.fail("concurrency_min", "is above concurrency_max: the entry would match nothing");
    }
    if (!m.measured_from.empty() && !m.measured_until.empty() && m.measured_from > m.measured_until) {
        f.fail("measured_from", "is after measured_until: the entry would match nothing");
    }
    return m;
}

}  // namespace

LaunchFile read_launch_file(const std::string& path) {
    return parse_launch_file(read_file(path), path);
}

LaunchFile parse_launch_file(const std::string& text, const std::string& path) {
    const nlohmann::json doc = parse_json(text, path);
    refuse_nulls(doc, path);
    const JsonFields top(doc, path);
    refuse_unknown_keys(top, {"launches"});
    if (!top.has("launches") || !doc["launches"].is_array()) top.fail("launches", "must be a list of launches");
    const nlohmann::json& list = doc["launches"];
    if (list.size() > max_launch_entries) {
        top.fail("launches",
                 "holds " + std::to_string(list.size()) + " entries, more than " + std::to_string(max_launch_entries));
    }
    LaunchFile file;
    file.path = path;
    // Any field is checked by laying it over a built-in profile; the row's own profile gets the same fields later.
    const engines::EngineProfile probe = engines::resolve_engine("trtllm");
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string at = "launches[" + std::to_string(i) + "].";
        const JsonFields entry(list[i], path, at);
        refuse_unknown_keys(entry, {"source", "match", "engine", "speculative", "expert_parallel", "tensor_parallel",
                                    "attention_dp", "kv_cache"});
        LaunchEntry e;
        e.source = text_field(entry, "source");
        if (e.source.empty()) entry.fail("source", "missing: name the recipe the flags were read from");
        if (!entry.has("match")) entry.fail("match", "missing (an empty object matches every row)");
        e.match = read_match(JsonFields(list[i]["match"], path, at + "match."));
        // Unknown keys are refused above, so any key but `source`, `match` and a comment is something stated.
        const auto& keys = entry.object().items();
        const bool states_something = std::any_of(keys.begin(), keys.end(), [](const auto& item) {
            return item.key() != "source" && item.key() != "match" && item.key().rfind('_', 0) != 0;
        });
        if (!states_something) {
            entry.fail("engine",
                       "missing: an entry gives engine fields, `speculative`, `expert_parallel`, `tensor_parallel`, "
                       "`attention_dp` or `kv_cache`");
        }
        if (entry.has("engine")) {
            if (!list[i]["engine"].is_object() || list[i]["engine"].empty()) {
                entry.fail("engine", "must be an object of engine profile fields (docs/engine.md)");
            }
            engines::overlay_engine(probe, list[i]["engine"], path + ": " + at + "engine");
            e.engine_json = list[i]["engine"].dump();
        }
        if (entry.has("speculative")) {
            e.speculation = read_speculation(JsonFields(list[i]["speculative"], path, at + "speculative."));
        }
        if (entry.has("expert_parallel")) {
            // One value: a recipe that sets EP to some other degree would name it, and none read here does.
            if (text_field(entry, "expert_parallel") != "all") {
                entry.fail("expert_parallel", "must be \"all\" (the experts sharded over every GPU of the deployment)");
            }
            e.expert_parallel_all = true;
        }
        e.tensor_parallel = layout_degree(entry, "tensor_parallel");
        e.attention_dp = layout_degree(entry, "attention_dp");
        if (entry.has("kv_cache")) {
            // FP8 is what a recipe states beyond the engines' defaults; a 16-bit cache is the default the rule keeps.
            if (text_field(entry, "kv_cache") != "fp8") entry.fail("kv_cache", "must be \"fp8\"");
            e.fp8_kv_cache = true;
        }
        file.entries.push_back(std::move(e));
    }
    return file;
}

bool launch_matches(const LaunchMatch& m, const LaunchedRun& run) {
    if (!m.backend.empty() && m.backend != run.backend) return false;
    if (!named(m.models, run.model) || !named(m.quants, run.quant) || !named(m.systems, run.system)) return false;
    if (m.isl > 0 && m.isl != run.isl) return false;
    if (m.osl > 0 && m.osl != run.osl) return false;
    if (m.tp_min > 0 && run.tp < m.tp_min) return false;
    if (m.tp_max > 0 && run.tp > m.tp_max) return false;
    if (m.attention_dp > 0 && m.attention_dp != run.attention_dp) return false;
    if (m.concurrency_min > 0 && run.concurrency < m.concurrency_min) return false;
    if (m.concurrency_max > 0 && run.concurrency > m.concurrency_max) return false;
    if (!m.measured_from.empty() || !m.measured_until.empty()) {
        if (run.measured.empty()) return false;
        if (!m.measured_from.empty() && run.measured < m.measured_from) return false;
        if (!m.measured_until.empty() && run.measured > m.measured_until) return false;
    }
    return true;
}

std::vector<std::size_t> matching_launches(const LaunchFile& file, const LaunchedRun& run) {
    std::vector<std::size_t> matched;
    for (std::size_t i = 0; i < file.entries.size(); ++i) {
        if (launch_matches(file.entries[i].match, run)) matched.push_back(i);
    }
    return matched;
}

engines::EngineProfile launched_profile(const LaunchFile& file, engines::EngineProfile engine,
                                        const std::vector<std::size_t>& matched) {
    for (std::size_t i : matched) {
        if (file.entries[i].engine_json.empty()) continue;
        engine = engines::overlay_engine(engine, nlohmann::json::parse(file.entries[i].engine_json),
                                         file.path + ": launches[" + std::to_string(i) + "].engine");
    }
    return engine;
}

query::Speculation launched_speculation(const LaunchFile& file, const std::vector<std::size_t>& matched,
                                        query::Speculation plain) {
    for (std::size_t i : matched) {
        if (file.entries[i].speculation) plain = *file.entries[i].speculation;
    }
    return plain;
}

LaunchLayout launched_layout(const LaunchFile& file, const std::vector<std::size_t>& matched, LaunchLayout recorded) {
    for (std::size_t i : matched) {
        const LaunchEntry& e = file.entries[i];
        if (e.tensor_parallel > 0) recorded.tensor_parallel = e.tensor_parallel;
        if (e.attention_dp > 0) recorded.attention_dp = e.attention_dp;
    }
    return recorded;
}

int64_t launched_expert_parallel(const LaunchFile& file, const std::vector<std::size_t>& matched, int64_t gpus,
                                 int64_t ep) {
    for (std::size_t i : matched) {
        if (file.entries[i].expert_parallel_all) ep = gpus;
    }
    return ep;
}

bool launched_fp8_kv_cache(const LaunchFile& file, const std::vector<std::size_t>& matched, bool fp8) {
    for (std::size_t i : matched) fp8 = fp8 || file.entries[i].fp8_kv_cache;
    return fp8;
}

std::string measured_date_of(std::string_view source) {
    constexpr std::string_view key = "measured=";
    const std::size_t at = source.find(key);
    if (at == std::string_view::npos) return "";
    const std::string_view date = source.substr(at + key.size(), 10);
    return is_date(date) ? std::string(date) : std::string();
}

}  // namespace mfusim::compare
