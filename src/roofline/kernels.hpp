// Per-operation time predictors: the analytical model (analytical.hpp) calibrated by the MFU tables of the GPU.
// The step model (roofline_model.cpp) and `compare` (src/compare) call the same functions.
//
// Calibration (docs/roofline.md): a table gives a measured time t_tab at its own shape; the analytical model
// gives t_an at that shape and at the target shape. The prediction is
//     t = t_an(target) * (t_tab(table shape) / t_an(table shape)) ^ w,   w = max(0, 1 - distance / table_blend_octaves)
// where `distance` is the shape distance in octaves. At a measured shape and size (w = 1) this is the table's
// time exactly; between measured sizes the table is interpolated (tables/lookup_index.hpp); outside the measured
// range the correction of the end point is kept and the analytical model carries the trend; far from any
// measured shape the analytical model alone answers (source `analytical`).
//
// Sites are built once per shape; their time functions are allocation-free and thread-safe.
#pragma once

#include <mfusim.h>

#include <memory>
#include <string>
#include <vector>

#include "config/model_config.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/analytical.hpp"
#include "roofline/families.hpp"
#include "roofline/grid.hpp"
#include "tables/lookup_index.hpp"
#include "tables/tables.hpp"

namespace mfusim::roofline {

struct OpProvenance {
    mfusim_source source = MFUSIM_SOURCE_ANALYTICAL;
    double distance = 0;                 // octaves: shape distance plus how far outside the measured sizes
    const std::string* table = nullptr;  // relative path of the table; nullptr for analytical
};

// One GEMM of the model (or of a compare row): time as a function of the token count m.
class GemmSite {
  public:
    // Hot path: the precomputed, non-decreasing time for m tokens (0 for m <= 0).
    double time_us(int64_t m) const { return m <= 0 ? 0.0 : grid_.at(m, true); }
    double flops(int64_t m) const;
    // Weight bytes read (MoE: those of the expected active experts) plus activations in and out.
    double bytes(int64_t m) const;
    double weight_bytes(int64_t m) const;
    // The analytical compute and memory parts at m (slow: for the breakdown and bounds).
    GemmCost analytical(int64_t m) const;
    OpProvenance provenance(int64_t m) const;
    int64_t k() const { return k_; }
    int64_t n() const { return n_; }

  private:
    friend class KernelModel;
    int64_t k_ = 0, n_ = 0;
    bool grouped_ = false;
    double experts_ = 0, topk_ = 0;  // grouped: routed experts and experts per token
    const gpu::GpuProfile* gpu_ = nullptr;
    GemmPrecision precision_;
    // Calibration source: a GEMM group (dense) or a grouped-GEMM curve (MoE; the decode table's curve serves
    // token counts up to small_limit_).
    const tables::MeasuredCurve* curve_for(int64_t m) const {
        return small_curve_ != nullptr && (curve_ == nullptr || m <= small_limit_) ? small_curve_ : curve_;
    }
    const tables::MeasuredCurve* curve_ = nullptr;
    const std::string* table_ = nullptr;
    const tables::MeasuredCurve* small_curve_ = nullptr;
    const std::string* small_table_ = nullptr;
    int64_t small_limit_ = 0;
    double shape_distance_ = 0, weight_ = 0;
    SizeGrid<FineAxis> grid_;
};

// Prefill attention of one layer: the analytical time of the step's chunks, calibrated at their FLOP-weighted
// mean span (context + new tokens) by the nearest prefill table.
class PrefillAttentionSite {
  public:
    const AttentionGeometry& geometry() const { return geometry_; }
    void add_chunk(PrefillWork& work, int64_t new_tokens, int64_t context) const {
        add_prefill_chunk(constants_, geometry_, work, new_tokens, context);
    }
    double time_us(const PrefillWork& work) const;
    double peak_flops() const { return peak_flops_; }
    OpProvenance provenance(const PrefillWork& work) const;

  private:
    friend class KernelModel;
    static int64_t mean_span(const PrefillWork& work);
    const gpu::GpuProfile* gpu_ = nullptr;
    AttentionGeometry geometry_;
    PrefillConstants constants_;
    double peak_flops_ = 0;
    const tables::AttentionTableEntry* entry_ = nullptr;
    double shape_distance_ = 0, weight_ = 0;
    SizeGrid<FineAxis> ratio_;  // (t_tab / t_an at the table's shape) ^ w, over the span
};

// Decode attention of one layer: the analytical time of the step's decode tokens (their real KV bytes),
// calibrated at (decode count, mean context) by the nearest decode table (TP-specific where named so). The
// analytical time depends on (count, total keys) only, so with a table the calibrated time is precomputed over
// those two (linear in both between measured rows) and made non-decreasing in the keys.
class DecodeAttentionSite {
  public:
    const AttentionGeometry& geometry() const { return geometry_; }
    double time_us(const DecodeWork& work) const;
    double peak_flops() const { return peak_flops_; }
    OpProvenance provenance(const DecodeWork& work) const;

  private:
    friend class KernelModel;
    const gpu::GpuProfile* gpu_ = nullptr;
    AttentionGeometry geometry_;
    double peak_flops_ = 0;
    const tables::AttentionTableEntry* entry_ = nullptr;
    double shape_distance_ = 0, weight_ = 0;
    SurfaceGrid calibrated_;  // calibrated time over (requests, total keys); empty: analytical alone
};

// Gated-DeltaNet core of one linear-attention layer (analytical, calibrated by an exact-shape GDN table).
class LinearAttentionSite {
  public:
    double prefill_us(double tokens, double sequences, double longest = 0) const;
    double decode_us(double requests) const;
    const LinearAttentionGeometry& geometry() const { return geometry_; }
    OpProvenance provenance(bool prefill) const;

  private:
    friend class KernelModel;
    const gpu::GpuProfile* gpu_ = nullptr;
    LinearAttentionGeometry geometry_;
    double peak_flops_ = 0;
    const tables::GdnTableEntry* prefill_entry_ = nullptr;
    const tables::GdnTableEntry* decode_entry_ = nullptr;
    SizeGrid<FineAxis> prefill_ratio_, decode_ratio_;
};

enum class GemmDtype : uint8_t { bf16, fp8, fp4 };

// The GPU, its table index, and the precisions of a deployment. Owns the index; sites point into it and into the
// profile, so a KernelModel must outlive its sites (RooflineModel and compare keep both together).
class KernelModel {
  public:
    // weight_bytes > 0 overrides the weight element size of BF16 GEMMs (weight-only quantization: 0.5 for int4
    // AWQ/GPTQ, 1 for FP8 weights on a GPU without FP8 tensor cores); compute stays BF16.
    KernelModel(const gpu::GpuProfile& gpu, std::shared_ptr<const tables::BenchData> tables, GemmDtype gemm_dtype,
                bool fp8_kv, double weight_bytes = 0);
    KernelModel(const KernelModel&) = delete;
    KernelModel& operator=(const KernelModel&) = delete;

    const gpu::GpuProfile& gpu() const { return gpu_; }
    const GemmPrecision& gemm_precision() const { return precision_; }
    GemmDtype gemm_dtype() const { return gemm_dtype_; }
    double weight_bytes_override() const { return weight_bytes_; }
    double attention_peak_flops() const { return gpu_.peak_bf16_tflops * 1e12; }
    double kv_element_bytes() const { return fp8_kv_ ? 1.0 : 2.0; }
    const tables::TableIndex& index() const { return index_; }

    // A dense GEMM y[m, n] = x[m, k] W[n, k]^T with the deployment's precision.
    GemmSite gemm_site(int64_t k, int64_t n) const;
    // One grouped GEMM of a fused MoE, k x n per expert on this GPU: `routing` names the model's experts, top-k,
    // expert parallelism, gating and routing (its tokens are the site's m). Timed by the fused-MoE kernel model
    // (families.hpp: the most loaded rank's experts, tile padding, its passes); calibrated by a grouped-GEMM
    // table whose key matches exactly (`table_key`, up or down curve).
    GemmSite grouped_site(const MoeShape& routing, int64_t k, int64_t n, const std::array<int64_t, 6>& table_key,
                          bool down_projection) const;
    PrefillAttentionSite prefill_site(const AttentionGeometry& g, tables::AttentionFamily family,
                                      const std::array<int64_t, 3>& model_shape, int64_t tp) const;
    DecodeAttentionSite decode_site(const AttentionGeometry& g, tables::AttentionFamily family,
                                    const std::array<int64_t, 3>& model_shape, int64_t tp) const;
    LinearAttentionSite linear_site(const LinearAttentionGeometry& g, const std::array<int64_t, 5>& table_shape) const;
    // The same recurrent-state core with no table: Mamba2 mixers (InferSim's GDN tables time another kernel).
    LinearAttentionSite recurrent_site(const LinearAttentionGeometry& g) const;
    double allreduce_time_us(double bytes, int64_t tp) const { return allreduce_us(gpu_, bytes, tp); }
    // The custom one-/two-shot all-reduce engines use for small messages over NVLink.
    double custom_allreduce_time_us(double bytes, int64_t tp) const { return custom_allreduce_us(gpu_, bytes, tp); }

    // Decisions taken while indexing and building sites, one sentence each.
    const std::vector<std::string>& warnings() const { return warnings_; }

  private:
    double blend_weight(double distance) const;
    // The attention table nearest to a site's per-GPU shape. Sets `distance` and `weight` when one exists; returns
    // it only when its blend weight is positive (else nullptr: the analytical model answers alone).
    const tables::AttentionTableEntry* nearest_attention(const AttentionGeometry& g, tables::AttentionFamily family,
                                                         tables::Phase phase, const std::array<int64_t, 3>& model_shape,
                                                         int64_t tp, double& distance, double& weight) const;
    gpu::GpuProfile gpu_;
    bool fp8_kv_;
    GemmDtype gemm_dtype_;
    double weight_bytes_;
    GemmPrecision precision_;
    tables::TableIndex index_;
    std::vector<std::string> warnings_;
};

// The per-GPU shape a table index compares for an attention geometry: MHA (q heads, kv heads, head dim);
// MLA prefill (heads, qk_nope, rope); MLA decode (heads, kv_lora_rank, rope).
std::array<int64_t, 3> attention_table_shape(const config::ModelConfig& model, tables::Phase phase, int64_t heads,
                                             int64_t kv_heads);

}  // namespace mfusim::roofline
