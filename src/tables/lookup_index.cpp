#include "tables/lookup_index.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>

#include "common/numbers.hpp"

namespace mfusim::tables {

MeasuredCurve MeasuredCurve::build(std::vector<std::pair<int64_t, double>> points) {
    MeasuredCurve curve;
    // Stable sort by x so that merging sees every duplicate together; the mean does not depend on file order.
    std::stable_sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t i = 0;
    while (i < points.size()) {
        std::size_t j = i;
        double sum = 0;
        int count = 0;
        for (; j < points.size() && points[j].first == points[i].first; ++j) {
            double t = points[j].second;
            if (!(t > 0) || !std::isfinite(t) || points[j].first <= 0) {
                ++curve.skipped;
                continue;
            }
            sum += t;
            ++count;
        }
        if (count > 0) {
            curve.merged += count - 1;
            curve.x.push_back(points[i].first);
            curve.log_time.push_back(std::log(sum / count));
        }
        i = j;
    }
    for (std::size_t r = 0; r < curve.x.size(); ++r) {
        curve.log2_x.push_back(std::log2(static_cast<double>(curve.x[r])));
        if (r > 0 && curve.log_time[r] < curve.log_time[r - 1]) {
            curve.log_time[r] = curve.log_time[r - 1];
            ++curve.raised;
        }
    }
    return curve;
}

CurveBracket bracket(const MeasuredCurve& curve, double x) {
    return bracket(curve.x, curve.log2_x, x);
}

CurveBracket bracket(const std::vector<int64_t>& xs, const std::vector<double>& log2_x, double x) {
    CurveBracket b;
    if (xs.empty()) return b;
    if (x <= static_cast<double>(xs.front())) {
        b.exact = x == static_cast<double>(xs.front());
        b.clamped = !b.exact;
        b.outside_octaves = b.clamped ? std::log2(static_cast<double>(xs.front()) / std::max(x, 1e-300)) : 0;
        return b;
    }
    if (x >= static_cast<double>(xs.back())) {
        b.lo = b.hi = xs.size() - 1;
        b.exact = x == static_cast<double>(xs.back());
        b.clamped = !b.exact;
        b.outside_octaves = b.clamped ? std::log2(x / static_cast<double>(xs.back())) : 0;
        return b;
    }
    // First row with x_row > x; the bracket is [that - 1, that].
    auto it = std::upper_bound(xs.begin(), xs.end(), x,
                               [](double value, int64_t row) { return value < static_cast<double>(row); });
    std::size_t hi = static_cast<std::size_t>(it - xs.begin());
    std::size_t lo = hi - 1;
    b.lo = lo;
    b.hi = hi;
    if (static_cast<double>(xs[lo]) == x) {
        b.hi = lo;
        b.exact = true;
        return b;
    }
    b.fraction = (std::log2(x) - log2_x[lo]) / (log2_x[hi] - log2_x[lo]);
    return b;
}

double interpolate_log_time(const MeasuredCurve& curve, const CurveBracket& b) {
    if (b.lo == b.hi) return curve.log_time[b.lo];
    return curve.log_time[b.lo] + b.fraction * (curve.log_time[b.hi] - curve.log_time[b.lo]);
}

double interpolate_time_linear(const MeasuredCurve& curve, const CurveBracket& b, double x) {
    double lo = std::exp(curve.log_time[b.lo]);
    if (b.lo == b.hi) return lo;
    double hi = std::exp(curve.log_time[b.hi]);
    double x0 = static_cast<double>(curve.x[b.lo]), x1 = static_cast<double>(curve.x[b.hi]);
    return lo + (hi - lo) * (x - x0) / (x1 - x0);
}

double mfu_rounding_error(double mfu) {
    if (!(mfu > 0) || !std::isfinite(mfu)) return 1.0;
    // The shortest text that reads back as this double is the text the table printed, less trailing zeros; its
    // last digit is the printed precision, wherever it sits (0.215 and 2.30253e-08 alike).
    std::string text = shortest_text(mfu);
    std::size_t e = text.find_first_of("eE");
    int exponent = e == std::string::npos ? 0 : std::atoi(text.c_str() + e + 1);
    std::string mantissa = text.substr(0, e);
    std::size_t point = mantissa.find('.');
    int decimals = point == std::string::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
    // A unit of the last printed digit is 10^(exponent - decimals).
    return 0.5 * std::pow(10.0, exponent - decimals) / mfu;
}

double table_peak_flops(const Manifest& manifest, const gpu::GpuProfile& gpu) {
    if (manifest.peak_tflops > 0) return manifest.peak_tflops * 1e12;
    double tflops = manifest.peak_dtype == PeakDtype::fp8 ? gpu.peak_fp8_tflops : gpu.peak_bf16_tflops;
    return tflops * 1e12;
}

const GemmGroup* GemmTableIndex::nearest(int64_t k, int64_t n, double* distance) const {
    const GemmGroup* best = nullptr;
    double best_d = 0;
    for (const GemmGroup& g : groups) {  // sorted by (k, n): the first of equal distances wins
        double d = std::fabs(std::log2(static_cast<double>(k) / static_cast<double>(g.k))) +
                   std::fabs(std::log2(static_cast<double>(n) / static_cast<double>(g.n)));
        if (best == nullptr || d < best_d) {
            best = &g;
            best_d = d;
        }
    }
    if (distance) *distance = best_d;
    return best;
}

double attention_table_flops(const AttentionTableEntry& e, int64_t a, int64_t b) {
    double h = static_cast<double>(e.per_gpu[0]);
    if (e.phase == Phase::prefill) {
        double s = static_cast<double>(a);
        if (e.family == AttentionFamily::mla) {
            double dn = static_cast<double>(e.shape[1]), dr = static_cast<double>(e.shape[2]);
            return h * (2 * dn + dr) * s * s;
        }
        return 2.0 * h * static_cast<double>(e.shape[2]) * s * s;
    }
    double batch = static_cast<double>(a), kv = static_cast<double>(b);
    if (e.family == AttentionFamily::mla) {
        double rank = static_cast<double>(e.shape[1]), dr = static_cast<double>(e.shape[2]);
        return 2.0 * h * (2 * rank + dr) * batch * kv;
    }
    return 4.0 * h * static_cast<double>(e.shape[2]) * batch * kv;
}

namespace {

double octaves(int64_t a, int64_t b) {
    return std::fabs(
        std::log2(static_cast<double>(std::max<int64_t>(a, 1)) / static_cast<double>(std::max<int64_t>(b, 1))));
}

}  // namespace

const AttentionTableEntry* AttentionTableIndex::nearest(AttentionFamily family, Phase phase,
                                                        const std::array<int64_t, 3>& per_gpu,
                                                        const std::array<int64_t, 3>& model_shape, int64_t tp,
                                                        double* distance) const {
    const AttentionTableEntry* best = nullptr;
    std::tuple<double, int, double, const std::string*> best_key;
    for (const AttentionTableEntry& e : entries) {
        if (e.family != family || e.phase != phase) continue;
        if (e.phase == Phase::prefill ? e.prefill.empty() : e.decode.batch.empty()) continue;
        double d = 0;
        for (std::size_t i = 0; i < 3; ++i) d += octaves(per_gpu[i], e.per_gpu[i]);
        bool own_shape = e.shape == model_shape;
        int preference = own_shape && e.tp == tp ? 0 : own_shape ? 1 : 2;
        double tp_gap = e.tp > 0 ? octaves(e.tp, tp) : 0;
        auto key = std::make_tuple(d, preference, tp_gap, &e.path);
        bool better = best == nullptr || std::get<0>(key) < std::get<0>(best_key) ||
                      (std::get<0>(key) == std::get<0>(best_key) &&
                       (std::get<1>(key) < std::get<1>(best_key) ||
                        (std::get<1>(key) == std::get<1>(best_key) &&
                         (std::get<2>(key) < std::get<2>(best_key) ||
                          (std::get<2>(key) == std::get<2>(best_key) && e.path < *std::get<3>(best_key))))));
        if (better) {
            best = &e;
            best_key = key;
        }
    }
    if (distance) *distance = best ? std::get<0>(best_key) : 0;
    return best;
}

const GroupedGemmEntry* GroupedGemmTableIndex::find(const std::array<int64_t, 6>& key) const {
    for (const GroupedGemmEntry& e : entries) {
        if (e.key == key) return &e;
    }
    return nullptr;
}

bool TableIndex::empty() const {
    return !has_gemm && attention.entries.empty() && !has_grouped_prefill && !has_grouped_decode &&
           gdn_prefill.empty() && gdn_decode.empty();
}

const GdnTableEntry* TableIndex::find_gdn(Phase phase, const std::array<int64_t, 5>& shape) const {
    for (const GdnTableEntry& e : phase == Phase::prefill ? gdn_prefill : gdn_decode) {
        if (e.shape == shape && !e.curve.empty()) return &e;
    }
    return nullptr;
}

namespace {

void note_curve(std::vector<std::string>& notes, const std::string& path, int skipped, int merged, int raised) {
    if (skipped > 0) {
        notes.push_back(path + ": " + std::to_string(skipped) +
                        " row(s) with MFU 0 skipped (no time can be derived from them)");
    }
    if (merged > 0) {
        notes.push_back(path + ": " + std::to_string(merged) +
                        " duplicate row(s) merged into the mean time of their key");
    }
    if (raised > 0) {
        notes.push_back(path + ": " + std::to_string(raised) +
                        " row(s) measured faster than a smaller size raised to it (time is kept non-decreasing)");
    }
}

// A zero MFU gives no time; an MFU printed with too few significant digits gives an imprecise one.
bool usable_mfu(double mfu, int& imprecise) {
    if (!(mfu > 0)) return false;
    if (mfu_rounding_error(mfu) > kMaxMfuRoundingError) {
        ++imprecise;
        return false;
    }
    return true;
}

void note_imprecise(std::vector<std::string>& notes, const std::string& path, int imprecise) {
    if (imprecise > 0) {
        notes.push_back(path + ": " + std::to_string(imprecise) +
                        " row(s) skipped whose MFU, as printed, is uncertain by more than 5% (e.g. 0.003 at three "
                        "decimals); the analytical model covers their sizes");
    }
}

bool usable_peak(std::vector<std::string>& notes, const TableInfo& info, double peak) {
    if (peak > 0) return true;
    notes.push_back(info.relative_path + ": its MFU refers to the " + peak_dtype_name(info.manifest.peak_dtype) +
                    " peak, which this GPU profile does not have; table ignored");
    return false;
}

std::array<int64_t, 3> shape3(const std::vector<int64_t>& shape) {
    std::array<int64_t, 3> s{};
    for (std::size_t i = 0; i < 3 && i < shape.size(); ++i) s[i] = shape[i];
    return s;
}

// What the file name and manifest of an attention table say: family, shape, the per-GPU shape of a BLIS
// `-tp<N>` table (its name holds the model's heads; the kernel ran heads / N per GPU), and its peak.
AttentionTableEntry attention_entry(const std::string& path, const TableInfo& info, Phase phase,
                                    const gpu::GpuProfile& gpu) {
    AttentionTableEntry e;
    e.path = path;
    e.family = path.rfind("mla/", 0) == 0 ? AttentionFamily::mla : AttentionFamily::mha;
    e.phase = phase;
    e.shape = shape3(info.shape);
    e.tp = info.tp;
    e.per_gpu = e.shape;
    if (e.tp > 0) {
        e.per_gpu[0] = std::max<int64_t>(1, e.shape[0] / e.tp);
        if (e.family == AttentionFamily::mha) e.per_gpu[1] = std::max<int64_t>(1, e.shape[1] / e.tp);
    }
    e.manifest = info.manifest;
    e.peak_flops = table_peak_flops(e.manifest, gpu);
    return e;
}

}  // namespace

TableIndex build_table_index(const BenchData& data, const gpu::GpuProfile& gpu, const std::string& kv_dtype) {
    TableIndex index;
    index.gpu_folder = gpu.table_folder;
    const std::string& folder = gpu.table_folder;

    for (const auto& [path, table] : data.gemm) {
        if (table.info.gpu != folder) continue;
        double peak = table_peak_flops(table.info.manifest, gpu);
        if (!usable_peak(index.notes, table.info, peak)) continue;
        std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, double>>> groups;
        int imprecise = 0;
        for (const GemmRow& row : table.rows) {
            double flops = 2.0 * static_cast<double>(row.m) * static_cast<double>(row.k) * static_cast<double>(row.n);
            double us = usable_mfu(row.mfu, imprecise) ? flops / (row.mfu * peak) * 1e6 : 0.0;
            groups[{row.k, row.n}].push_back({row.m, us});
        }
        index.gemm.path = path;
        index.gemm.manifest = table.info.manifest;
        index.gemm.peak_flops = peak;
        int skipped = -imprecise, merged = 0, raised = 0;
        note_imprecise(index.notes, path, imprecise);
        for (auto& [kn, points] : groups) {
            GemmGroup g{kn.first, kn.second, MeasuredCurve::build(std::move(points))};
            skipped += g.curve.skipped;
            merged += g.curve.merged;
            raised += g.curve.raised;
            if (!g.curve.empty()) index.gemm.groups.push_back(std::move(g));
        }
        note_curve(index.notes, path, skipped, merged, raised);
        index.has_gemm = !index.gemm.groups.empty();
        break;  // one gemm/<gpu>/data.csv per folder
    }

    for (const auto& [path, table] : data.attention_prefill) {
        if (table.info.gpu != folder || table.info.shape.size() != 3) continue;
        AttentionTableEntry e = attention_entry(path, table.info, Phase::prefill, gpu);
        if (!usable_peak(index.notes, table.info, e.peak_flops)) continue;
        std::vector<std::pair<int64_t, double>> points;
        int imprecise = 0;
        for (const AttentionPrefillRow& row : table.rows) {
            double us = usable_mfu(row.mfu, imprecise)
                            ? attention_table_flops(e, row.seq_len, 0) / (row.mfu * e.peak_flops) * 1e6
                            : 0.0;
            points.push_back({row.seq_len, us});
        }
        e.prefill = MeasuredCurve::build(std::move(points));
        note_imprecise(index.notes, path, imprecise);
        note_curve(index.notes, path, e.prefill.skipped - imprecise, e.prefill.merged, e.prefill.raised);
        index.attention.entries.push_back(std::move(e));
    }

    for (const auto& [path, table] : data.attention_decode) {
        if (table.info.gpu != folder || table.info.shape.size() != 3) continue;
        AttentionTableEntry e = attention_entry(path, table.info, Phase::decode, gpu);
        if (!usable_peak(index.notes, table.info, e.peak_flops)) continue;
        std::map<int64_t, std::vector<std::pair<int64_t, double>>> levels;
        int other_dtype = 0, imprecise = 0;
        for (const AttentionDecodeRow& row : table.rows) {
            if (row.kv_dtype != kv_dtype) {
                ++other_dtype;
                continue;
            }
            double flops = attention_table_flops(e, row.batch_size, row.kv_len);
            bool usable = usable_mfu(row.mfu, imprecise);
            levels[row.batch_size].push_back({row.kv_len, usable ? flops / (row.mfu * e.peak_flops) * 1e6 : 0.0});
        }
        for (auto& [batch, points] : levels) {
            MeasuredCurve c = MeasuredCurve::build(std::move(points));
            e.decode.skipped += c.skipped;
            e.decode.merged += c.merged;
            e.decode.raised += c.raised;
            if (c.empty()) continue;
            e.decode.batch.push_back(batch);
            e.decode.log2_batch.push_back(std::log2(static_cast<double>(batch)));
            e.decode.by_batch.push_back(std::move(c));
        }
        if (e.decode.batch.empty()) {
            index.notes.push_back(path + ": no usable rows with kv_dtype '" + kv_dtype + "' (" +
                                  std::to_string(other_dtype) + " of another kv dtype); table ignored");
            continue;
        }
        note_imprecise(index.notes, path, imprecise);
        note_curve(index.notes, path, e.decode.skipped - imprecise, e.decode.merged, e.decode.raised);
        index.attention.entries.push_back(std::move(e));
    }
    std::sort(index.attention.entries.begin(), index.attention.entries.end(),
              [](const AttentionTableEntry& a, const AttentionTableEntry& b) { return a.path < b.path; });

    for (const auto& [path, table] : data.grouped_gemm) {
        if (table.info.gpu != folder) continue;
        bool prefill = path.find("/prefill/") != std::string::npos;
        GroupedGemmTableIndex& g = prefill ? index.grouped_prefill : index.grouped_decode;
        g.path = path;
        g.manifest = table.info.manifest;
        g.peak_flops = table_peak_flops(g.manifest, gpu);
        if (!usable_peak(index.notes, table.info, g.peak_flops)) continue;
        std::map<std::array<int64_t, 6>,
                 std::pair<std::vector<std::pair<int64_t, double>>, std::vector<std::pair<int64_t, double>>>>
            keyed;
        int imprecise = 0;
        for (const GroupedGemmRow& row : table.rows) {
            std::array<int64_t, 6> key{row.num_experts, row.num_gpus,    row.num_local_experts,
                                       row.topk,        row.hidden_size, row.intermediate_size};
            // InferSim's grouped-GEMM FLOPs: up = 2 * T * topk * h * 2I, down = 2 * T * topk * I * h.
            double base = 2.0 * static_cast<double>(row.tokens_per_gpu) * static_cast<double>(row.topk) *
                          static_cast<double>(row.hidden_size) * static_cast<double>(row.intermediate_size);
            double up = usable_mfu(row.up_mfu, imprecise) ? 2.0 * base / (row.up_mfu * g.peak_flops) * 1e6 : 0.0;
            double down = usable_mfu(row.down_mfu, imprecise) ? base / (row.down_mfu * g.peak_flops) * 1e6 : 0.0;
            keyed[key].first.push_back({row.tokens_per_gpu, up});
            keyed[key].second.push_back({row.tokens_per_gpu, down});
        }
        int skipped = -imprecise, merged = 0, raised = 0;
        note_imprecise(index.notes, path, imprecise);
        for (auto& [key, pair] : keyed) {
            GroupedGemmEntry e{key, MeasuredCurve::build(std::move(pair.first)),
                               MeasuredCurve::build(std::move(pair.second))};
            skipped += e.up.skipped + e.down.skipped;
            merged += e.up.merged + e.down.merged;
            raised += e.up.raised + e.down.raised;
            if (!e.up.empty() && !e.down.empty()) g.entries.push_back(std::move(e));
        }
        note_curve(index.notes, path, skipped, merged, raised);
        (prefill ? index.has_grouped_prefill : index.has_grouped_decode) = !g.entries.empty();
    }

    for (const auto& [path, table] : data.gdn) {
        if (table.info.gpu != folder || table.info.shape.size() != 5) continue;
        GdnTableEntry e;
        e.path = path;
        for (std::size_t i = 0; i < 5; ++i) e.shape[i] = table.info.shape[i];
        std::vector<std::pair<int64_t, double>> points;
        for (const GdnRow& row : table.rows) {
            double sum = 0;
            for (double us : row.latencies_us) sum += us;
            points.push_back({row.x, sum});
        }
        e.curve = MeasuredCurve::build(std::move(points));
        note_curve(index.notes, path, e.curve.skipped, e.curve.merged, e.curve.raised);
        (path.find("/prefill/") != std::string::npos ? index.gdn_prefill : index.gdn_decode).push_back(std::move(e));
    }
    return index;
}

}  // namespace mfusim::tables
