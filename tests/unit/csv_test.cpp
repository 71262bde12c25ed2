#include <gtest/gtest.h>

#include "common/error.hpp"
#include "tables/csv.hpp"

namespace mfusim::tables {
namespace {

Status status_of(const std::function<void()>& fn, std::string* message = nullptr) {
    try {
        fn();
    } catch (const Error& e) {
        if (message) *message = e.what();
        return e.status();
    }
    return Status::ok;
}

TEST(Csv, SplitsLinesAndFieldsWithCrlfBomAndMissingFinalNewline) {
    CsvText text = split_csv("t.csv", "\xEF\xBB\xBFm,k\r\n1,2\r\n3,4");
    ASSERT_EQ(text.lines.size(), 3u);
    EXPECT_EQ(text.lines[0].fields[0], "m");
    EXPECT_EQ(text.lines[2].fields[1], "4");
    EXPECT_EQ(text.lines[2].line_number, 3u);
}

TEST(Csv, TrailingBlankLinesAreIgnoredButInteriorOnesAreErrors) {
    EXPECT_EQ(split_csv("t.csv", "a,b\n1,2\n\n\n").lines.size(), 2u);
    std::string message;
    EXPECT_EQ(status_of([] { split_csv("t.csv", "a,b\n1,2\n\n3,4\n"); }, &message), Status::parse);
    EXPECT_NE(message.find("t.csv:3:1"), std::string::npos) << message;
}

TEST(Csv, BinaryDataIsRefused) {
    std::string message;
    EXPECT_EQ(status_of([] { split_csv("bin.csv", std::string("a,b\n\0\x01", 6)); }, &message), Status::parse);
    EXPECT_NE(message.find("NUL"), std::string::npos);
}

TEST(Csv, FieldErrorsNameFileLineColumnAndColumnName) {
    CsvText text = split_csv("g.csv", "m,k,n,latency_us,mfu\n16,4096,abc,1.0,0.5\n");
    CsvFieldReader reader(text, text.lines[1]);
    EXPECT_EQ(reader.integer(0, "m"), 16);
    std::string message;
    EXPECT_EQ(status_of([&] { reader.integer(2, "n"); }, &message), Status::parse);
    EXPECT_EQ(message, "g.csv:2:9: column 'n': expected an integer, found 'abc'");
    EXPECT_EQ(status_of([&] { reader.number(7, "mfu"); }, &message), Status::parse);
    EXPECT_NE(message.find("missing"), std::string::npos);
}

TEST(Csv, NonFiniteNumbersAreRefused) {
    CsvText text = split_csv("g.csv", "1,nan,inf\n");
    CsvFieldReader reader(text, text.lines[0]);
    EXPECT_EQ(status_of([&] { reader.number(1, "mfu"); }), Status::parse);
    EXPECT_EQ(status_of([&] { reader.number(2, "mfu"); }), Status::parse);
}

TEST(Csv, MissingFileIsAnIoError) {
    std::string message;
    EXPECT_EQ(status_of([] { read_csv_file("/nonexistent/dir/data.csv"); }, &message), Status::io);
    EXPECT_NE(message.find("/nonexistent/dir/data.csv"), std::string::npos);
}

}  // namespace
}  // namespace mfusim::tables
