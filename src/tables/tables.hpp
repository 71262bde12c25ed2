// The MFU tables of a bench_data directory, as plain rows in file order (file order is part of InferSim's
// lookup semantics), with what the folder and file names say about each table.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mfusim::tables {

enum class PeakDtype : uint8_t { bf16, fp8 };
const char* peak_dtype_name(PeakDtype dtype);

// What a table's MFU column is relative to. From `manifest.json` in the table's folder when present; otherwise
// the InferSim/BLIS convention: GEMM and grouped GEMM measured with FP8 DeepGEMM against the FP8 peak,
// attention against the BF16 peak.
struct Manifest {
    bool present = false;
    PeakDtype peak_dtype = PeakDtype::bf16;
    double peak_tflops = 0;  // 0: not stated
    std::string gpu;         // as the driver reports it; "" if not stated
    std::string source;      // "mfusim-bench", "aiconfigurator-import", ...; "" if not stated
};

struct TableInfo {
    std::string relative_path;  // e.g. "mha/decode/h20/32-8-128.csv": the name InferSim prints in warnings
    std::string gpu;            // the GPU folder, lower-case
    bool first_line_is_header = true;
    std::vector<int64_t> shape;  // the dash-separated numbers of the file name ({32, 8, 128}); empty for data.csv
    int32_t tp = 0;              // the -tp<N> suffix of BLIS decode tables; 0 when absent
    Manifest manifest;
};

struct GemmRow {
    int64_t m, k, n;
    double mfu;
};
struct AttentionPrefillRow {
    int64_t seq_len;
    double mfu;
};
struct AttentionDecodeRow {
    std::string kv_dtype;  // compared as an exact string, as InferSim does
    int64_t batch_size, kv_len;
    double mfu;
};
struct GroupedGemmRow {
    int64_t num_experts, num_gpus, num_local_experts, topk, hidden_size, intermediate_size;
    int64_t tokens_per_gpu;  // batch_size_per_gpu (decode) or seq_len_per_gpu (prefill)
    double up_mfu, down_mfu;
};
struct GdnRow {
    int64_t x;                         // seq_len (prefill) or batch size (decode)
    std::vector<double> latencies_us;  // per kernel, in file column order
};

template <class Row>
struct Table {
    TableInfo info;
    std::vector<Row> rows;  // file order; a headerless file keeps its first line here (see first_line_is_header)
};

enum class Phase : uint8_t { prefill, decode };
enum class AttentionFamily : uint8_t { mha, mla };

struct BenchData {
    std::string root;
    // Keyed by relative path; std::map so that every listing is in a deterministic order.
    std::map<std::string, Table<GemmRow>> gemm;
    std::map<std::string, Table<AttentionPrefillRow>> attention_prefill;  // mha/prefill and mla/prefill
    std::map<std::string, Table<AttentionDecodeRow>> attention_decode;    // mha/decode and mla/decode
    std::map<std::string, Table<GroupedGemmRow>> grouped_gemm;            // grouped_gemm/{prefill,decode}
    std::map<std::string, Table<GdnRow>> gdn;                             // gdn/{prefill,decode}
    std::vector<std::string> notes;  // files and folders present but not used, one sentence each

    std::size_t table_count() const;
};

template <class Row>
const Table<Row>* find_table(const std::map<std::string, Table<Row>>& tables, const std::string& relative_path) {
    auto it = tables.find(relative_path);
    return it == tables.end() ? nullptr : &it->second;
}

// Relative paths in the InferSim layout, built in one place so compat warnings and loaders agree.
std::string gemm_path(const std::string& gpu);
std::string attention_path(AttentionFamily family, Phase phase, const std::string& gpu, const std::string& shape);
std::string grouped_gemm_path(Phase phase, const std::string& gpu);
std::string gdn_path(Phase phase, const std::string& gpu, const std::string& shape);

// Loads every table under `root` (only the GPU folder `gpu_filter` when it is not empty). Error(io) when root is
// not a directory; Error(parse) naming file, line and column for any malformed table.
BenchData load_bench_data(const std::string& root, const std::string& gpu_filter = "");

}  // namespace mfusim::tables
