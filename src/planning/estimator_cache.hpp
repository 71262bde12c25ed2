// One estimator per distinct deployment for commands that evaluate many points (sweep, plan): loading a model
// and its tables is the expensive part, a point is cheap. Also gathers every estimator's load warnings, once each.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/estimator.hpp"

namespace mfusim::planning {

class EstimatorCache {
  public:
    // The estimator for these options, built on first use. Rethrows the construction error (an unknown name, a
    // TP that does not divide the heads) on every use, so each point that needs it can report it.
    const engine::Estimator& get(const engine::Options& options);
    // Load warnings of every estimator built so far, one per line, without repeats, in first-seen order.
    const std::vector<std::string>& warnings() const { return warnings_; }

  private:
    struct Entry {
        std::unique_ptr<engine::Estimator> estimator;
        std::string error;
        int status = 0;
    };
    std::map<std::string, Entry> entries_;
    std::vector<std::string> warnings_;
};

}  // namespace mfusim::planning
