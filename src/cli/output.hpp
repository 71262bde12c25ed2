// Output that fails loudly: a full disk, a closed descriptor or a write error must end the command with a message
// and a non-zero exit, never pass for success with the output lost.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mfusim::cli {

// Flushes `out`; Error(io) "<name>: writing failed: <reason>" if that or any earlier write to it failed.
void finish_output(std::FILE* out, const std::string& name);

// finish_output, then fclose (whose own failure, the last chance to report a lost write, is an error too).
void close_output(std::FILE* out, const std::string& name);

// Error(io) naming `path` (and `flag`, the option that gave it) unless a file can be written there: its directory
// exists and is writable and the path is not a directory. "-" (stdout) always can. Commands call it for every
// output right after reading their flags, so that a mistyped path fails before any work, and before any output.
void check_output_path(const std::string& path, const std::string& flag);

// One output file, written whole or not at all: the bytes go to a temporary file beside `path` (same directory, so
// same file system) that commit() renames over it. Until then an existing file at `path` is untouched, and a run that
// fails (or is interrupted) leaves it as it was; the destructor removes an uncommitted temporary file. A path that
// is a device or a pipe (/dev/null, /dev/full, a FIFO) is written in place; "-" is stdout.
class OutputFile {
  public:
    explicit OutputFile(const std::string& path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    std::FILE* stream() const { return stream_; }
    const std::string& name() const { return name_; }
    // Flushes and closes (every write error an Error(io) naming the path); the temporary file stays until publish().
    void close();
    void publish();
    void commit() {
        close();
        publish();
    }

  private:
    std::string name_;    // the path as given, for messages
    std::string target_;  // where it lands (a symlink's target)
    std::string temp_;    // empty when written in place
    std::FILE* stream_ = nullptr;
    bool owned_ = false;  // stream_ is ours to close (not stdout)
};

// The files of one command: every text staged with add() is written by commit(), which first writes all of them to
// temporary files and only then renames each over its target, so a failure on one (a full disk, a bad directory)
// leaves every target as it was.
class Outputs {
  public:
    void add(const std::string& path, std::string text) { staged_.emplace_back(path, std::move(text)); }
    void commit();

  private:
    std::vector<std::pair<std::string, std::string>> staged_;
};

// Writes one output whole or not at all (Outputs with one file).
void write_output(const std::string& path, const std::string& text);

// For paths that print outside report_errors (--help, --version): `code` if stdout took everything, else a message
// on stderr and 1.
int exit_after_stdout(int code);

}  // namespace mfusim::cli
