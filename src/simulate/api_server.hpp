// The serving engine's API server as the simulator runs it (docs/simulate.md, "The API server's intake"): one
// process that streams every step's chunks as the step ends (EngineProfile::output_token_us each, steps in order) and,
// whenever it is not streaming, takes new requests in, one at a time and in the order they were sent
// (EngineProfile::admission_server_us each). Streaming goes first because the engine's output handler runs as soon as
// a step's outputs arrive, while a new request waits for the loop to reach it; so a server that streams all the time
// admits nothing, and a closed loop then runs fewer requests in the engine than it has clients. Times in
// microseconds; the same inputs give the same answers bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <deque>
#include <utility>

namespace mfusim::simulate {

class ApiServer {
  public:
    ApiServer(double chunk_us, double request_us) : chunk_us_(chunk_us), request_us_(request_us) {}

    // Whether requests queue for the server at all (admission_server_us > 0).
    bool takes_requests_in() const { return request_us_ > 0; }

    // Streams `chunks` chunks of a step that ended at `t_end`, after the chunks before them: when they reach the
    // clients.
    double stream(double t_end, std::size_t chunks) {
        const double start = std::max(t_end, free_);
        free_ = start + chunk_us_ * static_cast<double>(chunks);
        if (request_us_ > 0 && free_ > start) spans_.emplace_back(start, free_);
        return free_;
    }

    // Request `request`, sent at `sent_us`, joins the intake (sent times in order).
    void arrive(std::size_t request, double sent_us) { intake_.emplace_back(request, sent_us); }

    // Takes requests in up to `until_us`, the streaming known so far left out: `taken_in(request, at_us)` for each.
    template <class TakenIn>
    void serve_until(double until_us, TakenIn&& taken_in) {
        const std::size_t served = serve(cursor_, until_us, [&](std::size_t request, double at) {
            taken_in(request, at);
            return true;
        });
        intake_.erase(intake_.begin(), intake_.begin() + static_cast<std::ptrdiff_t>(served));
        // With nobody waiting the server idles up to `until`: a request sent later starts then. The streaming spans
        // behind the clock are dropped, so they stay as few as the steps in flight (memory bounded by the requests).
        if (intake_.empty()) cursor_.clock = std::max(cursor_.clock, until_us);
        while (!spans_.empty() && spans_.front().second <= cursor_.clock) spans_.pop_front();
    }

    // When the next request is taken in if the server streams nothing beyond what it has been given; INFINITY when
    // none waits. The simulator runs no step before it unless another event comes first, so it is exact then.
    double next_taken_in() const {
        Cursor c = cursor_;
        double at = INFINITY;
        serve(c, INFINITY, [&](std::size_t, double t) {
            at = t;
            return false;
        });
        return at;
    }

    // The streaming spans the server still holds for its intake (tests: they do not pile up).
    std::size_t spans_held() const { return spans_.size(); }

  private:
    // How far in time the intake has been served, and the head's serial work still to do.
    struct Cursor {
        double clock = 0, left = 0;
        bool started = false;
    };

    // Serves the intake from `c` up to `until` outside the streaming spans; `taken_in(request, at)` returns whether to
    // go on. Returns how many requests were taken in.
    template <class TakenIn>
    std::size_t serve(Cursor& c, double until, TakenIn&& taken_in) const {
        std::size_t served = 0, span = 0;
        while (served < intake_.size()) {
            const auto [request, sent] = intake_[served];
            if (!c.started) {
                c.clock = std::max(c.clock, sent);
                c.left = request_us_;
                c.started = true;
            }
            while (span < spans_.size() && spans_[span].second <= c.clock) ++span;
            if (span < spans_.size() && spans_[span].first <= c.clock) {  // streaming: the intake waits
                if (c.clock >= until) break;
                c.clock = std::min(spans_[span].second, until);
                continue;
            }
            const double idle_until = std::min(until, span < spans_.size() ? spans_[span].first : INFINITY);
            // Done when the rest of its work fits before the server streams again or `until` (a request whose work is
            // too small to move the clock is done where it stands): the time computed once, as next_taken_in's, so
            // serving up to that time takes the request in (no rounding between them, and the simulator's clock
            // never waits on a request that serving up to its time would not take in).
            const double done = c.clock + c.left;
            if (done > idle_until) {
                if (c.clock >= until) break;
                c.left -= idle_until - c.clock;
                c.clock = idle_until;
                continue;
            }
            c.clock = done;
            c.left = 0;
            c.started = false;
            ++served;
            if (!taken_in(request, c.clock)) break;
        }
        return served;
    }

    double chunk_us_, request_us_;
    double free_ = 0;                                    // when the streaming given so far is done
    std::deque<std::pair<double, double>> spans_;        // the streaming [start, end) not yet behind the intake
    std::deque<std::pair<std::size_t, double>> intake_;  // (request, sent), in order
    Cursor cursor_;
};

}  // namespace mfusim::simulate
