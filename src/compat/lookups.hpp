// SPEC section 5: InferSim's table lookups, with its exact file-order semantics. Each lookup is resolved once
// (file found or not, rows filtered by the fixed keys, MFUs rounded by r3 ahead of time) and then answers
// queries without allocating. A table whose first line is data (TableInfo::first_line_is_header == false) loses
// that row, as InferSim always discards the first physical line (Q16).
#pragma once

#include <mfusim.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tables/tables.hpp"

namespace mfusim::compat {

// One looked-up value with its provenance. `table` points into the resolved lookup (stable for its lifetime);
// null when the value is a default.
struct Pick {
    double value = 0;  // an MFU, or microseconds for GDN
    mfusim_source source = MFUSIM_SOURCE_DEFAULT;
    double distance = 0;
    const std::string* table = nullptr;
};

// "bench_data/<relative path>", the form InferSim prints.
std::string infersim_path(const std::string& relative_path);

// The rows InferSim sees: all of them, less the first when the file has no header line.
template <class Row>
std::span<const Row> infersim_rows(const tables::Table<Row>& table) {
    std::span<const Row> rows(table.rows);
    if (!table.info.first_line_is_header && !rows.empty()) rows = rows.subspan(1);
    return rows;
}

// 5.1 mfu_ap(S).
class AttentionPrefillLookup {
  public:
    void resolve(const tables::BenchData* data, std::string relative_path, double mu0);
    Pick lookup(int64_t S) const;
    bool present() const { return present_; }
    const std::string& path() const { return path_; }
    const std::string* warning() const { return present_ ? nullptr : &warning_; }  // "... not exist."

  private:
    struct Row {
        int64_t seq_len;
        double mfu;  // r3
    };
    std::string path_, warning_;
    bool present_ = false;
    std::vector<Row> rows_;
    double mu0_r3_ = 0;
};

// 5.2 mfu_ad(B, K).
class AttentionDecodeLookup {
  public:
    void resolve(const tables::BenchData* data, std::string relative_path, double mu0, bool fp8_kv);
    // Error(compat_crash) "InferSim raises ValueError: ..." when the file has no row of the KV dtype.
    Pick lookup(int64_t B, int64_t K) const;
    bool present() const { return present_; }
    const std::string& path() const { return path_; }
    const std::string* warning() const { return present_ ? nullptr : &warning_; }  // "... not exists"

  private:
    struct Row {
        int64_t batch_size, kv_len;
        double mfu;  // r3
    };
    std::string path_, warning_;
    bool present_ = false;
    bool fp8_kv_ = false;
    std::vector<Row> rows_;  // of the KV dtype only, file order
    double mu0_ = 0;
};

// 5.3 mfu_g(m, k, n) for one fixed (k, n): the target group is chosen once.
class GemmSite {
  public:
    Pick lookup(int64_t m) const;
    int64_t k() const { return k_; }
    int64_t n() const { return n_; }
    bool has_group() const { return has_group_; }
    int64_t group_k() const { return k_star_; }
    int64_t group_n() const { return n_star_; }

  private:
    friend class GemmTable;
    struct Row {
        int64_t m;
        double mfu;  // r3
    };
    int64_t k_ = 0, n_ = 0, k_star_ = 0, n_star_ = 0;
    bool present_ = false, has_group_ = false;
    std::vector<Row> rows_;  // the target group's rows, file order
    double mu0_ = 0, mu0_r3_ = 0;
    std::string path_;
};

class GemmTable {
  public:
    void resolve(const tables::BenchData* data, std::string relative_path, double mu0);
    GemmSite site(int64_t k, int64_t n) const;
    bool present() const { return table_ != nullptr; }
    const std::string& path() const { return path_; }
    const std::string* warning() const { return table_ ? nullptr : &warning_; }  // "... not exists"

  private:
    std::string path_, warning_;
    const tables::Table<tables::GemmRow>* table_ = nullptr;
    double mu0_ = 0;
};

// 5.4 / 5.5 the grouped-GEMM MFU pair, reduced to max(r3(up), r3(down)) as the MoE uses it (Q20).
class GroupedGemmLookup {
  public:
    struct Key {
        int64_t num_experts, world_size, ep, topk, hidden_size, intermediate_size;
    };
    void resolve(const tables::BenchData* data, tables::Phase phase, std::string relative_path, const Key& key,
                 double mu0);
    // Prefill: step function in file order; decode: nearest batch, earliest wins. Error(compat_crash) when the
    // file exists and ep = 0 (E // ep).
    Pick lookup(int64_t m) const;
    bool present() const { return present_; }
    const std::string& path() const { return path_; }
    // The missing-file warning, else the "mfu not found" warning when no row has the key, else null.
    const std::string* warning() const { return warning_.empty() ? nullptr : &warning_; }

  private:
    struct Row {
        int64_t tokens;
        double mfu;  // max(r3(up), r3(down))
    };
    std::string path_, warning_;
    tables::Phase phase_ = tables::Phase::prefill;
    bool present_ = false, ep_zero_ = false;
    std::vector<Row> rows_;
    double mu0_ = 0, mu0_pair_ = 0;
};

// 5.6 / 5.7 GDN latency [us].
class GdnLookup {
  public:
    void resolve(const tables::BenchData* data, std::string relative_path);
    // Error(compat_crash): AssertionError when the file is missing, IndexError when it has no rows,
    // ZeroDivisionError for x = 0.
    Pick lookup(int64_t x) const;
    bool present() const { return table_ != nullptr; }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
    const tables::Table<tables::GdnRow>* table_ = nullptr;
};

}  // namespace mfusim::compat
