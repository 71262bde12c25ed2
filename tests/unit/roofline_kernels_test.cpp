// Calibrated kernel predictors: exactness at table points, monotone interpolation, FP8-table handling,
// nearest-shape provenance, TP-specific decode tables.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "gpu/gpu_profile.hpp"
#include "roofline/kernels.hpp"
#include "roofline/precision.hpp"
#include "support/reference.hpp"
#include "tables/tables.hpp"

namespace mfusim::roofline {
namespace {

std::shared_ptr<const tables::BenchData> fixture_tables(const std::string& name) {
    return std::make_shared<tables::BenchData>(tables::load_bench_data(testing::fixtures_dir() + "/roofline/" + name));
}

// Measured time of a fixture GEMM row, from its MFU as the index derives it.
double table_time(const tables::BenchData& data, int64_t m, int64_t k, int64_t n, double peak) {
    const auto& table = data.gemm.begin()->second;
    double sum = 0;
    int count = 0;
    for (const tables::GemmRow& r : table.rows) {
        if (r.m == m && r.k == k && r.n == n && r.mfu > 0) {
            sum += 2.0 * static_cast<double>(m * k) * static_cast<double>(n) / (r.mfu * peak) * 1e6;
            ++count;
        }
    }
    return count ? sum / count : 0;
}

TEST(RooflineKernels, GemmReproducesBf16TableRowsExactlyAndInterpolatesMonotonically) {
    auto data = fixture_tables("bench_bf16");
    gpu::GpuProfile gpu = gpu::resolve_gpu("H100");
    KernelModel k(gpu, data, GemmDtype::bf16, false);
    GemmSite site = k.gemm_site(4096, 6144);
    double peak = gpu.peak_bf16_tflops * 1e12;
    for (int64_t m : {8, 16, 256, 1024, 4096}) {
        double expected = table_time(*data, m, 4096, 6144, peak);
        EXPECT_NEAR(site.time_us(m), expected, 1e-9 * expected) << m;
        EXPECT_EQ(site.provenance(m).source, MFUSIM_SOURCE_TABLE_EXACT);
        ASSERT_NE(site.provenance(m).table, nullptr);
        EXPECT_EQ(*site.provenance(m).table, "gemm/h100/data.csv");
    }
    // m = 64 has a duplicate with MFU 0 (skipped): still exact.
    EXPECT_NEAR(site.time_us(64), table_time(*data, 64, 4096, 6144, peak), 1e-9 * site.time_us(64));
    // Between rows: between the neighbours, and non-decreasing.
    double previous = 0;
    for (int64_t m = 8; m <= 4096; ++m) {
        double t = site.time_us(m);
        ASSERT_GE(t, previous) << m;
        previous = t;
    }
    EXPECT_EQ(site.provenance(100).source, MFUSIM_SOURCE_TABLE_INTERPOLATED);
    double t100 = site.time_us(100);
    EXPECT_GE(t100, site.time_us(64));
    EXPECT_LE(t100, site.time_us(256));
    // Duplicates (8192 x 6144 at m = 1024) are merged into the mean time.
    GemmSite dup = k.gemm_site(8192, 6144);
    EXPECT_NEAR(dup.time_us(1024), table_time(*data, 1024, 8192, 6144, peak), 1e-9 * dup.time_us(1024));
}

TEST(RooflineKernels, GemmOutsideTheMeasuredRangeIsNearestWithItsDistance) {
    auto data = fixture_tables("bench_bf16");
    KernelModel k(gpu::resolve_gpu("H100"), data, GemmDtype::bf16, false);
    GemmSite site = k.gemm_site(4096, 6144);
    OpProvenance p = site.provenance(4);  // 1 octave below m = 8
    EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_NEAREST);
    EXPECT_DOUBLE_EQ(p.distance, 1.0);
    // Outside the measured sizes the end point's correction is kept whole: still nearest, 3 octaves out.
    EXPECT_EQ(site.provenance(1).source, MFUSIM_SOURCE_TABLE_NEAREST);
    EXPECT_DOUBLE_EQ(site.provenance(1).distance, 3.0);
    // A shape one octave from a measured group: nearest, at 1 octave.
    GemmSite other = k.gemm_site(4096, 12288);
    p = other.provenance(1024);
    EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_NEAREST);
    EXPECT_DOUBLE_EQ(p.distance, 1.0);
    // Far from every group: the analytical model alone.
    GemmSite far = k.gemm_site(128, 128);
    EXPECT_EQ(far.provenance(1024).source, MFUSIM_SOURCE_ANALYTICAL);
    EXPECT_DOUBLE_EQ(far.time_us(1024), gemm_analytical(k.gpu(), k.gemm_precision(), 1, 1024, 128, 128).time_us);
}

TEST(RooflineKernels, Fp8TableIsNotAppliedToTheBf16PeakSilently) {
    auto data = fixture_tables("bench_fp8");
    gpu::GpuProfile gpu = gpu::resolve_gpu("H100");
    KernelModel k(gpu, data, GemmDtype::bf16, false);
    bool warned = false;
    for (const std::string& w : k.warnings()) {
        warned = warned || (w.find("gemm/h100/data.csv") != std::string::npos &&
                            w.find("fp8 peak") != std::string::npos && w.find("BF16") != std::string::npos);
    }
    EXPECT_TRUE(warned);
    GemmSite site = k.gemm_site(4096, 6144);
    double fp8_peak = gpu.peak_fp8_tflops * 1e12;
    for (int64_t m : {8, 64, 1024, 16384}) {
        double flops = 2.0 * static_cast<double>(m) * 4096 * 6144;
        double fp8_time = table_time(*data, m, 4096, 6144, fp8_peak);
        double t = site.time_us(m);
        // Never faster than the FP8 kernel, never above the BF16 plateau, never below the BF16 memory roofline.
        EXPECT_GE(t, fp8_time * (1 - 1e-12)) << m;
        EXPECT_GE(t, flops / (gpu.gemm_max_efficiency * gpu.peak_bf16_tflops * 1e12) * 1e6 * (1 - 1e-12)) << m;
        double bf16_bytes = (4096.0 * 6144 + static_cast<double>(m) * (4096 + 6144)) * 2;
        EXPECT_GE(t, bf16_bytes / (gpu.memory_bandwidth_gbs * 1e3 * gpu.memory_efficiency)) << m;
        EXPECT_EQ(site.provenance(m).source, MFUSIM_SOURCE_TABLE_EXACT);
    }
    // The same table drives FP8 GEMMs directly: exact.
    KernelModel k8(gpu, data, GemmDtype::fp8, false);
    GemmSite fp8 = k8.gemm_site(4096, 6144);
    EXPECT_NEAR(fp8.time_us(1024), table_time(*data, 1024, 4096, 6144, fp8_peak), 1e-9 * fp8.time_us(1024));
    EXPECT_LT(fp8.time_us(16384), site.time_us(16384));
}

TEST(RooflineKernels, PrefillAttentionReproducesTheTableForOneSequence) {
    auto data = fixture_tables("bench_bf16");
    gpu::GpuProfile gpu = gpu::resolve_gpu("H100");
    KernelModel k(gpu, data, GemmDtype::bf16, false);
    AttentionGeometry g{32, 8, 128, 128, 2.0 * 8 * 128 * 2, 2};
    PrefillAttentionSite site = k.prefill_site(g, tables::AttentionFamily::mha, {32, 8, 128}, 1);
    double peak = gpu.peak_bf16_tflops * 1e12;
    for (auto [s, mfu] : {std::pair<int64_t, double>{1024, 0.25}, {4096, 0.55}, {16384, 0.68}}) {
        PrefillWork w;
        site.add_chunk(w, s, 0);
        double expected = 2.0 * 32 * 128 * static_cast<double>(s) * static_cast<double>(s) / (mfu * peak) * 1e6;
        EXPECT_NEAR(site.time_us(w), expected, 1e-9 * expected) << s;
        EXPECT_EQ(site.provenance(w).source, MFUSIM_SOURCE_TABLE_EXACT);
    }
    PrefillWork w;
    site.add_chunk(w, 2048, 0);
    EXPECT_EQ(site.provenance(w).source, MFUSIM_SOURCE_TABLE_INTERPOLATED);
    // A chunk over a cached prefix costs more than the chunk alone and less than the whole sequence.
    PrefillWork alone, chunk, whole;
    site.add_chunk(alone, 1024, 0);
    site.add_chunk(chunk, 1024, 3072);
    site.add_chunk(whole, 4096, 0);
    EXPECT_GT(site.time_us(chunk), site.time_us(alone));
    EXPECT_LT(site.time_us(chunk), site.time_us(whole));
}

TEST(RooflineKernels, DecodeUsesTheTpSpecificTableAndReproducesItsRows) {
    auto data = fixture_tables("bench_bf16");
    gpu::GpuProfile gpu = gpu::resolve_gpu("H100");
    KernelModel k(gpu, data, GemmDtype::bf16, false);
    double peak = gpu.peak_bf16_tflops * 1e12;
    const tables::BenchData& d = *data;
    for (int tp : {1, 2}) {
        int64_t hq = 32 / tp, hkv = 8 / tp;
        AttentionGeometry g{hq, hkv, 128, 128, 2.0 * static_cast<double>(hkv) * 128 * 2, 2};
        DecodeAttentionSite site = k.decode_site(g, tables::AttentionFamily::mha, {32, 8, 128}, tp);
        std::string path = "mha/decode/h100/32-8-128-tp" + std::to_string(tp) + ".csv";
        const auto& table = d.attention_decode.at(path);
        for (const tables::AttentionDecodeRow& r : table.rows) {
            if (r.kv_dtype != "bf16") continue;
            DecodeWork w{static_cast<double>(r.batch_size), static_cast<double>(r.batch_size * r.kv_len)};
            double expected = 4.0 * static_cast<double>(hq) * 128 * static_cast<double>(r.batch_size) *
                              static_cast<double>(r.kv_len) / (r.mfu * peak) * 1e6;
            EXPECT_NEAR(site.time_us(w), expected, 1e-9 * expected) << path << " " << r.batch_size << " " << r.kv_len;
            OpProvenance p = site.provenance(w);
            EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_EXACT);
            EXPECT_EQ(*p.table, path);
        }
    }
    // TP 4 has no file of its own: the nearest per-GPU kernel (the model's -tp2 file, 2 octaves away in heads)
    // answers as `nearest` with its distance, fading toward the analytical model.
    AttentionGeometry g4{8, 2, 128, 128, 2.0 * 2 * 128 * 2, 2};
    DecodeAttentionSite site4 = k.decode_site(g4, tables::AttentionFamily::mha, {32, 8, 128}, 4);
    OpProvenance p = site4.provenance(DecodeWork{16, 16.0 * 4096});
    EXPECT_EQ(p.source, MFUSIM_SOURCE_ANALYTICAL);  // 2 octaves = table_blend_octaves: the correction is gone
    gpu::GpuProfile wide = gpu;
    wide.table_blend_octaves = 4;
    KernelModel k_wide(wide, data, GemmDtype::bf16, false);
    p = k_wide.decode_site(g4, tables::AttentionFamily::mha, {32, 8, 128}, 4).provenance(DecodeWork{16, 16.0 * 4096});
    EXPECT_EQ(p.source, MFUSIM_SOURCE_TABLE_NEAREST);
    EXPECT_DOUBLE_EQ(p.distance, 2.0);
    EXPECT_EQ(*p.table, "mha/decode/h100/32-8-128-tp2.csv");
}

TEST(RooflineKernels, NoTablesMeansAnalyticalEverywhere) {
    KernelModel k(gpu::resolve_gpu("H100"), nullptr, GemmDtype::bf16, false);
    ASSERT_FALSE(k.warnings().empty());
    EXPECT_EQ(k.gemm_site(4096, 4096).provenance(100).source, MFUSIM_SOURCE_ANALYTICAL);
    AttentionGeometry g{32, 8, 128, 128, 4096, 2};
    PrefillWork w;
    auto site = k.prefill_site(g, tables::AttentionFamily::mha, {32, 8, 128}, 1);
    site.add_chunk(w, 100, 0);
    EXPECT_EQ(site.provenance(w).source, MFUSIM_SOURCE_ANALYTICAL);
    EXPECT_DOUBLE_EQ(site.time_us(w), prefill_attention_us(k.gpu(), g, k.attention_peak_flops(), w));
}

// NVFP4 runs on FP4 tensor cores where the GPU has them (Blackwell: W4A4, four times the BF16 peak) and weight-only
// elsewhere (Hopper: NVFP4 weights streamed, BF16 compute); MXFP4 is weight-only everywhere.
TEST(RooflineKernels, Nvfp4OnFp4TensorCoresOnlyWhereTheGpuHasThem) {
    using config::WeightFormat;
    const gpu::GpuProfile b200 = gpu::resolve_gpu("B200"), h100 = gpu::resolve_gpu("H100");
    ASSERT_TRUE(b200.has_fp4());
    ASSERT_FALSE(h100.has_fp4());
    EXPECT_EQ(kernel_precision(WeightFormat::nvfp4, b200).dtype, GemmDtype::fp4);
    EXPECT_EQ(kernel_precision(WeightFormat::nvfp4, h100).dtype, GemmDtype::bf16);
    EXPECT_GT(kernel_precision(WeightFormat::nvfp4, h100).weight_bytes, 0);
    EXPECT_EQ(kernel_precision(WeightFormat::mxfp4, b200).dtype, GemmDtype::bf16);
    EXPECT_NE(describe(WeightFormat::nvfp4, kernel_precision(WeightFormat::nvfp4, b200)).find("FP4 tensor cores"),
              std::string::npos);

    const KernelPrecision weight_only = kernel_precision(WeightFormat::nvfp4, h100);
    KernelModel fp4(b200, nullptr, GemmDtype::fp4, false);
    KernelModel w4a16(b200, nullptr, GemmDtype::bf16, false, weight_only.weight_bytes);
    KernelModel bf16(b200, nullptr, GemmDtype::bf16, false);
    const GemmSite a = fp4.gemm_site(8192, 28672), b = w4a16.gemm_site(8192, 28672), c = bf16.gemm_site(8192, 28672);
    // Compute-bound (a 16k-token prefill): the FP4 peak (4x BF16) at the FP8 plateau against BF16 at its own.
    const double ratio =
        (b200.peak_fp4_tflops * b200.gemm_max_efficiency_fp8) / (b200.peak_bf16_tflops * b200.gemm_max_efficiency);
    EXPECT_NEAR(b.time_us(16384) / a.time_us(16384), ratio, 0.1 * ratio);
    EXPECT_LT(a.time_us(16384), 0.4 * c.time_us(16384));
    // One decode token: bound by streaming the 4.5-bit weights (never below that roofline), no slower than the
    // weight-only kernel (whose padded BF16 tile costs more compute), about a third of BF16's time.
    const double weight_stream_us =
        8192.0 * 28672 * weight_only.weight_bytes / (b200.memory_bandwidth_gbs * 1e3 * b200.memory_efficiency);
    EXPECT_GE(a.time_us(1), weight_stream_us);
    EXPECT_LE(a.time_us(1), b.time_us(1));
    EXPECT_LT(a.time_us(1), 0.4 * c.time_us(1));
    // More tokens never take less time on the new path either.
    double last = 0;
    for (int64_t m = 1; m <= 65536; m *= 2) {
        EXPECT_GE(a.time_us(m), last) << m;
        last = a.time_us(m);
    }
}

}  // namespace
}  // namespace mfusim::roofline
