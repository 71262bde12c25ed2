#include "roofline/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mfusim::roofline {

namespace {

using tables::AttentionFamily;
using tables::CurveBracket;
using tables::MeasuredCurve;
using tables::Phase;

double bytes_per_us(const gpu::GpuProfile& gpu) {
    return gpu.streaming_bandwidth_gbs() * 1e3 * gpu.memory_efficiency;
}

// A measured time converted to the target precision. Same precision: unchanged. Otherwise the achieved FLOP/s
// carries over, scaled up by the weight-size ratio when the target moves fewer bytes per FLOP (a memory-bound
// kernel speeds up in proportion), capped at the target's plateau, and floored by the target's own memory
// roofline (an FP8 table never makes a BF16 GEMM faster than streaming its BF16 bytes allows).
double convert_gemm_time(const gpu::GpuProfile& gpu, const GemmPrecision& table, const GemmPrecision& target,
                         double measured_us, double flops, double target_bytes) {
    if (table.b_bytes == target.b_bytes) return measured_us;
    double rate = flops / measured_us;  // FLOP per us
    rate *= std::max(1.0, table.b_bytes / target.b_bytes);
    rate = std::min(rate, target.plateau * target.peak_flops * 1e-6);
    return std::max(flops / rate, gpu.kernel_launch_us + target_bytes / bytes_per_us(gpu));
}

GemmPrecision table_precision(const tables::Manifest& manifest, double peak_flops) {
    double element = manifest.peak_dtype == tables::PeakDtype::fp8 ? 1.0 : 2.0;
    return GemmPrecision{element, element, 2.0, peak_flops, 1.0};
}

// The weight of a table's correction at `octaves` of shape distance from the measured shape: 1 at the measured
// shape, fading linearly to 0 at table_blend_octaves. (Outside the measured sizes of a shape the correction of
// the nearest measured size is kept whole: a constant ratio keeps the analytical trend, and so monotonicity.)
double fade(double octaves, double blend_octaves) {
    if (octaves <= 0) return 1.0;
    if (blend_octaves <= 0) return 0.0;
    return std::max(0.0, 1.0 - octaves / blend_octaves);
}

double apply_weight(double ratio, double w) {
    return w == 1.0 ? ratio : w <= 0 ? 1.0 : std::pow(ratio, w);
}

mfusim_source curve_source(double shape_distance, const CurveBracket& b) {
    if (shape_distance > 0 || b.clamped) return MFUSIM_SOURCE_TABLE_NEAREST;
    return b.exact ? MFUSIM_SOURCE_TABLE_EXACT : MFUSIM_SOURCE_TABLE_INTERPOLATED;
}

AttentionGeometry table_geometry(const tables::AttentionTableEntry& e, double kv_element) {
    AttentionGeometry g;
    const auto& s = e.per_gpu;
    if (e.family == AttentionFamily::mha) {
        g.q_heads = s[0];
        g.kv_heads = s[1];
        g.qk_dim = g.v_dim = s[2];
        g.kv_bytes_per_token = 2.0 * static_cast<double>(s[1] * s[2]) * kv_element;
    } else if (e.phase == Phase::prefill) {  // heads - qk_nope - rope: run as MHA with expanded K/V
        g.q_heads = g.kv_heads = s[0];
        g.qk_dim = s[1] + s[2];
        g.v_dim = s[1];
        g.kv_bytes_per_token = static_cast<double>(s[0] * (2 * s[1] + s[2])) * kv_element;
    } else {  // heads - kv_lora_rank - rope: absorbed, one shared latent
        g.q_heads = s[0];
        g.kv_heads = 1;
        g.qk_dim = s[1] + s[2];
        g.v_dim = s[1];
        g.kv_bytes_per_token = static_cast<double>(s[1] + s[2]) * kv_element;
    }
    return g;
}

double uniform_decode_us(const gpu::GpuProfile& gpu, const AttentionGeometry& g, double peak, double batch, double kv) {
    DecodeWork w{batch, batch * kv};
    return decode_attention_us(gpu, g, peak, w);
}

// ln of the measured time at x, the analytical model carrying it beyond the measured range:
// ln t(x_end) + ln t_an(x) - ln t_an(x_end).
template <class Analytical>
double extended_log_time(const MeasuredCurve& curve, double x, Analytical t_an) {
    CurveBracket b = tables::bracket(curve, x);
    double lt = tables::interpolate_log_time(curve, b);
    if (b.clamped) lt += std::log(t_an(x)) - std::log(t_an(static_cast<double>(curve.x[b.lo])));
    return lt;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------

double GemmSite::flops(int64_t m) const {
    double md = static_cast<double>(m), kd = static_cast<double>(k_), nd = static_cast<double>(n_);
    return 2.0 * md * (grouped_ ? topk_ : 1.0) * kd * nd;
}

double GemmSite::weight_bytes(int64_t m) const {
    if (m <= 0) return 0;
    double per = static_cast<double>(k_) * static_cast<double>(n_) * precision_.b_bytes;
    if (!grouped_) return per;
    return per * expected_active_experts(experts_, topk_, static_cast<double>(m));
}

double GemmSite::bytes(int64_t m) const {
    if (m <= 0) return 0;
    double rows = static_cast<double>(m) * (grouped_ ? topk_ : 1.0);
    return weight_bytes(m) +
           rows * (static_cast<double>(k_) * precision_.a_bytes + static_cast<double>(n_) * precision_.c_bytes);
}

GemmCost GemmSite::analytical(int64_t m) const {
    // An unbuilt site (the LM head of a config without vocab_size) costs nothing, as time_us says.
    if (m <= 0 || gpu_ == nullptr) return {};
    double md = static_cast<double>(m);
    if (!grouped_) return gemm_analytical(*gpu_, precision_, 1.0, md, k_, n_);
    double active = expected_active_experts(experts_, topk_, md);
    return gemm_analytical(*gpu_, precision_, active, md * topk_ / active, k_, n_);
}

OpProvenance GemmSite::provenance(int64_t m) const {
    OpProvenance p;
    const tables::MeasuredCurve* curve = curve_for(m);
    if (curve == nullptr || weight_ <= 0) return p;
    CurveBracket b = tables::bracket(*curve, static_cast<double>(std::max<int64_t>(m, 1)));
    if (fade(shape_distance_, gpu_->table_blend_octaves) <= 0) return p;
    p.source = curve_source(shape_distance_, b);
    p.distance = shape_distance_ + b.outside_octaves;
    p.table = curve == small_curve_ ? small_table_ : table_;
    return p;
}

// ---------------------------------------------------------------------------------------------------------------

int64_t PrefillAttentionSite::mean_span(const PrefillWork& work) {
    if (work.flops <= 0) return 1;
    return std::max<int64_t>(1, static_cast<int64_t>(std::llround(work.flops_span / work.flops)));
}

double PrefillAttentionSite::time_us(const PrefillWork& work) const {
    if (work.chunks <= 0) return 0;
    PrefillParts p = prefill_attention_parts(*gpu_, constants_, work);
    double body = ratio_.empty() ? p.body_us : p.body_us * ratio_.at(mean_span(work), false);
    return p.launch_us + body + p.excess_us;
}

OpProvenance PrefillAttentionSite::provenance(const PrefillWork& work) const {
    OpProvenance p;
    if (entry_ == nullptr || weight_ <= 0) return p;
    CurveBracket b = tables::bracket(entry_->prefill, static_cast<double>(mean_span(work)));
    if (fade(shape_distance_, gpu_->table_blend_octaves) <= 0) return p;
    p.source = curve_source(shape_distance_, b);
    p.distance = shape_distance_ + b.outside_octaves;
    p.table = &entry_->path;
    return p;
}

double DecodeAttentionSite::time_us(const DecodeWork& work) const {
    if (work.requests <= 0) return 0;
    // The analytical decode time depends on the request count and the total keys only, so the calibrated time is
    // a function of those two: a precomputed surface, non-decreasing in both (adding a request never helps).
    if (!calibrated_.empty()) {
        const double measured =
            calibrated_.at(static_cast<int64_t>(work.requests), static_cast<int64_t>(work.kv_tokens));
        if (work.queries == 1) return measured;
        // A verify step's k + 1 queries per request: the tables measure one; the analytical model says how much
        // more the extra queries cost over the same keys (little while the kernel is bound by reading them).
        DecodeWork one = work;
        one.queries = 1;
        return measured * decode_attention_us(*gpu_, geometry_, peak_flops_, work) /
               decode_attention_us(*gpu_, geometry_, peak_flops_, one);
    }
    return decode_attention_us(*gpu_, geometry_, peak_flops_, work);
}

OpProvenance DecodeAttentionSite::provenance(const DecodeWork& work) const {
    OpProvenance p;
    if (entry_ == nullptr || weight_ <= 0 || work.requests <= 0) return p;
    const tables::MeasuredSurface& s = entry_->decode;
    double batch = work.requests, kv = std::floor(work.kv_tokens / work.requests);
    // Batch levels bracketed in log2(batch), like a curve's x.
    CurveBracket bb = tables::bracket(s.batch, s.log2_batch, batch);
    CurveBracket k0 = tables::bracket(s.by_batch[bb.lo], kv);
    CurveBracket k1 = tables::bracket(s.by_batch[bb.hi], kv);
    bool exact = bb.exact && k0.exact;
    bool clamped = bb.clamped || k0.clamped || k1.clamped;
    p.distance = shape_distance_ + bb.outside_octaves + std::max(k0.outside_octaves, k1.outside_octaves);
    if (fade(shape_distance_, gpu_->table_blend_octaves) <= 0) return OpProvenance{};
    p.source = shape_distance_ > 0 || clamped ? MFUSIM_SOURCE_TABLE_NEAREST
               : exact                        ? MFUSIM_SOURCE_TABLE_EXACT
                                              : MFUSIM_SOURCE_TABLE_INTERPOLATED;
    p.table = &entry_->path;
    return p;
}

double LinearAttentionSite::prefill_us(double tokens, double sequences, double longest) const {
    if (tokens <= 0) return 0;
    double t = recurrent_core_prefill_us(*gpu_, geometry_, tokens, sequences, longest);
    if (!prefill_ratio_.empty()) t *= prefill_ratio_.at(static_cast<int64_t>(tokens / std::max(sequences, 1.0)), false);
    return t;
}

double LinearAttentionSite::decode_us(double requests) const {
    if (requests <= 0) return 0;
    double t = recurrent_core_decode_us(*gpu_, geometry_, requests);
    if (!decode_ratio_.empty()) t *= decode_ratio_.at(static_cast<int64_t>(requests), false);
    return t;
}

OpProvenance LinearAttentionSite::provenance(bool prefill) const {
    OpProvenance p;
    const tables::GdnTableEntry* e = prefill ? prefill_entry_ : decode_entry_;
    if (e == nullptr) return p;
    p.source = MFUSIM_SOURCE_TABLE_INTERPOLATED;
    p.table = &e->path;
    return p;
}

// ---------------------------------------------------------------------------------------------------------------

KernelModel::KernelModel(const gpu::GpuProfile& gpu, std::shared_ptr<const tables::BenchData> tables,
                         GemmDtype gemm_dtype, bool fp8_kv, double weight_bytes)
    : gpu_(gpu), fp8_kv_(fp8_kv), gemm_dtype_(gemm_dtype), weight_bytes_(weight_bytes) {
    precision_ = gemm_dtype == GemmDtype::fp8   ? fp8_gemm(gpu_)
                 : gemm_dtype == GemmDtype::fp4 ? fp4_gemm(gpu_)
                                                : bf16_gemm(gpu_);
    if (gemm_dtype == GemmDtype::bf16 && weight_bytes > 0) precision_.b_bytes = weight_bytes;
    if (tables) {
        index_ = tables::build_table_index(*tables, gpu_, fp8_kv ? "fp8" : "bf16");
        if (index_.empty()) {
            warnings_.push_back("no MFU tables for GPU folder '" + gpu_.table_folder + "' in " + tables->root +
                                ": the analytical efficiency model answers every operation");
        }
        warnings_.insert(warnings_.end(), index_.notes.begin(), index_.notes.end());
    } else {
        index_.gpu_folder = gpu_.table_folder;
        warnings_.push_back("no bench_data directory: the analytical efficiency model answers every operation");
    }
    if (index_.has_gemm) {
        GemmPrecision table = table_precision(index_.gemm.manifest, index_.gemm.peak_flops);
        if (table.b_bytes != precision_.b_bytes) {
            const char* table_dtype = tables::peak_dtype_name(index_.gemm.manifest.peak_dtype);
            const char* target = gemm_dtype == GemmDtype::fp8 ? "FP8" : gemm_dtype == GemmDtype::fp4 ? "FP4" : "BF16";
            warnings_.push_back(
                index_.gemm.path + ": MFU relative to the " + table_dtype + " peak (" +
                std::to_string(index_.gemm.peak_flops / 1e12) + " TFLOP/s) applied to " + target +
                " GEMMs as achieved FLOP/s (x" + std::to_string(std::max(1.0, table.b_bytes / precision_.b_bytes)) +
                " for the smaller weights), capped at the " + target + " plateau (" +
                std::to_string(precision_.plateau) + " x " + std::to_string(precision_.peak_flops / 1e12) +
                " TFLOP/s), floored by the " + target + " memory roofline");
        }
    }
}

double KernelModel::blend_weight(double distance) const {
    if (distance <= 0) return 1.0;
    if (gpu_.table_blend_octaves <= 0) return 0.0;
    return std::max(0.0, 1.0 - distance / gpu_.table_blend_octaves);
}

GemmSite KernelModel::gemm_site(int64_t k, int64_t n) const {
    GemmSite site;
    site.k_ = k;
    site.n_ = n;
    site.gpu_ = &gpu_;
    site.precision_ = precision_;
    const tables::GemmGroup* group = nullptr;
    if (index_.has_gemm) {
        double d = 0;
        group = index_.gemm.nearest(k, n, &d);
        site.shape_distance_ = d;
        site.weight_ = blend_weight(d);
        if (site.weight_ > 0) {
            site.curve_ = &group->curve;
            site.table_ = &index_.gemm.path;
        }
    }
    GemmPrecision table = table_precision(index_.gemm.manifest, index_.gemm.peak_flops);
    const gpu::GpuProfile& g = gpu_;
    GemmPrecision target = precision_;
    site.grid_.fill([&](int64_t m) -> double {
        if (m <= 0) return 0.0;
        double md = static_cast<double>(m);
        double t = gemm_analytical(g, target, 1.0, md, k, n).time_us;
        if (site.curve_ == nullptr) return t;
        const MeasuredCurve& curve = *site.curve_;
        CurveBracket b = tables::bracket(curve, md);
        double mu = b.clamped ? static_cast<double>(curve.x[b.lo]) : md;
        double kg = static_cast<double>(group->k), ng = static_cast<double>(group->n);
        double measured = std::exp(tables::interpolate_log_time(curve, b));
        double flops = 2.0 * mu * kg * ng;
        double target_bytes = mu * kg * target.a_bytes + kg * ng * target.b_bytes + mu * ng * target.c_bytes;
        double t_tab = convert_gemm_time(g, table, target, measured, flops, target_bytes);
        double t_an_group = gemm_analytical(g, target, 1.0, mu, group->k, group->n).time_us;
        return t * apply_weight(t_tab / t_an_group, site.weight_);
    });
    site.grid_.make_non_decreasing();
    return site;
}

GemmSite KernelModel::grouped_site(const MoeShape& routing, int64_t k, int64_t n,
                                   const std::array<int64_t, 6>& table_key, bool down_projection) const {
    // The engine's loader pads MXFP4 experts to its kernel's layout (families.hpp, moe_weight_padding), as the kernel
    // benchmark's rows are (fused_moe_us).
    const MoeWeightPadding pad = moe_weight_padding(gpu_, routing.format, routing.cutlass, false);
    n = pad.padded_n(n, down_projection, routing.gated);
    k = pad.padded_k(k, down_projection);
    GemmSite site;
    site.k_ = k;
    site.n_ = n;
    site.grouped_ = true;
    // This GPU's experts and its share of each token's top-k (flops and bytes of the breakdown).
    const double ep = static_cast<double>(std::max<int64_t>(routing.ep, 1));
    const double experts = static_cast<double>(routing.experts) / ep, topk = static_cast<double>(routing.topk) / ep;
    site.experts_ = experts;
    site.topk_ = topk;
    site.gpu_ = &gpu_;
    site.precision_ = precision_;
    // Grouped-GEMM tables come in two phases that measure the same experts at different token counts: decode
    // (small batches) and prefill (long sequences). Token counts up to the decode table's largest use it, larger
    // ones the prefill table; with one of the two, that one everywhere (constant ratio beyond its sizes).
    const tables::GroupedGemmEntry* prefill =
        index_.grouped_prefill.entries.empty() ? nullptr : index_.grouped_prefill.find(table_key);
    const tables::GroupedGemmEntry* decode =
        index_.grouped_decode.entries.empty() ? nullptr : index_.grouped_decode.find(table_key);
    auto pick = [&](const tables::GroupedGemmEntry* e) { return down_projection ? &e->down : &e->up; };
    if (prefill != nullptr) {
        site.curve_ = pick(prefill);
        site.table_ = &index_.grouped_prefill.path;
    }
    if (decode != nullptr) {
        site.small_curve_ = pick(decode);
        site.small_table_ = &index_.grouped_decode.path;
        site.small_limit_ = prefill != nullptr ? site.small_curve_->x.back() : std::numeric_limits<int64_t>::max();
    }
    if (prefill != nullptr || decode != nullptr) site.weight_ = 1.0;
    GemmPrecision prefill_table =
        prefill ? table_precision(index_.grouped_prefill.manifest, index_.grouped_prefill.peak_flops) : precision_;
    GemmPrecision decode_table =
        decode ? table_precision(index_.grouped_decode.manifest, index_.grouped_decode.peak_flops) : precision_;
    const gpu::GpuProfile& g = gpu_;
    GemmPrecision target = precision_;
    // Weight-only experts on Marlin, as the kernel benchmark's (families.cpp, moe_runs_marlin).
    target.marlin = target.b_bytes < 1 && moe_runs_marlin(g, routing.format);
    // Under expert parallelism vLLM's Triton fused_moe passes over every pair of the layer (moe_passes_all_pairs).
    target.all_pairs = moe_passes_all_pairs(g, routing.format);
    // FlashInfer's TRT-LLM-gen MoE on Blackwell tiles from 8 tokens; block FP8 promotes its partial accumulator per
    // 128-wide K block (families.cpp, grouped_gemm_us), as the kernel benchmark's (moe_precision).
    const GemmPrecision path = moe_precision(g, routing.format, routing.fp8_activations);
    target.tokens_on_mma_n = path.tokens_on_mma_n;
    target.scale_block_k = path.scale_block_k;
    target.mxfp4_weights = path.mxfp4_weights;
    if (routing.fp8_activations && path.a_bytes < target.a_bytes) {
        // W4A8 (MoeShape::fp8_activations): the weights stay 4-bit, the activations are FP8 and the MMAs run at the
        // FP8 peak and plateau, as the kernel benchmark's `w4a8_mxfp4_mxfp8` rows (moe_precision).
        target.a_bytes = path.a_bytes;
        target.peak_flops = path.peak_flops;
        target.plateau = path.plateau;
    }
    // The engine's CUTLASS MoE on Hopper (EngineProfile::cutlass_moe), as the kernel benchmark's CUTLASS rows.
    if (moe_runs_cutlass_sm90(g, routing.format, routing.cutlass)) use_cutlass_sm90_tiles(target);
    auto analytical_at = [&](double tokens) {
        double active = expected_active_experts(experts, topk, tokens);
        return gemm_analytical(g, target, active, tokens * topk / active, k, n);
    };
    // The analytical time is the fused-MoE kernel model (families.hpp): the grouped GEMM over the most loaded
    // rank's experts, rows padded to whole tiles, with the activation (up) or top-k sum (down) and, on the up
    // projection, the routing's fixed cost. `m` tokens enter the expert-parallel group's routing.
    auto fused_at = [&](double tokens, bool as_served) {
        MoeShape shape = routing;
        shape.tokens = tokens;
        shape.random_routing = shape.random_routing && as_served;
        return fused_moe_projection_us(g, target, moe_rank_load(shape), tokens, k, n, down_projection, routing.gated,
                                       false);
    };
    site.grid_.fill([&](int64_t m) -> double {
        if (m <= 0) return 0.0;
        double md = static_cast<double>(m);
        double t = fused_at(md, true);
        const MeasuredCurve* curve = site.curve_for(m);
        if (curve == nullptr) return t;
        const GemmPrecision& table = curve == site.small_curve_ ? decode_table : prefill_table;
        CurveBracket b = tables::bracket(*curve, md);
        double mu = b.clamped ? static_cast<double>(curve->x[b.lo]) : md;
        double measured = std::exp(tables::interpolate_log_time(*curve, b));
        GemmCost at = analytical_at(mu);
        double t_tab = convert_gemm_time(g, table, target, measured, at.flops, at.bytes);
        // The tables measure balanced routing: their ratio to the model is taken at the benchmark's own routing.
        return t * (t_tab / fused_at(mu, false));
    });
    site.grid_.make_non_decreasing();
    return site;
}

const tables::AttentionTableEntry* KernelModel::nearest_attention(const AttentionGeometry& geometry,
                                                                  tables::AttentionFamily family, tables::Phase phase,
                                                                  const std::array<int64_t, 3>& model_shape, int64_t tp,
                                                                  double& distance, double& weight) const {
    std::array<int64_t, 3> per_gpu = family == AttentionFamily::mha
                                         ? std::array<int64_t, 3>{geometry.q_heads, geometry.kv_heads, geometry.qk_dim}
                                         : std::array<int64_t, 3>{geometry.q_heads, model_shape[1], model_shape[2]};
    double d = 0;
    const tables::AttentionTableEntry* e = index_.attention.nearest(family, phase, per_gpu, model_shape, tp, &d);
    if (e == nullptr) return nullptr;
    distance = d;
    weight = blend_weight(d);
    return weight > 0 ? e : nullptr;
}

PrefillAttentionSite KernelModel::prefill_site(const AttentionGeometry& geometry, tables::AttentionFamily family,
                                               const std::array<int64_t, 3>& model_shape, int64_t tp) const {
    PrefillAttentionSite site;
    site.gpu_ = &gpu_;
    site.geometry_ = geometry;
    site.peak_flops_ = attention_peak_flops();
    site.constants_ = prefill_constants(gpu_, geometry, site.peak_flops_);
    const tables::AttentionTableEntry* e =
        nearest_attention(geometry, family, Phase::prefill, model_shape, tp, site.shape_distance_, site.weight_);
    if (e == nullptr) return site;
    site.entry_ = e;
    AttentionGeometry tg = table_geometry(*e, kv_element_bytes());
    const gpu::GpuProfile& g = gpu_;
    double peak = site.peak_flops_, w = site.weight_;
    // Ratio of the measured kernel body (time beyond the launch and any memory excess) to the analytical body.
    PrefillConstants tk = prefill_constants(g, tg, peak);
    auto parts = [&](double x) {
        PrefillWork work;
        add_prefill_chunk(tk, tg, work, std::max<int64_t>(static_cast<int64_t>(x), 1), 0);
        return prefill_attention_parts(g, tk, work);
    };
    site.ratio_.fill([&](int64_t span) {
        double s = static_cast<double>(std::max<int64_t>(span, 1));
        auto t_an = [&](double x) {
            PrefillParts p = parts(x);
            return p.launch_us + p.body_us + p.excess_us;
        };
        double measured = std::exp(extended_log_time(e->prefill, s, t_an));
        PrefillParts p = parts(s);
        double ratio = std::max(0.05, (measured - p.launch_us - p.excess_us) / p.body_us);
        return apply_weight(ratio, w);
    });
    return site;
}

DecodeAttentionSite KernelModel::decode_site(const AttentionGeometry& geometry, tables::AttentionFamily family,
                                             const std::array<int64_t, 3>& model_shape, int64_t tp) const {
    DecodeAttentionSite site;
    site.gpu_ = &gpu_;
    site.geometry_ = geometry;
    site.peak_flops_ = attention_peak_flops();
    const tables::AttentionTableEntry* e =
        nearest_attention(geometry, family, Phase::decode, model_shape, tp, site.shape_distance_, site.weight_);
    if (e == nullptr) return site;
    site.entry_ = e;
    AttentionGeometry tg = table_geometry(*e, kv_element_bytes());
    const gpu::GpuProfile& g = gpu_;
    double peak = site.peak_flops_, w = site.weight_;
    const tables::MeasuredSurface& s = e->decode;
    site.calibrated_.fill([&](int64_t batch_i, int64_t keys_i) {
        double batch = static_cast<double>(std::max<int64_t>(batch_i, 1));
        double keys = std::max(static_cast<double>(keys_i), batch);  // every request reads at least its own key
        double kv = keys / batch;
        // Time at one batch level, linear in kv between rows, extended beyond them by the analytical model.
        auto level_time = [&](std::size_t level, double at_batch) {
            const MeasuredCurve& curve = s.by_batch[level];
            double level_batch = static_cast<double>(s.batch[level]);
            CurveBracket b = tables::bracket(curve, kv);
            double t = tables::interpolate_time_linear(curve, b, kv);
            if (b.clamped) {
                t *= uniform_decode_us(g, tg, peak, level_batch, kv) /
                     uniform_decode_us(g, tg, peak, level_batch, static_cast<double>(curve.x[b.lo]));
            }
            if (at_batch != level_batch) {
                t *= uniform_decode_us(g, tg, peak, at_batch, kv) / uniform_decode_us(g, tg, peak, level_batch, kv);
            }
            return t;
        };
        // Outside the measured batches or contexts the end point's ratio carries on (constant ratio).
        double measured;
        if (batch <= static_cast<double>(s.batch.front())) {
            measured = level_time(0, batch);
        } else if (batch >= static_cast<double>(s.batch.back())) {
            measured = level_time(s.batch.size() - 1, batch);
        } else {
            std::size_t hi = static_cast<std::size_t>(
                std::upper_bound(s.batch.begin(), s.batch.end(), static_cast<int64_t>(batch)) - s.batch.begin());
            std::size_t lo = hi - 1;
            if (static_cast<double>(s.batch[lo]) == batch) {
                measured = level_time(lo, batch);
            } else {
                double b0 = static_cast<double>(s.batch[lo]), b1 = static_cast<double>(s.batch[hi]);
                double a = level_time(lo, b0), b = level_time(hi, b1);
                measured = a + (b - a) * (batch - b0) / (b1 - b0);  // linear in the batch
            }
        }
        double ratio = measured / uniform_decode_us(g, tg, peak, batch, kv);
        double t_an = decode_attention_us(g, site.geometry_, peak, DecodeWork{batch, keys});
        return t_an * apply_weight(ratio, w);
    });
    site.calibrated_.make_non_decreasing_in_keys();
    return site;
}

LinearAttentionSite KernelModel::linear_site(const LinearAttentionGeometry& geometry,
                                             const std::array<int64_t, 5>& table_shape) const {
    LinearAttentionSite site;
    site.gpu_ = &gpu_;
    site.geometry_ = geometry;
    site.peak_flops_ = attention_peak_flops();
    // InferSim's GDN tables name the unsharded layer; their times calibrate the analytical model at that shape.
    LinearAttentionGeometry tg{table_shape[1], table_shape[3], table_shape[2], table_shape[4], table_shape[0]};
    tg.flashinfer_prefill = geometry.flashinfer_prefill;
    const gpu::GpuProfile& g = gpu_;
    if (const tables::GdnTableEntry* e = index_.find_gdn(Phase::prefill, table_shape)) {
        site.prefill_entry_ = e;
        auto t_an = [&](double x) { return recurrent_core_prefill_us(g, tg, x, 1.0); };
        site.prefill_ratio_.fill([&](int64_t x) {
            double s = static_cast<double>(std::max<int64_t>(x, 1));
            return std::exp(extended_log_time(e->curve, s, t_an)) / t_an(s);
        });
    }
    if (const tables::GdnTableEntry* e = index_.find_gdn(Phase::decode, table_shape)) {
        site.decode_entry_ = e;
        auto t_an = [&](double x) { return recurrent_core_decode_us(g, tg, x); };
        site.decode_ratio_.fill([&](int64_t x) {
            double s = static_cast<double>(std::max<int64_t>(x, 1));
            return std::exp(extended_log_time(e->curve, s, t_an)) / t_an(s);
        });
    }
    return site;
}

LinearAttentionSite KernelModel::recurrent_site(const LinearAttentionGeometry& geometry) const {
    LinearAttentionSite site;
    site.gpu_ = &gpu_;
    site.geometry_ = geometry;
    site.peak_flops_ = attention_peak_flops();
    return site;
}

std::array<int64_t, 3> attention_table_shape(const config::ModelConfig& model, tables::Phase phase, int64_t heads,
                                             int64_t kv_heads) {
    if (model.attention == config::AttentionKind::mla) {
        if (phase == Phase::prefill) return {heads, model.qk_nope_head_dim, model.qk_rope_head_dim};
        return {heads, model.kv_lora_rank, model.qk_rope_head_dim};
    }
    return {heads, kv_heads, model.head_dim};
}

}  // namespace mfusim::roofline
