// Fuzz target: a JSONL stream of steps (mfusim replay's input), parsed from memory in small chunks.
#include "cli/step_stream.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    mfusim::fuzz::handled([&] {
        mfusim::cli::StepStream stream("fuzz.jsonl", std::string_view(reinterpret_cast<const char*>(data), size));
        mfusim::cli::StepChunk chunk;
        std::size_t total = 0;
        while (stream.next(chunk, 3)) {
            std::size_t sum = 0;
            for (int64_t s : chunk.step_sizes) sum += static_cast<std::size_t>(s);
            mfusim::fuzz::require(sum == chunk.requests.size(), "step sizes add up to the requests parsed");
            mfusim::fuzz::require(chunk.line_numbers.size() == chunk.step_sizes.size(), "a line number per step");
            total += chunk.step_sizes.size();
            chunk.clear();
        }
        mfusim::fuzz::require(total <= size, "no more steps than bytes");
    });
    return 0;
}
