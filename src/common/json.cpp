#include "common/json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string_view>
#include <vector>

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

// Python's json module writes NaN, Infinity and -Infinity as bare words, and Hugging Face configs saved by it
// carry them (time_step_limit: [0.0, Infinity]). Strict JSON has no such literals, so before parsing each one
// outside a string becomes a marker string, which the parsed tree turns back into the double it names. The
// offsets the substitutions shift are kept, so an error in the rewritten text is reported where the user's text
// has it.
constexpr std::string_view kMarker = "\x01mfusim-non-finite:";         // the parsed string
constexpr std::string_view kMarkerJson = "\\u0001mfusim-non-finite:";  // as written in the rewritten text

struct Shift {
    std::size_t at;     // offset in the rewritten text from which the shift applies
    std::ptrdiff_t by;  // rewritten offset minus original offset from there on
};

struct Rewritten {
    std::string text;
    std::vector<Shift> shifts;  // empty: no literal was found and `text` is unused
};

bool word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

Rewritten rewrite_non_finite(std::string_view text) {
    Rewritten out;
    bool in_string = false;
    std::size_t copied = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
            continue;
        }
        if (c != 'N' && c != 'I' && c != '-') continue;
        if (i > 0 && word_char(text[i - 1])) continue;
        std::string_view word;
        for (std::string_view w :
             {std::string_view("NaN"), std::string_view("Infinity"), std::string_view("-Infinity")}) {
            if (text.substr(i, w.size()) == w && (i + w.size() == text.size() || !word_char(text[i + w.size()]))) {
                word = w;
            }
        }
        if (word.empty()) continue;
        if (out.shifts.empty()) out.text.reserve(text.size() + 64);
        out.text.append(text.substr(copied, i - copied));
        std::string replacement = "\"" + std::string(kMarkerJson) + std::string(word) + "\"";
        out.text += replacement;
        std::ptrdiff_t before = out.shifts.empty() ? 0 : out.shifts.back().by;
        out.shifts.push_back({out.text.size(), before + static_cast<std::ptrdiff_t>(replacement.size()) -
                                                   static_cast<std::ptrdiff_t>(word.size())});
        i += word.size() - 1;
        copied = i + 1;
    }
    if (!out.shifts.empty()) out.text.append(text.substr(copied));
    return out;
}

// The user's offset of an offset in the rewritten text.
std::size_t original_offset(const std::vector<Shift>& shifts, std::size_t offset) {
    std::ptrdiff_t by = 0;
    for (const Shift& s : shifts) {
        if (offset < s.at) break;
        by = s.by;
    }
    return static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, static_cast<std::ptrdiff_t>(offset) - by));
}

// Turns the marker strings back into NaN and infinities (iteratively: nesting is bounded, but no recursion is
// needed).
void restore_non_finite(nlohmann::json& root) {
    std::vector<nlohmann::json*> pending{&root};
    while (!pending.empty()) {
        nlohmann::json* v = pending.back();
        pending.pop_back();
        if (v->is_structured()) {
            for (auto& child : *v) pending.push_back(&child);
        } else if (v->is_string()) {
            const std::string& s = v->get_ref<const std::string&>();
            if (s.compare(0, kMarker.size(), kMarker) != 0) continue;
            std::string_view word = std::string_view(s).substr(kMarker.size());
            const double inf = std::numeric_limits<double>::infinity();
            *v = word == "NaN" ? std::numeric_limits<double>::quiet_NaN() : word == "Infinity" ? inf : -inf;
        }
    }
}

}  // namespace

bool is_json_text(std::string_view value) {
    const std::size_t first = value.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && value[first] == '{';
}

std::string shown_option(const std::string& value, const char* json_label) {
    return is_json_text(value) ? std::string(json_label) : value;
}

nlohmann::json parse_json(const std::string& text, const std::string& origin) {
    // Bounding nesting keeps hostile input from exhausting the stack in nlohmann's recursive destructor. One pass
    // before parsing does it in linear time (nlohmann 3.11's callback parser rescans each parent after every
    // finished object: quadratic).
    if (nesting_exceeds(text, kMaxDepth)) {
        throw Error(Status::parse, origin + ": nested deeper than 64 levels; not a config file");
    }
    Rewritten rewritten = rewrite_non_finite(text);
    const bool substituted = !rewritten.shifts.empty();
    try {
        if (!substituted) return nlohmann::json::parse(text);
        nlohmann::json root = nlohmann::json::parse(rewritten.text);
        restore_non_finite(root);
        return root;
    } catch (const std::bad_alloc&) {
        throw Error(Status::out_of_memory,
                    origin + ": out of memory parsing " + std::to_string(text.size()) + " bytes of JSON");
    } catch (const nlohmann::json::parse_error& e) {
        std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
        if (substituted) at = original_offset(rewritten.shifts, at);
        auto [line, column] = line_column(text, at);
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

namespace {

// A value as the user wrote it, for messages: nlohmann dumps non-finite numbers as null, but the config said
// NaN or Infinity (Python's literals, accepted by parse_json).
std::string shown(const nlohmann::json& v) {
    if (v.is_number_float() && !std::isfinite(v.get<double>())) {
        double d = v.get<double>();
        return std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
    }
    return v.dump().substr(0, 40);
}

}  // namespace

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
    fail(key, "expected an integer, found " + shown(v));
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
    if (!std::isfinite(d)) fail(key, "expected a finite number, found " + shown(v));
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

namespace {

void find_null(const nlohmann::json& v, const std::string& path, const std::string& origin) {
    if (v.is_null()) {
        throw Error(Status::config, origin + ": field '" + path +
                                        "': is null (a value is required; leave the field out for the default)");
    }
    if (v.is_object()) {
        for (const auto& [key, item] : v.items()) {
            if (key.rfind('_', 0) == 0) continue;  // "_comment", "_fit": documentation, not read
            find_null(item, path.empty() ? key : path + "." + key, origin);
        }
    } else if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i) find_null(v[i], path + "[" + std::to_string(i) + "]", origin);
    }
}

}  // namespace

void refuse_nulls(const nlohmann::json& doc, const std::string& origin, const std::string& path) {
    find_null(doc, path, origin);
}

std::string json_text(const nlohmann::json& doc, int indent) {
    return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_text(const nlohmann::ordered_json& doc, int indent) {
    return doc.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace mfusim
