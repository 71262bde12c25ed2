#include "serving/step_mix.hpp"

#include <algorithm>
#include <cmath>

namespace mfusim::serving {

double step_us(const roofline::RooflineModel& model, double decodes, int64_t decode_context, double chunks,
               int64_t chunk_tokens, int64_t chunk_context, double starts, int64_t busy_replicas, double peer_chunks) {
    const double p0 = peer_chunks >= 0 ? std::floor(peer_chunks) : -1, fp = peer_chunks >= 0 ? peer_chunks - p0 : 0;
    auto at = [&](int64_t d, int64_t c, int64_t extra_peers = 0) {
        roofline::StepMix mix;
        mix.decodes = d;
        mix.decode_context = decode_context;
        mix.chunks = c;
        mix.chunk_tokens = chunk_tokens;
        mix.chunk_context = chunk_context;
        mix.busy_replicas = busy_replicas;
        mix.peer_chunks = p0 >= 0 ? static_cast<int64_t>(p0) + extra_peers : -1;
        return model.mix_time_us(mix);
    };
    const double d0 = std::floor(decodes), c0 = std::floor(chunks);
    const double fd = decodes - d0, fc = chunks - c0;
    const auto di = static_cast<int64_t>(d0), ci = static_cast<int64_t>(c0);
    double low = at(di, ci), t = low;
    if (fd > 0) t += fd * (at(di + 1, ci) - low);
    if (fc > 0) t += fc * (at(di, ci + 1) - low);
    if (fp > 0) t += fp * (at(di, ci, 1) - low);
    return t + starts * model.encoder_us_per_request();
}

Chunk chunk_of(double prompt, double room) {
    Chunk c;
    room = std::max(1.0, std::min(prompt, room));
    c.steps = std::ceil(prompt / room);
    c.tokens = static_cast<int64_t>(std::ceil(prompt / c.steps));
    c.context = static_cast<int64_t>(std::floor((c.steps - 1) / 2 * static_cast<double>(c.tokens)));
    return c;
}

}  // namespace mfusim::serving
