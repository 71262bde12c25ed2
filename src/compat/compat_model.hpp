// InferSim @ f2293dab, number for number (../shared/reference/infersim/SPEC.md is the contract).
#pragma once

#include <memory>
#include <string>

#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/query.hpp"
#include "tables/tables.hpp"

namespace mfusim::compat {

struct Core;  // the config as InferSim reads it, GPU figures, deployment, resolved tables (core.hpp)

class CompatModel {
  public:
    // Reads the model exactly as InferSim does (quirks included). `tables` may be null (no bench_data: every
    // lookup takes InferSim's fallback). Error(config) where InferSim's own parsing would raise (the message says
    // which exception InferSim raises); Error(unsupported) for a GPU InferSim does not know (compat runs only on
    // H20, H800, H200, GB200); Error(invalid_argument) for a negative deployment number; Error(compat_crash) for a
    // deployment on which every InferSim run raises (tp_size 0, world_size < tp_size).
    CompatModel(const config::ModelSource& source, const gpu::GpuProfile& gpu,
                std::shared_ptr<const tables::BenchData> tables, const query::Deployment& deployment);
    ~CompatModel();
    CompatModel(CompatModel&&) noexcept;
    CompatModel& operator=(CompatModel&&) noexcept;

    // One InferSim run. Values are named by the oracle's columns, in InferSim's print order, only those InferSim
    // prints for this run; its string lines (device_type, attn_type, model_type) are not numbers and are available
    // from the accessors below. Error(compat_crash) where InferSim raises, with a message saying what InferSim would
    // have done ("InferSim raises ZeroDivisionError: ..."); Error(invalid_argument) for negative lengths.
    query::Report estimate(const query::Scenario& scenario) const;

    // Compat meaning of a step (docs/compat-steps.md): k prefill requests of n new tokens each = InferSim's
    // prefill with M = k*n, S = n (TTFT, including its 30 ms); bs decode requests at context c = InferSim's
    // decode with B = bs, K = c (TPOT, including its 5 ms, 2 ms for hybrids). Mixed and uneven steps are composed
    // as documented. Requests are validated by the caller (query::validate_requests). No allocation; thread-safe;
    // Error(compat_crash) where InferSim would raise for the equivalent run.
    double step_time_us(const mfusim_request* requests, std::size_t n) const;
    void step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const;

    // InferSim's string lines.
    const std::string& device_type() const;  // "H20"
    const char* attn_type() const;           // "MLA" or "MHA/GQA"
    bool hybrid() const;                     // model_type "HybridModel"

  private:
    std::unique_ptr<const Core> core_;
};

}  // namespace mfusim::compat
