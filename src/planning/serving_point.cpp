#include "planning/serving_point.hpp"

namespace mfusim::planning {

void answer_serving(const engine::Estimator& estimator, const serving::Workload& w, bool simulated,
                    mfusim_serving_result& out) {
    if (simulated) {
        estimator.serve_simulated(w, out);
    } else {
        estimator.serve(w, out);
    }
}

const char* limit_name(mfusim_serving_limit limit) {
    switch (limit) {
        case MFUSIM_SERVING_LIMIT_TOKEN_BUDGET:
            return "token_budget";
        case MFUSIM_SERVING_LIMIT_MAX_SEQS:
            return "max_seqs";
        case MFUSIM_SERVING_LIMIT_KV_CAPACITY:
            return "kv_capacity";
        default:
            return "none";
    }
}

}  // namespace mfusim::planning
