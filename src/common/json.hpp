// JSON input with friendly errors: parse errors name origin, line and column; field errors name the key path.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace mfusim {

// Whether an option's value is JSON text rather than a name or a path: its first non-space character is '{'. Every
// option that takes "a name, a path, or the JSON itself" (model, GPU, engine, calibration) decides by this.
bool is_json_text(std::string_view value);
// An option's value as output shows it: the name or path, or `json_label` ("(JSON model)") for JSON text, which
// would not fit a line.
std::string shown_option(const std::string& value, const char* json_label);

// Error(parse) "<origin>:<line>:<col>: <what>" on malformed JSON; nesting deeper than 64 levels is refused too.
nlohmann::json parse_json(const std::string& text, const std::string& origin);

// Error(config) "<origin>: field '<path>': is null ..." for the first null anywhere in `doc`. For the files mfusim
// defines (GPU and engine profiles, calibrations): nlohmann writes NaN as null, so a null there is a broken value,
// never "absent". Keys starting with '_' are documentation and skipped. Hugging Face configs are not checked: they use
// null for "not set".
// `path` names `doc` in messages when it is a field of a larger document ("engine").
void refuse_nulls(const nlohmann::json& doc, const std::string& origin, const std::string& path = "");

// `doc` as text (`indent` as nlohmann's dump), the one place the library and the CLI dump JSON: bytes that are not
// UTF-8 (a path from a Latin-1 file system) are replaced by U+FFFD, where nlohmann's default throws type_error 316
// and would fail the whole run as an internal error. Parsed input is UTF-8 already (the parser checks it).
std::string json_text(const nlohmann::json& doc, int indent = 2);
std::string json_text(const nlohmann::ordered_json& doc, int indent = 2);

// Typed access to an object's fields; every failure is Error(config) "<origin>: field '<path>': <what>".
class JsonFields {
  public:
    JsonFields(const nlohmann::json& object, std::string origin, std::string path_prefix = "");
    bool has(const char* key) const;         // present and not null
    bool present(const char* key) const;     // present, even if null
    int64_t integer(const char* key) const;  // required
    std::optional<int64_t> optional_integer(const char* key) const;
    double number(const char* key) const;  // required
    std::optional<double> optional_number(const char* key) const;
    std::optional<std::string> optional_string(const char* key) const;
    std::optional<bool> optional_bool(const char* key) const;
    const nlohmann::json& object() const { return object_; }
    const std::string& origin() const { return origin_; }
    std::string path(const char* key) const { return prefix_ + key; }
    [[noreturn]] void fail(const char* key, const std::string& what) const;

  private:
    const nlohmann::json& object_;
    std::string origin_;
    std::string prefix_;
};

}  // namespace mfusim
