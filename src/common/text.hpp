// Copying text into the fixed-size char arrays of the C API's structs (error messages, engine names, table paths).
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace mfusim {

// Copies `text` into `out` (capacity bytes, > 0), NUL-terminated, cut to fit at a UTF-8 character boundary: a
// multi-byte character that does not fit whole is left out, so every binding decoding the field as UTF-8 (Python's
// str, Java's String) gets valid text back, not a conversion error. Bytes that are not UTF-8 to begin with (a path
// with a Latin-1 name) are copied as they are.
inline void copy_text(char* out, std::size_t capacity, std::string_view text) noexcept {
    std::size_t n = text.size() < capacity ? text.size() : capacity - 1;
    if (n < text.size()) {
        // text[n] is the first byte left out: if it continues a character (10xxxxxx), that character's lead byte
        // (11xxxxxx) is at most 3 bytes back; leave the character out whole.
        std::size_t cut = n;
        for (int back = 0; back < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80; ++back) {
            --cut;
        }
        if (cut < n && static_cast<unsigned char>(text[cut]) >= 0xC0) n = cut;
    }
    if (n > 0) std::memcpy(out, text.data(), n);  // an empty view's data() may be null, which memcpy must not get
    out[n] = '\0';
}

}  // namespace mfusim
