// The analytical efficiency model and the lookup grids: shapes of the functions, not fitted values.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/analytical.hpp"
#include "roofline/grid.hpp"

namespace mfusim::roofline {
namespace {

const gpu::GpuProfile& h100() {
    static const gpu::GpuProfile g = gpu::resolve_gpu("H100");
    return g;
}

TEST(RooflineAnalytical, GemmIsMonotoneInEveryDimensionAndFloorsAtTheLaunch) {
    GemmPrecision p = bf16_gemm(h100());
    for (int64_t k : {32, 512, 4096, 16384}) {
        for (int64_t n : {64, 1024, 6144, 65536}) {
            double previous = 0;
            for (int64_t m = 1; m <= 70000; m = m < 64 ? m + 1 : m * 5 / 4) {
                GemmCost c = gemm_analytical(h100(), p, 1, static_cast<double>(m), k, n);
                ASSERT_TRUE(std::isfinite(c.time_us));
                ASSERT_GE(c.time_us, previous) << m << " " << k << " " << n;
                ASSERT_GE(c.time_us, h100().kernel_launch_us);
                previous = c.time_us;
            }
        }
    }
    for (int64_t m : {1, 100, 5000}) {
        double by_k = gemm_analytical(h100(), p, 1, static_cast<double>(m), 8192, 4096).time_us;
        EXPECT_GE(by_k, gemm_analytical(h100(), p, 1, static_cast<double>(m), 4096, 4096).time_us);
        double by_n = gemm_analytical(h100(), p, 1, static_cast<double>(m), 4096, 8192).time_us;
        EXPECT_GE(by_n, gemm_analytical(h100(), p, 1, static_cast<double>(m), 4096, 4096).time_us);
    }
}

TEST(RooflineAnalytical, SmallGemmIsMemoryBoundLargeGemmComputeBound) {
    GemmPrecision p = bf16_gemm(h100());
    GemmCost decode = gemm_analytical(h100(), p, 1, 8, 4096, 14336);
    EXPECT_GT(decode.memory_us, decode.compute_us);
    // Streaming the 117 MB of weights at 0.87 x 3.35 TB/s: ~40 us.
    EXPECT_NEAR(decode.memory_us, 4096.0 * 14336 * 2 / (3350e3 * h100().memory_efficiency), 1.0);
    GemmCost prefill = gemm_analytical(h100(), p, 1, 8192, 4096, 14336);
    EXPECT_GT(prefill.compute_us, prefill.memory_us);
    // Large and well shaped: close to the plateau.
    double mfu = prefill.flops / (prefill.time_us * 1e-6 * p.peak_flops);
    EXPECT_GT(mfu, 0.9 * p.plateau);
    EXPECT_LE(mfu, p.plateau);
    // FP8 halves the weight bytes.
    GemmCost fp8 = gemm_analytical(h100(), fp8_gemm(h100()), 1, 8, 4096, 14336);
    EXPECT_LT(fp8.memory_us, 0.6 * decode.memory_us);
}

TEST(RooflineAnalytical, WaveQuantizationShowsInTheComputeTime) {
    GemmPrecision p = bf16_gemm(h100());
    // 132 SMs: 132 tiles of 128x256 fill one wave; one more row of tiles needs another wave, which the best
    // smaller tile (64x64: 9 waves of 1/8 the work) softens to +12.5% (split-K cannot help: k is short).
    double one_wave = gemm_analytical(h100(), p, 1, 128 * 12, 128, 256 * 11).compute_us;
    double two_waves = gemm_analytical(h100(), p, 1, 128 * 12 + 1, 128, 256 * 11).compute_us;
    EXPECT_NEAR(two_waves, one_wave * 1.125, 1e-9 * one_wave);
}

TEST(RooflineAnalytical, ExpectedActiveExperts) {
    EXPECT_DOUBLE_EQ(expected_active_experts(128, 8, 0), 0);
    EXPECT_DOUBLE_EQ(expected_active_experts(128, 8, 1), 8);
    EXPECT_NEAR(expected_active_experts(128, 8, 2), 128 * (1 - std::pow(1 - 8.0 / 128, 2)), 1e-12);
    EXPECT_NEAR(expected_active_experts(128, 8, 2), 15.5, 1e-12);
    EXPECT_NEAR(expected_active_experts(8, 2, 1000), 8, 1e-9);
    EXPECT_DOUBLE_EQ(expected_active_experts(8, 8, 3), 8);
    double previous = 0;
    for (double t = 1; t < 5000; t *= 1.5) {
        double e = expected_active_experts(256, 8, t);
        EXPECT_GE(e, previous);
        EXPECT_LE(e, 256);
        EXPECT_LE(e, 8 * t);
        previous = e;
    }
}

TEST(RooflineAnalytical, AllReduceLatencyPlusBandwidth) {
    EXPECT_EQ(allreduce_us(h100(), 1e6, 1), 0);
    double small = allreduce_us(h100(), 1024, 2);
    EXPECT_NEAR(small, h100().allreduce_latency_us + 2 * h100().allreduce_hop_latency_us, 0.01);
    EXPECT_GT(allreduce_us(h100(), 1024, 8), small);
    double big = allreduce_us(h100(), 1e9, 2);
    // 1 GB over 2 GPUs: 2(tp-1)/tp = 1 message crosses the link at nvlink_efficiency x 450 GB/s.
    EXPECT_NEAR(
        big,
        h100().allreduce_latency_us + 2 * h100().allreduce_hop_latency_us + 1e9 / (450e3 * h100().nvlink_efficiency),
        1);
}

TEST(RooflineAnalytical, OnlyFa3PacksGqaInShortChunks) {
    // 32 query heads over 8 KV heads, a 16-token chunk: packing shares a tile among a group's 4 query heads.
    AttentionGeometry g{32, 8, 128, 128, 2.0 * 8 * 128 * 2, 2};
    auto blocks = [&](const char* name) {
        PrefillWork w;
        add_prefill_chunk(gpu::resolve_gpu(name), g, w, 16, 0);
        return w.tile_blocks;
    };
    EXPECT_LT(blocks("H100") * 3, blocks("B200"));  // TRT-LLM FMHA: 32 tiles, not 8
    // FA2 swaps a group's query heads into one tile only for 1-token queries (its decode path): 32 tiles of
    // 1.25 blocks (16 keys of a 64-key block, 1 block of overhead) each.
    gpu::GpuProfile a100 = gpu::resolve_gpu("A100");
    EXPECT_DOUBLE_EQ(blocks("A100"), 32 * (16.0 / 64 + a100.attention_tile_overhead_blocks + 0.5));
}

TEST(RooflineAnalytical, Fa2DecodeIsBoundByItsCtasAtSmallBatch) {
    gpu::GpuProfile a100 = gpu::resolve_gpu("A100");
    double peak = a100.peak_bf16_tflops * 1e12;
    double hbm = 2039e3 * a100.memory_efficiency;  // bytes per us
    // MHA never splits the KV: one CTA per (request, head) walks 64k keys alone, at the CTA's bandwidth.
    AttentionGeometry mha{1, 1, 128, 128, 2.0 * 128 * 2, 2};
    double slice = 65536.0 * mha.kv_bytes_per_token / (a100.decode_cta_bandwidth_gbs * 1e3);
    double t = decode_attention_us(a100, mha, peak, DecodeWork{1, 65536});
    EXPECT_NEAR(t, a100.attention_launch_us + a100.decode_cta_overhead_us + slice, 1e-9);
    EXPECT_GT(t, 10 * decode_attention_bytes(mha, DecodeWork{1, 65536}) / hbm);
    // A GQA group is split over the KV: many times faster than MHA at the same bytes.
    AttentionGeometry gqa{8, 1, 128, 128, 2.0 * 128 * 2, 2};
    EXPECT_LT(decode_attention_us(a100, gqa, peak, DecodeWork{1, 65536}) * 5, t);
    // A large batch is HBM-bound.
    AttentionGeometry g{32, 8, 128, 128, 2.0 * 8 * 128 * 2, 2};
    DecodeWork big{256, 256.0 * 4096};
    double bytes = decode_attention_bytes(g, big);
    EXPECT_GT(decode_attention_us(a100, g, peak, big), bytes / hbm);
    EXPECT_LT(decode_attention_us(a100, g, peak, big), bytes / hbm * 1.2);
}

TEST(RooflineAnalytical, PrefillAttentionGrowsWithTokensContextAndHeads) {
    AttentionGeometry g{32, 8, 128, 128, 2.0 * 8 * 128 * 2, 2};
    double peak = h100().peak_bf16_tflops * 1e12;
    auto time = [&](const AttentionGeometry& geometry, int64_t n, int64_t c) {
        PrefillWork w;
        add_prefill_chunk(h100(), geometry, w, n, c);
        return prefill_attention_us(h100(), geometry, peak, w);
    };
    double previous = 0;
    for (int64_t n = 1; n <= 32768; n = n * 3 / 2 + 1) {
        double t = time(g, n, 0);
        EXPECT_GE(t, previous);
        previous = t;
        EXPECT_GE(time(g, n, 4096), t);
    }
    AttentionGeometry more_heads = g;
    more_heads.q_heads = 64;
    EXPECT_GT(time(more_heads, 8192, 0), time(g, 8192, 0));
    // Causal FLOPs: 2 * heads * (qk + v) * n (n + 1) / 2 without context.
    PrefillWork w;
    add_prefill_chunk(h100(), g, w, 1000, 0);
    EXPECT_DOUBLE_EQ(w.flops, 2.0 * 32 * 256 * (1000.0 * 1001 / 2));
    // A long prefill runs near the head-dim-128 plateau.
    PrefillWork big;
    add_prefill_chunk(h100(), g, big, 32768, 0);
    double mfu = big.flops / (prefill_attention_us(h100(), g, peak, big) * 1e-6 * peak);
    EXPECT_NEAR(mfu, h100().attention_max_efficiency, 0.05);
}

TEST(RooflineAnalytical, PrefillNewTokenTrafficAddsToComputePrefixReadsOverlap) {
    // Same FLOPs and tiles, MHA against GQA: the MHA chunk moves 8x the new K/V (read and cache write), and that
    // difference is added to the time in full, not hidden under the compute (the B200, H100 and A100 measurements:
    // MHA batches run up to 2x slower than GQA at equal FLOPs).
    for (const char* name : {"H100", "A100", "B200"}) {
        gpu::GpuProfile gpu = gpu::resolve_gpu(name);
        double peak = gpu.peak_bf16_tflops * 1e12,
               bytes_per_us = gpu.streaming_bandwidth_gbs() * 1e3 * gpu.memory_efficiency;
        AttentionGeometry gqa{32, 4, 128, 128, 2.0 * 4 * 128 * 2, 2}, mha{32, 32, 128, 128, 2.0 * 32 * 128 * 2, 2};
        auto time = [&](const AttentionGeometry& g, int64_t n, int64_t c) {
            PrefillWork w;
            add_prefill_chunk(gpu, g, w, n, c);
            for (int i = 1; i < 16; ++i) add_prefill_chunk(gpu, g, w, n, c);  // a batch of 16 chunks
            return prefill_attention_us(gpu, g, peak, w);
        };
        double extra_new = 16 * 1024 * 2 * (mha.kv_bytes_per_token - gqa.kv_bytes_per_token) / bytes_per_us;
        EXPECT_NEAR(time(mha, 1024, 0) - time(gqa, 1024, 0), extra_new, 1e-6 * extra_new) << name;
        // A cached prefix whose reads take less than the chunk's compute is hidden: 1024 tokens over 2048 cost
        // the extra new-token traffic only, not the 8x larger prefix reads as well.
        EXPECT_NEAR(time(mha, 1024, 2048) - time(gqa, 1024, 2048), extra_new, 1e-6 * extra_new) << name;
        // A few tokens over a long prefix are bound by its reads, which then show in full.
        double prefix = 16 * 65536 * mha.kv_bytes_per_token / bytes_per_us;
        EXPECT_GT(time(mha, 8, 65536), prefix) << name;
    }
}

TEST(RooflineAnalytical, FasterExponentialsShrinkTheSoftmaxPartOnly) {
    gpu::GpuProfile b200 = gpu::resolve_gpu("B200"), b300 = gpu::resolve_gpu("B300");
    EXPECT_EQ(b200.exp_throughput_scale, 1);
    EXPECT_EQ(b300.exp_throughput_scale, 2);  // Blackwell Ultra's SFUs: twice the MUFU.EX2 rate
    auto eff = [](const gpu::GpuProfile& gpu, int64_t d) {
        return attention_tile_efficiency(gpu, AttentionGeometry{32, 8, d, d, 2.0 * 8 * static_cast<double>(d) * 2, 2});
    };
    // head_dim 128 runs at the architecture's plateau, other head dims on d / (d + d0) relative to it.
    EXPECT_NEAR(eff(b200, 128), b200.attention_max_efficiency, 1e-12);
    const double d0 = b200.attention_softmax_head_dim;
    EXPECT_NEAR(eff(b200, 64), b200.attention_max_efficiency * (64 / (64 + d0)) / (128 / (128 + d0)), 1e-12);
    // One exponential per score against 4d matmul FLOPs: twice the exponential rate at head_dim 64 is head_dim 128
    // at the old rate, and the same matmul part makes B300 faster at every head dim, most where softmax weighs most.
    EXPECT_NEAR(eff(b300, 64), eff(b200, 128), 1e-12);
    EXPECT_GT(eff(b300, 128), 1.3 * eff(b200, 128));
    EXPECT_GT(eff(b300, 64) / eff(b200, 64), eff(b300, 256) / eff(b200, 256));
    // A JSON profile may set it, within bounds.
    EXPECT_EQ(gpu::resolve_gpu(R"({"base": "B200", "exp_throughput_scale": 2})").exp_throughput_scale, 2);
    EXPECT_THROW(gpu::resolve_gpu(R"({"base": "B200", "exp_throughput_scale": 0})"), mfusim::Error);
}

TEST(RooflineAnalytical, DecodeAttentionIsMemoryBound) {
    AttentionGeometry g{32, 8, 128, 128, 2.0 * 8 * 128 * 2, 2};
    double peak = h100().peak_bf16_tflops * 1e12;
    DecodeWork w{64, 64.0 * 8192};
    double bytes = decode_attention_bytes(g, w);
    double t = decode_attention_us(h100(), g, peak, w);
    EXPECT_GT(t, bytes / (3350e3 * h100().memory_efficiency));
    EXPECT_LT(t, bytes / (3350e3 * h100().memory_efficiency) * 1.2);
    EXPECT_EQ(decode_attention_us(h100(), g, peak, DecodeWork{}), 0);
}

TEST(RooflineGrid, AxisPointsAndLocateAgree) {
    for (std::size_t i = 0; i + 1 < FineAxis::kSize; ++i) {
        int64_t x = FineAxis::point(i);
        ASSERT_LT(x, FineAxis::point(i + 1));
        auto p = FineAxis::locate(x);
        ASSERT_EQ(p.index, i) << x;
        ASSERT_EQ(p.fraction, 0.0);
    }
    EXPECT_EQ(FineAxis::point(FineAxis::kSize - 1), int64_t{1} << 24);
    EXPECT_EQ(FineAxis::point(64), 64);
    EXPECT_EQ(FineAxis::point(65), 68);
    auto p = FineAxis::locate(66);
    EXPECT_EQ(p.index, 64u);
    EXPECT_DOUBLE_EQ(p.fraction, 0.5);
    // Every power of two and every 1.5 x 2^e up to 2^24 is a grid point (exact table sizes).
    for (int e = 6; e < 24; ++e) {
        EXPECT_EQ(FineAxis::locate(int64_t{1} << e).fraction, 0.0);
        EXPECT_EQ(FineAxis::locate(int64_t{3} << (e - 1)).fraction, 0.0);
    }
    for (std::size_t i = 0; i + 1 < KeysAxis::kSize; ++i) {
        ASSERT_EQ(KeysAxis::locate(KeysAxis::point(i)).index, i);
    }
}

TEST(RooflineGrid, GridInterpolatesLinearlyAndStaysMonotone) {
    SizeGrid<FineAxis> g;
    g.fill([](int64_t x) { return static_cast<double>(x) * 2; });
    EXPECT_DOUBLE_EQ(g.at(1000, true), 2000);
    EXPECT_DOUBLE_EQ(g.at(1001, true), 2002);
    EXPECT_DOUBLE_EQ(g.at(int64_t{1} << 25, true), double(int64_t{1} << 26));   // proportional beyond the grid
    EXPECT_DOUBLE_EQ(g.at(int64_t{1} << 25, false), double(int64_t{1} << 25));  // clamped
    SizeGrid<FineAxis> h;
    h.fill([](int64_t x) { return x % 7 == 0 ? 1.0 : 2.0; });
    h.make_non_decreasing();
    double previous = 0;
    for (int64_t x = 0; x < 100000; x += 13) {
        ASSERT_GE(h.at(x, true), previous);
        previous = h.at(x, true);
    }
}

}  // namespace
}  // namespace mfusim::roofline
