// Audio per request as a deployment-wide workload option (docs/architectures.md, "Audio encoders"): every request
// brings one clip of `seconds_per_request` seconds, which the model's audio tower encodes when the request's first
// prefill chunk is scheduled, as images are (query/images.hpp). The prompt lengths a workload gives count the
// audio tokens among their tokens.
#pragma once

namespace mfusim::query {

struct Audio {
    double seconds_per_request = 0;  // 0: no audio

    bool active() const { return seconds_per_request > 0; }
    bool operator==(const Audio&) const = default;
};

// Error(invalid_argument) naming the field: seconds outside [0, 3600] or not finite.
void validate(const Audio& audio);

}  // namespace mfusim::query
