// A progress bar on stderr for long runs (replay, sweep, plan); silent when disabled, so callers pass
// isatty(STDERR_FILENO) and pipes and logs stay clean.
#pragma once

#include <cstddef>
#include <cstdio>

namespace mfusim::cli {

class Progress {
  public:
    explicit Progress(bool enabled) : enabled_(enabled) {}
    void update(std::size_t done, std::size_t total) {
        if (!enabled_ || total == 0) return;
        int percent = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
        if (percent == last_) return;
        last_ = percent;
        int filled = percent / 4;
        std::fprintf(stderr, "\r[%-25.*s] %3d%%", filled, "#########################", percent);
        std::fflush(stderr);
    }
    void finish() {
        if (enabled_ && last_ >= 0) std::fprintf(stderr, "\r%40s\r", "");
    }

  private:
    bool enabled_;
    int last_ = -1;
};

}  // namespace mfusim::cli
