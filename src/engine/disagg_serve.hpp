// The disaggregated serving estimate through two estimators (one per pool), with the final check every answer
// passes (common/answer.hpp). docs/disagg.md.
#pragma once

#include "engine/estimator.hpp"
#include "serving/disagg.hpp"

namespace mfusim::engine {

// Options for one pool: `base` with that pool's parallelism (tensor, expert, attention data parallel).
Options pool_options(const Options& base, int64_t tp, int64_t ep, int64_t attention_dp);
// The same for the decode pool: also marks it as one (Options::disagg_decode).
Options decode_pool_options(const Options& base, int64_t tp, int64_t ep, int64_t attention_dp);

// Error(unsupported) unless both estimators are in roofline mode; Error(config) when their GPUs differ.
void serve_disagg(const Estimator& prefill, const Estimator& decode, const serving::DisaggWorkload& workload,
                  serving::DisaggResult& out);

}  // namespace mfusim::engine
