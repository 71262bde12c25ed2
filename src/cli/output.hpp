// Output that fails loudly: a full disk, a closed descriptor or a write error must end the command with a message
// and a non-zero exit, never pass for success with the output lost.
#pragma once

#include <cstdio>
#include <string>

namespace mfusim::cli {

// Flushes `out`; Error(io) "<name>: writing failed: <reason>" if that or any earlier write to it failed.
void finish_output(std::FILE* out, const std::string& name);

// finish_output, then fclose (whose own failure, the last chance to report a lost write, is an error too).
void close_output(std::FILE* out, const std::string& name);

// Writes `text` to the file at `path` ("-": stdout), every failure an Error(io) naming the path.
void write_output(const std::string& path, const std::string& text);

// For paths that print outside report_errors (--help, --version): `code` if stdout took everything, else a message
// on stderr and 1.
int exit_after_stdout(int code);

}  // namespace mfusim::cli
