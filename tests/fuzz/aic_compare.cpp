// Fuzz target: one measured-kernel table of AIConfigurator's format, as `mfusim compare` reads it. The first byte
// picks the file (GEMM, context attention, generation attention, NCCL), the rest is its CSV text. The file is written
// to a scratch folder and compared against the H100 without tables: every row's integers are bounded before use (no
// overflow, no loop counted by a row), and every prediction that comes out is finite.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "compare/compare.hpp"
#include "fuzz_support.hpp"
#include "gpu/gpu_profile.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch_root() {
    std::error_code ec;
    fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string pattern = (base / "mfusim-fuzz-aic-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    return pattern;
}

const char* const kFiles[] = {"gemm_bf16.csv", "context_attention_bf16.csv", "generation_attention_bf16.csv",
                              "nccl.csv"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const fs::path root = scratch_root();
    static const mfusim::gpu::GpuProfile h100 = *mfusim::gpu::find_builtin_gpu("H100");
    mfusim::fuzz::Bytes bytes(data, size);
    const fs::path file = root / kFiles[bytes.u8() % std::size(kFiles)];
    std::ofstream(file, std::ios::binary) << bytes.rest();
    mfusim::fuzz::handled([&] {
        mfusim::compare::CompareReport report = mfusim::compare::compare_aic(root.string(), h100, nullptr);
        for (const mfusim::compare::FamilyReport& family : report.families) {
            for (const mfusim::compare::CompareRow& row : family.worst) {
                mfusim::fuzz::require(std::isfinite(row.predicted_us) && row.predicted_us >= 0,
                                      "compare: predictions finite and not negative");
            }
        }
    });
    std::error_code ec;
    fs::remove(file, ec);
    return 0;
}
