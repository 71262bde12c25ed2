#include "common/files.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace mfusim {

std::string read_file(const std::string& path) {
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (std::filesystem::is_directory(status)) throw Error(Status::io, path + ": is a directory, expected a file");
    // A pipe or device (a FIFO, a symlink to /dev/zero) would block or never end; only plain files are inputs.
    if (!ec && !std::filesystem::is_regular_file(status)) {
        throw Error(Status::io, path + ": not a regular file (a pipe, socket or device?)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(Status::io, path + ": cannot open: " + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw Error(Status::io, path + ": read failed");
    return std::move(buffer).str();
}

bool is_directory(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_directory(path, ec);
}

bool is_regular_file(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

}  // namespace mfusim
