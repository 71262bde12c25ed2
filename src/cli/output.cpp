#include "cli/output.hpp"

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace mfusim::cli {

namespace {

[[noreturn]] void write_failed(const std::string& name, int error) {
    throw Error(Status::io, name + ": writing failed" + (error != 0 ? std::string(": ") + std::strerror(error) : ""));
}

}  // namespace

void finish_output(std::FILE* out, const std::string& name) {
    errno = 0;
    // stdio keeps the first failure in the stream's error flag; a failing flush sets errno to its reason.
    bool failed = std::fflush(out) != 0;
    int error = errno;
    if (failed || std::ferror(out)) write_failed(name, error);
}

void close_output(std::FILE* out, const std::string& name) {
    try {
        finish_output(out, name);
    } catch (...) {
        std::fclose(out);
        throw;
    }
    errno = 0;
    if (std::fclose(out) != 0) write_failed(name, errno);
}

void write_output(const std::string& path, const std::string& text) {
    if (path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;  // report_errors finishes stdout
    }
    errno = 0;
    std::FILE* out = std::fopen(path.c_str(), "wb");
    if (out == nullptr) {
        throw Error(Status::io,
                    path + ": cannot open for writing" + (errno != 0 ? std::string(": ") + std::strerror(errno) : ""));
    }
    std::fwrite(text.data(), 1, text.size(), out);
    close_output(out, path);
}

int exit_after_stdout(int code) {
    try {
        finish_output(stdout, "stdout");
        return code;
    } catch (const Error& e) {
        std::fprintf(stderr, "mfusim: error: %s\n", e.what());
        return 1;
    }
}

}  // namespace mfusim::cli
