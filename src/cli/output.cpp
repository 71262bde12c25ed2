#include "cli/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
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

namespace {

std::string reason(int error) {
    return error != 0 ? std::string(": ") + std::strerror(error) : std::string();
}

std::string directory_of(const std::string& path) {
    std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// Where the bytes of `path` land: a symlink's target (renaming over the link would replace it with a file).
std::string resolved_target(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    char* real = ::realpath(path.c_str(), nullptr);
    if (real == nullptr) return path;  // dangling: the link's own place
    std::string out = real;
    std::free(real);
    return out;
}

}  // namespace

void check_output_path(const std::string& path, const std::string& flag) {
    if (path == "-") return;
    auto refuse = [&](const std::string& why) { throw Error(Status::io, path + " (" + flag + "): " + why); };
    if (path.empty()) refuse("an empty path");
    const std::string target = resolved_target(path);
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) refuse("is a directory");
        if (!S_ISREG(st.st_mode)) return;  // a device or a pipe, written in place
    }
    const std::string dir = directory_of(target);
    errno = 0;
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        refuse("cannot write: directory '" + dir + "' does not exist" + (errno == ENOENT ? "" : reason(errno)));
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) refuse("cannot write in directory '" + dir + "'" + reason(errno));
}

OutputFile::OutputFile(const std::string& path) : name_(path) {
    if (path == "-") {
        stream_ = stdout;
        name_ = "stdout";
        return;
    }
    target_ = resolved_target(path);
    struct stat st {};
    const bool exists = ::stat(target_.c_str(), &st) == 0;
    int fd = -1;
    if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        errno = 0;
        fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);  // a device or a pipe: no file to replace
    } else {
        // Beside the target, hidden, unique to this process: rename() is atomic within a file system.
        static int counter = 0;
        const std::string dir = directory_of(target_);
        const std::string base = target_.substr(target_.rfind('/') == std::string::npos ? 0 : target_.rfind('/') + 1);
        for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
            temp_ = dir + "/." + base + ".mfusim-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
            errno = 0;
            fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd < 0 && errno != EEXIST) break;
        }
        // The replaced file keeps its permissions; a new one gets 0666 less the umask, as fopen would give.
        if (fd >= 0 && exists) ::fchmod(fd, st.st_mode & 07777);
        if (fd < 0) temp_.clear();
    }
    if (fd < 0) throw Error(Status::io, path + ": cannot open for writing" + reason(errno));
    stream_ = ::fdopen(fd, "wb");
    if (stream_ == nullptr) {
        ::close(fd);
        if (!temp_.empty()) ::unlink(temp_.c_str());
        throw Error(Status::io, path + ": cannot open for writing" + reason(errno));
    }
    owned_ = true;
}

OutputFile::~OutputFile() {
    if (owned_ && stream_ != nullptr) std::fclose(stream_);
    if (!temp_.empty()) ::unlink(temp_.c_str());
}

void OutputFile::close() {
    if (!owned_) {
        finish_output(stream_, name_);
        return;
    }
    std::FILE* out = stream_;
    stream_ = nullptr;
    close_output(out, name_);
}

void OutputFile::publish() {
    if (temp_.empty()) return;
    errno = 0;
    if (::rename(temp_.c_str(), target_.c_str()) != 0) {
        throw Error(Status::io, name_ + ": writing failed: cannot replace the file" + reason(errno));
    }
    temp_.clear();
}

void Outputs::commit() {
    std::vector<std::unique_ptr<OutputFile>> files;
    for (const auto& [path, text] : staged_) {
        files.push_back(std::make_unique<OutputFile>(path));
        std::fwrite(text.data(), 1, text.size(), files.back()->stream());
        files.back()->close();
    }
    // Every file is written; only now does any target change.
    for (auto& file : files) file->publish();
    staged_.clear();
}

void write_output(const std::string& path, const std::string& text) {
    Outputs outputs;
    outputs.add(path, text);
    outputs.commit();
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
