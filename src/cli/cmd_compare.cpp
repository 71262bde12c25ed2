// mfusim compare: the roofline model's per-operation predictions against measured kernel times.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "calibration/calibration.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/output.hpp"
#include "cli/serve_disagg.hpp"
#include "cli/serving_flags.hpp"
#include "common/error.hpp"
#include "common/json.hpp"
#include "compare/compare.hpp"
#include "compare/disagg_compare.hpp"
#include "compare/launch_recipe.hpp"
#include "compare/serving_compare.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "tables/tables.hpp"

namespace mfusim::cli {

namespace {

nlohmann::ordered_json stats_json(const compare::ErrorStats& s) {
    return {
        {"count", s.count}, {"median_abs", s.median_abs}, {"p90_abs", s.p90_abs}, {"median_signed", s.median_signed}};
}

void print_json(const compare::CompareReport& report) {
    nlohmann::ordered_json out;
    out["aic_dir"] = report.aic_dir;
    out["gpu"] = report.gpu;
    out["tables"] = report.tables;
    out["split"] = report.split == compare::Split::train  ? "train"
                   : report.split == compare::Split::test ? "test"
                                                          : "all";
    out["families"] = nlohmann::ordered_json::array();
    for (const auto& f : report.families) {
        nlohmann::ordered_json family{
            {"family", f.family}, {"all", stats_json(f.all)}, {"covered", stats_json(f.covered)}};
        family["worst"] = nlohmann::ordered_json::array();
        for (const auto& r : f.worst) {
            family["worst"].push_back({{"shape", r.shape},
                                       {"measured_us", r.measured_us},
                                       {"predicted_us", r.predicted_us},
                                       {"error", r.error},
                                       {"source", r.source}});
        }
        out["families"].push_back(family);
    }
    out["notes"] = report.notes;
    std::printf("%s\n", json_text(out).c_str());
}

std::string rows_csv(const compare::CompareReport& report) {
    std::string out = "family,shape,measured_us,predicted_us,error,source\n";
    char buf[128];
    for (const auto& family : report.families) {
        for (const auto& r : family.rows) {
            std::snprintf(buf, sizeof buf, ",%.6g,%.6g,%.6g,", r.measured_us, r.predicted_us, r.error);
            out += family.family + "," + r.shape + buf + r.source + "\n";
        }
    }
    return out;
}

// compare --serving runs each row's benchmark as InferenceX's templates run it, the collection the public silicon data
// (AIConfigurator's layout) come from, unless the flags say otherwise: --num-prompts $((CONC * 10)) in every
// benchmarks/*.sh (10 requests per client) and RANDOM_RANGE_RATIO 0.8 (.github/workflows/benchmark-tmpl.yml), and
// simulated rather than the closed form (docs/serving.md, section 5).
constexpr double kRequestsPerClient = 10;
constexpr double kLengthRatio = 0.8;

bool simulated(const ParsedArgs& args) {
    if (args.flag("--simulate") && args.flag("--closed-form")) {
        throw UsageError("--simulate and --closed-form each say how to answer the rows; give one");
    }
    return !args.flag("--closed-form");
}

double compare_length_ratio(const ParsedArgs& args) {
    return args.number_or("--min-length-ratio", kLengthRatio);
}

// compare --serving on a disaggregated CSV: every row answered by the disaggregated estimate (docs/disagg.md).
void compare_disagg(const ParsedArgs& args, const std::string& path, const std::string& configs,
                    const compare::EngineFor& engine_for, bool only_mode) {
    if (only_mode) {
        args.refuse_in_mode({"--num-prompts"}, "a disaggregated CSV (its simulation sends --requests-per-client K)");
        args.refuse_in_mode({"--launches"}, "a disaggregated CSV (launch files cover aggregated rows)");
    }
    auto rows = compare::read_silicon_disagg_csv(path);
    require_gpu_for_rows(args, path, std::any_of(rows.begin(), rows.end(), [](const compare::DisaggRow& r) {
                             return !r.system.empty();
                         }));
    compare::set_decode_slots(rows, args.number_or("--clients-per-decode-slot", 1));
    if (args.flag("--prefill-batch-from-file")) compare::use_file_prefill_batch(rows);
    // The closed form's first wave (docs/disagg.md, section 15); the simulation sends its requests itself.
    const double requests_per_client = args.number_or("--requests-per-client", kRequestsPerClient);
    // The closed form answers at the drawn lengths' mean (docs/disagg.md, section 16); the simulation draws them.
    const double length_ratio = compare_length_ratio(args);
    const bool simulate = simulated(args);
    for (compare::DisaggRow& r : rows) {
        r.workload.requests_per_client = requests_per_client;
        if (!simulate) r.workload.min_length_ratio = length_ratio;
    }
    std::optional<compare::DisaggSimulation> simulation;
    const simulate::DisaggRouting routing = disagg_router(args, simulate);  // --router needs the simulation
    if (simulate) {
        simulation = compare::DisaggSimulation{};
        simulation->requests_per_client = requests_per_client;
        simulation->min_length_ratio = length_ratio;
        simulation->routing = routing;
    }
    const auto predictions = compare::predict_disagg(rows, configs, args.text_or("--gpu", ""), engine_for, simulation,
                                                     speculation_options(args));
    if (auto out = args.text("--rows")) {
        std::string csv =
            "line,backend,model,pools_given,prefill_workers,prefill_tp,prefill_ep,prefill_attention_dp,"
            "decode_workers,decode_tp,decode_ep,decode_attention_dp,decode_batch,isl,osl,concurrency,status,"
            "measured_ttft_ms,measured_tpot_ms,ttft_ms,tpot_ms,prefill_queue_ms,transfer_ms,decode_wait_ms,gpu\n";
        // The file's own text (backend, model path) is appended whole, never through a fixed buffer: a long path
        // would otherwise cut its row and the line break with it.
        char buf[640];
        for (const compare::DisaggPrediction& p : predictions) {
            const compare::DisaggRow& r = *p.row;
            const serving::DisaggWorkload& w = r.workload;
            auto ll = [](int64_t v) { return static_cast<long long>(v); };
            csv += std::to_string(r.line) + "," + r.backend + "," + r.model_path;
            std::snprintf(buf, sizeof buf, ",%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,",
                          r.pools_given ? 1 : 0, ll(w.prefill_workers), ll(r.prefill.tp), ll(r.prefill.ep),
                          ll(r.prefill.attention_dp), ll(w.decode_workers), ll(r.decode.tp), ll(r.decode.ep),
                          ll(r.decode.attention_dp), ll(w.decode_batch), ll(w.input_len), ll(w.output_len),
                          ll(w.concurrency));
            csv += buf + p.status;
            std::snprintf(buf, sizeof buf, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", r.ttft_ms, r.tpot_ms,
                          p.result.ttft_ms, p.result.tpot_ms, p.result.prefill_queue_ms, p.result.transfer_ms,
                          p.result.decode_wait_ms);
            csv += buf + p.gpu + "\n";
        }
        write_output(*out, csv);
    }
    std::fputs(compare::format_disagg(compare::disagg_groups(predictions), predictions).c_str(), stdout);
}

// compare --serving on the aggregated rows (mode agg) of a silicon CSV.
void compare_agg(const ParsedArgs& args, const std::string& path, const std::string& configs,
                 const compare::EngineFor& engine_for, bool only_mode) {
    if (only_mode) {
        args.refuse_in_mode({"--router", "--clients-per-decode-slot", "--prefill-batch-from-file"},
                            "an aggregated CSV (it routes the two pools of a disaggregated one)");
    }
    auto rows = compare::read_silicon_csv(path);
    require_gpu_for_rows(args, path, std::any_of(rows.begin(), rows.end(), [](const compare::ServingRow& r) {
                             return !r.system.empty();
                         }));
    compare::set_benchmark(rows, cli::num_prompts(args), args.number_or("--requests-per-client", kRequestsPerClient),
                           compare_length_ratio(args));
    std::optional<compare::LaunchFile> launches;
    if (auto file = args.text("--launches")) launches = compare::read_launch_file(*file);
    auto predictions = compare::predict_serving(
        rows, configs, args.text_or("--gpu", ""), engine_for,
        simulated(args) ? compare::ServingMethod::simulate : compare::ServingMethod::closed_form,
        speculation_options(args), launches ? &*launches : nullptr);
    if (auto out = args.text("--rows")) {
        std::string csv =
            "line,backend,model,tp,ep,attention_dp,isl,osl,concurrency,status,measured_ttft_ms,"
            "measured_tpot_ms,ttft_ms,tpot_ms,collection,gpu\n";
        // As in the disaggregated rows: the file's own text is appended whole, the numbers through the buffer.
        char buf[256];
        for (const compare::ServingPrediction& p : predictions) {
            const compare::ServingRow& r = *p.row;
            csv += std::to_string(r.line) + "," + r.backend + "," + r.model_path;
            std::snprintf(buf, sizeof buf, ",%lld,%lld,%lld,%lld,%lld,%lld,", static_cast<long long>(r.tp),
                          static_cast<long long>(r.ep), static_cast<long long>(r.attention_dp),
                          static_cast<long long>(r.workload.input_len), static_cast<long long>(r.workload.output_len),
                          static_cast<long long>(r.workload.concurrency));
            csv += buf + p.status;
            std::snprintf(buf, sizeof buf, ",%.6g,%.6g,%.6g,%.6g,%s,", r.ttft_ms, r.tpot_ms, p.result.ttft_ms,
                          p.result.tpot_ms, compare::collection_name(r.collection));
            csv += buf + p.gpu + "\n";
        }
        write_output(*out, csv);
    }
    std::fputs(compare::format_serving(compare::serving_groups(predictions), predictions).c_str(), stdout);
}

}  // namespace

int run_compare(const Args& raw) {
    CommandSpec spec{
        "compare",
        "mfusim compare --aic DIR [--gpu NAME] [--bench-data DIR] [--calibration FILE] [--split all|train|test] "
        "[--configs DIR] [--json]\n"
        "       mfusim compare --serving FILE.csv --configs DIR [--gpu NAME] [--engine NAME|JSON]",
        "Predicts every measured kernel in an AIConfigurator-format directory (gemm_bf16.csv,\n"
        "context_attention_bf16.csv, generation_attention_bf16.csv, nccl.csv; latency in ms, one layer, one GPU)\n"
        "with the roofline model's own per-operation functions, and prints per operation family the count, median\n"
        "and p90 of |predicted/measured - 1|, the bias, and the worst shapes. Without --bench-data the analytical\n"
        "efficiency model answers alone. A nccl.csv of vLLM custom all-reduce rows (kernel_source vLLM_custom_*)\n"
        "is compared against the custom all-reduce model (family custom_all_reduce). --split keeps the train or\n"
        "test half of the shapes (split by shape key, as the constants were fitted: docs/roofline.md).\n"
        "The families of large models in the same directory (moe_vllm.csv, mla_*_vllm.csv, dsa_*_vllm.csv,\n"
        "gdn_vllm.csv, mamba2_trtllm.csv, deepep_*_sglang.csv: aic-<gpu>-families) are compared against their\n"
        "kernel models (docs/kernel-families.md).\n"
        "With --serving, answers every row of a serving-measurement CSV (AIConfigurator's silicon layout: backend,\n"
        "model_path, gemm_quant_mode, tp_size, moe_ep_size, attention_dp_size, isl, osl, batch_size, silicon_ttft_ms,\n"
        "silicon_tpot_ms) with the serving estimate, each row with the engine profile of its backend, and prints per\n"
        "engine and model the rows, refusals, and median/p90/bias of |predicted/measured - 1| for TTFT and TPOT.",
        {{"--aic", "DIR", "the measured tables (required)"},
         {"--gpu", "NAME|PATH",
          "the GPU they were measured on [--aic: H100; --serving: each row's own `system` (h200_sxm: H200, gb200: "
          "GB200, ...), a row measured on another GPU than --gpu refused]"},
         {"--mode", "agg|disagg|both",
          "with --serving: which runs of a file that holds both modes to answer [both: each by its own estimate]"},
         {"--bench-data", "DIR", "MFU tables to calibrate with (none: analytical model only)"},
         {"--split", "all|train|test", "which half of the shapes to compare [all]"},
         {"--calibration", "FILE|JSON",
          "apply a calibration's fitted GPU constants (mfusim calibrate --kernels) to --gpu [none]"},
         {"--rows", "FILE",
          "also write every compared row as CSV (kernels: family, shape, measured, predicted, error; --serving: "
          "each run's measurement and prediction, and the collection its silicon_data_source names)"},
         {"--serving", "FILE",
          "serving measurements (silicon CSV layout) instead of kernels; a file of disaggregated runs (mode "
          "disagg) is answered by the disaggregated estimate (docs/disagg.md)"},
         {"--configs", "DIR",
          "with --serving: the model configs, <org>--<name>_config.json; with --aic: the models the MoE kernel "
          "benchmarks ran, whose router groups (DeepSeek-V3's n_group / topk_group) route their balanced rows "
          "(docs/kernel-families.md) [none: plain top-k]"},
         {"--engine", "NAME|JSON|FILE", "with --serving: answer every row with this profile [each row's backend]"},
         {"--launches", "FILE",
          "with --serving on an aggregated CSV: the engine flags, drafting, layout and KV cache the runs were "
          "launched with beyond what their rows state, laid over each matching row's deployment (docs/simulate.md, "
          "\"Launch files\"; examples/launches/inferencex.json) [none]"},
         {"--requests-per-client", "K",
          "with --serving: the runs' requests per client (0: the closed form's steady state) [10, InferenceX's "
          "--num-prompts CONC x 10]"},
         {"--num-prompts", "N",
          "with --serving on an aggregated CSV: each run sent N requests in all, whatever its concurrency "
          "(sglang.bench_serving's and vLLM bench's --num-prompts), instead of --requests-per-client K per client "
          "[none]"},
         {"--simulate", "",
          "with --serving: answer each row by simulating its benchmark (docs/simulate.md) [the default]"},
         {"--closed-form", "", "with --serving: answer each row by the closed form instead (docs/serving.md)"},
         {"--min-length-ratio", "R",
          "with --serving: the runs' lengths uniform in [R x isl, isl] and [R x osl, osl] (bench_serving's "
          "--random-range-ratio R; InferenceX runs use 0.8): drawn by --simulate; the aggregated closed form takes "
          "the clients out of lockstep waves, the disaggregated one answers the mean lengths [0.8, InferenceX's; "
          "1: fixed]"},
         {"--router", "MODE",
          "on a disaggregated CSV, simulated: the router, round-robin (Dynamo's default) or least-loaded "
          "(docs/disagg.md, section 7) [round-robin]"},
         {"--clients-per-decode-slot", "X",
          "on a disaggregated CSV: the harness ran X clients per decode slot, so each decode replica holds "
          "floor(concurrency / (X x decode workers x replicas)) requests (NVIDIA's srt-slurm TensorRT-LLM recipes, "
          "the InferenceX H100 runs: 1.2; docs/disagg.md, section 11) [1: the file's decode_batch_size]"},
         {"--prefill-batch-from-file", "",
          "on a disaggregated CSV: each prefill replica takes at most the file's prefill_batch_size prompts a step "
          "(a harness that capped its context servers so) [the engine's token budget: the recipes' context servers "
          "batch prompts up to max_num_tokens; docs/disagg.md, section 14]"},
         {"--json", "", "machine-readable output"}},
        {}};
    // With --serving, how the runs decoded: the silicon layout does not record speculative decoding
    // (docs/speculative.md, section 5).
    for (FlagSpec& f : speculation_flags()) spec.flags.push_back(std::move(f));
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    if (auto serving = args.text("--serving")) {
        args.refuse_in_mode({"--aic", "--bench-data", "--split", "--calibration", "--json"}, "--serving");
        if (auto path = args.text("--rows")) check_output_path(*path, "--rows");
        auto configs = args.text("--configs");
        if (!configs) throw UsageError("--serving needs --configs DIR (the model configs of its rows)");
        std::optional<std::string> engine = args.text("--engine");
        auto engine_for = [&](const std::string& backend) {
            return engines::resolve_engine(engine ? *engine : backend);
        };
        // A file may hold aggregated and disaggregated runs (AIConfigurator's silicon layout has both modes): each
        // mode's rows are answered by its own estimate, both where the file holds both, unless --mode picks one.
        const auto [agg, disagg] = compare::modes_in(*serving);
        std::string mode = args.text_or("--mode", agg && disagg ? "both" : disagg ? "disagg" : "agg");
        if (mode != "agg" && mode != "disagg" && mode != "both") {
            throw UsageError("--mode must be agg, disagg or both, got '" + mode + "'");
        }
        if (!agg && !disagg) throw UsageError(*serving + " has no rows of mode agg or disagg");
        if ((mode == "agg" && !agg) || (mode == "disagg" && !disagg)) {
            throw UsageError(*serving + " has no rows of mode " + mode);
        }
        if (mode == "both" && args.text("--rows")) {
            throw UsageError(*serving +
                             " holds aggregated and disaggregated runs, whose --rows layouts differ: give "
                             "--mode agg or --mode disagg with --rows");
        }
        if (mode == "both") {
            std::printf("aggregated runs (mode agg):\n");
            compare_agg(args, *serving, *configs, engine_for, false);
            std::printf("\ndisaggregated runs (mode disagg):\n");
            compare_disagg(args, *serving, *configs, engine_for, false);
        } else if (mode == "disagg") {
            compare_disagg(args, *serving, *configs, engine_for, true);
        } else {
            compare_agg(args, *serving, *configs, engine_for, true);
        }
        return 0;
    }
    args.refuse_in_mode({"--engine", "--requests-per-client", "--num-prompts", "--simulate", "--min-length-ratio",
                         "--mode", "--closed-form", "--launches"},
                        "--aic (they are --serving's)");
    args.refuse_in_mode(kSpeculationFlags, "--aic (they are --serving's)");
    if (auto rows_path = args.text("--rows")) check_output_path(*rows_path, "--rows");
    auto aic = args.text("--aic");
    if (!aic) throw UsageError("--aic DIR is required (e.g. an AIConfigurator systems/data/h100_sxm export as CSV)");
    gpu::GpuProfile gpu = gpu::resolve_gpu(args.text_or("--gpu", "H100"));
    if (auto path = args.text("--calibration")) {
        gpu = calibration::calibrated_gpu(calibration::load_calibration(*path), gpu);
    }
    std::shared_ptr<const tables::BenchData> tables;
    if (auto dir = args.text("--bench-data")) {
        tables = std::make_shared<tables::BenchData>(tables::load_bench_data(*dir, gpu.table_folder));
    }
    std::string split_name = args.text_or("--split", "all");
    compare::Split split = compare::Split::all;
    if (split_name == "train") {
        split = compare::Split::train;
    } else if (split_name == "test") {
        split = compare::Split::test;
    } else if (split_name != "all") {
        throw UsageError("--split must be all, train or test (got '" + split_name + "')");
    }
    compare::CompareReport report = compare::compare_aic(*aic, gpu, tables, split, args.text_or("--configs", ""));
    if (auto rows_path = args.text("--rows")) write_output(*rows_path, rows_csv(report));
    if (args.flag("--json")) {
        print_json(report);
    } else {
        std::fputs(compare::format_compare(report).c_str(), stdout);
    }
    return 0;
}

}  // namespace mfusim::cli
