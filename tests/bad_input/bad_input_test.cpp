// The bad-input corpus: every case of cases.txt feeds one hostile or broken input to the library and asserts the
// exact status and a fragment of the message that names the problem (file, line, column, field or value).
// docs/reliability.md explains the corpus, the manifest format and how to add a case.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "bad_input_runners.hpp"

namespace fs = std::filesystem;

namespace mfusim::bad_input {

namespace {

const char* const kCorpusDir = MFUSIM_BAD_INPUT_DIR;

std::string trim(std::string s) {
    std::size_t a = s.find_first_not_of(" \t\r");
    std::size_t b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// cases.txt: "name | runner | input | status | message fragment", '#' comments, blank lines ignored. The last
// field is the rest of the line (it may contain '|').
std::vector<Case> load_cases() {
    std::vector<Case> cases;
    std::ifstream in(std::string(kCorpusDir) + "/cases.txt");
    if (!in) {
        cases.push_back({"manifest_missing", "invalid", "", "", "", 0});
        return cases;
    }
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        std::string t = trim(line);
        if (t.empty() || t[0] == '#') continue;
        std::vector<std::string> fields;
        std::size_t start = 0;
        for (int i = 0; i < 4; ++i) {
            std::size_t bar = t.find('|', start);
            if (bar == std::string::npos) break;
            fields.push_back(trim(t.substr(start, bar - start)));
            start = bar + 1;
        }
        fields.push_back(trim(t.substr(start)));
        if (fields.size() != 5) {
            cases.push_back({"manifest_line_" + std::to_string(number), "invalid", t, "", "", number});
            continue;
        }
        cases.push_back({fields[0], fields[1], fields[2], fields[3], fields[4], number});
    }
    return cases;
}

const std::vector<Case>& all_cases() {
    static const std::vector<Case> cases = load_cases();
    return cases;
}

class BadInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadInput, StatusAndMessage) {
    const Case& c = GetParam();
    SCOPED_TRACE("cases.txt:" + std::to_string(c.manifest_line) + ": " + c.name + " (runner " + c.runner + ", input '" +
                 c.input + "')");
    Outcome got = run_case(c, kCorpusDir);
    if (got.skipped) GTEST_SKIP() << got.message;
    EXPECT_EQ(got.status, c.status) << "message: " << got.message;
    EXPECT_NE(got.message.find(c.message), std::string::npos)
        << "expected the message to contain: " << c.message << "\nmessage: " << got.message;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& param) { return param.param.name; });

// The manifest itself: unique names, known statuses, and every corpus file used by at least one case.
TEST(BadInputManifest, NamesAreUniqueAndStatusesKnown) {
    std::set<std::string> names;
    for (const Case& c : all_cases()) {
        EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
        EXPECT_TRUE(is_status_name(c.status)) << c.name << ": unknown status '" << c.status << "'";
        EXPECT_NE(c.message, "") << c.name << ": every case names the message fragment it expects";
    }
}

TEST(BadInputManifest, EveryCorpusFileIsUsed) {
    std::set<std::string> used;
    for (const Case& c : all_cases()) {
        used.insert(c.input);
        // A directory input covers the files under it.
        for (fs::path p(c.input); !p.empty() && p != p.parent_path(); p = p.parent_path()) used.insert(p.string());
    }
    for (const char* folder : {"tables", "manifests", "models", "gpus", "streams", "trees"}) {
        fs::path root = fs::path(kCorpusDir) / folder;
        if (!fs::exists(root)) continue;
        for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
            std::string rel = it->path().lexically_relative(kCorpusDir).generic_string();
            if (it->is_directory()) continue;
            bool covered = false;
            for (fs::path p(rel); !p.empty() && !covered; p = p.parent_path()) covered = used.count(p.string()) > 0;
            EXPECT_TRUE(covered) << rel << " is in the corpus but no case of cases.txt uses it";
        }
    }
}

}  // namespace

}  // namespace mfusim::bad_input
