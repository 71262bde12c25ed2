// copy_text: the one copy of text into the C API's fixed-size char arrays (error message, engine name, table).
#include "common/text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string copied(const std::string& text, std::size_t capacity) {
    std::string out(capacity + 8, '#');
    mfusim::copy_text(out.data(), capacity, text);
    EXPECT_EQ(out[capacity], '#') << "wrote past the buffer";
    return out.c_str();
}

TEST(CopyText, CutsAtACharacterBoundary) {
    const std::string euro = "\xe2\x82\xac";       // 3 bytes
    const std::string emoji = "\xf0\x9f\x98\x80";  // 4 bytes
    EXPECT_EQ(copied("abc", 8), "abc");
    EXPECT_EQ(copied("abcdefgh", 8), "abcdefg");
    EXPECT_EQ(copied("", 1), "");
    char out[4] = "xyz";
    mfusim::copy_text(out, sizeof out, std::string_view());  // null data: nothing copied (UBSan: memcpy from null)
    EXPECT_EQ(out[0], '\0');
    EXPECT_EQ(copied("abc", 1), "");
    // The capacity's last byte is the NUL: 7 bytes of text fit.
    EXPECT_EQ(copied("abcd" + euro, 8), "abcd" + euro);     // exactly 7
    EXPECT_EQ(copied("abcde" + euro, 8), "abcde");          // the euro sign would be cut after 2 of 3 bytes
    EXPECT_EQ(copied("abcdef" + euro, 8), "abcdef");        // after 1 of 3
    EXPECT_EQ(copied("abcdefg" + euro, 8), "abcdefg");      // at its start
    EXPECT_EQ(copied("abcd" + emoji, 8), "abcd");           // after 3 of 4
    EXPECT_EQ(copied(euro + euro + euro, 8), euro + euro);  // 6 of 9
    EXPECT_EQ(copied("\xc3\xa9", 2), "");
}

TEST(CopyText, BytesThatAreNotUtf8AreCopiedAsTheyAre) {
    EXPECT_EQ(copied("caf\xe9", 8), "caf\xe9");                            // Latin-1
    EXPECT_EQ(copied("ab\x80\x80\x80\x80\x80\x80\x80", 5), "ab\x80\x80");  // stray continuation bytes: cut by size
}

}  // namespace
