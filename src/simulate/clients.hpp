// The benchmark's clients, as both simulators send requests (simulator.hpp): each request at its arrival time,
// with at most `max_concurrency` in flight (0: no limit); a slot frees when its client has the last token. With
// every slot taken, the next request goes out at the first completion.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "simulate/workload.hpp"

namespace mfusim::simulate {

class Clients {
  public:
    Clients(const std::vector<TraceRequest>& requests, int64_t max_concurrency)
        : requests_(requests), limit_(max_concurrency) {}

    // When the next request can be sent (us): its arrival, or with every slot taken the first known completion;
    // INFINITY when every request is sent or the next waits for a completion not yet known.
    double next_send_time() const {
        if (next_ >= requests_.size()) return INFINITY;
        const double arrival = arrival_us(next_);
        if (limit_ == 0) return arrival;
        // Completions at or before the arrival free their slots first; otherwise the first later one frees a
        // slot. One pass over the pending completions, without copying them (no allocation while idle).
        int64_t in_flight = in_flight_;
        double later = INFINITY;
        for (double at : completions_.items()) {
            if (at <= arrival) {
                --in_flight;
            } else {
                later = std::min(later, at);
            }
        }
        if (in_flight < limit_) return arrival;
        return later;
    }

    // Sends, in order, every request that can go out at or before `until`: send(index, time sent in us).
    template <class Send>
    void send_until(double until, Send&& send) {
        while (next_ < requests_.size()) {
            const double arrival = arrival_us(next_);
            free_until(arrival);
            double at = arrival;
            if (limit_ > 0 && in_flight_ >= limit_) {
                if (completions_.empty()) return;  // waits for a completion not yet known
                at = completions_.top();
            }
            if (at > until) return;
            if (at > arrival) {  // the one slot it waited for: requests arriving meanwhile still wait theirs
                completions_.pop();
                --in_flight_;
            }
            ++in_flight_;
            send(next_++, at);
        }
    }

    // The client of a request has its last token at `at` (us).
    void completed(double at) { completions_.push(at); }

  private:
    struct Heap : std::priority_queue<double, std::vector<double>, std::greater<>> {
        const std::vector<double>& items() const { return c; }
    };

    double arrival_us(std::size_t i) const { return requests_[i].arrival_s * 1e6; }
    void free_until(double at) {
        while (!completions_.empty() && completions_.top() <= at) {
            completions_.pop();
            --in_flight_;
        }
    }

    const std::vector<TraceRequest>& requests_;
    int64_t limit_;
    std::size_t next_ = 0;   // next request to send
    int64_t in_flight_ = 0;  // sent and not yet completed at the client
    Heap completions_;       // client completion times not yet applied to in_flight_
};

}  // namespace mfusim::simulate
