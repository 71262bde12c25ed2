// The per-step roofline model simulators call (DESIGN.md section 2, `roofline`): arbitrary mixed batches of
// prefill chunks over cached prefixes and decodes, under TP, with MoE, from MFU tables with interpolation or the
// analytical efficiency model.
#pragma once

#include <memory>
#include <string>

#include "config/model_config.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/query.hpp"
#include "tables/tables.hpp"

namespace mfusim::roofline {

class RooflineModel {
  public:
    // Builds every lookup index once; the step path then allocates nothing. `tables` may be null (analytical
    // efficiencies everywhere). Error(config) for a deployment the model cannot be sharded over (TP not dividing
    // the heads), naming both numbers.
    RooflineModel(const config::ModelConfig& model, const gpu::GpuProfile& gpu,
                  std::shared_ptr<const tables::BenchData> tables, const query::Deployment& deployment);
    ~RooflineModel();
    RooflineModel(RooflineModel&&) noexcept;
    RooflineModel& operator=(RooflineModel&&) noexcept;

    // Thread-safe, allocation-free. Requests are validated by the caller (query::validate_requests).
    double step_time_us(const mfusim_request* requests, std::size_t n) const;
    void step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const;

    // TTFT / TPOT of a scenario in roofline terms (prefill in chunks of max_prefill_tokens, decode at the mean
    // context), with the same headline names as compat: prefill.ttft_ms, decode.tpot_ms, throughputs.
    query::Report estimate(const query::Scenario& scenario) const;

    // Fallbacks decided at load time (no table for a GPU or shape, FP8 table on a BF16 model...), one per line.
    const std::string& load_warnings() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mfusim::roofline
