// Shared by the fuzz targets (docs/reliability.md): the contract they check and a byte reader.
//
// The contract: for any input the library either succeeds or throws mfusim::Error (which the C boundary turns into a
// status and message). Any other exception, a crash, a sanitizer report, a hang or a non-finite time is a bug;
// `handled` lets mfusim::Error pass and lets everything else escape, so that libFuzzer reports it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace mfusim::fuzz {

template <class Body>
void handled(Body&& body) {
    try {
        body();
    } catch (const mfusim::Error&) {
        // The documented failure: a status and a message.
    }
}

// A property that must hold; prints and aborts (libFuzzer saves the input) when it does not.
inline void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "fuzz property violated: %s\n", what);
        std::abort();
    }
}

// Consumes the input front to back; past the end every read yields zeros.
class Bytes {
  public:
    Bytes(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool empty() const { return at_ >= size_; }
    uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
    uint16_t u16() { return static_cast<uint16_t>((u8() << 8) | u8()); }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v = (v << 8) | u8();
        return v;
    }
    uint64_t u64() {
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v = (v << 8) | u8();
        return v;
    }
    // The rest of the input as text.
    std::string rest() {
        std::string out(reinterpret_cast<const char*>(data_) + (at_ < size_ ? at_ : size_),
                        at_ < size_ ? size_ - at_ : 0);
        at_ = size_;
        return out;
    }

  private:
    const uint8_t* data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

inline std::string as_text(const uint8_t* data, std::size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace mfusim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);
