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

// JSON text as the library writes it (calibration documents, fit results): the one place it is dumped. Strings that
// are not UTF-8 (a path the user's file system allows, in bytes of Latin-1) are written with U+FFFD in place of
// the bad bytes: nlohmann's default throws type_error 316 for them, which would fail the whole run as an internal
// error. Parsed input is UTF-8 already (the parser checks it); paths and names the caller passes need not be.
template <class Json>
std::string dump_json(const Json& json, int indent = -1) {
    return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Error(parse) "<origin>:<line>:<col>: <what>" on malformed JSON; nesting deeper than 64 levels is refused too.
nlohmann::json parse_json(const std::string& text, const std::string& origin);

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
