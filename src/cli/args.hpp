// A small, strict command-line parser: every command declares its flags; unknown flags, missing values and
// malformed numbers are one-line errors that say what to do.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mfusim::cli {

struct FlagSpec {
    std::string name;   // "--model"
    std::string value;  // "NAME|PATH"; empty for a boolean switch
    std::string help;
};

struct CommandSpec {
    std::string name;     // "estimate"
    std::string usage;    // "mfusim estimate [options]"
    std::string summary;  // one paragraph
    std::vector<FlagSpec> flags;
    std::vector<std::string> positional;  // names of positional arguments, all required
};

class UsageError : public std::exception {
  public:
    explicit UsageError(std::string message) : message_(std::move(message)) {}
    const char* what() const noexcept override { return message_.c_str(); }

  private:
    std::string message_;
};

class ParsedArgs {
  public:
    ParsedArgs(const CommandSpec& spec, const std::vector<std::string>& args);
    bool help() const { return help_; }
    bool flag(const std::string& name) const { return values_.count(name) > 0; }
    std::optional<std::string> text(const std::string& name) const;
    std::string text_or(const std::string& name, const std::string& fallback) const;
    int64_t integer_or(const std::string& name, int64_t fallback) const;
    double number_or(const std::string& name, double fallback) const;
    // A count the user gives (a batch, a concurrency, a degree): an integer in [min, max], else a UsageError naming
    // the flag and the bounds. The bound keeps an allocation or a loop sized by it within reason.
    int64_t count_or(const std::string& name, int64_t fallback, int64_t min, int64_t max) const;
    // A limit (milliseconds, a ratio): absent, or a finite number above 0; NaN, infinities, 0 and negatives are
    // UsageErrors naming the flag (none of them means "no limit": leaving the flag out does).
    std::optional<double> positive_number(const std::string& name) const;
    const std::vector<std::string>& positional() const { return positional_; }
    // A UsageError naming the first of `flags` given: an option that does nothing in this mode (`mode`, e.g.
    // "--serving") is refused rather than silently ignored.
    void refuse_in_mode(std::initializer_list<const char*> flags, const std::string& mode) const {
        refuse_in_mode(std::span<const char* const>(flags.begin(), flags.size()), mode);
    }
    void refuse_in_mode(std::span<const char* const> flags, const std::string& mode) const;

  private:
    const CommandSpec& spec_;
    std::map<std::string, std::string> values_;
    std::vector<std::string> positional_;
    bool help_ = false;
};

std::string help_text(const CommandSpec& spec);

// Parses a command's arguments; nullopt when --help was asked for (the help has then been printed to stdout).
std::optional<ParsedArgs> parse_command(const CommandSpec& spec, const std::vector<std::string>& args);

}  // namespace mfusim::cli
