// Parameter counts read the operation plan of the unsharded model (roofline/operation_plan.hpp), the same entries
// the step model times and the weight memory sums: a layer kind is described once.
#include "roofline/model_params.hpp"

#include "roofline/operation_plan.hpp"

namespace mfusim::roofline {

ModelParams model_params(const config::ModelConfig& m) {
    const roofline::OperationPlan plan = plan_operations(m, Sharding{}, m.quant);
    ModelParams p;
    p.vision = config::encoder_params(m.vision);
    p.audio = config::encoder_params(m.audio);
    p.total = plan.weight_elements() + p.vision + p.audio;
    p.active = plan.active_elements();
    return p;
}

}  // namespace mfusim::roofline
