#include "compat/lookups.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "common/numbers.hpp"

namespace mfusim::compat {

namespace {

constexpr double kPrefillMissingMfu = 0.9;  // 5.1: a missing prefill table gives 0.9, not mu0

[[noreturn]] void raise(const char* exception, const std::string& what) {
    throw Error(Status::compat_crash, std::string("InferSim raises ") + exception + ": " + what);
}

template <class Row>
const tables::Table<Row>* find(const tables::BenchData* data,
                               const std::map<std::string, tables::Table<Row>> tables::BenchData::*member,
                               const std::string& path) {
    return data ? tables::find_table(data->*member, path) : nullptr;
}

int64_t abs_diff(int64_t a, int64_t b) {
    return a > b ? a - b : b - a;
}

Pick table_pick(double value, int64_t distance, const std::string& path) {
    Pick p;
    p.value = value;
    p.source = distance == 0 ? MFUSIM_SOURCE_TABLE_EXACT : MFUSIM_SOURCE_TABLE_NEAREST;
    p.distance = static_cast<double>(distance);
    p.table = &path;
    return p;
}

Pick default_pick(double value) {
    Pick p;
    p.value = value;
    return p;
}

}  // namespace

std::string infersim_path(const std::string& relative_path) {
    return "bench_data/" + relative_path;
}

// ---- 5.1 attention prefill ------------------------------------------------------------------------------------

void AttentionPrefillLookup::resolve(const tables::BenchData* data, std::string relative_path, double mu0) {
    path_ = std::move(relative_path);
    warning_ = "Warning: " + infersim_path(path_) + " not exist.";
    mu0_r3_ = round3(mu0);
    const auto* table = find(data, &tables::BenchData::attention_prefill, path_);
    present_ = table != nullptr;
    rows_.clear();
    if (table) {
        for (const auto& row : infersim_rows(*table)) rows_.push_back({row.seq_len, round3(row.mfu)});
    }
}

Pick AttentionPrefillLookup::lookup(int64_t S) const {
    if (!present_) return default_pick(kPrefillMissingMfu);
    const Row* hit = nullptr;
    for (const Row& row : rows_) {
        if (row.seq_len <= S) {
            hit = &row;
        } else {
            break;
        }
    }
    if (!hit) return default_pick(mu0_r3_);
    return table_pick(hit->mfu, S - hit->seq_len, path_);
}

// ---- 5.2 attention decode -------------------------------------------------------------------------------------

void AttentionDecodeLookup::resolve(const tables::BenchData* data, std::string relative_path, double mu0, bool fp8_kv) {
    path_ = std::move(relative_path);
    warning_ = "Warning: " + infersim_path(path_) + " not exists";
    mu0_ = mu0;
    fp8_kv_ = fp8_kv;
    const auto* table = find(data, &tables::BenchData::attention_decode, path_);
    present_ = table != nullptr;
    rows_.clear();
    if (table) {
        const char* dtype = fp8_kv ? "fp8" : "bf16";
        for (const auto& row : infersim_rows(*table)) {
            if (row.kv_dtype == dtype) rows_.push_back({row.batch_size, row.kv_len, round3(row.mfu)});
        }
    }
}

Pick AttentionDecodeLookup::lookup(int64_t B, int64_t K) const {
    if (!present_) return default_pick(mu0_);
    if (rows_.empty()) {
        raise("ValueError", std::string("min() arg is an empty sequence (") + path_ + " has no " +
                                (fp8_kv_ ? "fp8" : "bf16") + " kv_dtype rows" +
                                (fp8_kv_ ? "; only mha/decode/h20/32-8-128.csv ships fp8 rows" : "") + ")");
    }
    const Row* best = &rows_.front();
    int64_t best_distance = abs_diff(best->batch_size, B) + abs_diff(best->kv_len, K);
    for (const Row& row : rows_) {
        int64_t distance = abs_diff(row.batch_size, B) + abs_diff(row.kv_len, K);
        if (distance < best_distance) {
            best = &row;
            best_distance = distance;
        }
    }
    return table_pick(best->mfu, best_distance, path_);
}

// ---- 5.3 GEMM -------------------------------------------------------------------------------------------------

void GemmTable::resolve(const tables::BenchData* data, std::string relative_path, double mu0) {
    path_ = std::move(relative_path);
    warning_ = "Warning: " + infersim_path(path_) + " not exists";
    mu0_ = mu0;
    table_ = find(data, &tables::BenchData::gemm, path_);
}

GemmSite GemmTable::site(int64_t k, int64_t n) const {
    GemmSite site;
    site.k_ = k;
    site.n_ = n;
    site.mu0_ = mu0_;
    site.mu0_r3_ = round3(mu0_);
    site.path_ = path_;
    site.present_ = table_ != nullptr;
    if (!table_) return site;
    auto rows = infersim_rows(*table_);
    // Target (k*, n*): the first strictly nearer superset by squared distance, below 1e9.
    int64_t best = 1000000000;
    for (const auto& row : rows) {
        if (row.k < k || row.n < n) continue;
        int64_t dk = k - row.k, dn = n - row.n;
        int64_t distance = dk * dk + dn * dn;
        if (distance < best) {
            best = distance;
            site.k_star_ = row.k;
            site.n_star_ = row.n;
            site.has_group_ = true;
        }
    }
    if (!site.has_group_) return site;
    for (const auto& row : rows) {
        if (row.k == site.k_star_ && row.n == site.n_star_) site.rows_.push_back({row.m, round3(row.mfu)});
    }
    return site;
}

Pick GemmSite::lookup(int64_t m) const {
    if (!present_) return default_pick(mu0_);
    const Row* hit = nullptr;
    for (const Row& row : rows_) {
        if (row.m <= m) hit = &row;  // the last such row in file order wins
    }
    if (!hit) return default_pick(mu0_r3_);
    return table_pick(hit->mfu, (k_star_ - k_) + (n_star_ - n_) + (m - hit->m), path_);
}

// ---- 5.4 / 5.5 grouped GEMM -----------------------------------------------------------------------------------

void GroupedGemmLookup::resolve(const tables::BenchData* data, tables::Phase phase, std::string relative_path,
                                const Key& key, double mu0) {
    path_ = std::move(relative_path);
    phase_ = phase;
    mu0_ = mu0;
    double u = round3(mu0), w = round3(mu0);
    mu0_pair_ = w > u ? w : u;
    const auto* table = find(data, &tables::BenchData::grouped_gemm, path_);
    present_ = table != nullptr;
    rows_.clear();
    warning_.clear();
    ep_zero_ = false;
    const bool prefill = phase == tables::Phase::prefill;
    if (!table) {
        warning_ = std::string(prefill ? "Warning: " : "warning: ") + infersim_path(path_) + " not exists";
        return;
    }
    if (key.ep == 0) {
        ep_zero_ = true;  // E // ep raises when the lookup runs
        return;
    }
    const int64_t local = key.num_experts / key.ep;
    for (const auto& row : infersim_rows(*table)) {
        if (row.num_experts == key.num_experts && row.num_gpus == key.world_size && row.num_local_experts == local &&
            row.topk == key.topk && row.hidden_size == key.hidden_size &&
            row.intermediate_size == key.intermediate_size) {
            double up = round3(row.up_mfu), down = round3(row.down_mfu);
            rows_.push_back({row.tokens_per_gpu, down > up ? down : up});
        }
    }
    if (rows_.empty()) {
        warning_ = std::string("Warning: grouped_gemm ") + (prefill ? "prefill" : "decode") +
                   " mfu not found, will use default mfu.";
    }
}

Pick GroupedGemmLookup::lookup(int64_t m) const {
    if (!present_) return default_pick(mu0_);  // (mu0, mu0), not rounded
    if (ep_zero_) {
        raise("ZeroDivisionError",
              "integer division or modulo by zero (grouped-GEMM key num_experts // (world_size "
              "// tp_size) with world_size < tp_size)");
    }
    const bool prefill = phase_ == tables::Phase::prefill;
    // No matching row: prefill scans nothing and rounds its (mu0, mu0); decode returns them as they are.
    if (rows_.empty()) return default_pick(prefill ? mu0_pair_ : mu0_);
    if (prefill) {
        const Row* hit = nullptr;
        for (const Row& row : rows_) {
            if (row.tokens <= m) {
                hit = &row;
            } else {
                break;
            }
        }
        if (!hit) return default_pick(mu0_pair_);
        return table_pick(hit->mfu, m - hit->tokens, path_);
    }
    const Row* best = &rows_.front();
    int64_t best_distance = abs_diff(best->tokens, m);
    for (const Row& row : rows_) {
        int64_t distance = abs_diff(row.tokens, m);
        if (distance < best_distance) {
            best = &row;
            best_distance = distance;
        }
    }
    return table_pick(best->mfu, best_distance, path_);
}

// ---- 5.6 / 5.7 GDN --------------------------------------------------------------------------------------------

void GdnLookup::resolve(const tables::BenchData* data, std::string relative_path) {
    path_ = std::move(relative_path);
    table_ = find(data, &tables::BenchData::gdn, path_);
}

Pick GdnLookup::lookup(int64_t x) const {
    if (!table_) raise("AssertionError", "Error: " + infersim_path(path_) + " not exist.");
    auto rows = infersim_rows(*table_);
    if (rows.empty()) raise("IndexError", "list index out of range (" + path_ + " has no data rows)");
    std::size_t idx = 0;
    int64_t best = 1000000000;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        int64_t distance = abs_diff(rows[i].x, x);
        if (distance < best) {
            best = distance;
            idx = i;
        }
    }
    if (x == 0) raise("ZeroDivisionError", "division by zero (GDN latency scaled to a size of 0)");
    const double ratio = static_cast<double>(rows[idx].x) / static_cast<double>(x);
    if (ratio == 0) raise("ZeroDivisionError", "float division by zero (GDN row of size 0 in " + path_ + ")");
    double t = 0;
    for (double us : rows[idx].latencies_us) t = t + (us / ratio);
    return table_pick(t, abs_diff(rows[idx].x, x), path_);
}

}  // namespace mfusim::compat
