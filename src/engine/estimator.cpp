#include "engine/estimator.hpp"

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"

namespace mfusim::engine {

namespace {

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
    if (!(d.sm_ratio > 0 && d.sm_ratio <= 1)) {
        throw Error(Status::invalid_argument, "sm_ratio must be in (0, 1], got " + std::to_string(d.sm_ratio));
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
    const Options& options, const gpu::GpuProfile& gpu, const std::shared_ptr<const tables::BenchData>& tables) {
    config::ModelSource source = config::resolve_model_source(options.model);
    if (options.mode == Mode::infersim) {
        if (!options.engine.empty() || !options.quant.empty() || options.deployment.expert_parallel > 1 ||
            options.deployment.attention_data_parallel > 1) {
            throw Error(Status::invalid_argument,
                        "engine, quant, expert_parallel and attention_data_parallel are roofline options; compat mode "
                        "reproduces InferSim, which has none of them");
        }
        return std::variant<roofline::RooflineModel, compat::CompatModel>(std::in_place_type<compat::CompatModel>,
                                                                          source, gpu, tables, options.deployment);
    }
    return std::variant<roofline::RooflineModel, compat::CompatModel>(
        std::in_place_type<roofline::RooflineModel>, config::parse_model_config(source), gpu, tables,
        options.deployment, engines::resolve_engine(options.engine), options.quant);
}

}  // namespace

std::string_view mode_name(Mode mode) {
    return mode == Mode::infersim ? "infersim" : "roofline";
}

Estimator::Estimator(const Options& options)
    : mode_(options.mode),
      gpu_((validate_deployment(options.deployment), gpu::resolve_gpu(options.gpu))),
      tables_(load_tables(options, gpu_, load_warnings_)),
      model_(make_model(options, gpu_, tables_)) {
    if (tables_) {
        for (const std::string& note : tables_->notes) load_warnings_ += options.bench_data_dir + "/" + note + "\n";
    }
    if (const auto* roofline = std::get_if<roofline::RooflineModel>(&model_))
        load_warnings_ += roofline->load_warnings();
}

double Estimator::step_time_us(const mfusim_request* requests, std::size_t n) const {
    query::validate_requests(requests, n);
    return visit_model([&](const auto& model) { return model.step_time_us(requests, n); });
}

void Estimator::step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const {
    query::validate_requests(requests, n);
    visit_model([&](const auto& model) { model.step_detail(requests, n, out); });
}

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
    std::size_t offset = 0;
    for (std::size_t i = 0; i < n_steps; ++i) {
        if (step_sizes[i] < 0 || static_cast<uint64_t>(step_sizes[i]) > n_requests - offset) {
            throw Error(Status::invalid_argument, "step " + std::to_string(i) + ": step_sizes[" + std::to_string(i) +
                                                      "] = " + std::to_string(step_sizes[i]) + " does not fit the " +
                                                      std::to_string(n_requests - offset) +
                                                      " requests left of n_requests = " + std::to_string(n_requests));
        }
        try {
            query::validate_requests(requests + offset, static_cast<std::size_t>(step_sizes[i]));
        } catch (const Error& e) {
            throw Error(e.status(), "step " + std::to_string(i) + ": " + e.what());
        }
        offset += static_cast<std::size_t>(step_sizes[i]);
    }
    if (offset != n_requests) {
        throw Error(Status::invalid_argument, "the step sizes add up to " + std::to_string(offset) +
                                                  " requests but n_requests is " + std::to_string(n_requests));
    }
    auto run = [&](const auto& model, double* out) {
        std::size_t at = 0;
        for (std::size_t i = 0; i < n_steps; ++i) {
            std::size_t n = static_cast<std::size_t>(step_sizes[i]);
            double t;
            try {
                t = model.step_time_us(requests + at, n);
            } catch (const Error& e) {
                throw Error(e.status(), "step " + std::to_string(i) + ": " + e.what());
            }
            if (out) out[i] = t;
            at += n;
        }
    };
    if (const auto* compat = std::get_if<compat::CompatModel>(&model_)) {
        // Compat steps can fail where InferSim crashes; a dry run keeps out_us untouched on failure.
        run(*compat, nullptr);
        run(*compat, out_us);
    } else {
        run(std::get<roofline::RooflineModel>(model_), out_us);
    }
}

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
    return visit_model([&](const auto& model) { return model.estimate(scenario); });
}

void Estimator::serve(const serving::Workload& workload, mfusim_serving_result& out) const {
    const auto* roofline = std::get_if<roofline::RooflineModel>(&model_);
    if (!roofline) {
        throw Error(Status::unsupported,
                    "serving estimates are roofline-mode answers; InferSim (compat mode) has no serving model");
    }
    serving::estimate(*roofline, workload, out);
}

}  // namespace mfusim::engine
