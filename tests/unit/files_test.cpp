// Reading inputs (common/files): what cannot be tested from the corpus because it needs a process limit.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "common/files.hpp"

namespace {

namespace fs = std::filesystem;

// An allocation failure while reading is Error(out_of_memory) naming the file, not a parse or I/O error. A child
// process lowers its address-space limit below the size of a (sparse) file that is within the step-stream cap.
TEST(ReadFile, AllocationFailureIsOutOfMemory) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizers reserve terabytes of address space: RLIMIT_AS cannot be lowered under them";
#endif
    fs::path file = fs::temp_directory_path() / ("mfusim-oom-" + std::to_string(::getpid()) + ".jsonl");
    std::ofstream(file).close();
    fs::resize_file(file, std::size_t{768} << 20);  // under the 1 GiB cap, over the child's limit
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        rlimit limit{std::size_t{512} << 20, std::size_t{512} << 20};
        if (::setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(4);
        try {
            mfusim::read_file(file.string(), mfusim::kStepStreamLimit);
            std::_Exit(1);
        } catch (const mfusim::Error& e) {
            bool named = std::string(e.what()).find(file.string() + ": out of memory reading") != std::string::npos;
            std::_Exit(e.status() == mfusim::Status::out_of_memory && named ? 0 : 2);
        } catch (...) {
            std::_Exit(3);
        }
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    fs::remove(file);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: read succeeded, 2: wrong status or message, 3: not mfusim::Error";
}

}  // namespace
