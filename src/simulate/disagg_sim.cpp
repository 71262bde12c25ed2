// docs/disagg.md, section 7, derives this file; disagg_sim.hpp says the request's path.
#include "simulate/disagg_sim.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <queue>
#include <string>

#include "common/error.hpp"
#include "serving/disagg.hpp"
#include "serving/serving.hpp"
#include "simulate/clients.hpp"
#include "simulate/closed_loop.hpp"
#include "simulate/dp_group.hpp"

namespace mfusim::simulate {

namespace {

constexpr int64_t kMaxSteps = int64_t{1} << 32;  // as simulator.cpp: a run this long is a mistake

using TimedHeap =
    std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>>;

struct PrefillReplica {
    Scheduler scheduler;
    std::vector<Scheduled> step;
    std::vector<mfusim_request> batch;
};

struct PrefillWorker {
    std::vector<PrefillReplica> replicas;
    bool stepping = false;
    double busy_until = 0;
};

struct DecodeReplica {
    int64_t held = 0;                  // slots taken: reserved (before its prefill, or its transfer), or decoding
    std::vector<std::size_t> running;  // decoding
    std::vector<std::size_t> arrived;  // KV arrived, taken in at the next step boundary
    std::vector<mfusim_request> batch;
};

struct DecodeWorker {
    std::vector<DecodeReplica> replicas;
    bool stepping = false;
    double busy_until = 0;
    double frontend_free = 0;  // its API server streams the tokens in order (simulator.hpp)
};

struct Timing : RequestClock {
    std::size_t decode_worker = 0, decode_replica = 0;
    int64_t generated = 0;
    double accepted_credit = 0;  // speculative decoding (scheduler.hpp, accepted_tokens)
    int64_t decode_iters = 0;    // decode steps run since the decode worker took the request in
    int64_t unsent = 0;          // tokens produced and held for the worker's next answer (disagg_stream_interval)
    // The decode slot: asked for (before the prefill, or once prefilled) and granted; the KV transfer's time.
    double slot_asked = -1, slot_granted = -1, transfer_us = 0;
};

class DisaggRun {
  public:
    DisaggRun(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode, const DisaggOptions& o)
        : prefill_(prefill),
          decode_(decode),
          options_(o),
          sent_(requests(o.workload)),
          slot_first_(decode.engine().disagg_slot_before_prefill != 0) {
        validate(o.prefill_scheduler);
        refuse_unschedulable(o.prefill_scheduler, sent_);
        if (o.prefill_workers < 1 || o.prefill_workers > 4096 || o.decode_workers < 1 || o.decode_workers > 4096) {
            throw Error(Status::invalid_argument, "disagg simulation: workers must be between 1 and 4096 per pool");
        }
        if (o.decode_batch < 0 || o.decode_batch > (int64_t{1} << 20)) {
            throw Error(Status::invalid_argument, "disagg simulation: decode_batch must be between 0 and 2^20");
        }
        // The decode slots as the closed form counts them (batch, max_seqs, the KV cache at the mean context).
        serving::DisaggWorkload w;
        w.input_len = std::max<int64_t>(1, std::llround(o.workload.input.mean));
        w.output_len = std::max<int64_t>(1, std::llround(o.workload.output.mean));
        w.decode_batch = o.decode_batch;
        w.max_batched_tokens = o.prefill_scheduler.max_batched_tokens;
        w.gpu_memory_utilization = o.gpu_memory_utilization;
        slots_ = static_cast<int64_t>(serving::disagg_capacity(prefill, decode, w).decode_slots);
        const double cache = serving::cache_space_bytes(prefill, o.prefill_scheduler.gpu_memory_utilization);
        if (cache <= 0) throw Error(Status::config, "the prefill workers' weights leave no KV cache");
        prefill_workers_.resize(static_cast<std::size_t>(o.prefill_workers));
        for (PrefillWorker& pw : prefill_workers_) {
            for (int64_t r = 0; r < prefill.memory().replicas; ++r) {
                pw.replicas.push_back(PrefillReplica{Scheduler(o.prefill_scheduler, prefill.memory(), cache), {}, {}});
            }
        }
        decode_workers_.resize(static_cast<std::size_t>(o.decode_workers));
        slot_wait_.resize(o.routing == DisaggRouting::round_robin ? decode_workers_.size() : 1);
        for (DecodeWorker& dw : decode_workers_) dw.replicas.resize(static_cast<std::size_t>(decode.memory().replicas));
        seqs_.resize(sent_.size());
        timing_.resize(sent_.size());
        for (std::size_t i = 0; i < sent_.size(); ++i) {
            seqs_[i].prompt = sent_[i].input_len;
            seqs_[i].output = 1;  // the prefill worker computes the prompt and samples the first token only
            seqs_[i].prefix_id = sent_[i].prefix_id;
            seqs_[i].prefix_len = sent_[i].prefix_len;
        }
    }

    Result run();

  private:
    void send_until(double until);
    void route_ready();
    void grant_slots();
    void to_prefill(std::size_t i);
    void wait_for_slot(std::size_t i);
    void start_transfer(std::size_t i, double at);
    void finish_prefills(double t);
    void finish_decodes(double t);
    void start_decodes(double t);
    void start_prefills(double t);
    void deliver(DecodeWorker& w, double t, const std::vector<std::size_t>& produced);
    void release(std::size_t i);
    Result results() const;

    const roofline::RooflineModel &prefill_, &decode_;
    const DisaggOptions& options_;
    std::vector<TraceRequest> sent_;
    const bool slot_first_;  // the decode slot is taken before the prefill (engine disagg_slot_before_prefill)
    std::vector<Sequence> seqs_;
    std::vector<Timing> timing_;
    std::vector<PrefillWorker> prefill_workers_;
    std::vector<DecodeWorker> decode_workers_;
    int64_t slots_ = 1;
    Clients clients_{sent_, options_.workload.arrivals.max_concurrency};
    TimedHeap ready_, transfers_;
    std::vector<std::deque<std::size_t>> slot_wait_;  // per decode worker (round robin), else one for the pool
    std::size_t route_next_ = 0, decode_turn_ = 0, prefill_turn_ = 0;
    double t_ = 0;
    std::vector<std::size_t> produced_, finished_;
    std::vector<std::pair<double, int64_t>> itl_;
    int64_t steps_ = 0, decode_steps_ = 0, done_ = 0;
    double running_sum_ = 0;
};

void DisaggRun::send_until(double until) {
    const engines::EngineProfile& e = prefill_.engine();
    clients_.send_until(until, [&](std::size_t i, double at) {
        timing_[i].send = at;
        timing_[i].ready = at + e.admission_us + e.input_token_us * static_cast<double>(sent_[i].input_len);
        ready_.emplace(timing_[i].ready, i);
    });
}

// Requests that reached the deployment take a decode slot, then go to a prefill replica (SGLang's prealloc), or go
// to a prefill replica and take the slot once prefilled, their transfer starting then (TensorRT-LLM, vLLM: engine
// disagg_slot_before_prefill). Round robin (the Dynamo frontend's default router mode) sends each request to the
// next decode worker and the next prefill worker in turn, blind to their load: a request whose decode worker has
// every slot taken waits there for one of its requests to finish, though another worker may have a slot free.
// Least-loaded takes the decode replica holding fewest and the prefill replica with fewest requests over the whole
// pool. Within a worker, its attention-DP replicas are balanced (the one holding fewest, ties in turn).
void DisaggRun::route_ready() {
    while (!ready_.empty() && ready_.top().first <= t_) {
        const std::size_t i = ready_.top().second;
        ready_.pop();
        if (slot_first_) {
            wait_for_slot(i);
        } else {
            to_prefill(i);
        }
    }
}

// Request i's KV leaves its prefill worker at `at` and reaches the decode worker one transfer later.
void DisaggRun::start_transfer(std::size_t i, double at) {
    const double us = serving::disagg_kv_transfer(prefill_, decode_, static_cast<double>(sent_[i].input_len)).us;
    timing_[i].transfer_us = us;
    transfers_.emplace(at + us, i);
}

// A request joins the slot queue of its decode worker: the next in turn (round robin), or the pool's one queue.
void DisaggRun::wait_for_slot(std::size_t i) {
    const bool round_robin = options_.routing == DisaggRouting::round_robin;
    timing_[i].slot_asked = t_;
    slot_wait_[round_robin ? decode_turn_++ % decode_workers_.size() : 0].push_back(i);
}

void DisaggRun::to_prefill(std::size_t i) {
    const bool round_robin = options_.routing == DisaggRouting::round_robin;
    const std::size_t pw_first = round_robin ? prefill_turn_++ % prefill_workers_.size() : 0;
    const std::size_t pw_count = round_robin ? 1 : prefill_workers_.size();
    // Between replicas holding as few, the one whose worker holds fewest: a worker's replicas step in lockstep, so
    // an idle replica of a stepping worker starts its prompt only at that step's end, where an idle worker starts
    // it at once (the lowest index alone piled every prompt onto the first worker; docs/disagg.md, section 20).
    PrefillReplica* best = nullptr;
    std::pair<std::size_t, std::size_t> best_load{SIZE_MAX, SIZE_MAX};
    for (std::size_t k = 0; k < pw_count; ++k) {
        PrefillWorker& pw = prefill_workers_[pw_first + k];
        std::size_t worker_load = 0;
        for (const PrefillReplica& pr : pw.replicas) worker_load += pr.scheduler.running() + pr.scheduler.waiting();
        for (PrefillReplica& pr : pw.replicas) {
            const std::pair<std::size_t, std::size_t> load{pr.scheduler.running() + pr.scheduler.waiting(),
                                                           worker_load};
            if (load < best_load) {
                best_load = load;
                best = &pr;
            }
        }
    }
    best->scheduler.enqueue(i);
}

// The waiting requests take free slots in order; a slot granted starts the request's prefill, or, where the slot
// is taken after the prefill, its KV transfer.
void DisaggRun::grant_slots() {
    const bool round_robin = options_.routing == DisaggRouting::round_robin;
    const std::size_t nr = decode_workers_[0].replicas.size();
    for (std::size_t q = 0; q < slot_wait_.size(); ++q) {
        std::deque<std::size_t>& wait = slot_wait_[q];
        while (!wait.empty()) {
            // The candidates: the worker the request was routed to, or every replica of the pool.
            const std::size_t first = round_robin ? q * nr : 0;
            const std::size_t count = round_robin ? nr : decode_workers_.size() * nr;
            std::size_t bw = 0, br = 0;
            int64_t least = slots_;
            for (std::size_t k = 0; k < count; ++k) {
                const std::size_t g = first + (route_next_ + k) % count, w = g / nr, r = g % nr;
                if (decode_workers_[w].replicas[r].held < least) {
                    least = decode_workers_[w].replicas[r].held;
                    bw = w;
                    br = r;
                }
            }
            if (least >= slots_) break;  // every candidate slot taken: the queue waits for a release
            ++route_next_;
            const std::size_t i = wait.front();
            wait.pop_front();
            ++decode_workers_[bw].replicas[br].held;
            timing_[i].decode_worker = bw;
            timing_[i].decode_replica = br;
            timing_[i].slot_granted = t_;
            if (slot_first_) {
                to_prefill(i);
            } else {
                start_transfer(i, t_);
            }
        }
    }
}

void DisaggRun::finish_prefills(double t) {
    for (PrefillWorker& pw : prefill_workers_) {
        if (!pw.stepping || pw.busy_until > t) continue;
        pw.stepping = false;
        produced_.clear();
        finished_.clear();
        for (PrefillReplica& r : pw.replicas) r.scheduler.complete(seqs_, r.step, produced_, finished_);
        for (std::size_t i : finished_) {
            if (!slot_first_) {
                wait_for_slot(i);  // its KV waits on the prefill worker until it takes its decode slot
                continue;
            }
            start_transfer(i, pw.busy_until);
        }
    }
    while (!transfers_.empty() && transfers_.top().first <= t) {
        const std::size_t i = transfers_.top().second;
        transfers_.pop();
        decode_workers_[timing_[i].decode_worker].replicas[timing_[i].decode_replica].arrived.push_back(i);
    }
}

void DisaggRun::release(std::size_t i) {
    --decode_workers_[timing_[i].decode_worker].replicas[timing_[i].decode_replica].held;
    clients_.completed(timing_[i].last);
    ++done_;
}

// Tokens reach the clients after the decode worker's API server has streamed them, in order (simulator.hpp). Its
// work (output_token_us) is per chunk, as in the aggregated simulator: a request's tokens answered together are one
// message through the detokenizer and the server (`produced` repeats a request once per token of its chunk).
void DisaggRun::deliver(DecodeWorker& w, double t, const std::vector<std::size_t>& produced) {
    if (produced.empty()) return;
    const double out_us = decode_.engine().output_token_us;
    std::size_t chunks = 0;
    for (std::size_t k = 0; k < produced.size(); ++k) chunks += k == 0 || produced[k] != produced[k - 1] ? 1 : 0;
    w.frontend_free = std::max(t, w.frontend_free) + out_us * static_cast<double>(chunks);
    stream_to_clients(timing_, produced, w.frontend_free, options_.workload.warmup, itl_);
}

void DisaggRun::finish_decodes(double t) {
    const query::Speculation& spec = decode_.speculation();
    const int64_t interval = std::max<int64_t>(1, decode_.engine().disagg_stream_interval);
    const int64_t chunk = decode_.engine().stream_interval;  // SGLang's --stream-interval, as in simulator.cpp
    for (DecodeWorker& w : decode_workers_) {
        if (!w.stepping || w.busy_until > t) continue;
        w.stepping = false;
        produced_.clear();
        finished_.clear();
        for (DecodeReplica& r : w.replicas) {
            std::size_t keep = 0;
            for (std::size_t i : r.running) {
                // Under speculative decoding a verify step keeps the accepted drafts too, as the aggregated
                // simulator's scheduler does; the decode step's time already counts the k+1 tokens it verifies.
                Timing& tm = timing_[i];
                const int64_t gained = spec.active() ? accepted_tokens(tm.accepted_credit, spec.tokens_per_step(),
                                                                       sent_[i].output_len - tm.generated)
                                                     : 1;
                tm.generated += gained;
                tm.unsent += gained;
                ++tm.decode_iters;
                // The worker answers every disagg_stream_interval steps (TensorRT-LLM) and, with a stream interval
                // N > 1, where the output length is 1 mod N (SGLang's stream_output_generation); always at the end,
                // with every token held.
                const bool last = tm.generated >= sent_[i].output_len;
                if (last || (tm.decode_iters % interval == 0 && (chunk <= 1 || tm.generated % chunk == 1))) {
                    produced_.insert(produced_.end(), static_cast<std::size_t>(tm.unsent), i);
                    tm.unsent = 0;
                }
                if (last) {
                    finished_.push_back(i);
                } else {
                    r.running[keep++] = i;
                }
            }
            r.running.resize(keep);
        }
        deliver(w, w.busy_until, produced_);
        for (std::size_t i : finished_) release(i);
    }
}

// An idle decode worker takes in the requests whose KV has arrived and steps its replicas in lockstep: the step
// lasts as long as the slowest replica's batch. A request's first token (the prefill's) streams now, or with the
// worker's first answer to it when the engine answers every disagg_stream_interval > 1 steps (TensorRT-LLM).
void DisaggRun::start_decodes(double t) {
    const bool first_now = decode_.engine().disagg_stream_interval <= 1;
    for (DecodeWorker& w : decode_workers_) {
        if (w.stepping) continue;
        produced_.clear();
        finished_.clear();
        for (DecodeReplica& r : w.replicas) {
            for (std::size_t i : r.arrived) {
                const bool more = sent_[i].output_len > 1;
                timing_[i].generated = 1;
                if (first_now || !more) {
                    produced_.push_back(i);
                } else {
                    timing_[i].unsent = 1;
                }
                (more ? r.running : finished_).push_back(i);
            }
            r.arrived.clear();
        }
        deliver(w, t, produced_);
        for (std::size_t i : finished_) release(i);
        std::size_t running = 0;
        for (DecodeReplica& r : w.replicas) {
            r.batch.clear();
            for (std::size_t i : r.running) {
                mfusim_request q{};
                q.new_tokens = 1;
                q.context = sent_[i].input_len + timing_[i].generated - 1;
                r.batch.push_back(q);
            }
            running += r.running.size();
        }
        if (running == 0) continue;
        double duration = lockstep_step_us(decode_, w.replicas);
        // The worker's loop polls its KV transfers once per step, gathered over its ranks (docs/disagg.md, section 9).
        duration += decode_.engine().disagg_decode_step_us;
        if (++steps_ > kMaxSteps) throw Error(Status::unsupported, "simulation exceeds 2^32 steps");
        ++decode_steps_;
        running_sum_ += static_cast<double>(running) / static_cast<double>(w.replicas.size());
        w.stepping = true;
        w.busy_until = t + duration;
    }
}

void DisaggRun::start_prefills(double t) {
    for (PrefillWorker& pw : prefill_workers_) {
        if (pw.stepping) continue;
        for (PrefillReplica& r : pw.replicas) {
            r.scheduler.schedule(seqs_, r.step);
            r.batch.clear();
            for (const Scheduled& part : r.step) {
                const Sequence& s = seqs_[part.seq];
                if (timing_[part.seq].scheduled < 0) timing_[part.seq].scheduled = t;
                mfusim_request q{};
                q.new_tokens = part.tokens;
                q.context = s.computed;
                q.flags = part.tokens < s.remaining() ? MFUSIM_REQUEST_NO_OUTPUT : 0u;
                r.batch.push_back(q);
            }
        }
        const double duration = lockstep_step_us(prefill_, pw.replicas);
        if (duration <= 0) continue;
        if (++steps_ > kMaxSteps) throw Error(Status::unsupported, "simulation exceeds 2^32 steps");
        pw.stepping = true;
        pw.busy_until = t + duration;
    }
}

Result DisaggRun::run() {
    double t = 0;
    const auto total = static_cast<int64_t>(sent_.size());
    while (done_ < total) {
        send_until(t);
        finish_decodes(t);  // releases slots first, so the waiting requests can take them at this instant
        t_ = t;
        route_ready();
        grant_slots();
        finish_prefills(t);
        if (!slot_first_) grant_slots();  // the requests just prefilled take free slots, their transfers start now
        start_decodes(t);
        start_prefills(t);
        double next = std::min(clients_.next_send_time(), ready_.empty() ? INFINITY : ready_.top().first);
        if (!transfers_.empty()) next = std::min(next, transfers_.top().first);
        for (const PrefillWorker& pw : prefill_workers_) {
            if (pw.stepping) next = std::min(next, pw.busy_until);
        }
        for (const DecodeWorker& w : decode_workers_) {
            if (w.stepping) next = std::min(next, w.busy_until);
        }
        if (done_ >= total) break;
        if (!std::isfinite(next)) {
            for (const PrefillWorker& pw : prefill_workers_) {
                for (const PrefillReplica& r : pw.replicas) {
                    const std::string why = r.scheduler.stuck_reason(seqs_);
                    if (!why.empty()) throw Error(Status::unsupported, why);
                }
            }
            throw Error(Status::internal, "disaggregated simulation stalled with requests outstanding");
        }
        t = std::max(t, next);
    }
    return results();
}

// TTFT's parts as the closed form names them (serving/disagg.cpp): the prefill queue from the time the request
// could be prefilled (where the slot is taken first, SGLang's prealloc, from the slot's grant), the wait for a
// decode slot (before the prefill, or with the KV held on the prefill worker after it), and the KV transfer.
Result DisaggRun::results() const {
    std::vector<RequestClock> clocks(timing_.begin(), timing_.end());  // the clocks, without the routing
    std::vector<double> slot_wait, transfer;
    for (std::size_t i = 0; i < timing_.size(); ++i) {
        const Timing& tm = timing_[i];
        if (slot_first_ && tm.slot_granted >= 0) clocks[i].ready = tm.slot_granted;
        if (static_cast<int64_t>(i) < options_.workload.warmup) continue;
        slot_wait.push_back(tm.slot_granted >= 0 ? (tm.slot_granted - tm.slot_asked) / 1000 : 0.0);
        transfer.push_back(tm.transfer_us / 1000);
    }
    Result out = request_results(sent_, clocks, options_.workload.warmup, Slo{}, itl_);
    out.decode_wait_ms = summarize(std::move(slot_wait));
    out.transfer_ms = summarize(std::move(transfer));
    out.steps = steps_;
    out.mean_running = decode_steps_ > 0 ? running_sum_ / static_cast<double>(decode_steps_) : 0;
    return out;
}

}  // namespace

Result simulate_disagg(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
                       const DisaggOptions& options) {
    DisaggRun run(prefill, decode, options);
    return run.run();
}

Result simulate_disagg_benchmark(const roofline::RooflineModel& prefill, const roofline::RooflineModel& decode,
                                 const serving::DisaggWorkload& w, double requests_per_client, double min_length_ratio,
                                 DisaggRouting routing) {
    serving::Workload bench;
    bench.input_len = w.input_len;
    bench.output_len = w.output_len;
    bench.concurrency = w.concurrency;
    bench.max_batched_tokens = w.max_batched_tokens;
    bench.gpu_memory_utilization = w.gpu_memory_utilization;
    bench.requests_per_client = requests_per_client;
    bench.min_length_ratio = min_length_ratio;
    const Options agg = closed_loop_benchmark(prefill.engine(), bench);
    DisaggOptions o;
    o.workload = agg.workload;
    o.prefill_scheduler = agg.scheduler;
    if (w.prefill_batch > 0) o.prefill_scheduler.max_seqs = w.prefill_batch;
    o.prefill_workers = w.prefill_workers;
    o.decode_workers = w.decode_workers;
    o.decode_batch = w.decode_batch;
    o.gpu_memory_utilization = w.gpu_memory_utilization;
    o.routing = routing;
    return simulate_disagg(prefill, decode, o);
}

}  // namespace mfusim::simulate
