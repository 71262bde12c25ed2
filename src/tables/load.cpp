// Loading a bench_data directory: walk the InferSim layout, parse each CSV strictly, attach folder manifests.
#include <algorithm>
#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/numbers.hpp"
#include "tables/csv.hpp"
#include "tables/rows.hpp"
#include "tables/tables.hpp"

namespace fs = std::filesystem;

namespace mfusim::tables {

const char* peak_dtype_name(PeakDtype dtype) {
    return dtype == PeakDtype::fp8 ? "fp8" : "bf16";
}

std::size_t BenchData::table_count() const {
    return gemm.size() + attention_prefill.size() + attention_decode.size() + grouped_gemm.size() + gdn.size();
}

namespace {

const char* phase_folder(Phase phase) {
    return phase == Phase::prefill ? "prefill" : "decode";
}

}  // namespace

std::string gemm_path(const std::string& gpu) {
    return "gemm/" + gpu + "/data.csv";
}
std::string attention_path(AttentionFamily family, Phase phase, const std::string& gpu, const std::string& shape) {
    return std::string(family == AttentionFamily::mla ? "mla/" : "mha/") + phase_folder(phase) + "/" + gpu + "/" +
           shape + ".csv";
}
std::string grouped_gemm_path(Phase phase, const std::string& gpu) {
    return std::string("grouped_gemm/") + phase_folder(phase) + "/" + gpu + "/data.csv";
}
std::string gdn_path(Phase phase, const std::string& gpu, const std::string& shape) {
    return std::string("gdn/") + phase_folder(phase) + "/" + gpu + "/" + shape + ".csv";
}

namespace {

// A table's columns: each required column has a header name (aliases allowed) and the position InferSim reads
// it from when a file has no header line.
struct ColumnSpec {
    std::vector<std::string_view> names;
    std::size_t position;
};

class ColumnMap {
  public:
    ColumnMap(const CsvText& text, const std::vector<ColumnSpec>& specs, std::size_t header_probe_column)
        : specs_(specs) {
        positions_.resize(specs.size());
        for (std::size_t i = 0; i < specs.size(); ++i) positions_[i] = specs[i].position;
        if (text.lines.empty()) return;
        const CsvLine& first = text.lines.front();
        has_header_ = header_probe_column >= first.fields.size() || !parse_double(first.fields[header_probe_column]);
        if (!has_header_) return;
        for (std::size_t i = 0; i < specs.size(); ++i) {
            auto found = std::find_if(first.fields.begin(), first.fields.end(), [&](std::string_view field) {
                return std::find(specs[i].names.begin(), specs[i].names.end(), field) != specs[i].names.end();
            });
            if (found == first.fields.end()) {
                throw Error(Status::parse, located(text.path, first.line_number, 1,
                                                   "header lacks column '" + std::string(specs[i].names.front()) +
                                                       "' (header: " + join(first.fields) + ")"));
            }
            positions_[i] = static_cast<std::size_t>(found - first.fields.begin());
        }
    }
    bool has_header() const { return has_header_; }
    std::size_t operator[](std::size_t spec) const { return positions_[spec]; }
    std::string_view name(std::size_t spec) const { return specs_[spec].names.front(); }

  private:
    static std::string join(const std::vector<std::string_view>& fields) {
        std::string out;
        for (auto f : fields) out += (out.empty() ? "" : ",") + std::string(f);
        return out;
    }
    const std::vector<ColumnSpec>& specs_;
    std::vector<std::size_t> positions_;
    bool has_header_ = false;
};

// Shapes, sizes and counts: positive, and below 2^31. No benchmark measures a larger shape, and the bound keeps
// every distance the lookups compute (squares of differences included) inside int64.
constexpr int64_t kMaxTableInteger = INT32_MAX;

void require_positive(const CsvText& text, const CsvLine& line, int64_t value, std::string_view name) {
    if (value <= 0 || value > kMaxTableInteger) {
        throw Error(Status::parse, located(text.path, line.line_number, 1,
                                           "column '" + std::string(name) + "': must be " +
                                               (value <= 0 ? "positive" : "at most 2147483647 (2^31 - 1)") +
                                               ", found " + std::to_string(value)));
    }
}

void require_mfu(const CsvText& text, const CsvLine& line, double value, std::string_view name) {
    if (value < 0) {
        throw Error(Status::parse, located(text.path, line.line_number, 1,
                                           "column '" + std::string(name) + "': an MFU cannot be negative"));
    }
}

// Parses the data lines of a table, skipping the header line when there is one.
template <class Row, class ParseRow>
std::vector<Row> parse_rows(const CsvText& text, bool has_header, ParseRow parse_row) {
    if (text.lines.empty()) throw Error(Status::parse, located(text.path, 0, 0, "empty file: no header, no rows"));
    std::vector<Row> rows;
    rows.reserve(text.lines.size());
    for (std::size_t i = has_header ? 1 : 0; i < text.lines.size(); ++i) {
        rows.push_back(parse_row(CsvFieldReader(text, text.lines[i]), text.lines[i]));
    }
    if (rows.empty()) throw Error(Status::parse, located(text.path, 0, 0, "no data rows after the header"));
    return rows;
}

const std::vector<ColumnSpec> kGemmColumns = {{{"m"}, 0}, {{"k"}, 1}, {{"n"}, 2}, {{"mfu"}, 4}};
const std::vector<ColumnSpec> kPrefillColumns = {{{"seq_len"}, 1}, {{"mfu"}, 3}};
const std::vector<ColumnSpec> kDecodeColumns = {{{"kv_dtype"}, 1}, {{"batch_size"}, 2}, {{"kv_len"}, 3}, {{"mfu"}, 5}};
const std::vector<ColumnSpec> kGroupedColumns = {{{"num_experts"}, 0},
                                                 {{"num_gpus"}, 1},
                                                 {{"num_local_experts"}, 2},
                                                 {{"topk"}, 3},
                                                 {{"hidden_size"}, 4},
                                                 {{"intermediate_size"}, 5},
                                                 {{"batch_size_per_gpu", "seq_len_per_gpu", "tokens_per_gpu"}, 6},
                                                 {{"up_mfu"}, 9},
                                                 {{"down_mfu"}, 11}};

}  // namespace

std::vector<GemmRow> parse_gemm_rows(const CsvText& text, bool& has_header) {
    ColumnMap c(text, kGemmColumns, 0);
    has_header = c.has_header();
    return parse_rows<GemmRow>(text, has_header, [&](const CsvFieldReader& f, const CsvLine& line) {
        GemmRow row{f.integer(c[0], "m"), f.integer(c[1], "k"), f.integer(c[2], "n"), f.number(c[3], "mfu")};
        require_positive(text, line, row.m, "m");
        require_positive(text, line, row.k, "k");
        require_positive(text, line, row.n, "n");
        require_mfu(text, line, row.mfu, "mfu");
        return row;
    });
}

std::vector<AttentionPrefillRow> parse_attention_prefill_rows(const CsvText& text, bool& has_header) {
    ColumnMap c(text, kPrefillColumns, 1);
    has_header = c.has_header();
    return parse_rows<AttentionPrefillRow>(text, has_header, [&](const CsvFieldReader& f, const CsvLine& line) {
        AttentionPrefillRow row{f.integer(c[0], "seq_len"), f.number(c[1], "mfu")};
        require_positive(text, line, row.seq_len, "seq_len");
        require_mfu(text, line, row.mfu, "mfu");
        return row;
    });
}

std::vector<AttentionDecodeRow> parse_attention_decode_rows(const CsvText& text, bool& has_header) {
    ColumnMap c(text, kDecodeColumns, 2);
    has_header = c.has_header();
    return parse_rows<AttentionDecodeRow>(text, has_header, [&](const CsvFieldReader& f, const CsvLine& line) {
        AttentionDecodeRow row{std::string(f.text(c[0], "kv_dtype")), f.integer(c[1], "batch_size"),
                               f.integer(c[2], "kv_len"), f.number(c[3], "mfu")};
        require_positive(text, line, row.batch_size, "batch_size");
        require_positive(text, line, row.kv_len, "kv_len");
        require_mfu(text, line, row.mfu, "mfu");
        return row;
    });
}

std::vector<GroupedGemmRow> parse_grouped_gemm_rows(const CsvText& text, bool& has_header) {
    ColumnMap c(text, kGroupedColumns, 0);
    has_header = c.has_header();
    return parse_rows<GroupedGemmRow>(text, has_header, [&](const CsvFieldReader& f, const CsvLine& line) {
        GroupedGemmRow row{};
        int64_t* ints[] = {&row.num_experts, &row.num_gpus,          &row.num_local_experts, &row.topk,
                           &row.hidden_size, &row.intermediate_size, &row.tokens_per_gpu};
        for (std::size_t i = 0; i < 7; ++i) {
            *ints[i] = f.integer(c[i], c.name(i));
            // num_local_experts may legitimately be 0 in no shipped table, but 0 GPUs or experts is nonsense.
            require_positive(text, line, *ints[i], c.name(i));
        }
        row.up_mfu = f.number(c[7], "up_mfu");
        row.down_mfu = f.number(c[8], "down_mfu");
        require_mfu(text, line, row.up_mfu, "up_mfu");
        require_mfu(text, line, row.down_mfu, "down_mfu");
        return row;
    });
}

std::vector<GdnRow> parse_gdn_rows(const CsvText& text, bool& has_header) {
    if (text.lines.empty()) throw Error(Status::parse, located(text.path, 0, 0, "empty file: no header, no rows"));
    has_header = !parse_double(text.lines.front().fields.front());
    std::size_t width = text.lines.front().fields.size();
    if (width < 2) {
        throw Error(Status::parse, located(text.path, text.lines.front().line_number, 1,
                                           "a GDN table needs a size column and at least one latency column"));
    }
    return parse_rows<GdnRow>(text, has_header, [&](const CsvFieldReader& f, const CsvLine& line) {
        if (line.fields.size() != width) {
            throw Error(Status::parse, located(text.path, line.line_number, 1,
                                               "expected " + std::to_string(width) + " fields, found " +
                                                   std::to_string(line.fields.size())));
        }
        GdnRow row{f.integer(0, "size"), {}};
        require_positive(text, line, row.x, "size");
        for (std::size_t j = 1; j < width; ++j) {
            double us = f.number(j, "latency_us");
            if (us < 0) {
                throw Error(Status::parse, located(text.path, line.line_number, 1, "a latency cannot be negative"));
            }
            row.latencies_us.push_back(us);
        }
        return row;
    });
}

namespace {

// "32-8-128" or "32-8-128-tp2" -> shape numbers and tp. nullopt when the stem is not of that form (tp outside
// [1, 4096] included); Error(parse) naming the file when it is, but a shape number lies outside the range of table
// integers (a head count of 2^62 would overflow the lookups' shape distances).
std::optional<std::pair<std::vector<int64_t>, int32_t>> parse_shape_name(const std::string& stem,
                                                                         const std::string& relative_path) {
    std::vector<int64_t> shape;
    int32_t tp = 0;
    std::size_t start = 0;
    auto out_of_range = [&](std::string_view part) {
        throw Error(Status::parse, relative_path + ": '" + std::string(part) +
                                       "' in the file name is outside [1, 2147483647] (names are "
                                       "<heads>-<kv heads>-<head dim>[-tp<N>].csv)");
    };
    while (start <= stem.size()) {
        std::size_t dash = stem.find('-', start);
        std::string_view part(stem.data() + start, (dash == std::string::npos ? stem.size() : dash) - start);
        bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos;
        if (part.size() > 2 && part.substr(0, 2) == "tp" && dash == std::string::npos) {
            // An odd TP degree (tp0, tp99999) makes the name not a table name, as it always has: noted, ignored.
            auto n = parse_int64(part.substr(2));
            if (!n || *n <= 0 || *n > 4096) return std::nullopt;
            tp = static_cast<int32_t>(*n);
        } else if (digits) {
            auto n = parse_int64(part);
            if (!n || *n <= 0 || *n > kMaxTableInteger) out_of_range(part);
            shape.push_back(*n);
        } else {
            return std::nullopt;
        }
        if (dash == std::string::npos) break;
        start = dash + 1;
    }
    if (shape.size() < 2) return std::nullopt;
    return std::make_pair(shape, tp);
}

constexpr double kMinPeakTflops = 1e-3, kMaxPeakTflops = 1e6;

Manifest read_manifest(const fs::path& folder, PeakDtype conventional_dtype) {
    Manifest manifest;
    manifest.peak_dtype = conventional_dtype;
    fs::path file = folder / "manifest.json";
    if (!is_regular_file(file.string())) return manifest;
    nlohmann::json json = parse_json(read_file(file.string()), file.string());
    if (!json.is_object()) throw Error(Status::parse, file.string() + ": a manifest must be a JSON object");
    manifest.present = true;
    auto string_field = [&](const char* key) -> std::string {
        if (!json.contains(key) || json[key].is_null()) return "";
        if (!json[key].is_string())
            throw Error(Status::parse, file.string() + ": field '" + key + "' must be a string");
        return json[key].get<std::string>();
    };
    std::string dtype = string_field("peak_dtype");
    if (dtype == "fp8" || dtype == "FP8") {
        manifest.peak_dtype = PeakDtype::fp8;
    } else if (dtype == "bf16" || dtype == "BF16" || dtype == "fp16") {
        manifest.peak_dtype = PeakDtype::bf16;
    } else if (!dtype.empty()) {
        throw Error(Status::parse,
                    file.string() + ": field 'peak_dtype' must be \"bf16\" or \"fp8\", found \"" + dtype + "\"");
    }
    if (json.contains("peak_tflops") && !json["peak_tflops"].is_null()) {
        // The same range as a GPU profile's peaks: an MFU against a tiny peak would make every time infinite.
        const nlohmann::json& peak = json["peak_tflops"];
        if (!peak.is_number() || !(peak.get<double>() >= kMinPeakTflops && peak.get<double>() <= kMaxPeakTflops)) {
            throw Error(Status::parse, file.string() + ": field 'peak_tflops' must be a positive number between " +
                                           shortest_text(kMinPeakTflops) + " and " + shortest_text(kMaxPeakTflops) +
                                           ", found " + peak.dump().substr(0, 40));
        }
        manifest.peak_tflops = peak.get<double>();
    }
    manifest.gpu = string_field("gpu");
    manifest.source = string_field("source");
    return manifest;
}

std::vector<fs::path> sorted_entries(const fs::path& folder) {
    std::vector<fs::path> entries;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
    if (ec) throw Error(Status::io, folder.string() + ": cannot list: " + ec.message());
    std::sort(entries.begin(), entries.end());
    return entries;
}

// Whether a listed entry is a folder; Error(io) when its type cannot be read (its parent is listable but not
// searchable), where std::filesystem would throw its own exception type.
bool is_folder(const fs::path& entry) {
    std::error_code ec;
    bool folder = fs::is_directory(entry, ec);
    if (ec) throw Error(Status::io, entry.string() + ": cannot read its type: " + ec.message());
    return folder;
}

bool is_lower_case(const std::string& name) {
    return std::none_of(name.begin(), name.end(), [](unsigned char c) { return c >= 'A' && c <= 'Z'; });
}

class Loader {
  public:
    Loader(const std::string& root, const std::string& gpu_filter) : root_(root), filter_(gpu_filter) {
        data_.root = root;
    }

    BenchData run() && {
        if (!is_directory(root_.string())) {
            throw Error(Status::io, root_.string() +
                                        ": not a directory (expected a bench_data folder with "
                                        "gemm/, mha/, ... inside)");
        }
        for (const fs::path& entry : sorted_entries(root_)) {
            std::string name = entry.filename().string();
            if (name == "gemm") {
                each_gpu(entry, [&](const fs::path& gpu) {
                    load_single(gpu, "data.csv", data_.gemm, parse_gemm_rows, PeakDtype::fp8);
                });
            } else if (name == "mha" || name == "mla") {
                each_phase(entry, [&](const fs::path& phase_dir, Phase phase) {
                    each_gpu(phase_dir, [&](const fs::path& gpu) {
                        if (phase == Phase::prefill) {
                            load_shapes(gpu, data_.attention_prefill, parse_attention_prefill_rows);
                        } else {
                            load_shapes(gpu, data_.attention_decode, parse_attention_decode_rows);
                        }
                    });
                });
            } else if (name == "grouped_gemm") {
                each_phase(entry, [&](const fs::path& phase_dir, Phase) {
                    each_gpu(phase_dir, [&](const fs::path& gpu) {
                        load_single(gpu, "data.csv", data_.grouped_gemm, parse_grouped_gemm_rows, PeakDtype::fp8);
                    });
                });
            } else if (name == "gdn") {
                each_phase(entry, [&](const fs::path& phase_dir, Phase) {
                    each_gpu(phase_dir, [&](const fs::path& gpu) { load_shapes(gpu, data_.gdn, parse_gdn_rows); });
                });
            } else {
                note(entry, "not a table family this library reads; ignored");
            }
        }
        return std::move(data_);
    }

  private:
    std::string relative(const fs::path& path) const { return path.lexically_relative(root_).generic_string(); }
    void note(const fs::path& path, const std::string& what) { data_.notes.push_back(relative(path) + ": " + what); }

    template <class Fn>
    void each_phase(const fs::path& family, Fn fn) {
        for (const fs::path& entry : sorted_entries(family)) {
            std::string name = entry.filename().string();
            if (name == "prefill" && is_folder(entry)) {
                fn(entry, Phase::prefill);
            } else if (name == "decode" && is_folder(entry)) {
                fn(entry, Phase::decode);
            } else {
                note(entry, "expected only prefill/ and decode/ here; ignored");
            }
        }
    }

    template <class Fn>
    void each_gpu(const fs::path& parent, Fn fn) {
        for (const fs::path& entry : sorted_entries(parent)) {
            std::string name = entry.filename().string();
            if (!is_folder(entry)) {
                note(entry, "expected a GPU folder here; ignored");
            } else if (!is_lower_case(name)) {
                note(entry, "GPU folders are lower-case (InferSim looks up '" + lower(name) + "'); ignored");
            } else if (filter_.empty() || name == filter_) {
                fn(entry);
            }
        }
    }

    static std::string lower(std::string s) {
        for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        return s;
    }

    template <class Row, class Parse>
    Table<Row> load_table(const fs::path& file, Parse parse, PeakDtype conventional_dtype) {
        Table<Row> table;
        table.info.relative_path = relative(file);
        table.info.gpu = file.parent_path().filename().string();
        CsvText text = read_csv_file(file.string());
        table.rows = parse(text, table.info.first_line_is_header);
        table.info.manifest = manifest_for(file.parent_path(), conventional_dtype);
        return table;
    }

    template <class Row, class Parse>
    void load_single(const fs::path& gpu, const char* file_name, std::map<std::string, Table<Row>>& into, Parse parse,
                     PeakDtype conventional_dtype) {
        for (const fs::path& entry : sorted_entries(gpu)) {
            std::string name = entry.filename().string();
            if (name == file_name) {
                Table<Row> table = load_table<Row>(entry, parse, conventional_dtype);
                into.emplace(table.info.relative_path, std::move(table));
            } else if (name != "manifest.json") {
                note(entry, std::string("only ") + file_name + " is read in this folder; ignored");
            }
        }
    }

    template <class Row, class Parse>
    void load_shapes(const fs::path& gpu, std::map<std::string, Table<Row>>& into, Parse parse) {
        for (const fs::path& entry : sorted_entries(gpu)) {
            std::string name = entry.filename().string();
            if (name == "manifest.json") continue;
            auto shape =
                entry.extension() == ".csv" ? parse_shape_name(entry.stem().string(), relative(entry)) : std::nullopt;
            if (!shape) {
                note(entry, "not a table name of the form <a>-<b>-<c>[-tp<N>].csv; ignored");
                continue;
            }
            Table<Row> table = load_table<Row>(entry, parse, PeakDtype::bf16);
            table.info.shape = shape->first;
            table.info.tp = shape->second;
            into.emplace(table.info.relative_path, std::move(table));
        }
    }

    const Manifest& manifest_for(const fs::path& folder, PeakDtype conventional_dtype) {
        std::string key = folder.string();
        auto it = manifests_.find(key);
        if (it == manifests_.end()) it = manifests_.emplace(key, read_manifest(folder, conventional_dtype)).first;
        return it->second;
    }

    fs::path root_;
    std::string filter_;
    BenchData data_;
    std::map<std::string, Manifest> manifests_;
};

}  // namespace

BenchData load_bench_data(const std::string& root, const std::string& gpu_filter) {
    return Loader(root, gpu_filter).run();
}

}  // namespace mfusim::tables
