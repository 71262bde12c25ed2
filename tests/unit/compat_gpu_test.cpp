// SPEC section 3: InferSim's GPU figures, derived from the built-in profiles, bit-exact.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "compat/compat_gpu.hpp"

namespace mfusim::compat {
namespace {

struct Expected {
    const char* name;
    double P16, P8, mu0, mem, BW, NV, RD;
};

TEST(CompatGpu, DerivedFiguresAreInferSimsLiterals) {
    const Expected expected[] = {
        {"H20", 148, 296, 0.6, 96, 0x1.999999999999ap+11, 360.0, 40.0},
        {"H800", 989, 1979, 0.35, 80, 2744.0, 160.0, 40.0},
        {"H200", 989, 1979, 0.4, 141, 3840.0, 360.0, 40.0},
        {"GB200", 2500, 5000, 0.5, 192, 10720.0, 720.0, 40.0},
    };
    for (const Expected& e : expected) {
        SCOPED_TRACE(e.name);
        CompatGpu g = make_compat_gpu(gpu::resolve_gpu(e.name));
        EXPECT_EQ(g.P16, e.P16);
        EXPECT_EQ(g.P8, e.P8);
        EXPECT_EQ(g.mu0, e.mu0);
        EXPECT_EQ(g.mem_gb, e.mem);
        EXPECT_EQ(g.BW, e.BW);  // exact equality: these feed every memory time
        EXPECT_EQ(g.NV, e.NV);
        EXPECT_EQ(g.RD, e.RD);
    }
    EXPECT_EQ(make_compat_gpu(gpu::resolve_gpu("H20")).BW, 3276.8);
    EXPECT_EQ(make_compat_gpu(gpu::resolve_gpu("gb200")).folder, "gb200");
}

TEST(CompatGpu, OtherGpusAreUnsupported) {
    for (const char* name : {"H100", "A100", "B200", "L40S"}) {
        try {
            make_compat_gpu(gpu::resolve_gpu(name));
            ADD_FAILURE() << name;
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), Status::unsupported);
            EXPECT_NE(std::string(e.what()).find("H20, H800, H200 and GB200"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace mfusim::compat
