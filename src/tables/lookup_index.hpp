// Lookup indexes over the MFU tables of one GPU, built once per estimator for the roofline model: measured rows
// become measured *times* (from the MFU, the table's FLOP convention and the peak the MFU refers to), sorted, with
// duplicates merged and zero-MFU rows skipped, so that lookups are binary searches over prebuilt arrays.
//
// Interpolation space (docs/roofline.md): ln(time) is linear in log2 of the size coordinate (GEMM: m; prefill
// attention: seq_len; decode attention: kv_len within a batch level, then log2(batch) between levels; grouped
// GEMM: tokens per GPU; GDN: seq_len or batch). This is exact for power laws (flat memory-bound time, time
// proportional to m for compute-bound GEMMs, to seq^2 for prefill attention) and monotone between two measured
// points. Outside the measured range a curve is clamped to its end point; the caller (src/roofline/calibration)
// carries the trend on with the analytical model and reports the distance outside.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/gpu_profile.hpp"
#include "tables/tables.hpp"

namespace mfusim::tables {

// Times measured at increasing sizes x. Built from (x, time_us) points in any order:
//  - points with a non-positive or non-finite time (a zero MFU) are skipped and counted in `skipped`;
//  - points with the same x are merged into the mean of their times (independent of file order);
//  - time is made non-decreasing in x (a larger problem is never faster: a measured time below the time at a
//    smaller x is raised to it, which removes timing noise; counted in `raised`).
struct MeasuredCurve {
    std::vector<int64_t> x;
    std::vector<double> log2_x;
    std::vector<double> log_time;  // ln(microseconds)
    int skipped = 0;
    int merged = 0;
    int raised = 0;

    static MeasuredCurve build(std::vector<std::pair<int64_t, double>> points);
    bool empty() const { return x.empty(); }
};

// Where a coordinate falls on a curve.
struct CurveBracket {
    std::size_t lo = 0, hi = 0;  // rows bracketing the coordinate (equal when exact or clamped)
    double fraction = 0;         // position between lo and hi in log2 x, in [0, 1]
    bool exact = false;          // the coordinate is a measured x
    bool clamped = false;        // outside the measured range: lo == hi is the end row
    double outside_octaves = 0;  // |log2(x / x_end)| when clamped
};
CurveBracket bracket(const MeasuredCurve& curve, double x);
// The same over a bare axis (x ascending, log2_x its base-2 logarithms): no curve need be built (allocation-free).
CurveBracket bracket(const std::vector<int64_t>& xs, const std::vector<double>& log2_x, double x);
// ln(time) at the bracket (the end row's when clamped).
double interpolate_log_time(const MeasuredCurve& curve, const CurveBracket& b);
// Time linear in x between the bracketing rows (the end row's when clamped): decode attention, whose time is
// affine in the context at a fixed batch.
double interpolate_time_linear(const MeasuredCurve& curve, const CurveBracket& b, double x);

// Decode attention: one curve over kv_len per batch size, batch levels ascending. Decode time is affine in both
// the context and the batch (a fixed cost plus bytes read), so the surface is interpolated linearly in both, which
// is exact for such data and keeps a request added at any context from lowering the time.
struct MeasuredSurface {
    std::vector<int64_t> batch;
    std::vector<double> log2_batch;
    std::vector<MeasuredCurve> by_batch;
    int skipped = 0, merged = 0, raised = 0;
};

// Relative rounding error of an MFU as printed: half a unit of its last significant digit (of the shortest text
// that reads back as it) over its value. Precision is significant digits, not decimals: InferSim and BLIS print 3
// decimals, so an MFU of 0.003 may be anything from 0.0025 to 0.0035 (17%), while our importers print 6 significant
// digits (tools/mfusim_tools/layout.py), so 2.30253e-08 is good to 2e-6. Rows above kMaxMfuRoundingError are
// skipped as imprecise and noted.
double mfu_rounding_error(double mfu);
inline constexpr double kMaxMfuRoundingError = 0.05;

// The peak (FLOP/s) an MFU column refers to: the manifest's peak_tflops when stated, else the GPU's peak of the
// manifest's dtype. 0 when the GPU has no such peak (an FP8 table on a GPU without FP8): the table is unusable.
double table_peak_flops(const Manifest& manifest, const gpu::GpuProfile& gpu);

struct GemmGroup {
    int64_t k = 0, n = 0;
    MeasuredCurve curve;  // over m
};

struct GemmTableIndex {
    std::string path;
    Manifest manifest;
    double peak_flops = 0;
    std::vector<GemmGroup> groups;  // sorted by (k, n)

    // The group nearest to (k, n) in octaves: |log2(k/kg)| + |log2(n/ng)|; ties go to the smaller (k, n) in
    // lexicographic order. nullptr when there are no groups.
    const GemmGroup* nearest(int64_t k, int64_t n, double* distance) const;
};

// One attention table. `shape` is the file name's numbers; `per_gpu` the shape of the kernel one GPU runs: the
// InferSim layout names files by per-GPU heads already; BLIS `-tp<N>` files name the model's heads, which N GPUs
// share (kv heads: at least one per GPU).
struct AttentionTableEntry {
    std::string path;
    AttentionFamily family = AttentionFamily::mha;
    Phase phase = Phase::prefill;
    std::array<int64_t, 3> shape{};
    std::array<int64_t, 3> per_gpu{};
    int32_t tp = 0;  // 0: no -tp suffix
    Manifest manifest;
    double peak_flops = 0;
    MeasuredCurve prefill;   // over seq_len (prefill tables)
    MeasuredSurface decode;  // over (batch, kv_len) (decode tables), rows of the requested kv dtype only
};

// Attention FLOP conventions of the benchmark scripts (per GPU, heads already divided).
// MHA prefill: causal half, 2 * heads * dim * S^2. MLA prefill (heads-d_nope-d_rope): heads * (2 d_nope + d_rope) *
// S^2. MHA decode: 4 * heads * dim * batch * kv. MLA decode (heads-rank-d_rope): 2 * heads * (2 rank + d_rope) * batch
// * kv.
double attention_table_flops(const AttentionTableEntry& entry, int64_t size_a, int64_t size_b);

struct AttentionTableIndex {
    std::vector<AttentionTableEntry> entries;  // sorted by path

    // The entry of `family`/`phase` whose per-GPU shape is nearest to `per_gpu`, distance in octaves
    // (sum over the three numbers of |log2(a/b)|). Ties: an entry named after the model's own shape with the
    // deployment's TP, then the model's shape at the nearest TP (|log2 tp ratio|), then the path.
    const AttentionTableEntry* nearest(AttentionFamily family, Phase phase, const std::array<int64_t, 3>& per_gpu,
                                       const std::array<int64_t, 3>& model_shape, int64_t tp, double* distance) const;
};

struct GroupedGemmEntry {
    std::array<int64_t, 6> key{};  // num_experts, num_gpus, num_local_experts, topk, hidden, intermediate (per GPU)
    MeasuredCurve up, down;        // over tokens per GPU
};

struct GroupedGemmTableIndex {
    std::string path;
    Manifest manifest;
    double peak_flops = 0;
    std::vector<GroupedGemmEntry> entries;
    const GroupedGemmEntry* find(const std::array<int64_t, 6>& key) const;
};

struct GdnTableEntry {
    std::string path;
    std::array<int64_t, 5> shape{};  // conv kernel, key heads, key dim, value heads, value dim
    MeasuredCurve curve;             // summed kernel latency over seq_len (prefill) or batch (decode)
};

// Everything the roofline model can use for one GPU folder.
struct TableIndex {
    std::string gpu_folder;
    bool has_gemm = false;
    GemmTableIndex gemm;
    AttentionTableIndex attention;
    bool has_grouped_prefill = false, has_grouped_decode = false;
    GroupedGemmTableIndex grouped_prefill, grouped_decode;
    std::vector<GdnTableEntry> gdn_prefill, gdn_decode;
    // Problems tolerated while indexing (zero-MFU rows, merged duplicates, raised rows, unusable tables), one
    // sentence each, in path order.
    std::vector<std::string> notes;

    bool empty() const;
    const GdnTableEntry* find_gdn(Phase phase, const std::array<int64_t, 5>& shape) const;
};

// Indexes the tables of `gpu.table_folder` in `data` (which may hold other GPUs: they are ignored). `kv_dtype`
// ("bf16" or "fp8") selects the decode rows.
TableIndex build_table_index(const BenchData& data, const gpu::GpuProfile& gpu, const std::string& kv_dtype);

}  // namespace mfusim::tables
