// An estimator: one model on one GPU with one deployment and its tables, loaded once and immutable after.
// It wires the two models behind one interface; the C API layer wraps it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "compat/compat_model.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/query.hpp"
#include "roofline/roofline_model.hpp"
#include "serving/serving.hpp"
#include "simulate/simulator.hpp"
#include "tables/tables.hpp"

namespace mfusim::engine {

enum class Mode : uint8_t { roofline, infersim };

struct Options {
    std::string model;           // catalogue name, config.json path, or JSON text
    std::string gpu;             // built-in name or JSON profile path
    std::string bench_data_dir;  // "" for none
    Mode mode = Mode::roofline;
    query::Deployment deployment;
    std::string engine;  // roofline: engine profile name or JSON overrides; "" for the default (vllm)
    // roofline: the engine's release ("0.14.0"; "" none named): its defaults that changed between releases
    // (engines/engine_version.hpp); a version the profile names itself wins.
    std::string engine_version;
    std::optional<engines::EngineProfile> engine_profile;  // roofline: a resolved profile, used instead of `engine`
    std::string quant;  // roofline: weight quantization override; "" for the checkpoint's own
    // roofline: the served checkpoint's weight formats per class, in place of those the model's config states
    // (compare's launch recipe: a row that names a base model in a format that ships as a checkpoint of its own,
    // compare/launch_recipe.hpp launch_checkpoint); `quant` still overrides on top of them.
    std::optional<config::Quantization> checkpoint_quant;
    // roofline: a calibration file's path or JSON text (docs/calibration.md); "" for none. Its engine terms apply
    // on top of `engine` (or of the engine it names when `engine` is unset), its multipliers to the kernels, its GPU
    // constants to the GPU profile (which must be the one they were fitted for).
    std::string calibration;
    // roofline: the decode pool of a disaggregated deployment: an engine with disagg_decode_graphs_whole_batch runs
    // all its decode batches as CUDA graphs there (engines/engine_profile.hpp).
    bool disagg_decode = false;
};

class Estimator {
  public:
    // Error(...) with a message naming the input at fault.
    explicit Estimator(const Options& options);

    // Validates the requests, then evaluates. Thread-safe; allocation-free in roofline mode.
    double step_time_us(const mfusim_request* requests, std::size_t n) const;
    void step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const;
    // Step i is the next step_sizes[i] requests; the sizes must add up to n_requests. Writes out_us only when
    // every step succeeded.
    void step_time_batch(const mfusim_request* requests, std::size_t n_requests, const int64_t* step_sizes,
                         std::size_t n_steps, double* out_us) const;

    query::Report estimate(const query::Scenario& scenario) const;
    // The steady-state serving estimate (roofline mode; Error(unsupported) in compat mode); `decode` and `mixed`,
    // when given, receive the breakdowns of its two steps. Every value passes the final check (common/answer.hpp).
    void serve(const serving::Workload& workload, mfusim_serving_result& out, mfusim_step_result* decode = nullptr,
               mfusim_step_result* mixed = nullptr) const;
    // A simulated serving benchmark (roofline mode; Error(unsupported) in compat mode). Every number of the result
    // is finite and non-negative, or the run fails.
    simulate::Result simulate(const simulate::Options& options) const;
    // The serving answer of the workload's benchmark simulated (simulate/closed_loop.hpp), final check as serve's.
    void serve_simulated(const serving::Workload& workload, mfusim_serving_result& out) const;
    // The roofline model, or nullptr in compat mode.
    const roofline::RooflineModel* roofline() const { return std::get_if<roofline::RooflineModel>(&model_); }

    const std::string& load_warnings() const { return load_warnings_; }
    const gpu::GpuProfile& gpu() const { return gpu_; }
    Mode mode() const { return mode_; }
    const tables::BenchData* tables() const { return tables_.get(); }

  private:
    struct Loaded;  // the GPU profile and the calibration, read once
    Estimator(const Options& options, Loaded&& loaded);

    template <class Fn>
    decltype(auto) visit_model(Fn&& fn) const {
        return std::visit(std::forward<Fn>(fn), model_);
    }

    Mode mode_;
    gpu::GpuProfile gpu_;
    std::string load_warnings_;  // declared before tables_: their initializer appends to it
    std::shared_ptr<const tables::BenchData> tables_;
    std::variant<roofline::RooflineModel, compat::CompatModel> model_;
};

std::string_view mode_name(Mode mode);

}  // namespace mfusim::engine
