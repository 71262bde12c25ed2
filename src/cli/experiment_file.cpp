#include "cli/experiment_file.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/suggest.hpp"

namespace mfusim::cli {

namespace {

// Far above any experiment file (a few hundred bytes) and small enough that parsing a hostile one stays cheap.
constexpr InputLimit kExperimentFileLimit{std::size_t{1} << 20, "an experiment file"};

const char* const kCommonSections[] = {"deployment", "workload", "output"};

[[noreturn]] void fail(Status status, const Experiment& e, std::size_t line, std::size_t column,
                       const std::string& what) {
    throw Error(status, located(e.file, line, column, what));
}

// yaml-cpp's marks count from 0 and are -1 where a node has none (an absent value): 1-based, falling back to the key.
std::size_t line_of(const YAML::Mark& m, std::size_t fallback) {
    return m.line >= 0 ? m.line + 1 : fallback;
}
std::size_t column_of(const YAML::Mark& m, std::size_t fallback) {
    return m.column >= 0 ? m.column + 1 : fallback;
}

// YAML 1.2's core schema booleans, unquoted only: `json: true` is a switch, `json: "true"` a file named true.
bool is_boolean(const YAML::Node& n) {
    if (n.Tag() != "?") return false;
    const std::string& v = n.Scalar();
    return v == "true" || v == "True" || v == "TRUE" || v == "false" || v == "False" || v == "FALSE";
}

ExperimentSetting read_setting(const Experiment& e, const std::string& section, const std::string& key,
                               const YAML::Node& value, std::size_t line, std::size_t column) {
    ExperimentSetting s{section, key, ExperimentSetting::Kind::text, "", line, column};
    switch (value.Type()) {
        case YAML::NodeType::Scalar:
            if (is_boolean(value)) {
                s.kind = ExperimentSetting::Kind::boolean;
                s.value = value.Scalar()[0] == 't' || value.Scalar()[0] == 'T' ? "true" : "false";
            } else {
                s.value = value.Scalar();
            }
            return s;
        case YAML::NodeType::Sequence: {
            s.kind = ExperimentSetting::Kind::list;
            if (value.size() == 0) fail(Status::parse, e, line, column, "key '" + key + "': an empty list");
            for (const YAML::Node& item : value) {
                if (!item.IsScalar() || item.Scalar().empty() || item.Scalar().find(',') != std::string::npos) {
                    fail(Status::parse, e, line_of(item.Mark(), line), column_of(item.Mark(), column),
                         "key '" + key + "': list items must be single non-empty values");
                }
                if (!s.value.empty()) s.value += ',';
                s.value += item.Scalar();
            }
            return s;
        }
        case YAML::NodeType::Map:
            fail(Status::parse, e, line, column,
                 section.empty() ? "key '" + key + "': a mapping, and only sections hold one (not expected here)"
                                 : "key '" + key + "' in section '" + section + "': sections do not nest");
        default:
            fail(Status::parse, e, line, column, "key '" + key + "' has no value");
    }
}

// yaml-cpp's parser reports documents as events; this handler only counts them.
struct DocumentStarts : YAML::EventHandler {
    std::vector<YAML::Mark> starts;
    void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

// One document, else Error(parse). Not YAML::LoadAll: on some malformed input (" ,b]'", found by the fuzz target)
// yaml-cpp 0.7's parser stops advancing and reports the same empty document forever, and LoadAll collects them until
// memory runs out (yaml-cpp issues 1040 and 1319). Two documents at most are read here; a second one that starts
// where the first did is that stalled parser.
void count_documents(const Experiment& e, const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts handler;
    while (handler.starts.size() < 2 && parser.HandleNextDocument(handler)) {
    }
    if (handler.starts.size() < 2) return;
    const YAML::Mark& second = handler.starts[1];
    if (second.pos <= handler.starts[0].pos) {
        fail(Status::parse, e, line_of(second, 1), column_of(second, 1), "not valid YAML: no document can be read");
    }
    fail(Status::parse, e, line_of(second, 1), 1, "one YAML document expected, found several");
}

// The keys of one mapping, each once, in file order.
void read_mapping(Experiment& e, const YAML::Node& map, const std::string& section) {
    std::set<std::string> seen;
    for (const auto& entry : map) {
        const YAML::Node& key = entry.first;
        const std::size_t line = line_of(key.Mark(), 1), column = column_of(key.Mark(), 1);
        if (!key.IsScalar() || key.Scalar().empty()) fail(Status::parse, e, line, column, "a key must be a name");
        const std::string& name = key.Scalar();
        if (!seen.insert(name).second) {
            fail(Status::parse, e, line, column,
                 "duplicate key '" + name + "'" + (section.empty() ? "" : " in section '" + section + "'"));
        }
        const YAML::Node& value = entry.second;
        if (section.empty() && name == "command") {
            if (!value.IsScalar() || value.Scalar().empty()) {
                fail(Status::parse, e, line, column, "'command' names one command: plan, sweep or simulate");
            }
            e.command = value.Scalar();
            e.command_line = line;
        } else if (section.empty() && value.IsMap()) {
            e.settings.push_back({"", name, ExperimentSetting::Kind::section, "", line, column});
            read_mapping(e, value, name);
        } else {
            e.settings.push_back(read_setting(e, section, name, value, line, column));
        }
    }
}

// The `--name` options of a message, those of `origins` it names, the first one found.
const ExperimentSetting* named_in(const std::string& message,
                                  const std::vector<std::pair<std::string, const ExperimentSetting*>>& origins) {
    for (const auto& [flag, setting] : origins) {
        for (std::size_t at = message.find(flag); at != std::string::npos; at = message.find(flag, at + 1)) {
            const std::size_t end = at + flag.size();
            const bool whole =
                flag.back() == '\'' || end == message.size() ||
                !(std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-' || message[end] == '_');
            if (whole) return setting;
        }
    }
    return nullptr;
}

}  // namespace

Experiment parse_experiment(const std::string& text, const std::string& file) {
    Experiment e{file, "", 0, {}};
    YAML::Node root;
    try {
        count_documents(e, text);
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& x) {  // yaml-cpp guards its stack; its message says "bad file"
        fail(Status::parse, e, line_of(x.mark, 1), column_of(x.mark, 1), "not valid YAML: nested too deeply");
    } catch (const YAML::Exception& x) {
        fail(Status::parse, e, line_of(x.mark, 1), column_of(x.mark, 1), "not valid YAML: " + x.msg);
    }
    if (root.IsNull()) fail(Status::parse, e, 1, 1, "an empty experiment file");
    if (!root.IsMap()) {
        fail(Status::parse, e, line_of(root.Mark(), 1), column_of(root.Mark(), 1),
             "an experiment file is a mapping of option names to values (model: ..., isl: ...)");
    }
    try {
        read_mapping(e, root, "");
    } catch (const YAML::Exception& x) {  // conversions inside yaml-cpp: say where, never escape as "internal"
        fail(Status::parse, e, line_of(x.mark, 1), column_of(x.mark, 1), "not valid YAML: " + x.msg);
    }
    return e;
}

Experiment read_experiment(const std::string& path) {
    return parse_experiment(read_file(path, kExperimentFileLimit), path);
}

std::vector<std::string> experiment_arguments(const Experiment& e, const CommandSpec& spec) {
    if (!e.command.empty() && e.command != spec.name) {
        fail(Status::config, e, e.command_line, 1,
             "this experiment is for 'mfusim " + e.command + "', not 'mfusim " + spec.name + "'");
    }
    std::vector<std::string> keys, sections(std::begin(kCommonSections), std::end(kCommonSections));
    sections.push_back(spec.name);
    for (const FlagSpec& f : spec.flags) {
        if (f.name.rfind("--", 0) == 0 && f.name != "--config") keys.push_back(f.name.substr(2));
    }
    std::vector<std::string> args;
    for (const ExperimentSetting& s : e.settings) {
        if (s.kind == ExperimentSetting::Kind::section) {
            if (std::find(sections.begin(), sections.end(), s.key) == sections.end()) {
                fail(Status::config, e, s.line, s.column,
                     "unknown section '" + s.key + "' for 'mfusim " + spec.name + "'" + did_you_mean(s.key, sections) +
                         " (sections: deployment, workload, output, " + spec.name + ")");
            }
            continue;
        }
        const std::string where = s.section.empty() ? "" : " in section '" + s.section + "'";
        if (s.key == "config" || s.key == "help") {
            fail(Status::config, e, s.line, s.column, "'" + s.key + "' cannot be set in an experiment file");
        }
        auto flag = std::find_if(spec.flags.begin(), spec.flags.end(),
                                 [&](const FlagSpec& f) { return f.name == "--" + s.key; });
        if (flag == spec.flags.end()) {
            std::string hint = did_you_mean(s.key, keys);
            fail(Status::config, e, s.line, s.column,
                 "unknown key '" + s.key + "'" + where + " for 'mfusim " + spec.name + "'" +
                     (hint.empty() ? "; the keys are its options' long names ('mfusim " + spec.name + " --help')"
                                   : hint));
        }
        if (flag->value.empty()) {
            if (s.kind != ExperimentSetting::Kind::boolean) {
                fail(Status::config, e, s.line, s.column,
                     "key '" + s.key + "'" + where + " is a switch: true or false");
            }
            if (s.value == "true") args.push_back(flag->name);
            continue;
        }
        if (s.kind == ExperimentSetting::Kind::boolean) {
            fail(Status::config, e, s.line, s.column,
                 "key '" + s.key + "'" + where + " takes a value (" + flag->value + "), not " + s.value +
                     " (quote it if you mean the text)");
        }
        args.push_back(flag->name + "=" + s.value);
    }
    return args;
}

FlagSpec experiment_flag() {
    return {"--config", "FILE",
            "read options from a YAML experiment file (keys: the options' long names); the command line wins "
            "(docs/experiments.md)"};
}

int run_with_experiment(const CommandSpec& spec, const Args& raw, int (*body)(const Args&)) {
    std::string file;
    Args rest;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == "--help" || raw[i] == "-h") return body(raw);
        if (raw[i] == "--config" || raw[i].rfind("--config=", 0) == 0) {
            if (!file.empty()) throw UsageError("--config given twice");
            if (raw[i] == "--config") {
                if (i + 1 >= raw.size()) throw UsageError("--config needs a value (FILE)");
                file = raw[++i];
            } else {
                file = raw[i].substr(9);
            }
            if (file.empty()) throw UsageError("--config needs a value (FILE)");
            continue;
        }
        rest.push_back(raw[i]);
    }
    if (file.empty()) return body(raw);
    const Experiment experiment = read_experiment(file);
    Args args = experiment_arguments(experiment, spec);
    // Where each option the file set (and the command line did not) came from, for the messages below.
    std::vector<std::pair<std::string, const ExperimentSetting*>> origins;
    for (const ExperimentSetting& s : experiment.settings) {
        const std::string flag = "--" + s.key;
        const bool overridden = std::any_of(
            rest.begin(), rest.end(), [&](const std::string& a) { return a == flag || a.rfind(flag + "=", 0) == 0; });
        if (overridden || s.kind == ExperimentSetting::Kind::section) continue;
        origins.emplace_back(flag, &s);
        // A library error names the value rather than the option ("unknown model 'llama-9b'").
        if (s.kind == ExperimentSetting::Kind::text && s.value.size() >= 2)
            origins.emplace_back("'" + s.value + "'", &s);
    }
    std::sort(origins.begin(), origins.end(),
              [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });  // --isl-stddev first
    args.insert(args.end(), rest.begin(), rest.end());
    auto origin = [&](const ExperimentSetting& s) {
        return " (" + located(experiment.file, s.line, s.column, "key '" + s.key + "'") + ")";
    };
    try {
        return body(args);
    } catch (const UsageError& x) {
        const ExperimentSetting* s = named_in(x.what(), origins);
        if (!s) throw;
        throw UsageError(x.what() + origin(*s));
    } catch (const Error& x) {
        const ExperimentSetting* s = named_in(x.what(), origins);
        if (!s) throw;
        throw Error(x.status(), x.what() + origin(*s));
    }
}

}  // namespace mfusim::cli
