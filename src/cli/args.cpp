#include "cli/args.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/numbers.hpp"
#include "common/suggest.hpp"

namespace mfusim::cli {

ParsedArgs::ParsedArgs(const CommandSpec& spec, const std::vector<std::string>& args) : spec_(spec) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        if (arg == "--help" || arg == "-h") {
            help_ = true;
            return;
        }
        // A short alias ("-o") is a flag only where the command declares it; otherwise it is positional.
        const bool short_alias =
            arg.size() == 2 && arg[0] == '-' && arg[1] != '-' &&
            std::any_of(spec.flags.begin(), spec.flags.end(), [&](const FlagSpec& f) { return f.name == arg; });
        if ((arg.rfind("--", 0) != 0 && !short_alias) || arg == "--") {
            positional_.push_back(arg);
            continue;
        }
        std::optional<std::string> inline_value;
        if (auto eq = arg.find('='); eq != std::string::npos) {
            inline_value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
        }
        auto flag =
            std::find_if(spec.flags.begin(), spec.flags.end(), [&](const FlagSpec& f) { return f.name == arg; });
        if (flag == spec.flags.end()) {
            std::vector<std::string> names;
            for (const FlagSpec& f : spec.flags) names.push_back(f.name);
            std::string hint = did_you_mean(arg, names);
            throw UsageError("unknown option " + arg + " for 'mfusim " + spec.name + "'" +
                             (hint.empty() ? "; see 'mfusim " + spec.name + " --help'" : hint));
        }
        if (flag->value.empty()) {
            if (inline_value) throw UsageError(arg + " takes no value");
            values_[arg] = "1";
        } else if (inline_value) {
            values_[arg] = *inline_value;
        } else {
            if (i + 1 >= args.size()) throw UsageError(arg + " needs a value (" + flag->value + ")");
            values_[arg] = args[++i];
        }
    }
    if (positional_.size() != spec.positional.size()) {
        std::string expected;
        for (const auto& p : spec.positional) expected += " " + p;
        throw UsageError("'mfusim " + spec.name + "' expects" + (expected.empty() ? " no arguments" : expected) +
                         "; see 'mfusim " + spec.name + " --help'");
    }
}

std::optional<std::string> ParsedArgs::text(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::string ParsedArgs::text_or(const std::string& name, const std::string& fallback) const {
    return text(name).value_or(fallback);
}

int64_t ParsedArgs::integer_or(const std::string& name, int64_t fallback) const {
    auto value = text(name);
    if (!value) return fallback;
    auto parsed = parse_int64(*value);
    if (!parsed) throw UsageError(name + " expects an integer, got '" + *value + "'");
    return *parsed;
}

double ParsedArgs::number_or(const std::string& name, double fallback) const {
    auto value = text(name);
    if (!value) return fallback;
    auto parsed = parse_double(*value);
    if (!parsed) throw UsageError(name + " expects a number, got '" + *value + "'");
    return *parsed;
}

int64_t ParsedArgs::count_or(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
    const int64_t v = integer_or(name, fallback);
    if (v < min || v > max) {
        throw UsageError(name + " must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                         std::to_string(v));
    }
    return v;
}

std::optional<double> ParsedArgs::positive_number(const std::string& name) const {
    if (!flag(name)) return std::nullopt;
    const double v = number_or(name, 0);
    if (!(std::isfinite(v) && v > 0)) {
        throw UsageError(name + " must be a finite number above 0, got '" + *text(name) +
                         "' (leave the option out for no limit)");
    }
    return v;
}

void ParsedArgs::refuse_in_mode(std::span<const char* const> flags, const std::string& mode) const {
    for (const char* f : flags) {
        if (flag(f)) throw UsageError(std::string(f) + " does nothing with " + mode + "; leave it out");
    }
}

std::string help_text(const CommandSpec& spec) {
    std::string out = "Usage: " + spec.usage + "\n\n" + spec.summary + "\n";
    if (!spec.flags.empty()) {
        out += "\nOptions:\n";
        for (const FlagSpec& f : spec.flags) {
            std::string left = "  " + f.name + (f.value.empty() ? "" : " " + f.value);
            if (left.size() < 30)
                left.resize(30, ' ');
            else
                left += "\n" + std::string(30, ' ');
            out += left + f.help + "\n";
        }
    }
    out += "  --help                      this text\n";
    return out;
}

}  // namespace mfusim::cli

namespace mfusim::cli {

std::optional<ParsedArgs> parse_command(const CommandSpec& spec, const std::vector<std::string>& args) {
    ParsedArgs parsed(spec, args);
    if (!parsed.help()) return parsed;
    std::fputs(help_text(spec).c_str(), stdout);
    return std::nullopt;
}

}  // namespace mfusim::cli
