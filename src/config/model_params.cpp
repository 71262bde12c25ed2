// Parameter counts read the operation plan of the unsharded model (roofline/operation_plan.hpp), the same entries
// the step model times and the weight memory sums: a layer kind is described once.
#include "config/model_params.hpp"

#include "roofline/operation_plan.hpp"

namespace mfusim::config {

ModelParams model_params(const ModelConfig& m) {
    const roofline::OperationPlan plan = roofline::plan_operations(m, roofline::Sharding{}, m.quant);
    ModelParams p;
    p.total = plan.weight_elements();
    p.active = plan.active_elements();
    return p;
}

}  // namespace mfusim::config
