// Collectives across NVLink domains (issue #28): a TP or EP group larger than one NVLink switch domain crosses the
// scale-out network (GpuProfile::spans_domains); groups inside one domain, and PCIe cards, keep their models.
#include <gtest/gtest.h>

#include "gpu/gpu_profile.hpp"
#include "roofline/all_to_all.hpp"
#include "roofline/analytical.hpp"

namespace mfusim::roofline {
namespace {

TEST(ScaleOut, OnlyGroupsBeyondAnNvlinkSwitchDomainSpanDomains) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100"), gb200 = gpu::resolve_gpu("GB200");
    EXPECT_FALSE(h100.spans_domains(8));
    EXPECT_TRUE(h100.spans_domains(16));
    EXPECT_FALSE(gb200.spans_domains(64));  // one NVL72 rack
    EXPECT_TRUE(gb200.spans_domains(144));
    // PCIe cards (no NVLink, or a bridged pair) talk over PCIe inside their host whatever the group.
    EXPECT_FALSE(gpu::resolve_gpu("L40S").spans_domains(8));
    EXPECT_FALSE(gpu::resolve_gpu("H100-PCIE").spans_domains(4));
}

TEST(ScaleOut, AllReduceAcrossNodesIsARingThroughTheNics) {
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const double bytes = 64e6, t = 16;
    // Two domains: two fabric crossings per ring. NCCL's rings leave each node through its eight GPUs' NICs in
    // parallel, so eight NICs (8 x 50 GB/s) carry the ring's bytes, while every GPU forwards them over NVLink too:
    // on two HGX H100 nodes the NVLink ring is the slower.
    const double ring = bytes * 2 * (t - 1) / t;
    const double nics = ring / (8 * h100.network_bandwidth_gbs * 1e3);
    const double nvlink = ring / (h100.nvlink_bandwidth_gbs / 2 * 1e3 * h100.nvlink_efficiency);
    ASSERT_LT(nics, nvlink);
    const double fixed =
        h100.allreduce_latency_us + 2 * (t - 1) * h100.allreduce_hop_latency_us + 2 * h100.network_latency_us;
    EXPECT_DOUBLE_EQ(nccl_allreduce_us(h100, bytes, 16), fixed + nvlink);
    // A NIC a quarter as fast is the slower path: the ring's bytes over the node's eight NICs.
    gpu::GpuProfile slow_nic = h100;
    slow_nic.network_bandwidth_gbs = 12.5;
    ASSERT_GT(4 * nics, nvlink);
    EXPECT_NEAR(nccl_allreduce_us(slow_nic, bytes, 16), fixed + 4 * nics, 1e-9 * nics);
    // Slower than the same message inside one node, at every size.
    for (double b : {4096.0, 1e6, 64e6}) EXPECT_GT(nccl_allreduce_us(h100, b, 16), nccl_allreduce_us(h100, b, 8));
    // vLLM's custom all-reduce needs NVLink peers: beyond the domain NCCL answers.
    EXPECT_EQ(custom_allreduce_us(h100, 1e6, 16), nccl_allreduce_us(h100, 1e6, 16));
}

TEST(ScaleOut, AllToAllInsideTheDomainIsNvlinkAlone) {
    gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    const double bytes = 8e6;
    EXPECT_DOUBLE_EQ(all_to_all_us(h100, bytes, 8), h100.allreduce_latency_us + bytes / (h100.nvlink_bandwidth_gbs / 2 *
                                                                                         h100.nvlink_efficiency * 1e3));
    // The fabric's latency is a profile field that a group inside one domain never pays.
    gpu::GpuProfile slow = gpu::apply_overrides(h100, R"({"network_latency_us": 50})", "test");
    EXPECT_DOUBLE_EQ(all_to_all_us(slow, bytes, 8), all_to_all_us(h100, bytes, 8));
}

}  // namespace
}  // namespace mfusim::roofline
