// Fitting GPU profile constants to measured kernels (mfusim calibrate --kernels; docs/calibration.md): recovery of
// known constants from a directory the model itself wrote, the shared A100 measurements, and the calibration file's
// GPU section applied to an estimator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "calibrate/kernel_fit.hpp"
#include "calibration/calibration.hpp"
#include "common/error.hpp"
#include "compare/compare.hpp"
#include "engine/estimator.hpp"
#include "gpu/gpu_profile.hpp"
#include "support/reference.hpp"

namespace mfusim::calibrate {
namespace {

namespace fs = std::filesystem;
using calibration::Calibration;
using calibration::calibration_json;
using calibration::load_calibration;

// A temporary directory, removed with everything in it.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / name) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    std::string str() const { return path.string(); }
};

// The kernels of a synthetic AIConfigurator directory: GEMMs from launch-bound to compute-bound, prefill and decode
// attention of several head layouts, NCCL all-reduces from 2 KB to 512 MB. `latency_ms(family, row)` gives each
// row's latency (row in file order).
template <class Latency>
void write_aic(const std::string& dir, Latency&& latency_ms) {
    char buf[256];
    {
        std::ofstream f(dir + "/gemm_bf16.csv");
        f << "framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency\n";
        std::size_t row = 0;
        const int64_t nk[][2] = {{4096, 4096},   {6144, 4096},  {4096, 14336}, {28672, 4096},
                                 {1024, 4096},   {8192, 8192},  {2048, 1024},  {12288, 5120},
                                 {5120, 5120},   {3584, 18944}, {256, 7168},   {16384, 2048},
                                 {152064, 3584}, {1536, 1536},  {7168, 2048},  {9216, 3072}};
        for (const auto& p : nk) {
            for (int64_t m : {1, 4, 16, 64, 256, 1024, 4096, 16384}) {
                std::snprintf(buf, sizeof buf, "vllm,0,A100,gemm,torch,bfloat16,%lld,%lld,%lld,%.12g\n",
                              static_cast<long long>(m), static_cast<long long>(p[0]), static_cast<long long>(p[1]),
                              latency_ms("gemm", row++));
                f << buf;
            }
        }
    }
    const int64_t heads[][3] = {{32, 8, 128}, {64, 8, 128}, {32, 32, 128}, {16, 2, 128}, {28, 4, 128}, {40, 8, 128}};
    {
        std::ofstream f(dir + "/context_attention_bf16.csv");
        f << "framework,version,device,op_name,kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,"
             "step,latency\n";
        std::size_t row = 0;
        for (const auto& h : heads) {
            for (int64_t b : {1, 4, 16, 64}) {
                for (int64_t isl : {16, 128, 512, 2048, 8192}) {
                    if (b * isl > 65536) continue;
                    std::snprintf(buf, sizeof buf,
                                  "vllm,0,A100,context_attention,fa,%lld,%lld,%lld,%lld,%lld,0,%.12g\n",
                                  static_cast<long long>(b), static_cast<long long>(isl), static_cast<long long>(h[0]),
                                  static_cast<long long>(h[1]), static_cast<long long>(h[2]),
                                  latency_ms("context_attention", row++));
                    f << buf;
                }
            }
        }
    }
    {
        std::ofstream f(dir + "/generation_attention_bf16.csv");
        f << "framework,version,device,op_name,kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,"
             "beam_width,s,step,latency\n";
        std::size_t row = 0;
        for (const auto& h : heads) {
            for (int64_t b : {1, 8, 64, 256}) {
                for (int64_t step : {16, 256, 2048, 8192}) {
                    std::snprintf(buf, sizeof buf,
                                  "vllm,0,A100,generation_attention,fa,%lld,1,%lld,%lld,%lld,1,1,%lld,%.12g\n",
                                  static_cast<long long>(b), static_cast<long long>(h[0]), static_cast<long long>(h[1]),
                                  static_cast<long long>(h[2]), static_cast<long long>(step),
                                  latency_ms("generation_attention", row++));
                    f << buf;
                }
            }
        }
    }
    {
        std::ofstream f(dir + "/nccl.csv");
        f << "framework,version,device,op_name,kernel_source,nccl_dtype,num_gpus,message_size,latency\n";
        std::size_t row = 0;
        for (int64_t gpus : {2, 4, 8}) {
            for (int64_t elements = 1024; elements <= (int64_t{1} << 28); elements *= 4) {
                std::snprintf(buf, sizeof buf, "nccl,0,A100,all_reduce,NCCL,half,%lld,%lld,%.12g\n",
                              static_cast<long long>(gpus), static_cast<long long>(elements),
                              latency_ms("nccl_all_reduce", row++));
                f << buf;
            }
        }
    }
}

// The model's own prediction of every row on `truth`, in the directory's file order.
std::vector<double> predicted_ms(const compare::MeasuredKernels& placeholder, const std::string& family,
                                 const gpu::GpuProfile& truth) {
    for (const compare::MeasuredFamily& f : placeholder.families) {
        if (f.family != family) continue;
        std::vector<double> errors = compare::family_errors(f, truth, nullptr);
        std::vector<double> ms;
        for (std::size_t i = 0; i < errors.size(); ++i) ms.push_back((errors[i] + 1) * f.rows[i].measured_us / 1000);
        return ms;
    }
    return {};
}

const FittedConstant& constant(const KernelFit& fit, const std::string& name) {
    for (const FittedConstant& c : fit.constants) {
        if (c.name == name) return c;
    }
    throw Error(Status::internal, "no constant " + name);
}

const FamilyFit& family(const KernelFit& fit, const std::string& name) {
    for (const FamilyFit& f : fit.families) {
        if (f.family == name) return f;
    }
    throw Error(Status::internal, "no family " + name);
}

TEST(KernelCalibration, RecoversTheConstantsThatGeneratedTheKernels) {
    const gpu::GpuProfile base = gpu::resolve_gpu("A100");
    gpu::GpuProfile truth = base;
    truth.memory_efficiency = 0.8;
    truth.gemm_max_efficiency = 0.75;
    truth.kernel_launch_us = 3;
    truth.decode_cta_overhead_us = 2;
    truth.attention_launch_us = 7;
    truth.attention_max_efficiency = 0.5;
    truth.allreduce_latency_us = 6;
    truth.nvlink_efficiency = 0.75;

    TempDir dir("mfusim_kernel_fit_recovery");
    write_aic(dir.str(), [](const char*, std::size_t) { return 1.0; });  // placeholder latencies: 1 ms each
    const compare::MeasuredKernels placeholder = compare::read_aic(dir.str());
    std::map<std::string, std::vector<double>> latencies;
    for (const char* f : {"gemm", "context_attention", "generation_attention", "nccl_all_reduce"}) {
        latencies[f] = predicted_ms(placeholder, f, truth);
        ASSERT_FALSE(latencies[f].empty()) << f;
    }
    write_aic(dir.str(), [&](const char* f, std::size_t row) { return latencies.at(f).at(row); });
    const compare::MeasuredKernels measured = compare::read_aic(dir.str());

    const KernelFit fit = fit_kernels(measured, base);
    std::cout << format_kernel_fit(fit);
    for (const FamilyFit& f : fit.families) {
        ASSERT_GT(f.train_rows, 0u) << f.family;
        ASSERT_GT(f.test_rows, 0u) << f.family;
        EXPECT_TRUE(f.fitted) << f.family;
        // Exact data: the defaults are far off, the fit reproduces the held-out half.
        EXPECT_LT(f.test_after.median_abs, 0.01) << f.family;
        EXPECT_LT(std::fabs(f.test_after.median_signed), 0.01) << f.family;
        EXPECT_GT(kernel_objective(f.test_before), 5 * kernel_objective(f.test_after) + 0.02) << f.family;
    }
    EXPECT_TRUE(fit.improved);
    // Within 5% where many rows pin a constant; the launch costs and the all-reduce within 10% (a few rows each).
    auto near = [&](const char* name, double want, double relative) {
        const FittedConstant& c = constant(fit, name);
        EXPECT_TRUE(c.exercised) << name;
        EXPECT_NEAR(c.after, want, relative * want) << name << " (started at " << c.before << ")";
    };
    near("memory_efficiency", 0.8, 0.05);
    near("gemm_max_efficiency", 0.75, 0.05);
    near("attention_max_efficiency", 0.5, 0.05);
    near("decode_cta_overhead_us", 2, 0.1);
    near("kernel_launch_us", 3, 0.1);
    near("attention_launch_us", 7, 0.1);
    near("allreduce_latency_us", 6, 0.1);
    near("nvlink_efficiency", 0.75, 0.05);
    // No row is NVLS, PCIe or custom all-reduce: those are neither fitted nor written.
    EXPECT_FALSE(constant(fit, "nvls_efficiency").exercised);
    EXPECT_FALSE(constant(fit, "custom_allreduce_latency_us").exercised);
    for (const auto& [name, value] : fitted_gpu_constants(fit)) EXPECT_TRUE(find_kernel_constant(name)) << name;

    // Deterministic: the same directory fits to the same constants with the same number of evaluations.
    const KernelFit again = fit_kernels(measured, base);
    EXPECT_EQ(fitted_gpu_constants(again), fitted_gpu_constants(fit));
    EXPECT_EQ(again.evaluations, fit.evaluations);
}

TEST(KernelCalibration, EveryConstantIsAProfileFieldWithPhysicalBoundsAroundItsGrid) {
    for (const KernelConstant& c : kernel_constants()) {
        EXPECT_LT(c.min, c.max) << c.name;
        EXPECT_GE(c.min, 0) << c.name;
        ASSERT_FALSE(c.grid.empty()) << c.name;
        for (std::size_t i = 0; i < c.grid.size(); ++i) {
            EXPECT_GE(c.grid[i], c.min) << c.name;
            EXPECT_LE(c.grid[i], c.max) << c.name;
            if (i > 0) {
                EXPECT_LT(c.grid[i - 1], c.grid[i]) << c.name;
            }
        }
        if (std::string(c.name).ends_with("efficiency")) {
            EXPECT_LT(c.max, 1) << c.name;
        }
        // Every bound is a value a JSON GPU profile accepts for the field.
        for (double v : {c.min, c.max}) {
            const std::string json = "{\"" + std::string(c.name) + "\": " + std::to_string(v) + "}";
            const gpu::GpuProfile p = gpu::apply_overrides(gpu::resolve_gpu("H100"), json, "test");
            EXPECT_NEAR(p.*c.member, v, 1e-6) << c.name;
        }
    }
}

TEST(KernelCalibration, ErrorsNameTheDirectory) {
    TempDir empty("mfusim_kernel_fit_empty");
    try {
        compare::read_aic(empty.str());
        FAIL() << "an empty directory was read";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::io);
        EXPECT_NE(std::string(e.what()).find("gemm_bf16.csv"), std::string::npos) << e.what();
    }
    // A header without the latency column: the file is named.
    std::ofstream(empty.str() + "/gemm_bf16.csv") << "m,n,k\n1,2,3\n";
    try {
        compare::read_aic(empty.str());
        FAIL() << "a malformed file was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("gemm_bf16.csv"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("latency"), std::string::npos) << e.what();
    }
    // Only rows the model skips: nothing to fit.
    std::ofstream(empty.str() + "/gemm_bf16.csv") << "m,n,k,latency\n0,4096,4096,0.1\n";
    EXPECT_THROW(fit_kernels(compare::read_aic(empty.str()), gpu::resolve_gpu("A100")), Error);
}

TEST(KernelCalibration, TheFileAppliesItsConstantsToTheGpuTheyWereFittedFor) {
    Calibration c;
    c.gpu = {"A100", {{"memory_efficiency", 0.5}, {"attention_launch_us", 12.5}}};  // in kernel_constants() order
    const std::string text = calibration_json(c, {{"kernels", "test"}}, {{"kernel_fit", {{"improved", true}}}});
    EXPECT_NE(text.find("\"mfusim_calibration\": 2"), std::string::npos) << text;
    EXPECT_EQ(text.find("base_engine"), std::string::npos) << "a kernel-only calibration names no engine";
    const Calibration back = load_calibration(text);
    EXPECT_FALSE(back.step_fit);
    EXPECT_EQ(back.gpu.gpu, "A100");
    EXPECT_EQ(back.gpu.constants, c.gpu.constants);

    engine::Options o;
    o.model = "qwen3-8b";
    o.gpu = "A100";
    const engine::Estimator plain(o);
    o.calibration = text;
    const engine::Estimator calibrated(o);
    EXPECT_DOUBLE_EQ(calibrated.gpu().memory_efficiency, 0.5);
    EXPECT_DOUBLE_EQ(calibrated.gpu().attention_launch_us, 12.5);
    EXPECT_DOUBLE_EQ(calibrated.gpu().gemm_max_efficiency, plain.gpu().gemm_max_efficiency);  // not in the file
    EXPECT_EQ(calibrated.gpu().table_folder, plain.gpu().table_folder);
    // Any engine: the file has no engine terms.
    o.engine = "sglang";
    EXPECT_NO_THROW(engine::Estimator{o});
    o.engine.clear();
    std::vector<mfusim_request> decodes{{1, 4000, 0u, 0u}, {1, 1000, 0u, 0u}};
    EXPECT_GT(calibrated.step_time_us(decodes.data(), decodes.size()),
              1.2 * plain.step_time_us(decodes.data(), decodes.size()));

    // Both parts in one file: the engine terms and multipliers apply as well.
    const std::string both = R"({"mfusim_calibration": 2, "base_engine": "vllm", "efficiency": {"gemm": 2},
        "gpu": {"name": "A100", "constants": {"memory_efficiency": 0.5}}})";
    o.calibration = both;
    const engine::Estimator combined(o);
    EXPECT_DOUBLE_EQ(combined.gpu().memory_efficiency, 0.5);
    EXPECT_GT(combined.step_time_us(decodes.data(), decodes.size()),
              calibrated.step_time_us(decodes.data(), decodes.size()));

    auto refusal = [&](const std::string& gpu, const std::string& calibration) {
        engine::Options bad = o;
        bad.gpu = gpu;
        bad.calibration = calibration;
        try {
            engine::Estimator e(bad);
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), Status::config) << e.what();
            return std::string(e.what());
        }
        return std::string("ok");
    };
    EXPECT_NE(refusal("H100", text).find("fitted for 'A100', but the estimator's GPU is 'H100'"), std::string::npos);
    EXPECT_NE(refusal("A100", R"({"mfusim_calibration": 2, "gpu": {"name": "A100", "constants": {"sm_count": 9}}})")
                  .find("gpu.constants.sm_count': not a fitted GPU constant"),
              std::string::npos);
    EXPECT_NE(refusal("A100", R"({"mfusim_calibration": 2, "gpu": {"name": "A100",
                                  "constants": {"kernel_launch_us": 90}}})")
                  .find("gpu.constants.kernel_launch_us': must be in [0.5, 20]"),
              std::string::npos);
    EXPECT_NE(refusal("A100", R"({"mfusim_calibration": 1, "gpu": {"name": "A100", "constants": {}}})")
                  .find("field 'gpu': GPU constants need \"mfusim_calibration\": 2"),
              std::string::npos);
    EXPECT_NE(refusal("A100", R"({"mfusim_calibration": 2, "gpu": {"constants": {}}})").find("gpu.name"),
              std::string::npos);
    EXPECT_NE(refusal("A100", R"({"mfusim_calibration": 2, "gpu": {"name": "A100", "extra": 1}})").find("gpu.extra"),
              std::string::npos);
}

// The shared A100 measurements (vLLM kernels): fitting on the train half improves on, or matches, the built-in A100
// constants on the test half.
TEST(KernelCalibrationReference, FitOnAicA100TrainHalfHoldsOnTheTestHalf) {
    MFUSIM_REQUIRE_REFERENCE(ref);
    const compare::MeasuredKernels measured = compare::read_aic(ref + "/measured/aic-a100");
    const KernelFit fit = fit_kernels(measured, gpu::resolve_gpu("A100"));
    std::cout << format_kernel_fit(fit);
    EXPECT_LE(fit.test_after, fit.test_before + 1e-12);
    EXPECT_TRUE(fit.improved);
    // The families with thousands of rows do not get worse on the held-out half.
    for (const char* name : {"gemm", "generation_attention", "context_attention"}) {
        const FamilyFit& f = family(fit, name);
        EXPECT_GT(f.test_rows, 2000u) << name;
        EXPECT_LE(kernel_objective(f.test_after), kernel_objective(f.test_before) + 0.005) << name;
    }
    // Fitted values stay physical (inside the bounds) and the file built from them loads.
    for (const FittedConstant& c : fit.constants) {
        const KernelConstant* k = find_kernel_constant(c.name);
        ASSERT_NE(k, nullptr);
        EXPECT_GE(c.after, k->min) << c.name;
        EXPECT_LE(c.after, k->max) << c.name;
    }
    Calibration c;
    c.gpu = {fit.gpu, fitted_gpu_constants(fit)};
    EXPECT_EQ(load_calibration(calibration_json(c, {}, {})).gpu.constants, c.gpu.constants);
}

}  // namespace
}  // namespace mfusim::calibrate
