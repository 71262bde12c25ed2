// `compare`: the roofline model's per-operation predictions against measured kernel latencies in the
// AIConfigurator format (../shared/reference/measured/aic-h100: gemm_bf16.csv, context_attention_bf16.csv,
// generation_attention_bf16.csv, nccl.csv; latency in milliseconds, one layer, one GPU). Every prediction comes
// from the same site functions the step model uses (src/roofline/kernels.hpp). A nccl.csv whose rows say
// `kernel_source` vLLM_custom_* (aic-<gpu>-custom-allreduce) is compared against custom_allreduce_us, NCCL rows
// against nccl_allreduce_us.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu_profile.hpp"
#include "roofline/families.hpp"
#include "tables/tables.hpp"

namespace mfusim::compare {

struct CompareRow {
    std::string shape;  // "m=4096 n=6144 k=4096", "b=8 isl=2048 h=32/8 d=128", ...
    double measured_us = 0;
    double predicted_us = 0;
    double error = 0;      // predicted / measured - 1
    std::string source;    // exact, interpolated, nearest, analytical
    double distance = 0;   // octaves from the measured table shape (nearest)
    bool covered = false;  // a table shape matches exactly and the size lies inside its measured range
};

// Which shapes a report covers. The constants are fitted on the train half of every measured file and reported on
// the test half: the halves are split by shape key (the row without its size: GEMM (n, k); attention (batch,
// heads, kv heads, head dim); all-reduce (GPUs, message bytes)), deterministically by a hash of the key.
enum class Split : uint8_t { all, train, test };
// The half a shape key falls in (FNV-1a 64 of the family name and key; even: train, odd: test).
Split split_of(const std::string& family, const std::string& shape_key);

struct ErrorStats {
    std::size_t count = 0;
    double median_abs = 0;     // median of |pred/meas - 1|
    double p90_abs = 0;        // 90th percentile (nearest rank) of |pred/meas - 1|
    double median_signed = 0;  // median of pred/meas - 1: the bias
};

struct FamilyReport {
    std::string family;  // gemm, context_attention, generation_attention, nccl_all_reduce, custom_all_reduce
    ErrorStats all;
    ErrorStats covered;             // rows whose shape a table covers (source exact or interpolated)
    std::vector<CompareRow> worst;  // the 10 largest |error|, largest first
    std::vector<CompareRow> rows;   // every compared row, in file order (for `compare --rows`)
};

struct CompareReport {
    std::string aic_dir;
    std::string gpu;
    std::string tables;  // bench_data root, or "" for the analytical model alone
    Split split = Split::all;
    std::vector<FamilyReport> families;
    std::vector<std::string> notes;  // rows skipped and why; load warnings of the kernel model
};

// One measured kernel, parsed once (its family says which fields are set; the others stay zero).
struct MeasuredRow {
    std::string shape;  // as reported
    double measured_us = 0;
    Split half = Split::train;    // the half its shape key falls in (split_of)
    int64_t m = 0, n = 0, k = 0;  // gemm
    // Attention: `batch` identical requests of `tokens` new tokens on `context` cached ones each (generation: 1 new
    // token; its context counts the token's own key).
    int64_t batch = 0, tokens = 0, context = 0, heads = 0, kv_heads = 0, head_dim = 0;
    bool decode_kernel = false;  // a context row the engine ran with its decode kernel: timed as a decode
    int64_t gpus = 0;            // all-reduce: GPUs and message bytes
    double bytes = 0;
    // The families of large models (compare/families.hpp): the inputs of the family's kernel model.
    roofline::MoeShape moe;
    roofline::MoeLoad moe_load;  // moe_rank_load(moe), computed once
    roofline::MlaShape mla;
    roofline::MlaBatch mla_batch;
    roofline::LinearAttentionGeometry recurrent;  // gdn_*, causal_conv: the layer's per-GPU geometry
    roofline::ConvKernel conv_kernel = roofline::ConvKernel::token_blocks;  // causal_conv: the engine's kernel
    roofline::DeepEpShape deepep;
};

struct MeasuredFamily {
    std::string family;  // as FamilyReport::family
    std::vector<MeasuredRow> rows;
};

struct MeasuredFile {
    std::string file;  // name inside the directory
    std::size_t bytes = 0;
    std::string fnv1a64;  // of its contents
};

// An AIConfigurator-format directory, parsed: what `compare` predicts and `calibrate --kernels` fits to.
struct MeasuredKernels {
    std::string dir;
    std::vector<MeasuredFamily> families;  // in report order; a family with no usable row is kept (empty)
    std::vector<MeasuredFile> files;       // the files read, in order
    std::string fnv1a64;                   // of the files' names and fingerprints, in order: the directory's identity
    std::vector<std::string> notes;        // files absent, rows skipped and why
};

// Reads the four CSVs under `aic_dir`: a missing file is noted and skipped; Error(io) when the directory is not one
// or none of them is present, Error(parse) naming file, line and column for a malformed one.
// `configs_dir` (optional): model configs, <org>--<name>_config.json; the fused MoE rows of a shape that a config
// routes with expert groups take them (read_moe_routers).
MeasuredKernels read_aic(const std::string& aic_dir, const std::string& configs_dir = "");

// The router of a model config's MoE: the shape AIConfigurator's MoE collector benchmarks it at (hidden, the
// expert's moe_intermediate_size before TP, top-k, experts; its cases name the model, whose config decides vLLM's
// router: collector/vllm/collect_moe.py, _resolve_moe_runtime_config), its expert groups and whether its experts
// are gated: Nemotron-H's squared-ReLU experts (mlp_hidden_act relu2) are built with vLLM's `relu2_no_mul`, an up
// projection of `inter` rows, not gate and up's 2 x inter (same function), so the first GEMM is half as wide.
struct MoeRouter {
    int64_t hidden = 0, inter = 0, topk = 0, experts = 0, groups = 1, topk_groups = 1;
    bool gated = true;
};
// The routers of every *_config.json under `dir` with expert groups (n_group > 1) or ungated experts, one per shape
// (hidden: the config's moe_latent_size where it has one); a shape that configs route or build differently is left
// out (the row's model is unknown). A config of an architecture the library refuses
// by name is skipped; a malformed one is an error naming its file and field.
std::vector<MoeRouter> read_moe_routers(const std::string& dir);
// The rows of one half (Split::all: every row).
MeasuredKernels only_half(const MeasuredKernels& measured, Split split);

// predicted / measured - 1 of every row of one family on `gpu` with `tables`, in row order: the same predictions as
// compare_measured, without strings or provenance (the calibration's inner loop).
std::vector<double> family_errors(const MeasuredFamily& family, const gpu::GpuProfile& gpu,
                                  std::shared_ptr<const tables::BenchData> tables);

// Predicts every row of `measured` on `gpu` with `tables` (nullptr: the analytical efficiency model alone).
CompareReport compare_measured(const MeasuredKernels& measured, const gpu::GpuProfile& gpu,
                               std::shared_ptr<const tables::BenchData> tables, Split split = Split::all);

// read_aic, then compare_measured on the rows of `split`.
CompareReport compare_aic(const std::string& aic_dir, const gpu::GpuProfile& gpu,
                          std::shared_ptr<const tables::BenchData> tables, Split split = Split::all,
                          const std::string& configs_dir = "");

// Median and nearest-rank 90th percentile of |errors| (and the signed median). Empty input gives zeros.
ErrorStats error_stats(std::vector<double> errors);

// A plain-text report: per family count, median, p90, bias (all rows and covered rows), then the worst shapes.
std::string format_compare(const CompareReport& report);

}  // namespace mfusim::compare
