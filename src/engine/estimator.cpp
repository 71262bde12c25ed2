#include "engine/estimator.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "calibration/calibration.hpp"
#include "common/answer.hpp"
#include "common/error.hpp"
#include "common/numbers.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "simulate/closed_loop.hpp"

namespace mfusim::engine {

namespace {

constexpr double kMinSmRatio = 1e-3;

void validate_deployment(const query::Deployment& d) {
    auto check = [](int64_t value, const char* name) {
        if (value < 1 || value > 65536) {
            throw Error(Status::invalid_argument,
                        std::string(name) + " must be between 1 and 65536, got " + std::to_string(value));
        }
    };
    check(d.tensor_parallel, "tensor_parallel");
    check(d.world_size, "world_size");
    check(d.num_nodes, "num_nodes");
    check(d.expert_parallel, "expert_parallel");
    check(d.attention_data_parallel, "attention_data_parallel");
    if (!(d.moe_routing_alpha >= 0 && d.moe_routing_alpha <= query::kMaxMoeRoutingAlpha)) {
        throw Error(Status::invalid_argument,
                    "moe_routing_alpha must be 0 (routing as served, at random) or a power-law exponent in (0, " +
                        shortest_text(query::kMaxMoeRoutingAlpha) + "], got " + shortest_text(d.moe_routing_alpha));
    }
    // A lower bound, not just > 0: compat divides by sm_ratio, and a denormal ratio makes the time infinite.
    if (!(d.sm_ratio >= kMinSmRatio && d.sm_ratio <= 1)) {
        throw Error(Status::invalid_argument,
                    "sm_ratio must be in [0.001, 1] (the fraction of SMs computing), got " + shortest_text(d.sm_ratio));
    }
}

std::shared_ptr<const tables::BenchData> load_tables(const Options& options, const gpu::GpuProfile& gpu,
                                                     std::string& warnings) {
    if (options.bench_data_dir.empty()) return nullptr;
    auto data = std::make_shared<tables::BenchData>(tables::load_bench_data(options.bench_data_dir, gpu.table_folder));
    if (data->table_count() == 0) {
        warnings += options.bench_data_dir + ": no tables for GPU folder '" + gpu.table_folder +
                    "'; every efficiency takes its fallback\n";
    }
    return data;
}

std::variant<roofline::RooflineModel, compat::CompatModel> make_model(
    const Options& options, const gpu::GpuProfile& gpu, const std::shared_ptr<const tables::BenchData>& tables,
    const std::optional<calibration::Calibration>& fitted) {
    config::ModelSource source = config::resolve_model_source(options.model);
    if (options.mode == Mode::infersim) {
        if (!options.engine.empty() || !options.quant.empty() || options.checkpoint_quant ||
            !options.calibration.empty() || options.deployment.expert_parallel > 1 ||
            options.deployment.attention_data_parallel > 1 || options.deployment.moe_routing_alpha != 0) {
            throw Error(Status::invalid_argument,
                        "engine, quant, checkpoint_quant, calibration, expert_parallel, attention_data_parallel and "
                        "moe_routing_alpha are roofline options; compat mode reproduces InferSim, which has none of "
                        "them");
        }
        const query::Speculation& spec = options.deployment.speculation;
        if (spec.drafter != query::Drafter::none || spec.tokens != 0 || spec.acceptance_rate != 0 ||
            spec.mean_accepted_length != 0 || !spec.draft_model.empty()) {
            throw Error(Status::invalid_argument,
                        "speculative decoding is a roofline option; compat mode reproduces InferSim, which has none");
        }
        if (options.deployment.audio.seconds_per_request != 0) {
            throw Error(Status::invalid_argument,
                        "audio seconds per request (the audio tower) are a roofline option; compat mode reproduces "
                        "InferSim, which times the language model only");
        }
        if (options.deployment.images.per_request != 0) {
            throw Error(Status::invalid_argument,
                        "images per request (the vision tower) are a roofline option; compat mode reproduces "
                        "InferSim, which times the language model only");
        }
        return std::variant<roofline::RooflineModel, compat::CompatModel>(std::in_place_type<compat::CompatModel>,
                                                                          source, gpu, tables, options.deployment);
    }
    const bool engine_given = options.engine_profile || !options.engine.empty();
    auto engine_of = [&](const std::string& fallback) {
        if (options.engine_profile) {
            return options.engine_version.empty()
                       ? *options.engine_profile
                       : engines::at_version(*options.engine_profile, options.engine_version);
        }
        return engines::resolve_engine(options.engine.empty() ? fallback : options.engine, options.engine_version);
    };
    engines::EngineProfile engine = engine_of("");
    roofline::Efficiency efficiency;
    if (fitted && fitted->step_fit) {
        engine = calibration::calibrated_engine(*fitted, engine_given ? engine : engine_of(fitted->base_engine));
        efficiency = fitted->efficiency;
    }
    if (options.disagg_decode && engine.disagg_decode_graphs_whole_batch != 0) engine.graphs_cover_max_seqs = true;
    // The draft_model drafter's model, read as the target's is (docs/speculative.md).
    std::optional<config::ModelConfig> draft;
    const std::string& draft_model = options.deployment.speculation.draft_model;
    if (!draft_model.empty()) draft = config::parse_model_config(config::resolve_model_source(draft_model));
    config::ModelConfig model = config::parse_model_config(source);
    if (options.checkpoint_quant) model.quant = *options.checkpoint_quant;
    return std::variant<roofline::RooflineModel, compat::CompatModel>(
        std::in_place_type<roofline::RooflineModel>, std::move(model), gpu, tables, options.deployment, engine,
        options.quant, efficiency, draft ? &*draft : nullptr);
}

void check_detail(const mfusim_step_result& result) {
    checked_time(result.total_us, "the step time");
    for (int32_t i = 0; i < result.n_ops && i < MFUSIM_OP_CAPACITY; ++i) {
        const mfusim_op_detail& op = result.ops[i];
        if (!(std::isfinite(op.time_us) && op.time_us >= 0 && std::isfinite(op.flops) && std::isfinite(op.bytes) &&
              std::isfinite(op.efficiency) && std::isfinite(op.distance))) {
            // The message is built only here: the success path stays allocation-free.
            const std::string what = "operation " + std::to_string(i) + " of the step";
            checked_time(op.time_us, what);
            for (double v : {op.flops, op.bytes, op.efficiency, op.distance}) checked_finite(v, what);
        }
    }
}

// Report names of times: "prefill.ttft_ms", "decode.o_proj_latency_us#2". Other quantities may be negative (compat
// reports InferSim's negative KV-cache space when a model does not fit) but never non-finite.
bool is_time_name(std::string_view name) {
    name = name.substr(0, name.find('#'));
    return name.ends_with("_ms") || name.ends_with("_us");
}

void check_report(const query::Report& report) {
    for (const auto& [name, value] : report.values) {
        if (!std::isfinite(value)) checked_finite(value, "report value " + name);
        if (is_time_name(name) && value < 0) checked_time(value, "report value " + name);
    }
}

// Every quantity of a serving answer: times and rates non-negative, the step mix and KV capacity too.
void check_serving(const mfusim_serving_result& r) {
    const std::pair<double, const char*> values[] = {{r.ttft_ms, "TTFT"},
                                                     {r.tpot_ms, "TPOT"},
                                                     {r.e2e_ms, "request latency"},
                                                     {r.output_throughput_tok_s_gpu, "output throughput"},
                                                     {r.request_throughput_req_s, "request throughput"},
                                                     {r.decode_step_ms, "the decode step time"},
                                                     {r.mixed_step_ms, "the mixed step time"},
                                                     {r.queue_ms, "the admission wait"},
                                                     {r.mixed_step_fraction, "the mixed step fraction"},
                                                     {r.decode_batch, "the decode batch"},
                                                     {r.prefill_tokens_per_mixed_step, "prefill tokens per mixed step"},
                                                     {r.prefill_steps_per_request, "prefill steps per request"},
                                                     {r.running_requests, "running requests"},
                                                     {r.kv_capacity_tokens, "KV capacity"}};
    for (const auto& [value, what] : values) {
        if (!(std::isfinite(value) && value >= 0)) checked_time(value, std::string("the serving estimate's ") + what);
    }
}

}  // namespace

std::string_view mode_name(Mode mode) {
    return mode == Mode::infersim ? "infersim" : "roofline";
}

struct Estimator::Loaded {
    gpu::GpuProfile gpu;
    std::optional<calibration::Calibration> calibration;  // roofline mode only: compat refuses one in make_model
};

Estimator::Estimator(const Options& options)
    : Estimator(options, [&options] {
          validate_deployment(options.deployment);
          Loaded loaded{gpu::resolve_gpu(options.gpu), std::nullopt};
          if (!options.calibration.empty() && options.mode == Mode::roofline) {
              loaded.calibration = calibration::load_calibration(options.calibration);
              loaded.gpu = calibration::calibrated_gpu(*loaded.calibration, loaded.gpu);
          }
          return loaded;
      }()) {}

Estimator::Estimator(const Options& options, Loaded&& loaded)
    : mode_(options.mode),
      gpu_(std::move(loaded.gpu)),
      tables_(load_tables(options, gpu_, load_warnings_)),
      model_(make_model(options, gpu_, tables_, loaded.calibration)) {
    if (tables_) {
        for (const std::string& note : tables_->notes) load_warnings_ += options.bench_data_dir + "/" + note + "\n";
    }
    if (const auto* roofline = std::get_if<roofline::RooflineModel>(&model_))
        load_warnings_ += roofline->load_warnings();
}

namespace {

// query::validate_requests as one branch-free pass; validate_requests runs (and words the error) only when it fails.
void check_requests(const mfusim_request* requests, std::size_t n) {
    if (n > 0 && requests == nullptr) query::validate_requests(requests, n);
    uint64_t out_of_range = 0, new_tokens = 0, contexts = 0;  // each term at most 2^40 when in range
    for (std::size_t i = 0; i < n; ++i) {
        out_of_range |= query::request_out_of_range(requests[i]);
        new_tokens += static_cast<uint64_t>(requests[i].new_tokens);
        contexts += static_cast<uint64_t>(requests[i].context);
    }
    constexpr auto max = static_cast<uint64_t>(query::kMaxStepTokens);
    // Past 2^20 requests the sums could wrap: the careful check decides.
    if (out_of_range != 0 || new_tokens > max || contexts > max || n >= (std::size_t{1} << 20)) {
        query::validate_requests(requests, n);
    }
}

}  // namespace

double Estimator::step_time_us(const mfusim_request* requests, std::size_t n) const {
    if (const auto* roofline = std::get_if<roofline::RooflineModel>(&model_)) {
        return checked_time(roofline->checked_step_time_us(requests, n), "the step time");
    }
    query::validate_requests(requests, n);
    return checked_time(std::get<compat::CompatModel>(model_).step_time_us(requests, n), "the step time");
}

void Estimator::step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const {
    query::validate_requests(requests, n);
    visit_model([&](const auto& model) { model.step_detail(requests, n, out); });
    check_detail(out);
}

namespace {

// Step i's size, checked against the requests left after the earlier steps.
std::size_t step_size(const int64_t* step_sizes, std::size_t i, std::size_t left, std::size_t n_requests) {
    if (step_sizes[i] < 0 || static_cast<uint64_t>(step_sizes[i]) > left) {
        throw Error(Status::invalid_argument, "step " + std::to_string(i) + ": step_sizes[" + std::to_string(i) +
                                                  "] = " + std::to_string(step_sizes[i]) + " does not fit the " +
                                                  std::to_string(left) +
                                                  " requests left of n_requests = " + std::to_string(n_requests));
    }
    return static_cast<std::size_t>(step_sizes[i]);
}

// f() for step i: its error names the step.
template <typename F>
auto in_step(std::size_t i, F&& f) {
    try {
        return f();
    } catch (const Error& e) {
        throw Error(e.status(), "step " + std::to_string(i) + ": " + e.what());
    }
}

void check_sum(std::size_t offset, std::size_t n_requests) {
    if (offset != n_requests) {
        throw Error(Status::invalid_argument, "the step sizes add up to " + std::to_string(offset) +
                                                  " requests but n_requests is " + std::to_string(n_requests));
    }
}

// Batches of up to this many roofline steps are staged on the stack (see step_time_batch).
constexpr std::size_t kStagedSteps = 64;

}  // namespace

void Estimator::step_time_batch(const mfusim_request* requests, std::size_t n_requests, const int64_t* step_sizes,
                                std::size_t n_steps, double* out_us) const {
    if (n_steps == 0) {
        if (n_requests != 0) {
            throw Error(Status::invalid_argument, "no steps given for " + std::to_string(n_requests) + " requests");
        }
        return;
    }
    if (step_sizes == nullptr) throw Error(Status::invalid_argument, "step_sizes is NULL but n_steps > 0");
    if (out_us == nullptr) throw Error(Status::invalid_argument, "out_us is NULL but n_steps > 0");
    const auto* roofline = std::get_if<roofline::RooflineModel>(&model_);
    if (roofline && n_steps <= kStagedSteps) {
        // One pass per step, its requests validated in the evaluator's pass (as mfusim_step_time), the times kept
        // on the stack until every step has passed: out_us stays untouched on failure, and nothing is allocated.
        // The checks come in the order of the general path below, so the first failure is the same one.
        double staged[kStagedSteps];
        std::size_t offset = 0;
        for (std::size_t i = 0; i < n_steps; ++i) {
            const std::size_t n = step_size(step_sizes, i, n_requests - offset, n_requests);
            staged[i] = in_step(
                i, [&] { return checked_time(roofline->checked_step_time_us(requests + offset, n), "the step time"); });
            offset += n;
        }
        check_sum(offset, n_requests);
        std::copy_n(staged, n_steps, out_us);
        return;
    }
    std::size_t offset = 0;
    for (std::size_t i = 0; i < n_steps; ++i) {
        const std::size_t n = step_size(step_sizes, i, n_requests - offset, n_requests);
        in_step(i, [&] { check_requests(requests + offset, n); });
        offset += n;
    }
    check_sum(offset, n_requests);
    auto run = [&](const auto& model, double* out) {
        std::size_t at = 0;
        for (std::size_t i = 0; i < n_steps; ++i) {
            const auto n = static_cast<std::size_t>(step_sizes[i]);
            const double t =
                in_step(i, [&] { return checked_time(model.step_time_us(requests + at, n), "the step time"); });
            if (out) out[i] = t;
            at += n;
        }
    };
    if (const auto* compat = std::get_if<compat::CompatModel>(&model_)) {
        // Compat steps can fail where InferSim crashes; a dry run keeps out_us untouched on failure.
        run(*compat, nullptr);
        run(*compat, out_us);
    } else {
        // Roofline steps fail only on the final check, which the input ranges checked above make unreachable
        // (every constant of the model is checked finite at load): the times go straight to out_us, no staging.
        run(*roofline, out_us);
    }
}

namespace {

void check_summary(const simulate::Summary& s, const char* what) {
    for (double v : {s.mean, s.median, s.std, s.p90, s.p95, s.p99, s.min, s.max}) checked_time(v, what);
}

void check_simulation(const simulate::Result& r) {
    constexpr const char* what = "the simulation";
    for (double v : {r.duration_s, r.request_throughput, r.output_throughput, r.total_token_throughput,
                     r.request_goodput, r.mean_batch_tokens, r.mean_running}) {
        checked_time(v, what);
    }
    for (const simulate::Summary* s : {&r.ttft_ms, &r.tpot_ms, &r.itl_ms, &r.e2el_ms, &r.queue_ms})
        check_summary(*s, what);
    for (const simulate::RequestResult& q : r.requests) {
        for (double v : {q.send_ms, q.ttft_ms, q.tpot_ms, q.e2el_ms, q.queue_ms}) checked_time(v, what);
    }
    for (const auto& [v, n] : r.itl_values) checked_time(v, what);
    for (const simulate::StepRecord& step : r.timeline) {
        for (double v : {step.start_ms, step.duration_ms, step.kv_used}) checked_time(v, what);
    }
}

}  // namespace

query::Report Estimator::estimate(const query::Scenario& scenario) const {
    auto positive = [](int64_t v, const char* name) {
        if (v < 0 || v > (int64_t{1} << 40)) {
            throw Error(Status::invalid_argument,
                        std::string(name) + " must be between 0 and 2^40, got " + std::to_string(v));
        }
    };
    positive(scenario.input_len, "input_len");
    positive(scenario.output_len, "output_len");
    positive(scenario.max_prefill_tokens, "max_prefill_tokens");
    if (scenario.decode_batch > (int64_t{1} << 40)) throw Error(Status::invalid_argument, "decode_batch above 2^40");
    query::Report report = visit_model([&](const auto& model) { return model.estimate(scenario); });
    check_report(report);
    return report;
}

void Estimator::serve(const serving::Workload& workload, mfusim_serving_result& out, mfusim_step_result* decode,
                      mfusim_step_result* mixed) const {
    const auto* roofline = std::get_if<roofline::RooflineModel>(&model_);
    if (!roofline) {
        throw Error(Status::unsupported,
                    "serving estimates are roofline-mode answers; InferSim (compat mode) has no serving model");
    }
    serving::estimate(*roofline, workload, out, decode, mixed);
    check_serving(out);
    if (decode) check_detail(*decode);
    if (mixed) check_detail(*mixed);
}

simulate::Result Estimator::simulate(const simulate::Options& options) const {
    const auto* roofline = std::get_if<roofline::RooflineModel>(&model_);
    if (!roofline) {
        throw Error(Status::unsupported,
                    "the engine simulator runs on roofline-mode step times; InferSim (compat mode) has none");
    }
    simulate::Result result = simulate::simulate(*roofline, options);
    check_simulation(result);
    return result;
}

void Estimator::serve_simulated(const serving::Workload& workload, mfusim_serving_result& out) const {
    const auto* roofline = std::get_if<roofline::RooflineModel>(&model_);
    if (!roofline) {
        throw Error(Status::unsupported,
                    "the engine simulator runs on roofline-mode step times; InferSim (compat mode) has none");
    }
    const simulate::Result result = simulate(simulate::closed_loop_benchmark(roofline->engine(), workload));
    out = simulate::serving_result(result, roofline->memory().gpus, out.struct_size);
    check_serving(out);
}

}  // namespace mfusim::engine
