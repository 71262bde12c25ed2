#include "common/json.hpp"

#include <cmath>
#include <new>
#include <string_view>

#include "common/error.hpp"

namespace mfusim {

namespace {

constexpr int kMaxDepth = 64;

// Line and column (1-based) of a byte offset.
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t offset) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

// Whether arrays and objects nest deeper than `limit` anywhere outside strings. Malformed text is left to the
// parser, which reports it with its position.
bool nesting_exceeds(std::string_view text, int limit) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;  // the escaped character cannot end the string
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return true;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return false;
}

}  // namespace

nlohmann::json parse_json(const std::string& text, const std::string& origin) {
    // Bounding nesting keeps hostile input from exhausting the stack in nlohmann's recursive destructor. One pass
    // before parsing does it in linear time (nlohmann 3.11's callback parser rescans each parent after every
    // finished object: quadratic).
    if (nesting_exceeds(text, kMaxDepth)) {
        throw Error(Status::parse, origin + ": nested deeper than 64 levels; not a config file");
    }
    try {
        return nlohmann::json::parse(text);
    } catch (const std::bad_alloc&) {
        throw Error(Status::out_of_memory,
                    origin + ": out of memory parsing " + std::to_string(text.size()) + " bytes of JSON");
    } catch (const nlohmann::json::parse_error& e) {
        auto [line, column] = line_column(text, e.byte > 0 ? e.byte - 1 : 0);
        std::string what = e.what();
        // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 2: <detail>".
        std::size_t detail = what.find(": ");
        if (detail != std::string::npos) what = what.substr(detail + 2);
        throw Error(Status::parse, located(origin, line, column, "invalid JSON: " + what));
    } catch (const nlohmann::json::out_of_range& e) {
        // A number beyond double's range (1e400): nlohmann throws out_of_range 406 "number overflow parsing
        // '<token>'" with no position; the token's first occurrence in the text locates it.
        std::string what = e.what();
        std::size_t open = what.find('\''), close = what.rfind('\'');
        std::string token = open < close ? what.substr(open + 1, close - open - 1) : "";
        std::size_t at = token.empty() ? std::string::npos : text.find(token);
        auto [line, column] = at == std::string::npos ? std::pair<std::size_t, std::size_t>{} : line_column(text, at);
        throw Error(Status::parse,
                    located(origin, line, column, "invalid JSON: number " + token + " is too large for a double"));
    }
}

JsonFields::JsonFields(const nlohmann::json& object, std::string origin, std::string path_prefix)
    : object_(object), origin_(std::move(origin)), prefix_(std::move(path_prefix)) {
    if (!object_.is_object())
        throw Error(Status::config,
                    origin_ + ": expected a JSON object" + (prefix_.empty() ? "" : " at '" + prefix_ + "'"));
}

void JsonFields::fail(const char* key, const std::string& what) const {
    throw Error(Status::config, origin_ + ": field '" + path(key) + "': " + what);
}

bool JsonFields::present(const char* key) const {
    return object_.contains(key);
}
bool JsonFields::has(const char* key) const {
    return object_.contains(key) && !object_[key].is_null();
}

std::optional<int64_t> JsonFields::optional_integer(const char* key) const {
    if (!has(key)) return std::nullopt;
    const nlohmann::json& v = object_[key];
    // nlohmann keeps integers above INT64_MAX as unsigned; get<int64_t> would wrap them to negatives.
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        fail(key, "expected an integer, found " + v.dump() + " (too large)");
    }
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) {
        double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
    }
    fail(key, "expected an integer, found " + v.dump().substr(0, 40));
}

int64_t JsonFields::integer(const char* key) const {
    if (!has(key)) fail(key, present(key) ? "is null, a number is required" : "missing (required)");
    return *optional_integer(key);
}

std::optional<double> JsonFields::optional_number(const char* key) const {
    if (!has(key)) return std::nullopt;
    const nlohmann::json& v = object_[key];
    if (!v.is_number()) fail(key, "expected a number, found " + v.dump().substr(0, 40));
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(key, "expected a finite number");
    return d;
}

double JsonFields::number(const char* key) const {
    if (!has(key)) fail(key, present(key) ? "is null, a number is required" : "missing (required)");
    return *optional_number(key);
}

std::optional<std::string> JsonFields::optional_string(const char* key) const {
    if (!has(key)) return std::nullopt;
    if (!object_[key].is_string()) fail(key, "expected a string, found " + object_[key].dump().substr(0, 40));
    return object_[key].get<std::string>();
}

std::optional<bool> JsonFields::optional_bool(const char* key) const {
    if (!has(key)) return std::nullopt;
    if (!object_[key].is_boolean()) fail(key, "expected true or false, found " + object_[key].dump().substr(0, 40));
    return object_[key].get<bool>();
}

}  // namespace mfusim
