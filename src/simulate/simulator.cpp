#include "simulate/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <queue>

#include "common/error.hpp"
#include "serving/serving.hpp"
#include "simulate/adp_balance.hpp"
#include "simulate/api_server.hpp"
#include "simulate/clients.hpp"
#include "simulate/dp_group.hpp"

namespace mfusim::simulate {

namespace {

// Bounds a run: a benchmark this long is a mistake (2^24 requests of 2^24 tokens would still need fewer steps).
constexpr int64_t kMaxSteps = int64_t{1} << 32;

using ReadyHeap =
    std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>>;

// The scheduler as the model's deployment runs it: under speculative decoding every decode carries its drafts;
// under attention DP TensorRT-LLM's batch waiting is off (PyExecutor._schedule: `not self.enable_attention_dp`).
SchedulerConfig as_deployed(SchedulerConfig config, const roofline::RooflineModel& model) {
    const query::Speculation& spec = model.speculation();
    if (spec.active()) {
        config.draft_tokens = spec.tokens;
        config.accepted_per_step = spec.tokens_per_step();
    }
    if (model.memory().replicas > 1) {
        config.batch_wait_timeout_iters = 0;
        config.batch_wait_max_tokens_ratio = 0;
    }
    return config;
}

std::optional<AdpBalance> adp_balance(const roofline::RooflineModel& model, const SchedulerConfig& config) {
    const engines::EngineProfile& e = model.engine();
    if (!e.attention_dp_balance || model.memory().replicas <= 1) return std::nullopt;
    return AdpBalance(e.attention_dp_timeout_iters, e.attention_dp_batching_wait_iters, config.max_seqs);
}

struct Replica {
    Scheduler scheduler;
    std::vector<Scheduled> step;
    std::vector<mfusim_request> batch;
};

// Per request, while the benchmark runs (microseconds from the start).
using Timing = RequestClock;

class Run {
  public:
    Run(const roofline::RooflineModel& model, const Options& options)
        : model_(model), options_(options), engine_(model.engine()), sent_(requests(options.workload)) {
        validate(options.scheduler);
        refuse_unschedulable(options.scheduler, sent_);
        const double cache = serving::cache_space_bytes(model, options.scheduler.gpu_memory_utilization);
        if (cache <= 0) {
            throw Error(Status::config, "the weights and the engine's activation reserve leave no KV cache on " +
                                            model.gpu().name + " at gpu_memory_utilization " +
                                            std::to_string(options.scheduler.gpu_memory_utilization));
        }
        for (int64_t r = 0; r < model.memory().replicas; ++r) {
            replicas_.push_back(
                Replica{Scheduler(as_deployed(options.scheduler, model), model.memory(), cache), {}, {}});
        }
        seqs_.resize(sent_.size());
        timing_.resize(sent_.size());
        for (std::size_t i = 0; i < sent_.size(); ++i) {
            Sequence& s = seqs_[i];
            s.prompt = sent_[i].input_len;
            s.output = sent_[i].output_len;
            s.prefix_id = sent_[i].prefix_id;
            s.prefix_len = sent_[i].prefix_len;
        }
    }

    Result run();

  private:
    bool balance_contexts();
    void send_until(double until);
    void admit(std::size_t i, double at);
    void route_until(double t);
    bool receives_now();
    void fill_batch(Replica& r, double t, int64_t& prefill, int64_t& decode);
    void deliver(double t_end);
    Result results() const;

    const roofline::RooflineModel& model_;
    const Options& options_;
    const engines::EngineProfile& engine_;
    std::vector<TraceRequest> sent_;
    std::vector<Sequence> seqs_;
    std::vector<Timing> timing_;
    std::vector<Replica> replicas_;
    std::optional<AdpBalance> balance_ = adp_balance(model_, options_.scheduler);
    std::vector<AdpBalance::Rank> ranks_;
    Clients clients_{sent_, options_.workload.arrivals.max_concurrency};
    ReadyHeap ready_;  // (time the request reaches the engine, request)
    // The serial part of admission_us (a calibration may have fitted admission_us below the profile's part).
    double admission_serial_us_ = std::min(engine_.admission_server_us, engine_.admission_us);
    ApiServer server_{engine_.output_token_us, admission_serial_us_};
    std::size_t route_next_ = 0;  // round-robin tie breaker
    std::vector<std::size_t> produced_, finished_;
    std::vector<std::size_t> streamed_;  // the produced tokens sent this step (stream interval > 1)
    std::vector<std::pair<double, int64_t>> itl_;
    std::vector<StepRecord> timeline_;
    int64_t steps_ = 0, done_ = 0;
    double batch_tokens_ = 0, running_sum_ = 0;
    // SGLang's receive skipper (EngineProfile::scheduler_recv_interval): its counter, and what the last loop ran.
    int64_t recv_counter_ = 0;
    bool last_decode_only_ = false;
};

// SGLang's SchedulerRecvSkipper.handle, called by every loop iteration before it schedules: a decode-only last step
// adds 1 to the counter, an extend step (or none: the loop was idle) the default weight, which passes any interval;
// at the interval the scheduler takes what has arrived and the counter restarts. It consumes the last step's mode:
// an iteration that runs no step (the engine idles) leaves none for the next.
bool Run::receives_now() {
    const bool after_decode = last_decode_only_;
    last_decode_only_ = false;
    const int64_t interval = engine_.scheduler_recv_interval;
    if (interval <= 1) return true;
    recv_counter_ += after_decode ? 1 : interval;
    if (recv_counter_ < interval) return false;
    recv_counter_ = 0;
    return true;
}

void Run::send_until(double until) {
    clients_.send_until(until, [&](std::size_t i, double at) {
        timing_[i].send = at;
        if (server_.takes_requests_in()) {
            server_.arrive(i, at);
        } else {
            admit(i, at);
        }
    });
}

// A request the API server has taken in at `at` (sent then, where the server has no serial part): HTTP,
// tokenization and the hop to the engine core are a latency each request pays on its own (the API server overlaps
// them across requests), as the closed form reads the same terms; the serial part was the intake's.
void Run::admit(std::size_t i, double at) {
    timing_[i].ready = at + (engine_.admission_us - admission_serial_us_) +
                       engine_.input_token_us * static_cast<double>(sent_[i].input_len);
    ready_.emplace(timing_[i].ready, i);
}

// Requests that reached the engine go to the replica with the fewest requests (attention DP's load balancing;
// ties in turn).
void Run::route_until(double t) {
    while (!ready_.empty() && ready_.top().first <= t) {
        const std::size_t i = ready_.top().second;
        ready_.pop();
        std::size_t best = route_next_ % replicas_.size();
        for (std::size_t k = 0; k < replicas_.size(); ++k) {
            const std::size_t r = (route_next_ + k) % replicas_.size();
            const auto load = [&](std::size_t x) {
                return replicas_[x].scheduler.running() + replicas_[x].scheduler.waiting();
            };
            if (load(r) < load(best)) best = r;
        }
        ++route_next_;
        replicas_[best].scheduler.enqueue(i);
    }
}

// TensorRT-LLM's attention-DP balancing, on the replicas' scheduled steps: holds every replica's context parts
// when the group decides to wait. Whether any replica still has work this step.
bool Run::balance_contexts() {
    ranks_.clear();
    bool any = false;
    for (const Replica& r : replicas_) {
        AdpBalance::Rank rank;
        for (const Scheduled& part : r.step) (seqs_[part.seq].decoding() ? rank.generation : rank.context) += 1;
        rank.active = !r.scheduler.idle();
        ranks_.push_back(rank);
    }
    const bool hold = balance_->hold(ranks_);
    for (Replica& r : replicas_) {
        if (hold) Scheduler::hold_contexts(seqs_, r.step);
        any = any || !r.step.empty();
    }
    return any;
}

// The replica's step as the roofline model takes it, written in place (a request built on the stack and copied
// in stalled store forwarding on every request of every step); also notes when each request is first scheduled
// and counts the step's prefill and decode tokens.
void Run::fill_batch(Replica& r, double t, int64_t& prefill, int64_t& decode) {
    r.batch.resize(r.step.size());
    mfusim_request* q = r.batch.data();
    for (const Scheduled& part : r.step) {
        const Sequence& s = seqs_[part.seq];
        const int64_t remaining = s.remaining();  // read before the stores below, which could alias them
        const bool decoding = s.decoding();
        q->new_tokens = part.tokens;
        q->context = s.computed;
        q->flags = part.tokens < remaining ? MFUSIM_REQUEST_NO_OUTPUT : 0u;
        q->reserved = 0;
        ++q;
        Timing& tm = timing_[part.seq];
        if (tm.scheduled < 0) tm.scheduled = t;
        (decoding ? decode : prefill) += part.tokens;
    }
}

// The step's tokens reach the clients after the API server has streamed them, in order. With a stream interval
// N > 1 a request's tokens go out only when its output length is 1 mod N or it has finished (SGLang's
// stream_output_generation); the others wait in the engine and go with its next chunk. The API server's work
// (output_token_us) is per chunk it streams: the engine sends it nothing for the tokens it holds back.
void Run::deliver(double t_end) {
    if (produced_.empty()) return;
    const int64_t interval = engine_.stream_interval;
    const std::vector<std::size_t>* streamed = &produced_;
    if (interval > 1) {
        streamed_.clear();
        for (std::size_t i : produced_) {
            const Sequence& s = seqs_[i];
            if (s.generated >= s.output || s.generated % interval == 1) streamed_.push_back(i);
        }
        streamed = &streamed_;
    }
    const double at = server_.stream(t_end, streamed->size());
    stream_to_clients(timing_, *streamed, at, options_.workload.warmup, itl_);
    for (std::size_t i : finished_) {
        clients_.completed(timing_[i].last);
        ++done_;
    }
}

Result Run::run() {
    double t = 0;
    // When the engine's host loop takes the batch of the step starting at t: at t, or under an overlap scheduler
    // at the start of the step before it (RooflineModel::overlaps_scheduling). Requests reaching the engine later
    // wait for the next batch.
    double taken = 0;
    const auto total = static_cast<int64_t>(sent_.size());
    while (done_ < total) {
        send_until(t);
        server_.serve_until(t, [&](std::size_t i, double at) { admit(i, at); });
        if (receives_now()) route_until(taken);
        bool any = false;
        for (Replica& r : replicas_) {
            r.scheduler.schedule(seqs_, r.step);
            any = any || !r.step.empty();
        }
        if (any && balance_) any = balance_contexts();
        if (!any && taken < t && !ready_.empty() && ready_.top().first <= t) {
            // Nothing to run from what the loop had taken: the engine idles, and its fetch, now blocking, takes
            // whatever has arrived since.
            taken = t;
            continue;
        }
        if (!any) {
            const double next = std::min(
                {clients_.next_send_time(), ready_.empty() ? INFINITY : ready_.top().first, server_.next_taken_in()});
            if (!std::isfinite(next)) {
                for (const Replica& r : replicas_) {
                    const std::string why = r.scheduler.stuck_reason(seqs_);
                    if (!why.empty()) throw Error(Status::unsupported, why);
                }
                throw Error(Status::internal, "simulation stalled with requests outstanding");
            }
            t = std::max(t, next);
            taken = t;
            continue;
        }
        if (++steps_ > kMaxSteps) throw Error(Status::unsupported, "simulation exceeds 2^32 steps");
        int64_t prefill = 0, decode = 0;
        for (Replica& r : replicas_) fill_batch(r, t, prefill, decode);
        const double duration = lockstep_step_us(model_, replicas_);
        const double t_end = t + duration;
        produced_.clear();
        finished_.clear();
        std::size_t running = 0, waiting = 0;
        double kv = 0;
        for (Replica& r : replicas_) {
            r.scheduler.complete(seqs_, r.step, produced_, finished_);
            running += r.scheduler.running();
            waiting += r.scheduler.waiting();
            kv = std::max(kv, r.scheduler.kv_used_fraction());
        }
        batch_tokens_ += static_cast<double>(prefill + decode);
        running_sum_ += static_cast<double>(running);
        if (options_.record_timeline) {
            timeline_.push_back({t / 1000, duration / 1000, static_cast<int32_t>(running),
                                 static_cast<int32_t>(waiting), static_cast<int32_t>(prefill),
                                 static_cast<int32_t>(decode), kv});
        }
        deliver(t_end);
        last_decode_only_ = prefill == 0;
        taken = model_.overlaps_scheduling() ? t : t_end;
        t = t_end;
    }
    return results();
}

Result Run::results() const {
    Result out = request_results(sent_, timing_, options_.workload.warmup,
                                 {options_.slo_ttft_ms, options_.slo_tpot_ms, options_.slo_e2el_ms}, itl_);
    for (std::size_t i = 0; i < sent_.size(); ++i) {
        out.requests[i].preemptions = seqs_[i].preemptions;
        out.requests[i].prefix_hit_tokens = seqs_[i].kv.shared_tokens;
    }
    out.steps = steps_;
    for (const Replica& r : replicas_) {
        out.preemptions += r.scheduler.preemptions();
        out.prefix_hit_tokens += r.scheduler.prefix_hit_tokens();
    }
    out.mean_batch_tokens = steps_ > 0 ? batch_tokens_ / static_cast<double>(steps_) : 0;
    out.mean_running = steps_ > 0 ? running_sum_ / static_cast<double>(steps_) : 0;
    out.timeline = timeline_;
    return out;
}

[[noreturn]] void fail(const std::string& field, const std::string& what) {
    throw Error(Status::invalid_argument, "scheduler." + field + ": " + what);
}

}  // namespace

void validate(const SchedulerConfig& c) {
    if (c.max_batched_tokens < 1 || c.max_batched_tokens > (int64_t{1} << 24)) {
        fail("max_batched_tokens", "must be between 1 and 2^24, got " + std::to_string(c.max_batched_tokens));
    }
    if (c.max_seqs < 1 || c.max_seqs > (int64_t{1} << 20)) {
        fail("max_seqs", "must be between 1 and 2^20, got " + std::to_string(c.max_seqs));
    }
    if (c.block_tokens < 1 || c.block_tokens > (int64_t{1} << 16)) {
        fail("block_tokens", "must be between 1 and 65536, got " + std::to_string(c.block_tokens));
    }
    if (c.long_prefill_token_threshold < 0 || c.long_prefill_token_threshold > (int64_t{1} << 24)) {
        fail("long_prefill_token_threshold", "must be between 0 (no cap) and 2^24");
    }
    if (!(c.gpu_memory_utilization > 0 && c.gpu_memory_utilization <= 1)) {
        fail("gpu_memory_utilization",
             "must be above 0 and at most 1, got " + std::to_string(c.gpu_memory_utilization));
    }
    if (c.max_prefill_tokens < 1 || c.max_prefill_tokens > (int64_t{1} << 24)) {
        fail("max_prefill_tokens", "must be between 1 and 2^24");
    }
}

void refuse_unschedulable(const SchedulerConfig& c, const std::vector<TraceRequest>& requests) {
    if (c.chunked_prefill) return;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        serving::refuse_unchunked_prompt(requests[i].input_len, c.max_batched_tokens, "request",
                                         static_cast<int64_t>(i));
    }
}

std::vector<std::pair<double, int64_t>> metric_values(const Result& result, Metric metric) {
    std::vector<std::pair<double, int64_t>> values;
    if (metric == Metric::itl) {
        values = result.itl_values;
    } else {
        values.reserve(result.requests.size());
        for (const RequestResult& r : result.requests) {
            if (r.warmup) continue;
            switch (metric) {
                case Metric::ttft:
                    values.emplace_back(r.ttft_ms, 1);
                    break;
                case Metric::tpot:
                    if (r.output_len > 1) values.emplace_back(r.tpot_ms, 1);
                    break;
                case Metric::e2el:
                    values.emplace_back(r.e2el_ms, 1);
                    break;
                case Metric::queue:
                    values.emplace_back(r.queue_ms, 1);
                    break;
                case Metric::itl:
                    break;
            }
        }
    }
    summarize(values);  // sorts and merges in place
    return values;
}

Result simulate(const roofline::RooflineModel& model, const Options& options) {
    Run run(model, options);
    return run.run();
}

}  // namespace mfusim::simulate
