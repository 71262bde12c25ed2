// Fuzz target: a JSONL stream of steps (mfusim replay's input), parsed from memory in small chunks; every chunk
// that parses is then timed in one batch call on a roofline and a compat estimator, as `mfusim replay` does.
#include <cmath>
#include <vector>

#include "cli/step_stream.hpp"
#include "engine/estimator.hpp"
#include "fuzz_support.hpp"

namespace {

const mfusim::engine::Estimator& estimator(mfusim::engine::Mode mode) {
    auto make = [](mfusim::engine::Mode m) {
        mfusim::engine::Options options;
        options.model = "qwen3-8b";
        options.gpu = m == mfusim::engine::Mode::infersim ? "H20" : "H100";
        options.mode = m;
        return mfusim::engine::Estimator(options);
    };
    static const mfusim::engine::Estimator roofline = make(mfusim::engine::Mode::roofline);
    static const mfusim::engine::Estimator compat = make(mfusim::engine::Mode::infersim);
    return mode == mfusim::engine::Mode::infersim ? compat : roofline;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    mfusim::fuzz::handled([&] {
        mfusim::cli::StepStream stream("fuzz.jsonl", std::string_view(reinterpret_cast<const char*>(data), size));
        mfusim::cli::StepChunk chunk;
        std::vector<double> times;
        std::size_t total = 0;
        while (stream.next(chunk, 3)) {
            std::size_t sum = 0;
            for (int64_t s : chunk.step_sizes) sum += static_cast<std::size_t>(s);
            mfusim::fuzz::require(sum == chunk.requests.size(), "step sizes add up to the requests parsed");
            mfusim::fuzz::require(chunk.line_numbers.size() == chunk.step_sizes.size(), "a line number per step");
            total += chunk.step_sizes.size();
            for (auto mode : {mfusim::engine::Mode::roofline, mfusim::engine::Mode::infersim}) {
                times.assign(chunk.step_sizes.size(), -1.0);
                mfusim::fuzz::handled([&] {
                    estimator(mode).step_time_batch(chunk.requests.data(), chunk.requests.size(),
                                                    chunk.step_sizes.data(), chunk.step_sizes.size(), times.data());
                    for (double t : times) mfusim::fuzz::require(std::isfinite(t) && t >= 0, "batch times finite");
                });
            }
            chunk.clear();
        }
        mfusim::fuzz::require(total <= size, "no more steps than bytes");
    });
    return 0;
}
