#include "compare/disagg_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <tuple>

#include "common/answer.hpp"
#include "common/error.hpp"
#include "common/numbers.hpp"
#include "compare/columns.hpp"
#include "compare/launch_recipe.hpp"
#include "compare/row_gpu.hpp"
#include "config/model_source.hpp"
#include "engine/disagg_serve.hpp"
#include "query/names.hpp"
#include "simulate/disagg_sim.hpp"
#include "tables/csv.hpp"

namespace mfusim::compare {

namespace {

// An optional count: 0 when the field is empty.
int64_t count(const tables::CsvFieldReader& f, std::size_t column, std::string_view name) {
    if (f.text(column, name).empty()) return 0;
    return f.integer_between(column, name, 0, int64_t{1} << 20);
}

struct Columns {
    const tables::CsvText* csv = nullptr;
    std::string path;
    std::size_t find(std::string_view name) const {
        const tables::CsvLine& header = csv->lines.front();
        for (std::size_t i = 0; i < header.fields.size(); ++i) {
            if (header.fields[i] == name) return i;
        }
        throw Error(Status::parse, path + ":1: no column '" + std::string(name) + "' in the header");
    }
};

// The files repeat runs: the same measurement appears in several dumps, under DeepSeek-R1 in one and DeepSeek-V3 in
// another, with its pool sizes in one and without in the other. A run is its system, backend, lengths, concurrency and
// measured figures (to 12 significant digits); it is kept once, from a row that gives its pools where one does.
std::vector<DisaggRow> distinct_runs(std::vector<DisaggRow> rows) {
    std::map<std::tuple<std::string, std::string, int64_t, int64_t, int64_t, std::string, std::string>, std::size_t>
        first;
    std::vector<DisaggRow> out;
    for (DisaggRow& r : rows) {
        const auto key = std::make_tuple(r.system, r.backend, r.workload.input_len, r.workload.output_len,
                                         r.workload.concurrency, measured_key(r.ttft_ms), measured_key(r.tpot_ms));
        auto [it, inserted] = first.emplace(key, out.size());
        if (inserted) {
            out.push_back(std::move(r));
        } else if (r.pools_given && !out[it->second].pools_given) {
            out[it->second] = std::move(r);
        }
    }
    return out;
}

}  // namespace

SiliconModes modes_in(const std::string& path) {
    const tables::CsvText csv = tables::read_csv_file(path);
    SiliconModes modes;
    if (csv.lines.empty()) return modes;
    const std::size_t mode = Columns{&csv, path}.find("mode");
    for (std::size_t i = 1; i < csv.lines.size(); ++i) {
        const tables::CsvLine& line = csv.lines[i];
        if (mode >= line.fields.size()) continue;
        modes.agg = modes.agg || line.fields[mode] == "agg";
        modes.disagg = modes.disagg || line.fields[mode] == "disagg";
    }
    return modes;
}

std::vector<DisaggRow> read_silicon_disagg_csv(const std::string& path) {
    const tables::CsvText csv = tables::read_csv_file(path);
    if (csv.lines.empty()) throw Error(Status::parse, path + ": empty file");
    const Columns c{&csv, path};
    const std::size_t c_source = c.find("silicon_data_source"), c_backend = c.find("backend"),
                      c_model = c.find("model_path"), c_mode = c.find("mode"), c_isl = c.find("isl"),
                      c_osl = c.find("osl"), c_quant = c.find("gemm_quant_mode"), c_ttft = c.find("silicon_ttft_ms"),
                      c_tpot = c.find("silicon_tpot_ms");
    struct PoolColumns {
        std::size_t workers, batch, tp, dp, ep;
    };
    auto pool_columns = [&](const std::string& p) {
        return PoolColumns{c.find(p + "_num_workers"), c.find(p + "_batch_size"), c.find(p + "_tp_size"),
                           c.find(p + "_attention_dp_size"), c.find(p + "_moe_ep_size")};
    };
    const PoolColumns pc = pool_columns("prefill"), dc = pool_columns("decode");
    const std::size_t fields = csv.lines.front().fields.size();
    std::size_t c_system = fields, c_prefill_pp = fields, c_decode_pp = fields, c_moe_quant = fields;  // optional
    for (std::size_t i = 0; i < fields; ++i) {
        const std::string_view name = csv.lines.front().fields[i];
        if (name == "system") c_system = i;
        if (name == "moe_quant_mode") c_moe_quant = i;
        if (name == "prefill_pp_size") c_prefill_pp = i;
        if (name == "decode_pp_size") c_decode_pp = i;
    }
    std::vector<DisaggRow> rows;
    for (std::size_t i = 1; i < csv.lines.size(); ++i) {
        const tables::CsvLine& line = csv.lines[i];
        const std::string where = path + ":" + std::to_string(line.line_number);
        if (line.fields.size() != fields) {
            throw Error(Status::parse, where + ": " + std::to_string(line.fields.size()) + " fields, the header has " +
                                           std::to_string(fields));
        }
        tables::CsvFieldReader f(csv, line);
        if (f.text(c_mode, "mode") != "disagg") continue;
        DisaggRow r;
        r.line = line.line_number;
        r.backend = std::string(f.text(c_backend, "backend"));
        r.model_path = std::string(f.text(c_model, "model_path"));
        r.quant = row_quant_label(f.text(c_quant, "gemm_quant_mode"),
                                  c_moe_quant < fields ? f.text(c_moe_quant, "moe_quant_mode") : "");
        if (c_system < fields) r.system = std::string(f.text(c_system, "system"));
        for (const auto& [column, name] :
             {std::pair{c_prefill_pp, "prefill_pp_size"}, {c_decode_pp, "decode_pp_size"}}) {
            if (const int64_t pp = column < fields ? parallel_degree(f, column, name) : 1;
                pp > 1 && r.refusal.empty()) {
                r.refusal = pipeline_refusal(std::string(name), pp);
            }
        }
        auto pool = [&](const PoolColumns& p, const char* name, PoolShape& shape, int64_t& workers, int64_t& batch) {
            const std::string n(name);
            shape.tp = parallel_degree(f, p.tp, n + "_tp_size");
            shape.attention_dp = parallel_degree(f, p.dp, n + "_attention_dp_size");
            shape.ep = parallel_degree(f, p.ep, n + "_moe_ep_size");
            workers = count(f, p.workers, n + "_num_workers");
            batch = count(f, p.batch, n + "_batch_size");
            if (workers == 0) {
                r.pools_given = false;
                workers = 1;
            }
        };
        pool(pc, "prefill", r.prefill, r.workload.prefill_workers, r.file_prefill_batch);
        pool(dc, "decode", r.decode, r.workload.decode_workers, r.workload.decode_batch);
        r.workload.input_len = f.integer_between(c_isl, "isl", 1, int64_t{1} << 24);
        r.workload.output_len = f.integer_between(c_osl, "osl", 1, int64_t{1} << 24);
        r.collection = collection_of(f.text(c_source, "silicon_data_source"));
        int64_t clients = concurrency_of(f.text(c_source, "silicon_data_source"));
        if (clients == 0) clients = r.workload.decode_workers * r.decode.attention_dp * r.workload.decode_batch;
        if (clients < 1) {
            throw Error(Status::parse, where +
                                           ": no silicon_concurrency= in silicon_data_source and no decode "
                                           "workers and batch to count the clients from");
        }
        r.workload.concurrency = clients;
        r.ttft_ms = f.number(c_ttft, "silicon_ttft_ms");
        r.tpot_ms = f.number(c_tpot, "silicon_tpot_ms");
        if (!(is_usable_measurement(r.ttft_ms) && is_usable_measurement(r.tpot_ms))) {
            throw Error(Status::parse, where + ": measured TTFT and TPOT must be positive normal numbers, found " +
                                           shortest_text(r.ttft_ms) + " and " + shortest_text(r.tpot_ms));
        }
        rows.push_back(std::move(r));
    }
    return distinct_runs(std::move(rows));
}

void use_file_prefill_batch(std::vector<DisaggRow>& rows) {
    for (DisaggRow& r : rows) r.workload.prefill_batch = r.file_prefill_batch;
}

void set_decode_slots(std::vector<DisaggRow>& rows, double clients_per_slot) {
    if (!(clients_per_slot >= 1 && clients_per_slot <= 64)) {
        throw Error(Status::invalid_argument, "clients per decode slot must be between 1 and 64");
    }
    if (clients_per_slot == 1) return;
    for (DisaggRow& r : rows) {
        if (!r.pools_given) continue;
        const double replicas = static_cast<double>(r.workload.decode_workers * r.decode.attention_dp);
        // A small tolerance: a concurrency that is exactly clients_per_slot x the slots keeps them all.
        const double slots =
            std::floor(static_cast<double>(r.workload.concurrency) / (clients_per_slot * replicas) + 1e-9);
        r.workload.decode_batch = std::max<int64_t>(1, static_cast<int64_t>(slots));
    }
}

std::vector<DisaggPrediction> predict_disagg(const std::vector<DisaggRow>& rows, const std::string& configs_dir,
                                             const std::string& gpu, const EngineFor& engine_for,
                                             const std::optional<DisaggSimulation>& simulation,
                                             const query::Speculation& speculation) {
    // One estimator per pool shape, shared by the rows (and pools) that have it; a shape that cannot be built
    // refuses every row that needs it alike.
    using Key =
        std::tuple<std::string, std::string, std::string, std::string, int64_t, int64_t, int64_t, bool, Collection>;
    const RowGpuResolver gpus(gpu);
    std::map<Key, std::shared_ptr<engine::Estimator>> estimators;
    std::map<Key, std::pair<Status, std::string>> failures;
    std::map<std::string, engines::EngineProfile> engines_by_backend;
    auto estimator_for = [&](const DisaggRow& row, const std::string& row_gpu, bool row_blackwell_generation,
                             const PoolShape& s, bool decode) -> const engine::Estimator& {
        const Key key{row_gpu, row.backend,    row.model_path, row.quant,     s.tp,
                      s.ep,    s.attention_dp, decode,         row.collection};
        if (auto f = failures.find(key); f != failures.end()) {
            throw Error(f->second.first, f->second.second);
        }
        auto& e = estimators[key];
        if (!e) {
            try {
                if (!engines_by_backend.count(row.backend))
                    engines_by_backend.emplace(row.backend, engine_for(row.backend));
                engine::Options o;
                o.model = config_for(configs_dir, row.model_path);
                if (o.model.empty()) throw Error(Status::io, "no config for " + row.model_path + " in " + configs_dir);
                o.gpu = row_gpu;
                o.deployment.speculation = speculation;
                const config::ModelConfig checkpoint =
                    config::parse_model_config(config::resolve_model_source(o.model));
                const ServedWeights served = served_weights(row.quant, checkpoint.quant);
                o.checkpoint_quant = served_checkpoint(configs_dir, row.model_path, row.quant, checkpoint);
                o.quant = o.checkpoint_quant ? std::string() : served.quant;
                // A pool recorded on an expert split its engine does not load ran expert-parallel, as for the
                // aggregated rows (launch_expert_parallel).
                const int64_t ep = launch_expert_parallel(engines_by_backend.at(row.backend), checkpoint,
                                                          served.quant.empty() ? checkpoint.quant.experts : served.main,
                                                          s.tp, s.attention_dp, s.ep);
                o.deployment.fp8_kv = launch_fp8_kv_cache(engines_by_backend.at(row.backend), row.collection,
                                                          row_blackwell_generation, served.main);
                // The launch flags the row's collection implies, as for the aggregated rows (the attention-DP
                // balancing stays the profile's: the pools' workers balance themselves, docs/disagg.md).
                o.engine_profile =
                    launch_recipe(engines_by_backend.at(row.backend), 1, row.collection, Launch::disaggregated);
                // A pool whose weights leave no KV cache at the recipe's share ran at a larger one (launch_recipe).
                e = launched_estimator(decode ? engine::decode_pool_options(o, s.tp, ep, s.attention_dp)
                                              : engine::pool_options(o, s.tp, ep, s.attention_dp));
            } catch (const Error& err) {
                estimators.erase(key);
                failures[key] = {err.status(), err.what()};
                throw;
            }
        }
        return *e;
    };
    std::vector<DisaggPrediction> out;
    out.reserve(rows.size());
    for (const DisaggRow& row : rows) {
        DisaggPrediction p;
        p.row = &row;
        const RowGpu on = gpus.for_system(row.system);
        p.gpu = on.name;
        if (!on.status.empty()) {
            p.status = on.status;
            p.message = on.message;
            out.push_back(std::move(p));
            continue;
        }
        if (!row.refusal.empty()) {
            p.status = query::status_name(MFUSIM_ERR_UNSUPPORTED);
            p.message = row.refusal;
            out.push_back(std::move(p));
            continue;
        }
        if (!row.pools_given) {
            // A disaggregated run's TTFT and TPOT are set by its pools' worker counts (the prefill pool's queue, the
            // decode replicas' batch), and nothing else in these rows gives them: neither the source string nor
            // the id, and no recipe rule maps a concurrency to one deployment (the same sweep runs several at one
            // concurrency, measured seconds apart). One worker per pool, the only guess left, is wrong for most of
            // them (docs/disagg.md, section 14), so the row is refused rather than answered with it.
            p.status = query::status_name(MFUSIM_ERR_UNSUPPORTED);
            // One message for all such rows, so that the report counts them (the rows file names each line).
            p.message =
                "prefill_num_workers or decode_num_workers is empty: the run's pool sizes are not given, and its "
                "TTFT and TPOT depend on them";
            out.push_back(std::move(p));
            continue;
        }
        try {
            const engine::Estimator& prefill = estimator_for(row, on.gpu, on.blackwell_generation, row.prefill, false);
            const engine::Estimator& decode = estimator_for(row, on.gpu, on.blackwell_generation, row.decode, true);
            if (simulation) {
                if (!prefill.roofline() || !decode.roofline()) {
                    throw Error(Status::unsupported, "the disaggregated simulation runs in roofline mode only");
                }
                const simulate::Result sim = simulate::simulate_disagg_benchmark(
                    *prefill.roofline(), *decode.roofline(), row.workload, simulation->requests_per_client,
                    simulation->min_length_ratio, simulation->routing);
                p.result.ttft_ms = checked_time(sim.ttft_ms.mean, "the simulated TTFT");
                p.result.tpot_ms = checked_time(sim.tpot_ms.mean, "the simulated TPOT");
                p.result.prefill_queue_ms = sim.queue_ms.mean;
                p.result.transfer_ms = sim.transfer_ms.mean;
                p.result.decode_wait_ms = sim.decode_wait_ms.mean;
                p.result.decode_batch = sim.mean_running;
            } else {
                engine::serve_disagg(prefill, decode, row.workload, p.result);
            }
            p.answered = true;
            p.status = "ok";
        } catch (const Error& e) {
            p.status = query::status_name(static_cast<mfusim_status>(e.status()));
            p.message = e.what();
        }
        out.push_back(std::move(p));
    }
    return out;
}

namespace {

// The aggregated report's rows and predictions standing in for the disaggregated ones, so that both are grouped
// and printed by one piece of code (serving_groups, format_serving).
struct AsServing {
    std::vector<ServingRow> rows;
    std::vector<ServingPrediction> predictions;
};

AsServing as_serving(const std::vector<DisaggPrediction>& predictions) {
    AsServing s;
    s.rows.reserve(predictions.size());
    for (const DisaggPrediction& p : predictions) {
        ServingRow r;
        r.line = p.row->line;
        r.backend = p.row->backend;
        r.model_path = p.row->model_path + (p.row->pools_given ? "" : " (pools not given)");
        r.workload.concurrency = p.row->workload.concurrency;
        r.ttft_ms = p.row->ttft_ms;
        r.tpot_ms = p.row->tpot_ms;
        s.rows.push_back(std::move(r));
    }
    for (std::size_t i = 0; i < predictions.size(); ++i) {
        ServingPrediction q;
        q.row = &s.rows[i];
        q.gpu = predictions[i].gpu;
        q.answered = predictions[i].answered;
        q.status = predictions[i].status;
        q.message = predictions[i].message;
        q.result.ttft_ms = predictions[i].result.ttft_ms;
        q.result.tpot_ms = predictions[i].result.tpot_ms;
        s.predictions.push_back(std::move(q));
    }
    return s;
}

}  // namespace

std::vector<ServingGroup> disagg_groups(const std::vector<DisaggPrediction>& predictions) {
    const AsServing s = as_serving(predictions);
    return serving_groups(s.predictions);
}

std::string format_disagg(const std::vector<ServingGroup>& groups, const std::vector<DisaggPrediction>& predictions) {
    const AsServing s = as_serving(predictions);
    return format_serving(groups, s.predictions);
}

}  // namespace mfusim::compare
