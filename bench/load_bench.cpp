// Cost of reading inputs, per megabyte, so that a parser that is no longer linear in its input shows here
// (docs/reliability.md, "cost linear in input size"): a 1 MB model config made of many small objects (the shape
// that made a depth-limiting callback parser rescan its parents) and a 10 MB JSONL step stream. Each reports
// per_MB, the time per MB (10^6 bytes).
#include <benchmark/benchmark.h>

#include <string>

#include "cli/step_stream.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"

namespace {

constexpr double kMB = 1e6;

// A Qwen3-8B-like config padded to `bytes` with an ignored field holding many small objects (about 100,000 in one
// array: nlohmann 3.11's callback parser scanned the whole array after each of them).
std::string big_config(std::size_t bytes) {
    std::string text =
        "{\"architectures\": [\"Qwen3ForCausalLM\"], \"model_type\": \"qwen3\", \"hidden_size\": 4096,"
        " \"intermediate_size\": 12288, \"num_hidden_layers\": 36, \"num_attention_heads\": 32,"
        " \"num_key_value_heads\": 8, \"head_dim\": 128, \"vocab_size\": 151936, \"torch_dtype\": \"bfloat16\","
        " \"tie_word_embeddings\": false, \"padding_notes\": [";
    for (std::size_t i = 0; text.size() < bytes; ++i) {
        text += (i ? "," : "") + std::string("{\"i\": ") + std::to_string(i % 1000) + "}";
    }
    return text + "]}";
}

// JSONL steps of a mix of prefill chunks and decodes, padded to `bytes`.
std::string big_stream(std::size_t bytes) {
    std::string text;
    for (int64_t i = 0; text.size() < bytes; ++i) {
        text += "{\"requests\": [{\"new_tokens\": " + std::to_string(512 + i % 7) + ", \"context\": 0}, [1, " +
                std::to_string(1000 + i % 4096) + "], [1, 8192], [1, 300]]}\n";
    }
    return text;
}

void report(benchmark::State& state, std::size_t bytes) {
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
    // An inverted rate is time per unit: counting MB makes it the time per MB (shown as e.g. "23.4ms").
    state.counters["per_MB"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(bytes) / kMB,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_LoadConfig1MB(benchmark::State& state) {
    const mfusim::config::ModelSource source{"bench config.json", big_config(1000000)};
    for (auto _ : state) {
        auto config = mfusim::config::parse_model_config(source);
        benchmark::DoNotOptimize(config);
    }
    report(state, source.json_text.size());
}
BENCHMARK(BM_LoadConfig1MB)->Unit(benchmark::kMillisecond);

void BM_LoadStepStream10MB(benchmark::State& state) {
    const std::string text = big_stream(10000000);
    for (auto _ : state) {
        mfusim::cli::StepStream stream("bench steps.jsonl", text);
        mfusim::cli::StepChunk chunk;
        std::size_t steps = 0;
        while (true) {
            chunk.clear();
            bool more = stream.next(chunk, 4096);
            steps += chunk.step_sizes.size();
            if (!more) break;
        }
        benchmark::DoNotOptimize(steps);
    }
    report(state, text.size());
}
BENCHMARK(BM_LoadStepStream10MB)->Unit(benchmark::kMillisecond);

}  // namespace
