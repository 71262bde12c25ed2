// A refusal by name: the check the tests of configs and flags share.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/error.hpp"

namespace mfusim::testing {

// Expects `call` to throw an Error with Status::unsupported whose message names "field '<key>'" (how the readers
// refuse a mechanism they cannot time).
template <class Call>
void expect_refused_naming(Call&& call, const std::string& key) {
    try {
        call();
        ADD_FAILURE() << "not refused: " << key;
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("field '" + key + "'"), std::string::npos) << e.what();
    }
}

}  // namespace mfusim::testing
