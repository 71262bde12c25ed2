#include "compare/compare.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/hash.hpp"
#include "compare/columns.hpp"
#include "compare/families.hpp"
#include "roofline/analytical.hpp"
#include "roofline/kernels.hpp"
#include "tables/csv.hpp"

namespace mfusim::compare {

namespace {

using roofline::AttentionGeometry;
using roofline::KernelModel;
using roofline::OpProvenance;

const char* source_word(mfusim_source s) {
    switch (s) {
        case MFUSIM_SOURCE_TABLE_EXACT:
            return "exact";
        case MFUSIM_SOURCE_TABLE_INTERPOLATED:
            return "interpolated";
        case MFUSIM_SOURCE_TABLE_NEAREST:
            return "nearest";
        case MFUSIM_SOURCE_ANALYTICAL:
            return "analytical";
        case MFUSIM_SOURCE_DEFAULT:
            return "default";
        default:
            return "none";
    }
}

FamilyReport summarise(std::string family, std::vector<CompareRow> rows) {
    FamilyReport f;
    f.family = std::move(family);
    std::vector<double> all, covered;
    for (const CompareRow& r : rows) {
        all.push_back(r.error);
        if (r.covered) covered.push_back(r.error);
    }
    f.all = error_stats(std::move(all));
    f.covered = error_stats(std::move(covered));
    f.rows = rows;
    std::stable_sort(rows.begin(), rows.end(),
                     [](const CompareRow& a, const CompareRow& b) { return std::fabs(a.error) > std::fabs(b.error); });
    if (rows.size() > 10) rows.resize(10);
    f.worst = std::move(rows);
    return f;
}

std::string path_in(const std::string& dir, const char* file) {
    return dir + "/" + file;
}

std::optional<std::size_t> optional_column(const tables::CsvText& text, const char* name) {
    const auto& header = text.lines.front().fields;
    auto it = std::find(header.begin(), header.end(), std::string(name));
    if (it == header.end()) return std::nullopt;
    return static_cast<std::size_t>(it - header.begin());
}

// The rows of one family, each with the half its shape key falls in.
struct Parsed {
    std::string family;
    std::vector<MeasuredRow> rows;
    void add(MeasuredRow r, const std::string& shape_key) {
        r.half = split_of(family, shape_key);
        rows.push_back(std::move(r));
    }
};

void parse_gemm(const tables::CsvText& text, Parsed& out) {
    Header h(text, {"m", "n", "k", "latency"});
    for (std::size_t i = 1; i < text.lines.size(); ++i) {
        tables::CsvFieldReader f(text, text.lines[i]);
        int64_t m = bounded(f, h["m"], "m"), n = bounded(f, h["n"], "n"), k = bounded(f, h["k"], "k");
        double ms = f.number(h["latency"], "latency");
        if (m <= 0 || n <= 0 || k <= 0 || !(ms > 0)) continue;
        MeasuredRow r;
        r.shape = "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
        r.measured_us = ms * 1000;
        r.m = m;
        r.n = n;
        r.k = k;
        out.add(std::move(r), "n=" + std::to_string(n) + " k=" + std::to_string(k));
    }
}

AttentionGeometry mha_geometry(int64_t heads, int64_t kv_heads, int64_t dim, double kv_element) {
    return AttentionGeometry{heads, kv_heads, dim, dim, 2.0 * static_cast<double>(kv_heads * dim) * kv_element, 2.0};
}

std::string shape_of_attention(int64_t batch, const char* size_name, int64_t size, int64_t heads, int64_t kv_heads,
                               int64_t dim) {
    return "b=" + std::to_string(batch) + " " + size_name + "=" + std::to_string(size) + " h=" + std::to_string(heads) +
           "/" + std::to_string(kv_heads) + " d=" + std::to_string(dim);
}

void parse_context(const tables::CsvText& text, Parsed& out) {
    Header h(text, {"batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim", "step", "latency"});
    std::optional<std::size_t> source_column = optional_column(text, "kernel_source");
    for (std::size_t i = 1; i < text.lines.size(); ++i) {
        tables::CsvFieldReader f(text, text.lines[i]);
        int64_t b = bounded(f, h["batch_size"], "batch_size"), s = bounded(f, h["isl"], "isl");
        int64_t hq = bounded(f, h["num_heads"], "num_heads"),
                hkv = bounded(f, h["num_key_value_heads"], "num_key_value_heads");
        int64_t d = bounded(f, h["head_dim"], "head_dim"), prefix = bounded(f, h["step"], "step");
        double ms = f.number(h["latency"], "latency");
        if (b <= 0 || s <= 0 || hq <= 0 || hkv <= 0 || d <= 0 || prefix < 0 || !(ms > 0)) continue;
        MeasuredRow r;
        r.shape = shape_of_attention(b, "isl", s, hq, hkv, d);
        r.measured_us = ms * 1000;
        r.batch = b;
        r.tokens = s;
        r.context = prefix;
        r.heads = hq;
        r.kv_heads = hkv;
        r.head_dim = d;
        // Rows the engine ran with its decode kernel (B200: vLLM sends 1-token chunks to FlashInfer's TRT-LLM
        // decode kernel) are timed as decodes, as the step model times 1-token requests. (FA2 runs every 1-token
        // launch down its decode path too: that depends on the GPU, so it is decided where the rows are timed.)
        r.decode_kernel =
            s == 1 && source_column && f.text(*source_column, "kernel_source").find("decode") != std::string_view::npos;
        out.add(std::move(r), shape_of_attention(b, "isl", 0, hq, hkv, d));
    }
}

void parse_generation(const tables::CsvText& text, Parsed& out) {
    Header h(text, {"batch_size", "num_heads", "num_key_value_heads", "head_dim", "step", "latency"});
    for (std::size_t i = 1; i < text.lines.size(); ++i) {
        tables::CsvFieldReader f(text, text.lines[i]);
        int64_t b = bounded(f, h["batch_size"], "batch_size");
        int64_t hq = bounded(f, h["num_heads"], "num_heads"),
                hkv = bounded(f, h["num_key_value_heads"], "num_key_value_heads");
        int64_t d = bounded(f, h["head_dim"], "head_dim"), step = bounded(f, h["step"], "step");
        double ms = f.number(h["latency"], "latency");
        if (b <= 0 || step < 0 || hq <= 0 || hkv <= 0 || d <= 0 || !(ms > 0)) continue;
        MeasuredRow r;
        // `step` tokens of history; the new token's own key makes step + 1.
        r.shape = shape_of_attention(b, "kv", step + 1, hq, hkv, d);
        r.measured_us = ms * 1000;
        r.batch = b;
        r.tokens = 1;
        r.context = step + 1;
        r.heads = hq;
        r.kv_heads = hkv;
        r.head_dim = d;
        out.add(std::move(r), shape_of_attention(b, "kv", 0, hq, hkv, d));
    }
}

// vLLM's custom all-reduce serves messages below its max_size (8 MiB by default; vllm
// CustomAllreduce.should_custom_ar); rows of the custom-allreduce files at or above it measure NCCL's fallback.
constexpr double kVllmCustomAllreduceMaxBytes = 8.0 * 1024 * 1024;

// All-reduce rows: NCCL rows (kernel_source NCCL or absent) into `nccl`, vLLM custom all-reduce rows into `custom`.
void parse_allreduce(const tables::CsvText& text, Parsed& nccl, Parsed& custom, std::map<std::string, int>& skipped) {
    Header h(text, {"op_name", "nccl_dtype", "num_gpus", "message_size", "latency"});
    std::optional<std::size_t> source_column = optional_column(text, "kernel_source");
    for (std::size_t i = 1; i < text.lines.size(); ++i) {
        tables::CsvFieldReader f(text, text.lines[i]);
        std::string op(f.text(h["op_name"], "op_name"));
        std::string dtype(f.text(h["nccl_dtype"], "nccl_dtype"));
        std::string source = source_column ? std::string(f.text(*source_column, "kernel_source")) : "NCCL";
        bool is_custom = source.rfind("vLLM_custom", 0) == 0;
        if (op != "all_reduce") {
            ++skipped[op];
            continue;
        }
        double element = dtype == "half" || dtype == "bfloat16" || dtype == "fp16" ? 2.0
                         : dtype == "int8" || dtype == "fp8"                       ? 1.0
                         : dtype == "float" || dtype == "fp32"                     ? 4.0
                                                                                   : 0.0;
        if (element == 0) {
            ++skipped["all_reduce/" + dtype];
            continue;
        }
        int64_t gpus = bounded(f, h["num_gpus"], "num_gpus"), elements = bounded(f, h["message_size"], "message_size");
        double ms = f.number(h["latency"], "latency");
        if (gpus < 2 || elements <= 0 || !(ms > 0)) continue;
        double bytes = static_cast<double>(elements) * element;
        if (is_custom && bytes >= kVllmCustomAllreduceMaxBytes) {
            ++skipped["all_reduce at or above vLLM's 8 MiB custom all-reduce limit (NCCL fallback)"];
            continue;
        }
        std::string key = "gpus=" + std::to_string(gpus) + " bytes=" + std::to_string(static_cast<int64_t>(bytes));
        MeasuredRow r;
        r.shape = key + " " + dtype;
        r.measured_us = ms * 1000;
        r.gpus = gpus;
        r.bytes = bytes;
        (is_custom ? custom : nccl).add(std::move(r), key);
    }
}

// Predicts every row of one family with the step model's own site functions, calling
// on_row(row, predicted_us, provenance) in row order. Sites are built once per shape.
template <class OnRow>
void predict_family(const MeasuredFamily& family, const KernelModel& kernels, const gpu::GpuProfile& gpu,
                    OnRow&& on_row) {
    const std::string& name = family.family;
    if (name == "gemm") {
        std::map<std::pair<int64_t, int64_t>, roofline::GemmSite> sites;
        for (const MeasuredRow& r : family.rows) {
            auto it = sites.find({r.k, r.n});
            if (it == sites.end()) it = sites.emplace(std::make_pair(r.k, r.n), kernels.gemm_site(r.k, r.n)).first;
            on_row(r, it->second.time_us(r.m), it->second.provenance(r.m));
        }
    } else if (name == "context_attention" || name == "generation_attention") {
        using Key = std::tuple<int64_t, int64_t, int64_t>;
        std::map<Key, roofline::PrefillAttentionSite> prefill_sites;
        std::map<Key, roofline::DecodeAttentionSite> decode_sites;
        const bool decodes = name == "generation_attention";
        // FA2 runs every launch of 1-token queries down its decode path (split-KV with swapped query groups).
        const bool fa2 = kernels.gpu().attention_kernel == gpu::AttentionKernel::fa2;
        for (const MeasuredRow& r : family.rows) {
            const Key key{r.heads, r.kv_heads, r.head_dim};
            const std::array<int64_t, 3> shape{r.heads, r.kv_heads, r.head_dim};
            if (decodes || r.decode_kernel || (fa2 && r.tokens == 1)) {
                auto it = decode_sites.find(key);
                if (it == decode_sites.end()) {
                    AttentionGeometry g = mha_geometry(r.heads, r.kv_heads, r.head_dim, kernels.kv_element_bytes());
                    it =
                        decode_sites.emplace(key, kernels.decode_site(g, tables::AttentionFamily::mha, shape, 1)).first;
                }
                // A generation row's context counts its own key; a context row's prefix does not.
                const int64_t keys = decodes ? r.context : r.context + 1;
                roofline::DecodeWork work{static_cast<double>(r.batch),
                                          static_cast<double>(r.batch) * static_cast<double>(keys)};
                on_row(r, it->second.time_us(work), it->second.provenance(work));
                continue;
            }
            auto it = prefill_sites.find(key);
            if (it == prefill_sites.end()) {
                AttentionGeometry g = mha_geometry(r.heads, r.kv_heads, r.head_dim, kernels.kv_element_bytes());
                it = prefill_sites.emplace(key, kernels.prefill_site(g, tables::AttentionFamily::mha, shape, 1)).first;
            }
            roofline::PrefillWork one;
            it->second.add_chunk(one, r.tokens, r.context);
            // Scaling one chunk replaces a loop whose count came from the file (a huge batch_size hung it).
            roofline::PrefillWork work;
            work.add_copies(one, static_cast<double>(r.batch));
            on_row(r, it->second.time_us(work), it->second.provenance(work));
        }
    } else if (name == "nccl_all_reduce" || name == "custom_all_reduce") {
        const bool custom = name == "custom_all_reduce";
        const OpProvenance analytical;
        for (const MeasuredRow& r : family.rows) {
            on_row(r,
                   custom ? roofline::custom_allreduce_us(gpu, r.bytes, r.gpus)
                          : roofline::nccl_allreduce_us(gpu, r.bytes, r.gpus),
                   analytical);
        }
    } else if (is_large_model_family(name)) {
        const OpProvenance analytical;
        for (const MeasuredRow& r : family.rows) on_row(r, predict_large_model_row(name, r, gpu), analytical);
    } else {
        throw Error(Status::internal, "compare: no prediction for family '" + name + "'");
    }
}

KernelModel kernel_model(const gpu::GpuProfile& gpu, std::shared_ptr<const tables::BenchData> tables) {
    return KernelModel(gpu, std::move(tables), roofline::GemmDtype::bf16, false);
}

}  // namespace

ErrorStats error_stats(std::vector<double> errors) {
    ErrorStats s;
    s.count = errors.size();
    if (errors.empty()) return s;
    auto median = [](std::vector<double>& v) {
        std::sort(v.begin(), v.end());
        std::size_t n = v.size();
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    std::vector<double> signed_errors = errors;
    s.median_signed = median(signed_errors);
    for (double& e : errors) e = std::fabs(e);
    s.median_abs = median(errors);
    std::size_t rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(errors.size())));
    s.p90_abs = errors[std::max<std::size_t>(rank, 1) - 1];
    return s;
}

Split split_of(const std::string& family, const std::string& shape_key) {
    const uint64_t h = fnv1a64(family + "|" + shape_key);
    return (h >> 32) % 2 == 0 ? Split::train : Split::test;
}

MeasuredKernels read_aic(const std::string& aic_dir, const std::string& configs_dir) {
    MeasuredKernels measured;
    measured.dir = aic_dir;
    if (!is_directory(aic_dir)) throw Error(Status::io, aic_dir + ": not a directory of measured kernel tables");
    struct Family {
        const char* file;
        const char* name;
    };
    const Family families[] = {{"gemm_bf16.csv", "gemm"},
                               {"context_attention_bf16.csv", "context_attention"},
                               {"generation_attention_bf16.csv", "generation_attention"},
                               {"nccl.csv", "nccl_all_reduce"}};
    std::string identity;
    const bool has_any = std::any_of(std::begin(families), std::end(families),
                                     [&](const Family& f) { return is_regular_file(path_in(aic_dir, f.file)); });
    for (const Family& family : families) {
        std::string path = path_in(aic_dir, family.file);
        if (!is_regular_file(path)) {
            // A families directory (aic-<gpu>-families) holds none of these: no note for each.
            if (!has_any) continue;
            measured.notes.push_back(std::string(family.file) + ": absent; family skipped");
            continue;
        }
        tables::CsvText text = tables::read_csv_file(path);
        MeasuredFile file{family.file, text.bytes.size(), fnv1a64_hex(text.bytes)};
        identity += file.file + " " + file.fnv1a64 + "\n";
        measured.files.push_back(std::move(file));
        Parsed rows{family.name, {}};
        std::map<std::string, int> skipped;
        std::string name = family.name;
        if (name == "gemm") parse_gemm(text, rows);
        if (name == "context_attention") parse_context(text, rows);
        if (name == "generation_attention") parse_generation(text, rows);
        Parsed custom{"custom_all_reduce", {}};
        if (name == "nccl_all_reduce") parse_allreduce(text, rows, custom, skipped);
        for (const auto& [op, count] : skipped) {
            measured.notes.push_back(std::string(family.file) + ": " + std::to_string(count) + " '" + op +
                                     "' rows not modelled by the roofline (it uses all-reduce only); skipped");
        }
        // A file of custom all-reduce rows only (aic-<gpu>-custom-allreduce) reports that family alone.
        if (name != "nccl_all_reduce" || !rows.rows.empty() || custom.rows.empty()) {
            measured.families.push_back({name, std::move(rows.rows)});
        }
        if (!custom.rows.empty()) measured.families.push_back({custom.family, std::move(custom.rows)});
    }
    std::vector<MoeRouter> routers;
    if (!configs_dir.empty()) {
        routers = read_moe_routers(configs_dir);
        // The routers change the moe rows' predictions: part of what the directory's identity names.
        for (const MoeRouter& r : routers) {
            identity += "router " + std::to_string(r.hidden) + " " + std::to_string(r.inter) + " " +
                        std::to_string(r.topk) + "/" + std::to_string(r.experts) + " " + std::to_string(r.groups) +
                        "/" + std::to_string(r.topk_groups) + (r.gated ? "" : " ungated") + "\n";
        }
    }
    read_large_model_families(aic_dir, measured, identity, routers);
    if (measured.files.empty()) {
        throw Error(Status::io, aic_dir +
                                    ": none of gemm_bf16.csv, context_attention_bf16.csv, "
                                    "generation_attention_bf16.csv, nccl.csv nor a families file (moe_vllm.csv, "
                                    "mla_*_vllm.csv, dsa_*_vllm.csv, gdn_vllm.csv, mamba2_trtllm.csv, "
                                    "deepep_*_sglang.csv) is present");
    }
    measured.fnv1a64 = fnv1a64_hex(identity);
    return measured;
}

MeasuredKernels only_half(const MeasuredKernels& measured, Split split) {
    if (split == Split::all) return measured;
    MeasuredKernels half = measured;
    for (MeasuredFamily& family : half.families) {
        std::erase_if(family.rows, [split](const MeasuredRow& r) { return r.half != split; });
    }
    return half;
}

std::vector<double> family_errors(const MeasuredFamily& family, const gpu::GpuProfile& gpu,
                                  std::shared_ptr<const tables::BenchData> tables) {
    const KernelModel kernels = kernel_model(gpu, std::move(tables));
    std::vector<double> errors;
    errors.reserve(family.rows.size());
    predict_family(family, kernels, kernels.gpu(), [&](const MeasuredRow& r, double predicted, const OpProvenance&) {
        errors.push_back(predicted / r.measured_us - 1);
    });
    return errors;
}

CompareReport compare_measured(const MeasuredKernels& measured, const gpu::GpuProfile& gpu,
                               std::shared_ptr<const tables::BenchData> tables, Split split) {
    CompareReport report;
    report.aic_dir = measured.dir;
    report.gpu = gpu.name;
    report.tables = tables ? tables->root : "";
    report.split = split;
    const KernelModel kernels = kernel_model(gpu, std::move(tables));
    report.notes = kernels.warnings();
    report.notes.insert(report.notes.end(), measured.notes.begin(), measured.notes.end());
    for (const MeasuredFamily& family : only_half(measured, split).families) {
        std::vector<CompareRow> rows;
        predict_family(
            family, kernels, kernels.gpu(), [&](const MeasuredRow& r, double predicted, const OpProvenance& p) {
                CompareRow row;
                row.shape = r.shape;
                row.measured_us = r.measured_us;
                row.predicted_us = predicted;
                row.error = predicted / r.measured_us - 1;
                row.source = source_word(p.source);
                row.distance = p.distance;
                row.covered = p.source == MFUSIM_SOURCE_TABLE_EXACT || p.source == MFUSIM_SOURCE_TABLE_INTERPOLATED;
                rows.push_back(std::move(row));
            });
        report.families.push_back(summarise(family.family, std::move(rows)));
    }
    return report;
}

CompareReport compare_aic(const std::string& aic_dir, const gpu::GpuProfile& gpu,
                          std::shared_ptr<const tables::BenchData> tables, Split split,
                          const std::string& configs_dir) {
    return compare_measured(read_aic(aic_dir, configs_dir), gpu, std::move(tables), split);
}

std::string format_compare(const CompareReport& report) {
    std::string out;
    char buf[256];
    const char* split = report.split == Split::train  ? " (train half of the shapes)"
                        : report.split == Split::test ? " (test half of the shapes)"
                                                      : "";
    out += "compare: " + report.aic_dir + split + " on " + report.gpu + " with " +
           (report.tables.empty() ? std::string("no tables (analytical model)") : "tables " + report.tables) + "\n";
    std::snprintf(buf, sizeof buf, "%-22s %8s %8s %8s %8s | %8s %8s %8s\n", "family", "count", "median", "p90", "bias",
                  "covered", "median", "p90");
    out += buf;
    for (const FamilyReport& f : report.families) {
        std::snprintf(buf, sizeof buf, "%-22s %8zu %7.1f%% %7.1f%% %+7.1f%% | %8zu %7.1f%% %7.1f%%\n", f.family.c_str(),
                      f.all.count, 100 * f.all.median_abs, 100 * f.all.p90_abs, 100 * f.all.median_signed,
                      f.covered.count, 100 * f.covered.median_abs, 100 * f.covered.p90_abs);
        out += buf;
    }
    out +=
        "(error = predicted / measured - 1; median and p90 of |error|; bias = median signed error; covered = "
        "rows whose shape and size a table measures)\n";
    for (const FamilyReport& f : report.families) {
        out += "\nworst " + f.family + ":\n";
        for (const CompareRow& r : f.worst) {
            std::snprintf(buf, sizeof buf, "  %-40s measured %10.2f us  predicted %10.2f us  %+7.1f%%  %s",
                          r.shape.c_str(), r.measured_us, r.predicted_us, 100 * r.error, r.source.c_str());
            out += buf;
            if (r.source == "nearest") {
                std::snprintf(buf, sizeof buf, " (%.2f octaves)", r.distance);
                out += buf;
            }
            out += "\n";
        }
    }
    if (!report.notes.empty()) {
        out += "\nnotes:\n";
        for (const std::string& n : report.notes) out += "  " + n + "\n";
    }
    return out;
}

}  // namespace mfusim::compare
