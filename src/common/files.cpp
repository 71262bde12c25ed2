#include "common/files.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

#include "common/error.hpp"

namespace mfusim {

namespace {

class Descriptor {
  public:
    explicit Descriptor(int fd) : fd_(fd) {}
    ~Descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return fd_; }

  private:
    int fd_;
};

std::string size_text(std::size_t bytes) {
    if (bytes % (std::size_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
    return std::to_string(bytes >> 20) + " MiB";
}

// "<name>: larger than the 64 MiB limit for a JSON file (...) (<detail>)".
[[noreturn]] void too_large(const std::string& name, const InputLimit& limit, const std::string& detail) {
    throw Error(Status::io, name + ": larger than the " + size_text(limit.max_bytes) + " limit for " + limit.kind +
                                " (" + detail + ")");
}

// Pseudo file systems whose "regular" files are generated on read: some block (/proc/kmsg), some never end.
bool on_pseudo_file_system(int fd) {
    struct statfs fs {};
    if (::fstatfs(fd, &fs) != 0) return false;
    switch (static_cast<unsigned long>(fs.f_type)) {
        case PROC_SUPER_MAGIC:
        case SYSFS_MAGIC:
        case DEBUGFS_MAGIC:
        case TRACEFS_MAGIC:
        case SECURITYFS_MAGIC:
            return true;
        default:
            return false;
    }
}

// Reads to end of file into `out` (capacity reserved by the caller), refusing more than the limit.
void read_all(int fd, const std::string& name, const InputLimit& limit, std::string& out) {
    char buffer[1 << 16];
    while (true) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            throw Error(Status::io, name + ": reading would block (not a plain file?)");
        }
        if (n < 0) throw Error(Status::io, name + ": read failed: " + std::strerror(errno));
        if (n == 0) return;
        if (static_cast<std::size_t>(n) > limit.max_bytes - out.size()) {
            too_large(name, limit, "it went on past " + std::to_string(limit.max_bytes) + " bytes");
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
}

}  // namespace

std::string read_file(const std::string& path, const InputLimit& limit, std::size_t spare) {
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer before fstat could refuse it.
    Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) throw Error(Status::io, path + ": cannot open: " + std::strerror(errno));
    // The type is that of what was opened, not of what the path named a moment before (no check-then-open race).
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw Error(Status::io, path + ": cannot stat: " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error(Status::io, path + ": is a directory, expected a file");
    if (!S_ISREG(st.st_mode)) {
        throw Error(Status::io, path + ": not a regular file (a pipe, socket or device?); inputs are plain files");
    }
    if (on_pseudo_file_system(fd.get())) {
        throw Error(Status::io, path + ": a procfs or sysfs file, not an input (such files can block or never end)");
    }
    auto size = static_cast<std::size_t>(st.st_size);
    if (size > limit.max_bytes) too_large(path, limit, std::to_string(size) + " bytes");
    std::string bytes;
    try {
        bytes.reserve(size + spare);
        read_all(fd.get(), path, limit, bytes);
    } catch (const std::bad_alloc&) {
        throw Error(Status::out_of_memory, path + ": out of memory reading " + std::to_string(size) + " bytes");
    }
    return bytes;
}

std::string read_descriptor(int fd, const std::string& name, const InputLimit& limit) {
    std::string bytes;
    try {
        read_all(fd, name, limit, bytes);
    } catch (const std::bad_alloc&) {
        throw Error(Status::out_of_memory, name + ": out of memory after " + std::to_string(bytes.size()) + " bytes");
    }
    return bytes;
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
