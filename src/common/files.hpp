// Reading inputs from the file system: every path is opened without blocking and read only if, once open, it is a
// regular file of bounded size, so no input can hang the caller or grow it without limit (docs/reliability.md).
#pragma once

#include <cstddef>
#include <string>

namespace mfusim {

// The most bytes one input of a kind may hold, and the kind's name for messages. Each bound is far above any real
// input of its kind (the largest shipped table is under 1 MB, a model config under 100 KB) and low enough that a
// hostile file cannot exhaust memory.
struct InputLimit {
    std::size_t max_bytes;
    const char* kind;  // "a JSON file (model config, GPU profile, manifest)"
};

inline constexpr InputLimit kJsonFileLimit{std::size_t{64} << 20, "a JSON file (model config, GPU profile, manifest)"};
inline constexpr InputLimit kTableFileLimit{std::size_t{256} << 20, "a CSV table"};
inline constexpr InputLimit kStepStreamLimit{std::size_t{1} << 30, "a JSONL step stream"};
inline constexpr InputLimit kStdinStepLimit{std::size_t{256} << 20, "a step read from stdin"};

// Whole file as bytes, with `spare` bytes of capacity reserved past them (simdjson's padding). Error(io) naming the
// path when it cannot be opened, is not a regular file (a directory, FIFO, socket or device), lies on procfs or
// sysfs (whose files can block or never end), would block, or holds more than limit.max_bytes (the message names
// the limit); Error(out_of_memory) when its bytes cannot be allocated.
std::string read_file(const std::string& path, const InputLimit& limit = kJsonFileLimit, std::size_t spare = 0);

// Everything an already open descriptor (stdin) gives until end of file, at most limit.max_bytes; `name` names it in
// messages. It may block: a pipe's writer decides when it ends, and the cap bounds what is kept.
std::string read_descriptor(int fd, const std::string& name, const InputLimit& limit);

bool is_directory(const std::string& path);
bool is_regular_file(const std::string& path);

}  // namespace mfusim
