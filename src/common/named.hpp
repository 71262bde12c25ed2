// Tables of named entries (fitted constants, engine terms, built-in profiles, formats): the lookup by exact name
// and the comma-separated list an error message gives of the known names.
#pragma once

#include <iterator>
#include <string>
#include <string_view>

namespace mfusim {

// The entry whose `name` is `name`, or nullptr.
template <class Entries>
auto find_named(const Entries& entries, std::string_view name) -> decltype(&*std::begin(entries)) {
    for (const auto& e : entries) {
        if (std::string_view(e.name) == name) return &e;
    }
    return nullptr;
}

// "a, b, c": every entry's `name`, in table order.
template <class Entries>
std::string joined_names(const Entries& entries) {
    std::string names;
    for (const auto& e : entries) {
        if (!names.empty()) names += ", ";
        names += e.name;
    }
    return names;
}

}  // namespace mfusim
