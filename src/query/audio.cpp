#include "query/audio.hpp"

#include <cmath>
#include <string>

#include "common/error.hpp"
#include "common/numbers.hpp"

namespace mfusim::query {

void validate(const Audio& audio) {
    if (!std::isfinite(audio.seconds_per_request) || audio.seconds_per_request < 0 ||
        audio.seconds_per_request > 3600) {
        throw Error(Status::invalid_argument, "audio_seconds_per_request must be 0 to 3600 seconds, got " +
                                                  shortest_text(audio.seconds_per_request));
    }
}

}  // namespace mfusim::query
