// InferSim @ f2293dab, number for number (../shared/reference/infersim/SPEC.md is the contract).
#pragma once

#include <memory>

#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/query.hpp"
#include "tables/tables.hpp"

namespace mfusim::compat {

struct InferSimConfig;  // SPEC section 2: the model as InferSim reads it (infersim_config.hpp)
struct ResolvedTables;  // the tables this model + deployment will consult, resolved once

class CompatModel {
  public:
    // Reads the model exactly as InferSim does (quirks included). `tables` may be null (no bench_data: every
    // lookup takes InferSim's fallback). Error(config) where InferSim's own parsing would raise (the message says
    // which exception InferSim raises); Error(unsupported) for a GPU InferSim does not know (compat runs only on
    // H20, H800, H200, GB200).
    CompatModel(const config::ModelSource& source, const gpu::GpuProfile& gpu,
                std::shared_ptr<const tables::BenchData> tables, const query::Deployment& deployment);
    ~CompatModel();
    CompatModel(CompatModel&&) noexcept;
    CompatModel& operator=(CompatModel&&) noexcept;

    // One InferSim run. Values are named by the oracle's columns. Error(compat_crash) where InferSim raises,
    // with a message saying what InferSim would have done ("InferSim raises ZeroDivisionError: ...").
    query::Report estimate(const query::Scenario& scenario) const;

    // Compat meaning of a step (docs/compat-steps.md): k prefill requests of n new tokens each = InferSim's
    // prefill with M = k*n, S = n (TTFT, including its 30 ms); bs decode requests at context c = InferSim's
    // decode with B = bs, K = c (TPOT, including its 5 ms). Mixed and uneven steps are composed as documented.
    double step_time_us(const mfusim_request* requests, std::size_t n) const;
    void step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const;

  private:
    std::unique_ptr<const InferSimConfig> config_;
    std::unique_ptr<const ResolvedTables> resolved_;
    std::shared_ptr<const tables::BenchData> tables_;
    gpu::GpuProfile gpu_;
    query::Deployment deployment_;
};

}  // namespace mfusim::compat
