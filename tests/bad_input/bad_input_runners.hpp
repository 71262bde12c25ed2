// How each case of the bad-input corpus reaches the library: one runner per kind of input (cases.txt, column 2).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace mfusim::bad_input {

struct Case {
    std::string name;     // unique; the GoogleTest name
    std::string runner;   // which input of the library it feeds (see run_case)
    std::string input;    // a corpus path, or a prefixed form (name:, gen:, unreadable:, ...)
    std::string status;   // expected: "ok", "parse", "config", ... (the mfusim_status names, lower-case)
    std::string message;  // a fragment the message must contain
    std::size_t manifest_line = 0;
};

// gtest prints parameters with this instead of a byte dump.
inline void PrintTo(const Case& c, std::ostream* os) {
    *os << c.name;
}

struct Outcome {
    std::string status;
    std::string message;   // the error message, or for "ok" a summary of what was loaded
    bool skipped = false;  // the case cannot run here (message says why)
};

// Runs one case against the library (the C++ core, or the C API where the case needs it).
Outcome run_case(const Case& c, const std::string& corpus_dir);

bool is_status_name(const std::string& name);

}  // namespace mfusim::bad_input
