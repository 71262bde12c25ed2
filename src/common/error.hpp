// The one error type of the C++ core. Thrown by loading code (never on the step hot path's success path),
// caught and converted to an mfusim_status + message at the C boundary (src/api).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace mfusim {

enum class Status : int32_t {
    ok = 0,
    invalid_argument = 1,
    io = 2,
    parse = 3,
    config = 4,
    unknown_name = 5,
    unsupported = 6,
    compat_crash = 7,
    struct_size = 8,
    out_of_memory = 9,
    internal = 10,
    not_found = 11,
};

class Error : public std::runtime_error {
  public:
    Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
    Status status() const noexcept { return status_; }

  private:
    Status status_;
};

// "<file>:<line>:<column>: <what>", the form every parse error takes so editors can jump to it.
std::string located(const std::string& file, std::size_t line, std::size_t column, const std::string& what);

}  // namespace mfusim
