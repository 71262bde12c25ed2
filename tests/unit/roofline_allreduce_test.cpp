// All-reduce models (src/roofline/analytical.*): NCCL over NVLink (ring / NVLS) or PCIe, and vLLM's custom
// all-reduce (one-shot / two-shot), from the profile's topology facts and its architecture's constants.
#include <gtest/gtest.h>

#include "gpu/gpu_profile.hpp"
#include "roofline/analytical.hpp"

namespace mfusim::roofline {
namespace {

gpu::GpuProfile gpu_named(const char* name) {
    return gpu::resolve_gpu(name);
}

TEST(RooflineAllReduce, NothingToReduceOnOneGpu) {
    for (const char* name : {"H100", "A100", "B200", "L40S"}) {
        EXPECT_EQ(nccl_allreduce_us(gpu_named(name), 1e6, 1), 0) << name;
        EXPECT_EQ(custom_allreduce_us(gpu_named(name), 1e6, 1), 0) << name;
    }
}

TEST(RooflineAllReduce, AllreduceUsIsTheNcclModel) {
    gpu::GpuProfile h100 = gpu_named("H100");
    for (double bytes : {1024.0, 1e6, 1e9}) {
        for (int64_t tp : {2, 4, 8}) EXPECT_EQ(allreduce_us(h100, bytes, tp), nccl_allreduce_us(h100, bytes, tp));
    }
}

TEST(RooflineAllReduce, NcclRingOnTwoGpusNvlsOnEightWhereTheSwitchReduces) {
    gpu::GpuProfile h100 = gpu_named("H100");
    const double link = 450e3;  // one NVLink 4 direction, bytes per us
    // 2 GPUs: the ring moves the message once per GPU (NVLS would not be faster).
    EXPECT_NEAR(nccl_allreduce_us(h100, 1e9, 2),
                h100.allreduce_latency_us + 2 * h100.allreduce_hop_latency_us + 1e9 / (link * h100.nvlink_efficiency),
                1e-6);
    // 8 GPUs: NVLS moves the message once instead of 1.75 times.
    EXPECT_NEAR(nccl_allreduce_us(h100, 1e9, 8),
                h100.allreduce_latency_us + 14 * h100.allreduce_hop_latency_us + 1e9 / (link * h100.nvls_efficiency),
                1e-6);
    // NVLink 3 (A100) has no NVLS: a ring on 8 GPUs, Simple protocol for large messages, LL for small ones.
    gpu::GpuProfile a100 = gpu_named("A100");
    EXPECT_NEAR(nccl_allreduce_us(a100, 1e9, 8),
                a100.allreduce_simple_latency_us + 14 * a100.allreduce_hop_latency_us +
                    1e9 * 1.75 / (300e3 * a100.nvlink_efficiency),
                1e-6);
    EXPECT_NEAR(nccl_allreduce_us(a100, 4096, 8),
                a100.allreduce_latency_us + 14 * a100.allreduce_hop_latency_us +
                    4096 * 1.75 / (300e3 * a100.allreduce_ll_efficiency),
                1e-9);
    // The protocol switch never makes a larger message faster.
    double last = 0;
    for (double bytes = 1024; bytes < 1e9; bytes *= 1.5) {
        EXPECT_GE(nccl_allreduce_us(a100, bytes, 2), last) << bytes;
        last = nccl_allreduce_us(a100, bytes, 2);
    }
    // More latency with more GPUs; more time with more bytes.
    EXPECT_LT(nccl_allreduce_us(h100, 1024, 2), nccl_allreduce_us(h100, 1024, 8));
    EXPECT_LT(nccl_allreduce_us(h100, 1e6, 4), nccl_allreduce_us(h100, 2e6, 4));
}

TEST(RooflineAllReduce, PcieWithoutNvlinkOrBeyondTheBridge) {
    gpu::GpuProfile l40s = gpu_named("L40S");
    EXPECT_EQ(l40s.nvlink_bandwidth_gbs, 0);
    EXPECT_NEAR(nccl_allreduce_us(l40s, 1e9, 2),
                l40s.allreduce_latency_us + 2 * l40s.allreduce_hop_latency_us + 1e9 / (32e3 * l40s.pcie_efficiency),
                1e-6);
    // An H100 NVL pair talks over its bridge; four of them fall back to PCIe Gen5, far slower per byte.
    gpu::GpuProfile nvl = gpu_named("H100-NVL");
    EXPECT_LT(nccl_allreduce_us(nvl, 1e9, 2) * 3, nccl_allreduce_us(nvl, 1e9, 4));
    // vLLM's custom all-reduce needs all GPUs to be P2P peers: beyond two PCIe GPUs it is NCCL's time.
    EXPECT_EQ(custom_allreduce_us(l40s, 1e6, 4), nccl_allreduce_us(l40s, 1e6, 4));
    EXPECT_GT(custom_allreduce_us(l40s, 1e6, 2), 0);
}

// Peer to peer over PCIe (the RTX PRO 6000's servers) NCCL's ring moves 2(t-1)/t of the message through each GPU's
// link; where the transfers share the host bridges (the measured L40S host) the time per byte grows as the t(t-1)/2
// pairs of GPUs. The same card's profile set either way differs by exactly that factor.
TEST(RooflineAllReduce, PeerToPeerHostsRunTheRingSharedBridgesGrowWithThePairs) {
    gpu::GpuProfile rtx = gpu_named("RTX-PRO-6000");
    EXPECT_EQ(rtx.pcie_peer_to_peer, 1);
    EXPECT_EQ(gpu_named("L40S").pcie_peer_to_peer, 0);
    const double latency = rtx.allreduce_latency_us + 14 * rtx.allreduce_hop_latency_us;
    const double per_byte = 1 / (64e3 * rtx.pcie_efficiency);  // one direction of PCIe Gen5 x16, bytes per us
    EXPECT_NEAR(nccl_allreduce_us(rtx, 1e9, 8), latency + 1e9 * 1.75 * per_byte, 1e-6);
    gpu::GpuProfile shared = rtx;
    shared.pcie_peer_to_peer = 0;
    EXPECT_NEAR(nccl_allreduce_us(shared, 1e9, 8), latency + 1e9 * 28 * per_byte, 1e-6);
    // Two GPUs move the message once either way.
    EXPECT_NEAR(nccl_allreduce_us(shared, 1e9, 2), nccl_allreduce_us(rtx, 1e9, 2), 1e-6);
    // An NVLink card beyond its bridge keeps the ring whatever the flag says.
    gpu::GpuProfile nvl = gpu_named("H100-NVL");
    gpu::GpuProfile nvl_shared = nvl;
    nvl_shared.pcie_peer_to_peer = 0;
    EXPECT_EQ(nccl_allreduce_us(nvl, 1e9, 4), nccl_allreduce_us(nvl_shared, 1e9, 4));
}

TEST(RooflineAllReduce, CustomOneShotForSmallMessagesTwoShotAbove) {
    gpu::GpuProfile h100 = gpu_named("H100");
    const double link = 450e3 * h100.custom_allreduce_efficiency;
    auto fixed = [&](double tp) { return h100.custom_allreduce_latency_us + (tp - 1) * h100.custom_allreduce_peer_us; };
    // 8 GPUs below 256 KB: one-shot reads all 7 peers' buffers.
    EXPECT_NEAR(custom_allreduce_us(h100, 128 * 1024, 8), fixed(8) + 7 * 128 * 1024 / link, 1e-9);
    // 8 GPUs at 1 MB: two-shot moves 2 x 7/8 of the message.
    EXPECT_NEAR(custom_allreduce_us(h100, 1 << 20, 8), fixed(8) + 1.75 * (1 << 20) / link, 1e-9);
    // 2 GPUs: always one-shot.
    EXPECT_NEAR(custom_allreduce_us(h100, 4 << 20, 2), fixed(2) + (4 << 20) / link, 1e-9);
    // Small messages: the custom kernel is faster than NCCL on every NVLink system (its reason to exist).
    for (const char* name : {"A100", "H100", "B200"}) {
        gpu::GpuProfile g = gpu_named(name);
        for (int64_t tp : {2, 4, 8}) {
            EXPECT_LT(custom_allreduce_us(g, 64 * 1024, tp), nccl_allreduce_us(g, 64 * 1024, tp)) << name << tp;
        }
    }
}

}  // namespace
}  // namespace mfusim::roofline
