// FNV-1a 64: a stable fingerprint of bytes, the same on every platform and run (not a cryptographic hash). Used to
// split shapes into train and test halves deterministically and to record which file a calibration was fitted on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mfusim {

constexpr uint64_t fnv1a64(std::string_view bytes) {
    uint64_t h = 1469598103934665603ULL;
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

// 16 lower-case hex digits.
inline std::string fnv1a64_hex(std::string_view bytes) {
    const char* digits = "0123456789abcdef";
    uint64_t h = fnv1a64(bytes);
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[h & 15];
    return out;
}

}  // namespace mfusim
