#include <gtest/gtest.h>

#include <cmath>

#include "common/numbers.hpp"

namespace mfusim {
namespace {

TEST(Numbers, ParsesIntegersStrictly) {
    EXPECT_EQ(parse_int64("4096"), 4096);
    EXPECT_EQ(parse_int64("+7"), 7);
    EXPECT_EQ(parse_int64("-3"), -3);
    EXPECT_FALSE(parse_int64(""));
    EXPECT_FALSE(parse_int64("12a"));
    EXPECT_FALSE(parse_int64(" 12"));
    EXPECT_FALSE(parse_int64("1.5"));
    EXPECT_FALSE(parse_int64("99999999999999999999"));
}

TEST(Numbers, ParsesDoublesCorrectlyRounded) {
    EXPECT_EQ(parse_double("0.1"), 0.1);
    EXPECT_EQ(parse_double("1e-3"), 0.001);
    EXPECT_EQ(parse_double("0.749"), 0.749);
    EXPECT_FALSE(parse_double("abc"));
    EXPECT_FALSE(parse_double("0.5x"));
    EXPECT_TRUE(std::isnan(*parse_double("nan")));
    EXPECT_TRUE(std::isinf(*parse_double("inf")));
    // Subnormal and out-of-range texts are still numbers to Python's float().
    EXPECT_EQ(parse_double("1e-320"), 1e-320);
    EXPECT_TRUE(std::isinf(*parse_double("1e999")));
}

TEST(Numbers, Round3MatchesPythonRoundHalfEvenOnTheExactBinaryValue) {
    EXPECT_EQ(round3(0.6535), 0.653);  // 0.6535 is stored just below .6535
    EXPECT_EQ(round3(0.0005), 0.001);  // stored just above
    EXPECT_EQ(round3(0.2225), 0.223);
    EXPECT_EQ(round3(0.749), 0.749);
    EXPECT_EQ(round3(0.0), 0.0);
    EXPECT_EQ(round3(2.5e-4), 0.0);  // a quarter of the last place rounds away
    EXPECT_EQ(round3(1.0005), 1.0);  // stored below: rounds down
}

}  // namespace
}  // namespace mfusim
