// The runners of the bad-input corpus. Each turns a case's input into a call of the library and reports the status
// (the mfusim_status name) and message the library gave, or, on success, a summary of what it loaded so that
// accepted-but-odd inputs can be asserted too.
//
// Inputs (cases.txt, column 3):
//   <path>               a file or directory of the corpus, relative to tests/bad_input
//   name:<text>          the text itself, passed where the library takes a name or path (a catalogue name, "")
//   gen:<generator>      content generated at run time (too large or too odd to commit), see generated()
//   unreadable:<path>    a copy of a corpus file with mode 000 (skipped where the process can read it anyway)
//   fifo:                a named pipe where a file is expected
//   sparse:<bytes>       a sparse file of that size (past every input cap, without using the disk)
// Runners (column 2): see run_case at the bottom.
#include "bad_input_runners.hpp"

#include <mfusim.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <type_traits>
#include <vector>

#include "calibrate/step_trace.hpp"
#include "calibration/calibration.hpp"
#include "cli/step_stream.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "compare/compare.hpp"
#include "compare/serving_compare.hpp"
#include "compat/compat_model.hpp"
#include "compat/infersim_config.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/query.hpp"
#include "tables/inspect.hpp"
#include "tables/tables.hpp"

namespace fs = std::filesystem;

namespace mfusim::bad_input {

namespace {

const char* const kStatusNames[] = {"ok",          "invalid_argument", "io",          "parse",
                                    "config",      "unknown_name",     "unsupported", "compat_crash",
                                    "struct_size", "out_of_memory",    "internal",    "not_found"};

// The name cases.txt uses for a status (the C API's numbers are the core's: common/error.hpp).
std::string status_name(int32_t status) {
    auto i = static_cast<std::size_t>(status);
    return i < std::size(kStatusNames) ? kStatusNames[i] : "status " + std::to_string(status);
}

// Runs `body`, which returns a summary on success; any exception becomes the status and message the C boundary
// would give for it (src/api/boundary.hpp), so "internal" here means a bug.
template <class Body>
Outcome capture(Body&& body) {
    try {
        return {"ok", body()};
    } catch (const Error& e) {
        return {status_name(static_cast<int32_t>(e.status())), e.what()};
    } catch (const std::bad_alloc&) {
        return {"out_of_memory", "out of memory"};
    } catch (const std::exception& e) {
        return {"internal", e.what()};
    }
}

Outcome skip(const std::string& why) {
    Outcome o;
    o.skipped = true;
    o.message = why;
    return o;
}

// A scratch directory removed (permissions restored first) when the case ends.
class TempDir {
  public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "mfusim-bad-input-XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed: " + std::string(std::strerror(errno)));
        path_ = pattern;
    }
    ~TempDir() {
        open_up(path_);
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }

  private:
    // Cases chmod files and folders to 000; give them back to the owner so that they can be removed.
    static void open_up(const fs::path& p) {
        std::error_code ec;
        if (fs::is_symlink(p, ec)) return;
        ::chmod(p.c_str(), 0700);
        if (!fs::is_directory(p, ec)) return;
        for (const auto& entry : fs::directory_iterator(p, ec)) open_up(entry.path());
    }
    fs::path path_;
};

void write_file(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

// Content too large or too odd to commit.
std::string generated(const std::string& name) {
    auto repeat = [](const std::string& s, std::size_t n) {
        std::string out;
        out.reserve(s.size() * n);
        for (std::size_t i = 0; i < n; ++i) out += s;
        return out;
    };
    constexpr std::size_t kDeep = 100000;
    if (name == "deep_arrays") return repeat("[", kDeep) + repeat("]", kDeep);
    if (name == "deep_objects") return repeat("{\"a\":", kDeep) + "1" + repeat("}", kDeep);
    if (name == "deep_unclosed") return repeat("[", kDeep);
    if (name == "deep_in_field") {
        return "{\"hidden_size\": 4096, \"x\": " + repeat("[", kDeep) + repeat("]", kDeep) + "}";
    }
    if (name == "deep_jsonl") return "{\"requests\": " + repeat("[", kDeep) + repeat("]", kDeep) + "}\n";
    if (name == "csv_long_field") return "m,k,n,latency_us,mfu\n" + repeat("7", 1 << 20) + ",4096,4096,10.0,0.5\n";
    if (name == "csv_many_columns") return repeat("x,", 100000) + "m,k,n,latency_us,mfu\n";
    if (name == "csv_many_rows") {
        std::string out = "m,k,n,latency_us,mfu\n";
        for (int m = 1; m <= 200000; ++m) out += std::to_string(m) + ",4096,4096,10.0,0.5\n";
        return out;
    }
    if (name == "gpu_base_self") return "{\"base\": \"@SELF@\"}\n";  // file_argument puts the file's own path here
    if (name == "jsonl_many_steps") return repeat("[[1, 4096], [1, 8192], [512, 0]]\n", 100000);
    if (name == "config_many_objects") {
        // A valid 1 MB config of 40,000 small objects: a parser that rescans parents would take minutes here.
        return "{\"model_type\": \"qwen3\", \"hidden_size\": 4096, \"intermediate_size\": 12288, "
               "\"num_hidden_layers\": 36, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
               "\"head_dim\": 128, \"vocab_size\": 151936, \"notes\": [" +
               repeat("{\"a\": [1, {\"b\": 2}]},", 40000) + "{}]}";
    }
    throw std::runtime_error("unknown generator '" + name + "'");
}

bool starts_with(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

// A file of `bytes` bytes that occupies no disk: what a hostile user would pass to grow the process.
void write_sparse(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    write_file(path, "");
    fs::resize_file(path, std::stoull(bytes));
}

// Sets mode 000 on a file or folder; false if this process can read it anyway (root, CAP_DAC_OVERRIDE).
bool make_unreadable(const fs::path& target) {
    ::chmod(target.c_str(), 0);
    if (fs::is_directory(target)) {
        DIR* dir = ::opendir(target.c_str());
        if (dir) ::closedir(dir);
        return dir == nullptr;
    }
    std::ifstream probe(target);
    return !probe.is_open();
}

const char* const kRootSkip =
    "this process reads files whatever their mode (running as root or with CAP_DAC_OVERRIDE), so chmod 000 "
    "cannot make an input unreadable here; run the tests as an ordinary user to exercise this case";

// A file argument for runners that take a path: the corpus file itself, or a temporary one built from the input.
struct FileArgument {
    std::string path;
    std::string skip_reason;  // non-empty: the case cannot run here
};

FileArgument file_argument(const Case& c, const std::string& corpus, const TempDir& tmp, const std::string& name) {
    if (starts_with(c.input, "name:")) return {c.input.substr(5), ""};
    if (starts_with(c.input, "gen:")) {
        fs::path file = tmp.path() / name;
        std::string text = generated(c.input.substr(4));
        if (std::size_t self = text.find("@SELF@"); self != std::string::npos) text.replace(self, 6, file.string());
        write_file(file, text);
        return {file.string(), ""};
    }
    if (starts_with(c.input, "unreadable:")) {
        fs::path file = tmp.path() / name;
        write_file(file, read_file(corpus + "/" + c.input.substr(11)));
        if (!make_unreadable(file)) return {"", kRootSkip};
        return {file.string(), ""};
    }
    if (starts_with(c.input, "sparse:")) {
        fs::path file = tmp.path() / name;
        write_sparse(file, c.input.substr(7));
        return {file.string(), ""};
    }
    if (c.input == "fifo:") {
        fs::path file = tmp.path() / name;
        if (::mkfifo(file.c_str(), 0600) != 0) return {"", "mkfifo failed: " + std::string(std::strerror(errno))};
        return {file.string(), ""};
    }
    return {corpus + "/" + c.input, ""};
}

// File contents for runners that place the input somewhere (tables inside a bench_data tree).
std::string input_bytes(const Case& c, const std::string& corpus) {
    if (starts_with(c.input, "gen:")) return generated(c.input.substr(4));
    return read_file(corpus + "/" + c.input);
}

// Puts a case's input at `path`: a sparse file, or the bytes of input_bytes().
void place_input(const Case& c, const std::string& corpus, const fs::path& path) {
    if (starts_with(c.input, "sparse:")) return write_sparse(path, c.input.substr(7));
    write_file(path, input_bytes(c, corpus));
}

// --- bench_data -------------------------------------------------------------------------------------------------

// Where a table of each family sits in a bench_data tree (cases.txt runner "table:<family>").
const std::map<std::string, std::string> kTablePlaces = {
    {"gemm", "gemm/h100/data.csv"},
    {"mha_prefill", "mha/prefill/h100/32-8-128.csv"},
    {"mha_decode", "mha/decode/h100/32-8-128.csv"},
    {"mla_prefill", "mla/prefill/h100/128-128-64.csv"},
    {"mla_decode", "mla/decode/h100/128-512-64-tp2.csv"},
    {"grouped_prefill", "grouped_gemm/prefill/h100/data.csv"},
    {"grouped_decode", "grouped_gemm/decode/h100/data.csv"},
    {"gdn_prefill", "gdn/prefill/h100/4-16-128-32-128.csv"},
    {"gdn_decode", "gdn/decode/h100/4-16-128-32-128.csv"},
};

const char* const kValidGemm =
    "m,k,n,latency_us,mfu\n"
    "64,4096,4096,20.5,0.21\n"
    "128,4096,4096,22.0,0.39\n";

// What a loaded tree holds, for "ok" cases: tables, rows, header, what inspect() says, notes.
std::string summary(const tables::BenchData& data) {
    std::ostringstream out;
    std::size_t rows = 0;
    for (const tables::TableSummary& s : tables::inspect(data)) {
        rows += s.rows;
        out << " [" << s.relative_path << ": rows=" << s.rows << " peak=" << s.peak;
        for (const std::string& p : s.problems) out << "; problem: " << p;
        out << "]";
    }
    for (const std::string& note : data.notes) out << " [note: " << note << "]";
    return "tables=" + std::to_string(data.table_count()) + " rows=" + std::to_string(rows) + out.str();
}

Outcome run_table(const Case& c, const std::string& corpus, const std::string& family) {
    auto place = kTablePlaces.find(family);
    if (place == kTablePlaces.end()) return {"harness", "unknown table family '" + family + "'"};
    TempDir tmp;
    place_input(c, corpus, tmp.path() / place->second);
    return capture([&] { return summary(tables::load_bench_data(tmp.path().string())); });
}

Outcome run_manifest(const Case& c, const std::string& corpus) {
    TempDir tmp;
    write_file(tmp.path() / "gemm/h100/data.csv", kValidGemm);
    place_input(c, corpus, tmp.path() / "gemm/h100/manifest.json");
    return capture([&] { return summary(tables::load_bench_data(tmp.path().string())); });
}

// A bench_data tree: a committed one (trees/...), or one of the layouts below built at run time because git cannot
// hold it (empty folders, pipes, symlinks, permissions).
Outcome run_bench_data(const Case& c, const std::string& corpus) {
    TempDir tmp;
    fs::path root = tmp.path() / "bench_data";
    fs::path table = root / "gemm/h100/data.csv";
    std::string special = starts_with(c.input, "gen:") ? c.input.substr(4) : "";
    if (special.empty()) {
        root = fs::path(corpus) / c.input;
    } else if (special == "missing") {
        // root does not exist
    } else if (special == "root_is_file") {
        write_file(root, kValidGemm);
    } else if (special == "empty_dir") {
        fs::create_directories(root);
    } else if (special == "table_is_directory") {
        fs::create_directories(table);
    } else if (special == "table_fifo") {
        fs::create_directories(table.parent_path());
        if (::mkfifo(table.c_str(), 0600) != 0) return skip("mkfifo failed: " + std::string(std::strerror(errno)));
    } else if (special == "table_symlink_dev_zero") {
        fs::create_directories(table.parent_path());
        fs::create_symlink("/dev/zero", table);
    } else if (special == "table_dangling_symlink") {
        fs::create_directories(table.parent_path());
        fs::create_symlink(root / "nowhere.csv", table);
    } else if (special == "table_unreadable") {
        write_file(table, kValidGemm);
        if (!make_unreadable(table)) return skip(kRootSkip);
    } else if (special == "gpu_dir_unlistable") {
        write_file(table, kValidGemm);
        if (!make_unreadable(table.parent_path())) return skip(kRootSkip);
    } else if (special == "gpu_dir_unsearchable") {
        // Listable (r) but not searchable (no x): the names are visible, their types are not.
        write_file(table, kValidGemm);
        ::chmod(table.parent_path().parent_path().c_str(), 0444);
        std::error_code ec;
        if (fs::exists(table, ec)) return skip(kRootSkip);
    } else if (special == "table_symlink_procfs") {
        // A "regular" file whose content the kernel makes up on each read.
        fs::create_directories(table.parent_path());
        fs::create_symlink("/proc/self/status", table);
    } else if (starts_with(special, "attention_named:")) {
        // A valid prefill table under the file name given: the name's numbers are input too.
        write_file(root / "mha/prefill/h100" / special.substr(16), "seq_len,latency_us,mfu\n1024,10.5,0.5\n");
    } else if (special == "family_is_file") {
        write_file(root / "gemm", kValidGemm);
    } else {
        return {"harness", "unknown bench_data layout '" + special + "'"};
    }
    return capture([&] { return summary(tables::load_bench_data(root.string())); });
}

// --- models and GPUs -------------------------------------------------------------------------------------------

Outcome run_model(const Case& c, const std::string& corpus) {
    TempDir tmp;
    FileArgument arg = file_argument(c, corpus, tmp, "config.json");
    if (!arg.skip_reason.empty()) return skip(arg.skip_reason);
    return capture([&] {
        config::ModelConfig m = config::parse_model_config(config::resolve_model_source(arg.path));
        std::ostringstream out;
        out << "model_type=" << m.model_type << " layers=" << m.num_layers << " hidden=" << m.hidden_size
            << " heads=" << m.num_heads << "/" << m.num_kv_heads << " head_dim=" << m.head_dim
            << " attention=" << (m.attention == config::AttentionKind::mla ? "mla" : "gqa")
            << " experts=" << m.num_experts << " top_k=" << m.experts_per_token
            << " quant=" << config::weight_format_name(m.quant.attention) << "/"
            << config::weight_format_name(m.quant.mlp) << "/" << config::weight_format_name(m.quant.experts);
        if (m.mamba_layer_count > 0 || m.ffn_only_layers > 0) {
            // Block patterns: Mamba2 layers, then blocks with an FFN only / a mixer only.
            out << " mamba=" << m.mamba_layer_count << " blocks=" << m.ffn_only_layers << "/" << m.mixer_only_layers;
        }
        return out.str();
    });
}

Outcome run_gpu(const Case& c, const std::string& corpus) {
    TempDir tmp;
    FileArgument arg = file_argument(c, corpus, tmp, "gpu.json");
    if (!arg.skip_reason.empty()) return skip(arg.skip_reason);
    return capture([&] {
        gpu::GpuProfile g = gpu::resolve_gpu(arg.path);
        std::ostringstream out;
        out << "name=" << g.name << " folder=" << g.table_folder << " bf16=" << g.peak_bf16_tflops
            << " fp8=" << g.peak_fp8_tflops << " hbm=" << g.memory_bandwidth_gbs << " sms=" << g.sm_count
            << " kernel_launch_us=" << g.kernel_launch_us;
        return out.str();
    });
}

// An engine profile file (--engine FILE, as `mfusim calibrate --serving -o` writes them).
Outcome run_engine(const Case& c, const std::string& corpus) {
    TempDir tmp;
    FileArgument arg = file_argument(c, corpus, tmp, "engine.json");
    if (!arg.skip_reason.empty()) return skip(arg.skip_reason);
    return capture([&] {
        engines::EngineProfile e = engines::resolve_engine(arg.path);
        return "name=" + e.name + " max_seqs=" + std::to_string(e.max_seqs);
    });
}

// A calibration file (--calibration FILE).
Outcome run_calibration(const Case& c, const std::string& corpus) {
    TempDir tmp;
    FileArgument arg = file_argument(c, corpus, tmp, "calibration.json");
    if (!arg.skip_reason.empty()) return skip(arg.skip_reason);
    return capture([&] {
        calibration::Calibration cal = calibration::load_calibration(arg.path);
        return "engine_terms=" + std::to_string(cal.engine_terms.size());
    });
}

// A serving-measurement CSV (compare --serving, calibrate --serving).
Outcome run_serving_csv(const Case& c, const std::string& corpus) {
    TempDir tmp;
    FileArgument arg = file_argument(c, corpus, tmp, "silicon.csv");
    if (!arg.skip_reason.empty()) return skip(arg.skip_reason);
    return capture([&] { return "rows=" + std::to_string(compare::read_silicon_csv(arg.path).size()); });
}

// --- steps -----------------------------------------------------------------------------------------------------

// "new_tokens,context[,flags[,reserved]][*count];..." ; "NULL*n" is a NULL array with n_requests n; "" no requests.
struct StepSpec {
    std::vector<mfusim_request> requests;
    bool null_pointer = false;
    std::size_t count = 0;
};

StepSpec parse_steps(const std::string& spec) {
    StepSpec s;
    if (starts_with(spec, "NULL*")) {
        s.null_pointer = true;
        s.count = std::stoull(spec.substr(5));
        return s;
    }
    std::stringstream in(spec == "empty" ? "" : spec);
    std::string item;
    while (std::getline(in, item, ';')) {
        std::size_t star = item.find('*');
        std::size_t repeat = star == std::string::npos ? 1 : std::stoull(item.substr(star + 1));
        std::stringstream fields(item.substr(0, star));
        std::string f;
        std::vector<long long> v;
        while (std::getline(fields, f, ',')) v.push_back(std::stoll(f, nullptr, 0));
        mfusim_request r{};
        r.new_tokens = v.size() > 0 ? v[0] : 0;
        r.context = v.size() > 1 ? v[1] : 0;
        r.flags = v.size() > 2 ? static_cast<uint32_t>(v[2]) : 0;
        r.reserved = v.size() > 3 ? static_cast<uint32_t>(v[3]) : 0;
        s.requests.insert(s.requests.end(), repeat, r);
    }
    s.count = s.requests.size();
    return s;
}

// Compat (InferSim) mode: its own reader of the config, then a model on the H20 without tables.
Outcome run_infersim_model(const Case& c, const std::string& corpus) {
    TempDir tmp;
    FileArgument arg = file_argument(c, corpus, tmp, "config.json");
    if (!arg.skip_reason.empty()) return skip(arg.skip_reason);
    return capture([&] {
        config::ModelSource source = config::resolve_model_source(arg.path);
        compat::InferSimConfig parsed = compat::parse_infersim_config(source);
        compat::CompatModel model(source, *gpu::find_builtin_gpu("H20"), nullptr, query::Deployment{});
        return "model=" + parsed.model_type + " attention=" + parsed.attn_type();
    });
}

Outcome run_step_stream(const Case& c, const std::string& corpus) {
    TempDir tmp;
    FileArgument arg = file_argument(c, corpus, tmp, "steps.jsonl");
    if (!arg.skip_reason.empty()) return skip(arg.skip_reason);
    return capture([&] {
        cli::StepStream stream(arg.path);
        cli::StepChunk chunk;
        while (stream.next(chunk, 4096)) {
        }
        return "steps=" + std::to_string(chunk.step_sizes.size()) +
               " requests=" + std::to_string(chunk.requests.size());
    });
}

// Measured steps for calibration (mfusim calibrate --steps).
Outcome run_step_trace(const Case& c, const std::string& corpus) {
    TempDir tmp;
    FileArgument arg = file_argument(c, corpus, tmp, "trace.jsonl");
    if (!arg.skip_reason.empty()) return skip(arg.skip_reason);
    return capture([&] {
        calibrate::StepTrace trace = calibrate::read_step_trace(arg.path);
        return "steps=" + std::to_string(trace.steps.size()) + " requests=" + std::to_string(trace.requests.size());
    });
}

// "aic:<file>": the input as <file> of an AIConfigurator folder, compared against the H100 without tables.
Outcome run_aic(const Case& c, const std::string& corpus, const std::string& file) {
    TempDir tmp;
    place_input(c, corpus, tmp.path() / file);
    return capture([&] {
        compare::CompareReport report =
            compare::compare_aic(tmp.path().string(), *gpu::find_builtin_gpu("H100"), nullptr);
        std::string out = "families=" + std::to_string(report.families.size());
        for (const compare::FamilyReport& f : report.families) {
            out += " " + f.family + "=" + std::to_string(f.all.count);
            for (const compare::CompareRow& r : f.worst) {
                if (!std::isfinite(r.predicted_us)) out += " non-finite prediction for " + r.shape;
            }
        }
        return out;
    });
}

// --- the C API ---------------------------------------------------------------------------------------------------

Outcome from_status(mfusim_status status, const mfusim_error& error, const std::string& ok_summary) {
    if (status == MFUSIM_OK) return {"ok", ok_summary};
    if (error.status != status) {
        return {"harness", "error.status " + std::to_string(error.status) + " != " + status_name(status)};
    }
    return {status_name(status), error.message};
}

// "key=value;key=value" (values may not contain ';').
std::map<std::string, std::string> parse_pairs(const std::string& spec) {
    std::map<std::string, std::string> out;
    std::stringstream in(spec);
    std::string item;
    while (std::getline(in, item, ';')) {
        std::size_t eq = item.find('=');
        if (eq != std::string::npos) out[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return out;
}

// Options from "model=...;gpu=...;bench_data=...;mode=roofline|infersim|<n>;tp=;ws=;nodes=;fp8_gemm=;fp8_kv=;
// deepep=;tbo=;sm_ratio=;struct_size=". A value "@path" is a corpus path, "NULL" a NULL string.
struct OptionsSpec {
    std::map<std::string, std::string> pairs;
    std::deque<std::string> strings;  // owns the text the options point into (a deque never moves it)
    mfusim_options options;
};

void fill_options(OptionsSpec& o, const std::string& spec, const std::string& corpus) {
    o.pairs = parse_pairs(spec);
    mfusim_options_init(&o.options, sizeof(o.options), NULL);
    auto text = [&](const char* key) -> const char* {
        auto it = o.pairs.find(key);
        if (it == o.pairs.end() || it->second == "NULL") return nullptr;
        o.strings.push_back(it->second[0] == '@' ? corpus + "/" + it->second.substr(1) : it->second);
        return o.strings.back().c_str();
    };
    auto number = [&](const char* key, auto& field) {
        auto it = o.pairs.find(key);
        // strtod, not stod: a denormal (5e-324) is a value to pass on, where stod throws out_of_range.
        if (it != o.pairs.end()) {
            field = static_cast<std::remove_reference_t<decltype(field)>>(std::strtod(it->second.c_str(), nullptr));
        }
    };
    o.options.model = o.pairs.count("model") ? text("model") : "qwen3-8b";
    o.options.gpu = o.pairs.count("gpu") ? text("gpu") : "H100";
    o.options.bench_data_dir = text("bench_data");
    if (o.pairs.count("mode")) {
        const std::string& m = o.pairs["mode"];
        o.options.mode = m == "infersim" ? MFUSIM_MODE_INFERSIM : m == "roofline" ? MFUSIM_MODE_ROOFLINE : std::stoi(m);
    }
    number("tp", o.options.tensor_parallel);
    number("ws", o.options.world_size);
    number("nodes", o.options.num_nodes);
    number("fp8_gemm", o.options.fp8_gemm);
    number("fp8_kv", o.options.fp8_kv);
    number("deepep", o.options.deepep);
    number("tbo", o.options.two_batch_overlap);
    number("sm_ratio", o.options.sm_ratio);
    number("struct_size", o.options.struct_size);
}

// mfusim_estimator_create with the options of the input; "options=NULL" / "out=NULL" pass NULL pointers.
Outcome run_estimator(const Case& c, const std::string& corpus) {
    OptionsSpec o;
    fill_options(o, c.input, corpus);
    mfusim_estimator* estimator = nullptr;
    mfusim_error error;
    mfusim_status status = mfusim_estimator_create(o.pairs.count("options") ? nullptr : &o.options,
                                                   o.pairs.count("out") ? nullptr : &estimator, &error);
    std::string summary = "created; load warnings: ";
    if (estimator) summary += mfusim_estimator_load_warnings(estimator);
    if (status != MFUSIM_OK && estimator != nullptr) summary = "out written on failure";
    mfusim_estimator_free(estimator);
    return from_status(status, error, summary);
}

// One step through mfusim_step_time and mfusim_step_detail, which must agree (status, message, total).
Outcome step_both_ways(const mfusim_estimator* estimator, const StepSpec& s) {
    const mfusim_request* requests = s.null_pointer ? nullptr : s.requests.data();
    mfusim_error error, detail_error;
    double us = -1;
    mfusim_status status = mfusim_step_time(estimator, requests, s.count, &us, &error);
    mfusim_step_result detail;
    mfusim_step_result_init(&detail, sizeof(detail), NULL);
    mfusim_status detail_status = mfusim_step_detail(estimator, requests, s.count, &detail, &detail_error);
    if (detail_status != status) return {"harness", "step_detail gave status " + std::to_string(detail_status)};
    if (status != MFUSIM_OK) {
        if (us != -1) return {"harness", "out_us written on failure"};
        if (std::strcmp(error.message, detail_error.message) != 0) {
            return {"harness", std::string("step_detail's message differs: ") + detail_error.message};
        }
        return from_status(status, error, "");
    }
    if (!std::isfinite(us) || us < 0) return {"harness", "a non-finite or negative time " + std::to_string(us)};
    if (detail.total_us != us) return {"harness", "step_detail's total differs from step_time"};
    return {"ok", "us=" + std::to_string(us)};
}

// Created once per process: the estimators the step cases run on.
const mfusim_estimator* default_estimator(mfusim_mode mode) {
    static mfusim_estimator* const estimators[2] = {[] {
                                                        mfusim_options o;
                                                        mfusim_options_init(&o, sizeof(o), NULL);
                                                        o.model = "qwen3-8b";
                                                        o.gpu = "H100";
                                                        mfusim_estimator* e = nullptr;
                                                        mfusim_estimator_create(&o, &e, nullptr);
                                                        return e;
                                                    }(),
                                                    [] {
                                                        mfusim_options o;
                                                        mfusim_options_init(&o, sizeof(o), NULL);
                                                        o.model = "qwen3-8b";
                                                        o.gpu = "H20";
                                                        o.mode = MFUSIM_MODE_INFERSIM;
                                                        mfusim_estimator* e = nullptr;
                                                        mfusim_estimator_create(&o, &e, nullptr);
                                                        return e;
                                                    }()};
    return estimators[mode == MFUSIM_MODE_INFERSIM ? 1 : 0];
}

// Steps on Qwen3-8B in both modes (roofline on the H100, compat on the H20): the outcome must be the same.
Outcome run_steps(const Case& c, const std::string&) {
    StepSpec s = parse_steps(c.input);
    Outcome roofline = step_both_ways(default_estimator(MFUSIM_MODE_ROOFLINE), s);
    Outcome compat = step_both_ways(default_estimator(MFUSIM_MODE_INFERSIM), s);
    if (roofline.status != compat.status || (roofline.status != "ok" && roofline.message != compat.message)) {
        return {"harness", "the modes disagree: roofline " + roofline.status + " (" + roofline.message + "), compat " +
                               compat.status + " (" + compat.message + ")"};
    }
    return roofline;
}

// "<options> :: <steps>": an estimator of those options (which must create), then one step both ways.
Outcome run_estimator_steps(const Case& c, const std::string& corpus) {
    std::size_t sep = c.input.find(" :: ");
    if (sep == std::string::npos) return {"harness", "expected '<options> :: <steps>'"};
    OptionsSpec o;
    fill_options(o, c.input.substr(0, sep), corpus);
    mfusim_estimator* estimator = nullptr;
    mfusim_error error;
    if (mfusim_estimator_create(&o.options, &estimator, &error) != MFUSIM_OK) {
        return {"harness", std::string("cannot create the estimator: ") + error.message};
    }
    Outcome out = step_both_ways(estimator, parse_steps(c.input.substr(sep + 4)));
    mfusim_estimator_free(estimator);
    return out;
}

// "<step sizes, comma-separated; NULL; none> :: <steps>" through mfusim_step_time_batch on the roofline estimator;
// out_us must stay untouched on failure.
Outcome run_batch(const Case& c, const std::string&) {
    std::size_t sep = c.input.find(" :: ");
    if (sep == std::string::npos) return {"harness", "expected '<sizes> :: <steps>'"};
    std::string sizes_text = c.input.substr(0, sep);
    std::vector<int64_t> sizes;
    std::stringstream in(sizes_text == "NULL" || sizes_text == "none" ? "" : sizes_text);
    for (std::string item; std::getline(in, item, ',');) sizes.push_back(std::stoll(item));
    std::size_t n_steps = sizes_text == "NULL" ? 3 : sizes.size();
    StepSpec s = parse_steps(c.input.substr(sep + 4));
    std::vector<double> out(n_steps + 1, -1.0);
    mfusim_error error;
    mfusim_status status =
        mfusim_step_time_batch(default_estimator(MFUSIM_MODE_ROOFLINE), s.null_pointer ? nullptr : s.requests.data(),
                               s.count, sizes_text == "NULL" ? nullptr : sizes.data(), n_steps, out.data(), &error);
    std::string summary = "times=";
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (status != MFUSIM_OK && out[i] != -1.0) return {"harness", "out_us written on failure"};
        if (i < n_steps) summary += (i ? "," : "") + std::to_string(out[i] > 0);
    }
    return from_status(status, error, summary);
}

// "<options> :: key=value;..." of mfusim_scenario (input, output, max_prefill, decode_batch, tgs, tpot, phases,
// struct_size; "scenario=NULL"): mfusim_estimate, then with "lookup=<name>" mfusim_report_value; on success the
// summary counts the report's values and names any that is not finite.
Outcome run_estimate(const Case& c, const std::string& corpus) {
    std::size_t sep = c.input.find(" :: ");
    if (sep == std::string::npos) return {"harness", "expected '<options> :: <scenario>'"};
    OptionsSpec o;
    fill_options(o, c.input.substr(0, sep), corpus);
    mfusim_estimator* estimator = nullptr;
    mfusim_error error;
    if (mfusim_estimator_create(&o.options, &estimator, &error) != MFUSIM_OK) {
        return {"harness", std::string("cannot create the estimator: ") + error.message};
    }
    auto pairs = parse_pairs(c.input.substr(sep + 4));
    mfusim_scenario scenario;
    mfusim_scenario_init(&scenario, sizeof(scenario), NULL);
    auto number = [&](const char* key, auto& field) {
        if (pairs.count(key)) field = static_cast<std::remove_reference_t<decltype(field)>>(std::stod(pairs[key]));
    };
    number("input", scenario.input_len);
    number("output", scenario.output_len);
    number("max_prefill", scenario.max_prefill_tokens);
    number("decode_batch", scenario.decode_batch);
    number("tgs", scenario.target_tgs);
    number("tpot", scenario.target_tpot_ms);
    number("phases", scenario.phases);
    number("struct_size", scenario.struct_size);
    mfusim_report* report = nullptr;
    mfusim_status status = mfusim_estimate(estimator, pairs.count("scenario") ? nullptr : &scenario, &report, &error);
    if (status == MFUSIM_OK && pairs.count("lookup")) {
        // A quantity of the report by name ("lookup=NULL" passes a NULL name, "out=NULL" a NULL output).
        double value = -1;
        const std::string& name = pairs["lookup"];
        status = mfusim_report_value(report, name == "NULL" ? nullptr : name.c_str(),
                                     pairs.count("out") ? nullptr : &value, &error);
        if (status == MFUSIM_OK && !std::isfinite(value)) status = MFUSIM_ERR_INTERNAL;
    }
    std::string summary;
    for (std::size_t i = 0; report && i < mfusim_report_count(report); ++i) {
        double v = mfusim_report_value_at(report, i);
        if (!std::isfinite(v)) summary += std::string(" non-finite ") + mfusim_report_name(report, i);
    }
    if (report) summary = "values=" + std::to_string(mfusim_report_count(report)) + summary;
    mfusim_report_free(report);
    mfusim_estimator_free(estimator);
    return from_status(status, error, summary);
}

}  // namespace

bool is_status_name(const std::string& name) {
    for (const char* s : kStatusNames) {
        if (name == s) return true;
    }
    return false;
}

Outcome run_case(const Case& c, const std::string& corpus) {
    try {
        if (c.runner == "invalid")
            return {"harness", "cases.txt line " + std::to_string(c.manifest_line) + " malformed"};
        if (starts_with(c.runner, "table:")) return run_table(c, corpus, c.runner.substr(6));
        if (c.runner == "manifest") return run_manifest(c, corpus);
        if (c.runner == "bench_data") return run_bench_data(c, corpus);
        if (c.runner == "model") return run_model(c, corpus);
        if (c.runner == "gpu") return run_gpu(c, corpus);
        if (c.runner == "engine") return run_engine(c, corpus);
        if (c.runner == "calibration") return run_calibration(c, corpus);
        if (c.runner == "serving_csv") return run_serving_csv(c, corpus);
        if (c.runner == "steps") return run_steps(c, corpus);
        if (c.runner == "step_stream") return run_step_stream(c, corpus);
        if (c.runner == "step_trace") return run_step_trace(c, corpus);
        if (starts_with(c.runner, "aic:")) return run_aic(c, corpus, c.runner.substr(4));
        if (c.runner == "infersim_model") return run_infersim_model(c, corpus);
        if (c.runner == "estimator") return run_estimator(c, corpus);
        if (c.runner == "estimator_steps") return run_estimator_steps(c, corpus);
        if (c.runner == "batch") return run_batch(c, corpus);
        if (c.runner == "estimate") return run_estimate(c, corpus);
        return {"harness", "unknown runner '" + c.runner + "'"};
    } catch (const std::exception& e) {
        // The harness itself failed (a missing corpus file, mkdtemp): never the library's status.
        return {"harness", std::string("harness error: ") + e.what()};
    }
}

}  // namespace mfusim::bad_input
