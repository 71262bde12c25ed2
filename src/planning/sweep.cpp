#include "planning/sweep.hpp"

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "planning/estimator_cache.hpp"
#include "planning/serving_point.hpp"
#include "query/names.hpp"

namespace mfusim::planning {

namespace {

const std::vector<std::string> kStepMetrics = {"step_ms"};
const std::vector<std::string> kServingMetrics = {"ttft_ms", "tpot_ms", "output_tok_s_gpu", "e2e_ms",
                                                  "request_throughput_req_s"};

// The bounds the command's flags enforce, for callers that reach the library directly (the C API).
void check_axis(const SweepAxis& axis, bool step_kind) {
    if (axis.values.empty() || axis.values.size() > kMaxSweepValues) {
        throw Error(Status::invalid_argument, "sweep: " + sweep_param_name(axis.param) + " needs 1 to " +
                                                  std::to_string(kMaxSweepValues) + " values");
    }
    if (step_kind ? is_serving_param(axis.param) : is_step_param(axis.param)) {
        throw Error(Status::invalid_argument, "sweep: " + sweep_param_name(axis.param) + " is not a dimension of " +
                                                  (step_kind ? "a step sweep" : "a serving sweep"));
    }
    if (!is_numeric(axis.param)) return;
    for (const std::string& v : axis.values) {
        const std::optional<int64_t> n = parse_int64(v);
        if (!n || *n < 0 || *n > sweep_param_max(axis.param)) {
            throw Error(Status::invalid_argument, "sweep: " + sweep_param_name(axis.param) + " '" + v +
                                                      "' is not an integer from 0 to " +
                                                      std::to_string(sweep_param_max(axis.param)));
        }
    }
}

void check_request(const SweepRequest& r) {
    check_axis(r.vary, r.step_kind);
    if (r.series) {
        check_axis(*r.series, r.step_kind);
        if (r.series->param == r.vary.param) {
            throw Error(Status::invalid_argument, "sweep: the series must vary another parameter than the x axis");
        }
    }
    if (!r.step_kind && r.options.mode != engine::Mode::roofline) {
        throw Error(Status::unsupported, "serving sweeps answer in roofline mode only");
    }
    for (int64_t v : {r.step.decode_batch, r.step.context, r.step.chunk}) {
        if (v < 0)
            throw Error(Status::invalid_argument, "sweep: the step's decode batch, context and chunk must be >= 0");
    }
    if (r.step.decode_batch > sweep_param_max(SweepParam::decode_batch)) {
        throw Error(Status::invalid_argument, "sweep: the step's decode batch is above its limit of " +
                                                  std::to_string(sweep_param_max(SweepParam::decode_batch)));
    }
}

void apply(SweepParam p, const std::string& value, engine::Options& o, serving::Workload& w, StepShape& step) {
    // Canonical integers within the parameter's bound (check_axis).
    int64_t n = is_numeric(p) ? parse_int64(value).value_or(0) : 0;
    switch (p) {
        case SweepParam::decode_batch:
            step.decode_batch = n;
            break;
        case SweepParam::context:
            step.context = n;
            break;
        case SweepParam::chunk:
            step.chunk = n;
            break;
        case SweepParam::concurrency:
            w.concurrency = n;
            break;
        case SweepParam::isl:
            w.input_len = n;
            break;
        case SweepParam::osl:
            w.output_len = n;
            break;
        case SweepParam::tp:
            o.deployment.tensor_parallel = n;
            break;
        case SweepParam::gpu:
            o.gpu = value;
            break;
        case SweepParam::model:
            o.model = value;
            break;
    }
}

void evaluate(const engine::Estimator& estimator, bool step_kind, const serving::Workload& w, bool simulated,
              const StepShape& shape, SweepPoint& point) {
    if (step_kind) {
        std::vector<mfusim_request> requests(static_cast<std::size_t>(shape.decode_batch), mfusim_request{});
        for (mfusim_request& r : requests) {
            r.new_tokens = 1;
            r.context = shape.context;
        }
        if (shape.chunk > 0) requests.push_back(mfusim_request{shape.chunk, 0, 0, 0});
        if (requests.empty()) throw Error(Status::invalid_argument, "an empty step (decode batch 0 and no chunk)");
        mfusim_step_result result{};
        result.struct_size = sizeof result;
        estimator.step_detail(requests.data(), requests.size(), result);
        point.metrics = {result.total_us / 1000};
        point.detail = query::bound_name(result.bound);
        return;
    }
    mfusim_serving_result r{};
    r.struct_size = sizeof r;
    answer_serving(estimator, w, simulated, r);
    point.metrics = {r.ttft_ms, r.tpot_ms, r.output_throughput_tok_s_gpu, r.e2e_ms, r.request_throughput_req_s};
    point.detail = limit_name(r.limited_by);
}

}  // namespace

const std::vector<std::string>& sweep_metrics(bool step_kind) {
    return step_kind ? kStepMetrics : kServingMetrics;
}

SweepResult sweep(const SweepRequest& request, const ProgressFn& progress) {
    check_request(request);
    const std::vector<std::string> series_values =
        request.series ? request.series->values : std::vector<std::string>{""};
    SweepResult out;
    EstimatorCache cache;
    const std::size_t total = series_values.size() * request.vary.values.size();
    for (const std::string& s : series_values) {
        for (const std::string& x : request.vary.values) {
            engine::Options o = request.options;
            serving::Workload w = request.workload;
            StepShape shape = request.step;
            if (request.series) apply(request.series->param, s, o, w, shape);
            apply(request.vary.param, x, o, w, shape);
            SweepPoint point{x, s, {}, "", ""};
            try {
                evaluate(cache.get(o), request.step_kind, w, request.simulate, shape, point);
            } catch (const Error& e) {
                point.error = e.what();
                ++out.failed;
            }
            out.points.push_back(std::move(point));
            if (progress) progress(out.points.size(), total);
        }
    }
    out.warnings = cache.warnings();
    return out;
}

}  // namespace mfusim::planning
