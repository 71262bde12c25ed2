#include "config/encoder_tower.hpp"

namespace mfusim::config {

double encoder_params(const EncoderTower& v) {
    if (!v.present || !v.unsupported.empty()) return 0;
    const auto h = static_cast<double>(v.hidden), inter = static_cast<double>(v.intermediate);
    double front = 0;
    for (const FrontEndGemm& g : v.front_end)
        front += static_cast<double>(g.k) * static_cast<double>(g.n > 0 ? g.n : v.hidden);
    // q, k, v (h -> 3 x width) and the output (width -> h), then the MLP.
    const auto width = static_cast<double>(attention_width(v));
    const double block = 4.0 * h * width + (v.gated_mlp ? 3.0 : 2.0) * h * inter;
    double downsample = 0, in = h;
    for (const DownsampleConv& c : v.downsample) {
        downsample += static_cast<double>(c.kernel * c.kernel) * in * static_cast<double>(c.out);
        in = static_cast<double>(c.out);
    }
    const auto merger_in = static_cast<double>(v.merger_in), mh = static_cast<double>(v.merger_hidden);
    const auto out = static_cast<double>(v.out_hidden);
    const double merger = v.merger_hidden > 0 ? merger_in * mh + mh * out : merger_in * out;
    return front + static_cast<double>(v.layers) * block + downsample + static_cast<double>(v.mergers) * merger +
           static_cast<double>(v.position_embeddings) * h;
}

}  // namespace mfusim::config
