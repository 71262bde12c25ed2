#include "tables/inspect.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace mfusim::tables {

namespace {

std::string range(int64_t lo, int64_t hi) {
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
}

std::string peak_text(const Manifest& m) {
    std::string text = peak_dtype_name(m.peak_dtype);
    if (!m.present) return text + " (convention; no manifest.json)";
    text += " (manifest";
    if (m.peak_tflops > 0)
        text +=
            ", " + std::to_string(m.peak_tflops).substr(0, std::to_string(m.peak_tflops).find('.') + 2) + " TFLOP/s";
    return text + ")";
}

template <class Row>
TableSummary base(const Table<Row>& t, const char* kind) {
    TableSummary s;
    s.relative_path = t.info.relative_path;
    s.gpu = t.info.gpu;
    s.kind = kind;
    s.rows = t.rows.size();
    s.peak = peak_text(t.info.manifest);
    if (!t.info.first_line_is_header) {
        s.problems.push_back(
            "no header line: the first line is data (InferSim skips it, so compat mode ignores that row)");
    }
    return s;
}

void check_mfu(TableSummary& s, const std::vector<double>& mfus, const char* column) {
    std::size_t zeros = 0, above_one = 0;
    for (double m : mfus) {
        zeros += m == 0;
        above_one += m > 1;
    }
    if (zeros)
        s.problems.push_back(std::to_string(zeros) + " rows with " + column +
                             " 0 (roofline skips them; compat divides by them as InferSim does)");
    if (above_one)
        s.problems.push_back(std::to_string(above_one) + " rows with " + column +
                             " above 1 (wrong peak in the benchmark?)");
}

template <class Key>
void check_order(TableSummary& s, const std::vector<Key>& keys, const char* what) {
    std::size_t duplicates = 0, descents = 0;
    std::set<Key> seen;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!seen.insert(keys[i]).second) ++duplicates;
        if (i > 0 && keys[i] < keys[i - 1]) ++descents;
    }
    if (duplicates)
        s.problems.push_back(std::to_string(duplicates) + " duplicate " + what +
                             " rows (the first is used by roofline)");
    if (descents)
        s.problems.push_back(std::to_string(descents) + " places where " + what +
                             " is not ascending (file order matters to compat lookups)");
}

}  // namespace

std::vector<TableSummary> inspect(const BenchData& data) {
    std::vector<TableSummary> out;
    for (const auto& [path, t] : data.gemm) {
        TableSummary s = base(t, "gemm");
        std::set<std::pair<int64_t, int64_t>> groups;
        int64_t mlo = INT64_MAX, mhi = 0;
        std::vector<double> mfus;
        std::vector<std::tuple<int64_t, int64_t, int64_t>> keys;
        for (const GemmRow& r : t.rows) {
            groups.insert({r.k, r.n});
            mlo = std::min(mlo, r.m);
            mhi = std::max(mhi, r.m);
            mfus.push_back(r.mfu);
            keys.emplace_back(r.k, r.n, r.m);
        }
        s.coverage = std::to_string(groups.size()) + " (k,n) shapes, m " + range(mlo, mhi);
        check_mfu(s, mfus, "mfu");
        std::set<std::tuple<int64_t, int64_t, int64_t>> unique(keys.begin(), keys.end());
        if (unique.size() != keys.size()) {
            s.problems.push_back(std::to_string(keys.size() - unique.size()) +
                                 " duplicate (m,k,n) rows (the first is used by roofline)");
        }
        out.push_back(std::move(s));
    }
    for (const auto& [path, t] : data.attention_prefill) {
        TableSummary s = base(t, "attention prefill");
        std::vector<int64_t> keys;
        std::vector<double> mfus;
        for (const auto& r : t.rows) {
            keys.push_back(r.seq_len);
            mfus.push_back(r.mfu);
        }
        s.coverage = "seq_len " +
                     range(*std::min_element(keys.begin(), keys.end()), *std::max_element(keys.begin(), keys.end()));
        check_mfu(s, mfus, "mfu");
        check_order(s, keys, "seq_len");
        out.push_back(std::move(s));
    }
    for (const auto& [path, t] : data.attention_decode) {
        TableSummary s = base(t, "attention decode");
        std::set<int64_t> batches, kvs;
        std::set<std::string> dtypes;
        std::vector<double> mfus;
        std::vector<std::tuple<std::string, int64_t, int64_t>> keys;
        for (const auto& r : t.rows) {
            batches.insert(r.batch_size);
            kvs.insert(r.kv_len);
            dtypes.insert(r.kv_dtype);
            mfus.push_back(r.mfu);
            keys.emplace_back(r.kv_dtype, r.batch_size, r.kv_len);
        }
        std::string dt;
        for (const auto& d : dtypes) dt += (dt.empty() ? "" : "+") + d;
        s.coverage = "kv " + dt + ", batch " + range(*batches.begin(), *batches.rbegin()) + " (" +
                     std::to_string(batches.size()) + " values) x kv_len " + range(*kvs.begin(), *kvs.rbegin()) + " (" +
                     std::to_string(kvs.size()) + " values)" + (t.info.tp ? ", tp " + std::to_string(t.info.tp) : "");
        check_mfu(s, mfus, "mfu");
        check_order(s, keys, "(kv_dtype, batch, kv_len)");
        out.push_back(std::move(s));
    }
    for (const auto& [path, t] : data.grouped_gemm) {
        TableSummary s = base(t, "grouped gemm");
        std::set<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>> keys;
        std::vector<double> mfus;
        int64_t lo = INT64_MAX, hi = 0;
        for (const auto& r : t.rows) {
            keys.insert({r.num_experts, r.num_gpus, r.num_local_experts, r.topk, r.hidden_size, r.intermediate_size});
            mfus.push_back(r.up_mfu);
            mfus.push_back(r.down_mfu);
            lo = std::min(lo, r.tokens_per_gpu);
            hi = std::max(hi, r.tokens_per_gpu);
        }
        s.coverage = std::to_string(keys.size()) + " expert configurations, tokens/GPU " + range(lo, hi);
        check_mfu(s, mfus, "up/down mfu");
        out.push_back(std::move(s));
    }
    for (const auto& [path, t] : data.gdn) {
        TableSummary s = base(t, "gdn latency");
        std::vector<int64_t> keys;
        for (const auto& r : t.rows) keys.push_back(r.x);
        s.coverage = std::to_string(t.rows.size()) + " sizes " +
                     range(*std::min_element(keys.begin(), keys.end()), *std::max_element(keys.begin(), keys.end())) +
                     " (latencies, no MFU)";
        s.peak = "n/a";
        check_order(s, keys, "size");
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const TableSummary& a, const TableSummary& b) {
        return std::tie(a.gpu, a.relative_path) < std::tie(b.gpu, b.relative_path);
    });
    return out;
}

}  // namespace mfusim::tables
