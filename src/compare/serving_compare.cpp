#include "compare/serving_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>

#include "common/answer.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/numbers.hpp"
#include "compare/columns.hpp"
#include "compare/launch_recipe.hpp"
#include "compare/row_gpu.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engine/estimator.hpp"
#include "engines/engine_version.hpp"
#include "query/names.hpp"
#include "tables/csv.hpp"

namespace mfusim::compare {

namespace {

// The first `marker` at or after `from` in a run id that digits follow (at most five), and their value; value 0
// and position npos when there is none ("_epnone" has no digits).
struct IdNumber {
    int64_t value = 0;
    std::size_t at = std::string_view::npos;
};
IdNumber id_number(std::string_view id, std::string_view marker, std::size_t from = 0) {
    for (std::size_t at = id.find(marker, from); at != std::string_view::npos; at = id.find(marker, at + 1)) {
        int64_t n = 0;
        const std::size_t start = at + marker.size();
        std::size_t i = start;
        for (; i < id.size() && i < start + 5 && id[i] >= '0' && id[i] <= '9'; ++i) n = n * 10 + (id[i] - '0');
        if (i > start) return {n, at};
    }
    return {};
}

// The GPUs a run id names: the digits after its first "_tp" ("..._c32_tp8_ep8_922" -> 8); 0 when it names none.
int64_t id_gpus(std::string_view id) {
    return id_number(id, "_tp").value;
}

// The expert parallelism a run id names: the digits after the first "_ep" past its "_tp<N>" ("..._tp8_ep8_922",
// "..._tp8_0_ep8_0_1238" -> 8); 0 when it names none ("_epnone").
int64_t id_ep(std::string_view id) {
    const IdNumber tp = id_number(id, "_tp");
    return tp.at == std::string_view::npos ? 0 : id_number(id, "_ep", tp.at + 3).value;
}

// A row whose columns are its run id's GPUs times its EP: the converter of InferenceX's database dumps wrote
// moe_tp_size = TP and tp_size = TP x EP (or, under attention DP, attention_dp_size = TP x EP) for a run named
// `_tp<N>_ep<M>` on N GPUs (docs/simulate.md, "Rows that ran expert parallelism and record EP 1": such rows read
// the same TPOT, within 4% at all 49 shared points, as the same deployments recorded on N GPUs). Read as the id
// says: the one degree above 1 divided by the EP. Anything else is left for check_rows to refuse.
void read_as_named(ServingRow& r, std::string_view id) {
    const int64_t gpus = id_gpus(id), ep = id_ep(id);
    if (gpus <= 0 || ep <= 1 || r.ep != ep || r.tp * r.attention_dp != gpus * ep) return;
    if (r.attention_dp > 1 && r.tp == 1 && r.attention_dp % ep == 0) {
        r.attention_dp /= ep;
    } else if (r.tp > 1 && r.attention_dp == 1 && r.tp % ep == 0) {
        r.tp /= ep;
    }
}

// Refuses the rows that contradict their own run id, then every later repeat of a measurement.
void check_rows(std::vector<ServingRow>& rows, const std::vector<std::string>& ids,
                const std::vector<std::pair<std::string, std::string>>& measured_keys) {
    std::set<std::tuple<std::string, std::string, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, std::string,
                        std::string>>
        first;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        ServingRow& r = rows[i];
        if (!r.refusal.empty()) continue;  // refused by the reader already
        if (int64_t named = id_gpus(ids[i]); named > 0 && named != r.tp * r.attention_dp) {
            r.refusal_status = "inconsistent row";
            r.refusal = "the run id names tp" + std::to_string(named) + " (" + std::to_string(named) +
                        " GPUs), but tp_size x attention_dp_size is " + std::to_string(r.tp * r.attention_dp);
            continue;
        }
        // The same figures on two systems are two runs.
        auto key =
            std::make_tuple(r.system, r.backend, r.workload.input_len, r.workload.output_len, r.workload.concurrency,
                            r.tp, r.ep, r.attention_dp, measured_keys[i].first, measured_keys[i].second);
        if (!first.insert(key).second) {
            r.refusal_status = "repeated measurement";
            r.refusal =
                "repeats an earlier row: the same deployment and lengths, TTFT and TPOT to 12 significant digits";
        }
    }
}

}  // namespace

std::string measured_key(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.12g", value);
    return text;
}

std::string pipeline_refusal(const std::string& column, int64_t pp) {
    return column + " " + std::to_string(pp) + ": pipeline parallelism is not modelled";
}

std::vector<ServingRow> read_silicon_csv(const std::string& path) {
    tables::CsvText csv = tables::read_csv_file(path);
    if (csv.lines.empty()) throw Error(Status::parse, path + ": empty file");
    const tables::CsvLine& header = csv.lines.front();
    auto column = [&](std::string_view name) -> std::size_t {
        for (std::size_t i = 0; i < header.fields.size(); ++i) {
            if (header.fields[i] == name) return i;
        }
        throw Error(Status::parse, path + ":1: no column '" + std::string(name) + "' in the header");
    };
    const std::size_t c_backend = column("backend"), c_model = column("model_path"), c_mode = column("mode"),
                      c_isl = column("isl"), c_osl = column("osl"), c_quant = column("gemm_quant_mode"),
                      c_batch = column("batch_size"), c_tp = column("tp_size"), c_dp = column("attention_dp_size"),
                      c_ep = column("moe_ep_size"), c_ttft = column("silicon_ttft_ms"),
                      c_tpot = column("silicon_tpot_ms");
    std::size_t c_id = header.fields.size(), c_source = header.fields.size();  // optional
    std::size_t c_version = header.fields.size(), c_system = header.fields.size(), c_pp = header.fields.size();
    std::size_t c_moe_quant = header.fields.size();
    for (std::size_t i = 0; i < header.fields.size(); ++i) {
        if (header.fields[i] == "system") c_system = i;
        if (header.fields[i] == "moe_quant_mode") c_moe_quant = i;
        if (header.fields[i] == "pp_size") c_pp = i;
        if (header.fields[i] == "id") c_id = i;
        if (header.fields[i] == "silicon_data_source") c_source = i;
        if (header.fields[i] == "backend_version") c_version = i;
    }
    std::vector<ServingRow> rows;
    std::vector<std::string> ids;
    std::vector<std::pair<std::string, std::string>> measured_keys;
    for (std::size_t i = 1; i < csv.lines.size(); ++i) {
        const tables::CsvLine& line = csv.lines[i];
        tables::CsvFieldReader f(csv, line);
        if (line.fields.size() != header.fields.size()) {
            throw Error(Status::parse, path + ":" + std::to_string(line.line_number) + ": " +
                                           std::to_string(line.fields.size()) + " fields, the header has " +
                                           std::to_string(header.fields.size()));
        }
        if (f.text(c_mode, "mode") != "agg") continue;
        ServingRow r;
        r.line = line.line_number;
        r.backend = std::string(f.text(c_backend, "backend"));
        if (c_version < header.fields.size()) r.backend_version = std::string(f.text(c_version, "backend_version"));
        r.model_path = std::string(f.text(c_model, "model_path"));
        r.quant = row_quant_label(f.text(c_quant, "gemm_quant_mode"),
                                  c_moe_quant < header.fields.size() ? f.text(c_moe_quant, "moe_quant_mode") : "");
        if (c_system < header.fields.size()) r.system = std::string(f.text(c_system, "system"));
        r.tp = parallel_degree(f, c_tp, "tp_size");
        r.ep = parallel_degree(f, c_ep, "moe_ep_size");
        r.attention_dp = parallel_degree(f, c_dp, "attention_dp_size");
        if (const int64_t pp = c_pp < header.fields.size() ? parallel_degree(f, c_pp, "pp_size") : 1; pp > 1) {
            r.refusal_status = "unsupported";
            r.refusal = pipeline_refusal("pp_size", pp);
        }
        r.workload.input_len = f.integer(c_isl, "isl");
        r.workload.output_len = f.integer(c_osl, "osl");
        r.workload.concurrency = f.integer(c_batch, "batch_size");
        r.ttft_ms = f.number(c_ttft, "silicon_ttft_ms");
        r.tpot_ms = f.number(c_tpot, "silicon_tpot_ms");
        if (c_source < header.fields.size()) {
            const std::string_view source = f.text(c_source, "silicon_data_source");
            r.collection = collection_of(source);
            r.measured = measured_date_of(source);
            if (version_names_wrapper(source, r.backend_version)) r.backend_version.clear();
            // The clients the benchmark held, where the source says so and the columns agree: batch_size is one
            // attention-DP replica's batch (docs/simulate.md, "The clients of an attention-DP row").
            const int64_t clients = concurrency_of(source);
            if (r.attention_dp > 1 && clients % r.attention_dp == 0 &&
                clients / r.attention_dp == r.workload.concurrency) {
                r.workload.concurrency = clients;
            }
        }
        // After the clients: the converter divided them by its own attention_dp_size (TP x EP), not by the id's.
        const std::string_view id = c_id < header.fields.size() ? f.text(c_id, "id") : std::string_view{};
        read_as_named(r, id);
        // Normal as well as positive: every error is a ratio against them, and 1e-320 makes it infinite.
        if (!(is_usable_measurement(r.ttft_ms) && is_usable_measurement(r.tpot_ms))) {
            throw Error(Status::parse, path + ":" + std::to_string(line.line_number) +
                                           ": measured TTFT and TPOT must be positive normal numbers, found " +
                                           shortest_text(r.ttft_ms) + " and " + shortest_text(r.tpot_ms));
        }
        ids.emplace_back(id);
        measured_keys.emplace_back(measured_key(r.ttft_ms), measured_key(r.tpot_ms));
        rows.push_back(std::move(r));
    }
    check_rows(rows, ids, measured_keys);
    return rows;
}

namespace {

// The one `<dir>/*--<name>_config.json`; "" when none or several.
std::string unique_config(const std::string& dir, const std::string& name) {
    const std::string suffix = "--" + name + "_config.json";
    std::string found;
    std::error_code ec;
    std::size_t seen = 0, matches = 0;
    for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec)) {
        if (++seen > 100000) break;  // a configs folder holds dozens: bounded all the same
        const std::string file = it->path().filename().string();
        if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
            ++matches;
            found = it->path().string();
        }
    }
    return matches == 1 && is_regular_file(found) ? found : "";
}

// A trailing part of a checkpoint's name that does not change its architecture: a weight format (FP8, NVFP4,
// MXFP4, FP8-Dynamic's parts, BF16, AWQ), a dated revision (0528, 2507), a re-release (v2, V2, Preview), a
// post-training stage (Instruct, Thinking, Chat, Base, it: Qwen/Qwen3-235B-A22B-Instruct-2507 is Qwen3-235B-A22B's
// layers, fine-tuned).
bool is_checkpoint_decoration(std::string_view part) {
    std::string p(part);
    for (char& c : p) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const char* word : {"FP8",      "FP4",      "NVFP4",  "MXFP4",     "MXFP8",   "BF16",
                             "FP16",     "INT4",     "INT8",   "W4A16",     "W8A8",    "AWQ",
                             "GPTQ",     "DYNAMIC",  "STATIC", "PERTENSOR", "PREVIEW",  // formats, a re-release
                             "INSTRUCT", "THINKING", "CHAT",   "BASE",      "IT"}) {    // post-training stages
        if (p == word) return true;
    }
    const bool digits = !p.empty() && std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits && p.size() == 4) return true;  // MMDD / YYMM revision
    return p.size() >= 2 && p.size() <= 3 && p[0] == 'V' &&
           std::all_of(p.begin() + 1, p.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// `<dir>/<org>--<name>_config.json`, else the one file of that name under any organisation (Hugging Face
// organisations are renamed: THUDM and zhipuai are now zai-org); then both for the AIConfigurator folder's Llama
// 3.1 spelling, Meta-<name> (its -Instruct is a decoration find_without_decorations drops).
std::string find_config(const std::string& dir, const std::string& org, const std::string& name) {
    const std::vector<std::string> names = {name, "Meta-" + name};
    for (const std::string& n : names) {
        if (std::string direct = dir + "/" + org + "--" + n + "_config.json"; is_regular_file(direct)) return direct;
        if (std::string any = unique_config(dir, n); !any.empty()) return any;
    }
    return "";
}

// The first path `find` gives for `name` or for the name less its trailing checkpoint decorations, one at a time
// (is_checkpoint_decoration); "" when none does.
std::string find_without_decorations(std::string name, const std::function<std::string(const std::string&)>& find) {
    for (;;) {
        if (std::string path = find(name); !path.empty()) return path;
        const std::size_t dash = name.rfind('-');
        if (dash == std::string::npos || !is_checkpoint_decoration(std::string_view(name).substr(dash + 1))) return "";
        name.erase(dash);
    }
}

}  // namespace

std::string config_for(const std::string& configs_dir, const std::string& model_path) {
    std::size_t slash = model_path.find('/');
    if (slash == std::string::npos) return "";
    const std::string org = model_path.substr(0, slash);
    // A quantized checkpoint, a dated revision or a re-release has its base model's architecture (the row's
    // gemm_quant_mode gives the format): nvidia/Llama-3.1-8B-Instruct-FP8 is meta-llama's Llama-3.1-8B-Instruct, and
    // nvidia/DeepSeek-R1-0528-NVFP4-v2 (InferenceX's configs/*-master.yaml name checkpoints so) is DeepSeek-R1. The
    // name loses one such trailing part at a time until a config matches.
    return find_without_decorations(model_path.substr(slash + 1),
                                    [&](const std::string& base) { return find_config(configs_dir, org, base); });
}

std::string nvidia_nvfp4_config_for(const std::string& configs_dir, const std::string& model_path) {
    const std::size_t slash = model_path.find('/');
    return find_without_decorations(slash == std::string::npos ? model_path : model_path.substr(slash + 1),
                                    [&](const std::string& base) {
                                        std::string direct = configs_dir + "/nvidia--" + base + "-NVFP4_config.json";
                                        return is_regular_file(direct) ? direct : std::string();
                                    });
}

std::optional<config::Quantization> served_checkpoint(const std::string& configs_dir, const std::string& model_path,
                                                      std::string_view row_quant,
                                                      const config::ModelConfig& checkpoint) {
    if (served_quant(row_quant, checkpoint.quant) != "nvfp4") return std::nullopt;
    const std::string nvidia = nvidia_nvfp4_config_for(configs_dir, model_path);
    if (nvidia.empty()) return launch_checkpoint(row_quant, checkpoint);
    const config::Quantization own = config::parse_model_config(config::resolve_model_source(nvidia)).quant;
    return launch_checkpoint(row_quant, checkpoint, &own);
}

std::vector<ServingPrediction> predict_serving(const std::vector<ServingRow>& rows, const std::string& configs_dir,
                                               const std::string& gpu, const EngineFor& engine_for,
                                               ServingMethod method, const query::Speculation& speculation,
                                               const LaunchFile* launches) {
    // One estimator per deployment; a deployment that cannot be built refuses all its rows alike. The last member:
    // the receive interval the row's launch gives its engine (launch_scheduler_recv_interval; 0 where it keeps the
    // profile's), which varies with the clients; then the entries of the launch file the row matched.
    using Key = std::tuple<std::string, std::string, std::string, std::string, int64_t, int64_t, int64_t, Collection,
                           std::string, int64_t, std::vector<std::size_t>>;
    // A deployment's estimator and its main weights as served (launch_token_budget reads them per row).
    struct Deployed {
        std::shared_ptr<engine::Estimator> estimator;
        config::WeightFormat main = config::WeightFormat::bf16;
    };
    const RowGpuResolver gpus(gpu);
    std::map<Key, Deployed> deployed;
    std::map<Key, std::pair<std::string, std::string>> failures;
    std::map<std::string, engines::EngineProfile> engines_by_backend;
    std::vector<ServingPrediction> out;
    out.reserve(rows.size());
    for (const ServingRow& row : rows) {
        ServingPrediction p;
        p.row = &row;
        auto fail = [&](const std::string& status, const std::string& message) {
            p.status = status;
            p.message = message;
        };
        // A release number is the row's engine version; an image tag ("gpt-oss-dev") or nothing leaves it unnamed.
        const std::string version =
            engines::parse_engine_version(row.backend_version) ? row.backend_version : std::string();
        const RowGpu on = gpus.for_system(row.system);
        p.gpu = on.name;
        // The row through its deployment's estimator, built on the row's first use.
        auto answer = [&] {
            if (!engines_by_backend.count(row.backend))
                engines_by_backend.emplace(row.backend, engine_for(row.backend));
            const engines::EngineProfile& engine = engines_by_backend.at(row.backend);
            const int64_t recv_interval = launch_scheduler_recv_interval(
                engine, row.collection, on.blackwell_generation, row.workload.concurrency);
            const LaunchedRun run{.backend = row.backend,
                                  .model = row.model_path,
                                  .quant = row.quant,
                                  .system = row.system,
                                  .measured = row.measured,
                                  .isl = row.workload.input_len,
                                  .osl = row.workload.output_len,
                                  .tp = row.tp,
                                  .attention_dp = row.attention_dp,
                                  .concurrency = row.workload.concurrency};
            const std::vector<std::size_t> applied =
                launches != nullptr ? matching_launches(*launches, run) : std::vector<std::size_t>{};
            const Key key{on.gpu,           row.backend,    row.model_path, row.quant,     row.tp, row.ep,
                          row.attention_dp, row.collection, version,        recv_interval, applied};
            if (auto f = failures.find(key); f != failures.end()) {
                fail(f->second.first, f->second.second);
                return;
            }
            Deployed& d = deployed[key];
            if (!d.estimator) {
                try {
                    // The layout the run ran at: the row's, or the launch file's where the recipe states another.
                    const LaunchLayout layout = launches != nullptr
                                                    ? launched_layout(*launches, applied, {row.tp, row.attention_dp})
                                                    : LaunchLayout{row.tp, row.attention_dp};
                    engine::Options o;
                    o.model = config_for(configs_dir, row.model_path);
                    if (o.model.empty()) {
                        throw Error(Status::io, "no config for " + row.model_path + " in " + configs_dir);
                    }
                    o.gpu = on.gpu;
                    o.deployment.tensor_parallel = layout.tensor_parallel;
                    o.deployment.attention_data_parallel = layout.attention_dp;
                    o.deployment.speculation = speculation;
                    const config::ModelConfig checkpoint =
                        config::parse_model_config(config::resolve_model_source(o.model));
                    const ServedWeights served = served_weights(row.quant, checkpoint.quant);
                    const config::WeightFormat experts = served.quant.empty() ? checkpoint.quant.experts : served.main;
                    o.deployment.expert_parallel = launch_expert_parallel(
                        engine, checkpoint, experts, layout.tensor_parallel, layout.attention_dp, row.ep);
                    o.checkpoint_quant = served_checkpoint(configs_dir, row.model_path, row.quant, checkpoint);
                    o.quant = o.checkpoint_quant ? std::string() : served.quant;
                    o.deployment.fp8_kv =
                        launch_fp8_kv_cache(engine, row.collection, on.blackwell_generation, served.main);
                    o.engine_profile = launch_recipe(version.empty() ? engine : engines::at_version(engine, version),
                                                     layout.attention_dp, row.collection);
                    if (recv_interval > 0) o.engine_profile->scheduler_recv_interval = recv_interval;
                    if (launches != nullptr) {
                        o.engine_profile = launched_profile(*launches, *o.engine_profile, applied);
                        o.deployment.speculation = launched_speculation(*launches, applied, speculation);
                        o.deployment.expert_parallel =
                            launched_expert_parallel(*launches, applied, layout.tensor_parallel * layout.attention_dp,
                                                     o.deployment.expert_parallel);
                        o.deployment.fp8_kv = launched_fp8_kv_cache(*launches, applied, o.deployment.fp8_kv);
                    }
                    d.estimator = launched_estimator(o);
                    d.main = served.main;
                } catch (const Error& e) {
                    deployed.erase(key);
                    failures[key] = {query::status_name(static_cast<mfusim_status>(e.status())), e.what()};
                    throw;
                }
            }
            p.result.struct_size = sizeof p.result;
            serving::Workload workload = row.workload;
            if (const roofline::RooflineModel* model = d.estimator->roofline();
                model != nullptr && workload.max_batched_tokens == 0) {
                // A speculative run's decodes carry their drafts into the step's token budget.
                const query::Speculation& drafts = model->speculation();
                workload.max_batched_tokens =
                    launch_token_budget(model->engine(), row.collection, on.blackwell_generation, d.main,
                                        workload.concurrency, workload.input_len, drafts.active() ? drafts.tokens : 0);
            }
            if (method == ServingMethod::simulate) {
                d.estimator->serve_simulated(workload, p.result);
            } else {
                d.estimator->serve(workload, p.result);
            }
            p.answered = true;
            p.status = "ok";
        };
        try {
            if (!on.status.empty()) {
                fail(on.status, on.message);
            } else if (!row.refusal.empty()) {
                fail(row.refusal_status, row.refusal);
            } else {
                answer();
            }
        } catch (const Error& e) {
            fail(query::status_name(static_cast<mfusim_status>(e.status())), e.what());
        }
        out.push_back(std::move(p));
    }
    return out;
}

// The concurrency buckets the serving figures are reported in (docs/simulate.md): 1-8, 16-32, 64-128, 256+.
std::string concurrency_bucket(const ServingRow& row) {
    const int64_t c = row.workload.concurrency;
    return c <= 8 ? "(c 1-8)" : c <= 32 ? "(c 16-32)" : c <= 128 ? "(c 64-128)" : "(c 256+)";
}

std::vector<ServingGroup> serving_groups(const std::vector<ServingPrediction>& predictions) {
    using Key = std::tuple<std::string, std::string, std::string>;  // GPU, backend, model
    std::map<Key, std::pair<std::vector<double>, std::vector<double>>> errors;
    std::map<Key, ServingGroup> groups;
    for (const ServingPrediction& p : predictions) {
        for (const std::string& model : {p.row->model_path, std::string("(all)"), concurrency_bucket(*p.row)}) {
            const Key key{p.gpu, p.row->backend, model};
            ServingGroup& g = groups[key];
            g.gpu = p.gpu;
            g.backend = p.row->backend;
            g.model = model;
            ++g.rows;
            if (!p.answered) {
                ++g.refused;
                continue;
            }
            errors[key].first.push_back(p.result.ttft_ms / p.row->ttft_ms - 1);
            errors[key].second.push_back(p.result.tpot_ms / p.row->tpot_ms - 1);
        }
    }
    std::vector<ServingGroup> out;
    for (auto& [key, g] : groups) {
        g.ttft = error_stats(errors[key].first);
        g.tpot = error_stats(errors[key].second);
        out.push_back(g);
    }
    // Each GPU's backends, each backend's models, then its total.
    std::stable_sort(out.begin(), out.end(), [](const ServingGroup& a, const ServingGroup& b) {
        auto rank = [](const ServingGroup& g) { return g.model == "(all)" ? 2 : g.model.rfind("(c ", 0) == 0 ? 1 : 0; };
        auto c_of = [](const ServingGroup& g) {
            return g.model.rfind("(c ", 0) == 0 ? std::atoi(g.model.c_str() + 3) : 0;
        };
        return std::make_tuple(a.gpu, a.backend, rank(a), c_of(a), a.model) <
               std::make_tuple(b.gpu, b.backend, rank(b), c_of(b), b.model);
    });
    return out;
}

std::string format_serving(const std::vector<ServingGroup>& groups, const std::vector<ServingPrediction>& predictions) {
    // One GPU: the layout every report has had; several (a file of several systems): each engine under its GPU.
    const bool several_gpus =
        std::any_of(groups.begin(), groups.end(), [&](const ServingGroup& g) { return g.gpu != groups.front().gpu; });
    // Both label columns are as wide as their longest entry ("deepseek-ai/DeepSeek-R1 (pools not given)"); a label
    // longer than kLabelColumn (a file's own text) is cut with "..." so that every row fits the buffer whole.
    constexpr std::size_t kLabelColumn = 96;
    auto cut = [&](const std::string& label) {
        return label.size() <= kLabelColumn ? label : label.substr(0, kLabelColumn - 3) + "...";
    };
    // Each group's two labels, formed once: they set the columns' widths and then fill them.
    std::vector<std::pair<std::string, std::string>> labels;
    labels.reserve(groups.size());
    int width = 8, model_width = 34;
    for (const ServingGroup& g : groups) {
        labels.emplace_back(cut(several_gpus ? g.gpu + " " + g.backend : g.backend), cut(g.model));
        width = std::max(width, static_cast<int>(labels.back().first.size()));
        model_width = std::max(model_width, static_cast<int>(labels.back().second.size()));
    }
    std::string s;
    char buf[400];
    std::snprintf(buf, sizeof buf, "%-*s %-*s %5s %5s  %-28s %-28s\n", width, "engine", model_width, "model", "rows",
                  "refd", "TTFT |err| med / p90 / bias", "TPOT |err| med / p90 / bias");
    s += buf;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const ServingGroup& g = groups[i];
        std::snprintf(buf, sizeof buf, "%-*s %-*s %5zu %5zu  %7.1f%% %7.1f%% %+7.1f%%    %7.1f%% %7.1f%% %+7.1f%%\n",
                      width, labels[i].first.c_str(), model_width, labels[i].second.c_str(), g.rows, g.refused,
                      100 * g.ttft.median_abs, 100 * g.ttft.p90_abs, 100 * g.ttft.median_signed,
                      100 * g.tpot.median_abs, 100 * g.tpot.p90_abs, 100 * g.tpot.median_signed);
        s += buf;
    }
    std::map<std::string, std::size_t> reasons;
    for (const ServingPrediction& p : predictions) {
        if (!p.answered) ++reasons[p.status + ": " + p.message];
    }
    if (!reasons.empty()) s += "\nrefused rows:\n";
    for (const auto& [reason, count] : reasons) s += "  " + std::to_string(count) + " x " + reason + "\n";
    return s;
}

double requests_per_client_for(int64_t num_prompts, int64_t concurrency) {
    if (num_prompts < 1) {
        throw Error(Status::invalid_argument, "--num-prompts must be at least 1, got " + std::to_string(num_prompts));
    }
    return std::max(1.0, static_cast<double>(num_prompts) / static_cast<double>(std::max<int64_t>(1, concurrency)));
}

void set_benchmark(std::vector<ServingRow>& rows, std::optional<int64_t> num_prompts, double per_client,
                   double length_ratio) {
    for (ServingRow& r : rows) {
        r.workload.requests_per_client =
            num_prompts ? requests_per_client_for(*num_prompts, r.workload.concurrency) : per_client;
        r.workload.min_length_ratio = length_ratio;
    }
}

}  // namespace mfusim::compare
