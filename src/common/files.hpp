#pragma once

#include <string>

namespace mfusim {

// Whole file as bytes; Error(io) naming the path if it cannot be opened or read, or is not a regular file.
std::string read_file(const std::string& path);

bool is_directory(const std::string& path);
bool is_regular_file(const std::string& path);

}  // namespace mfusim
