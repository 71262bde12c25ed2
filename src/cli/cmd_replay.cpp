// mfusim replay: times of a JSONL stream of steps, at full speed.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "cli/commands.hpp"
#include "cli/estimator_flags.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/step_stream.hpp"
#include "common/error.hpp"

namespace mfusim::cli {

namespace {

CommandSpec replay_spec() {
    CommandSpec spec{"replay",
                     "mfusim replay FILE.jsonl [options]",
                     "Times every step of a JSONL file, one step per line:\n"
                     "  {\"requests\": [{\"new_tokens\": n, \"context\": c}, ...]}   or   [[n, c], [n, c], ...]\n"
                     "and writes one time per step (CSV: step,line,requests,total_us; or JSONL). Shows progress on a\n"
                     "terminal and the run's throughput at the end (on stderr).",
                     estimator_flags(),
                     {"FILE.jsonl"}};
    spec.flags.push_back({"--format", "csv|jsonl", "output format [csv]"});
    spec.flags.push_back({"--out", "FILE", "write the times here instead of stdout"});
    spec.flags.push_back({"--quiet", "", "no progress bar and no summary"});
    return spec;
}

// The batch call names a failing step by its index in the chunk ("step 3"), which is neither the step's number in
// the file nor its line (blank lines and earlier chunks shift both): the step is found again and named by its line.
[[noreturn]] void fail_at_line(const engine::Estimator& estimator, const StepChunk& chunk, const std::string& path,
                               const Error& batch_error) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < chunk.step_sizes.size(); ++i) {
        const std::size_t n = static_cast<std::size_t>(chunk.step_sizes[i]);
        try {
            estimator.step_time_us(chunk.requests.data() + at, n);
        } catch (const Error& e) {
            throw Error(e.status(), located(path, chunk.line_numbers[i], 0, e.what()));
        }
        at += n;
    }
    throw Error(batch_error.status(), path + ": " + batch_error.what());
}

}  // namespace

int run_replay(const Args& raw) {
    static const CommandSpec spec = replay_spec();
    auto parsed = parse_command(spec, raw);
    if (!parsed) return 0;
    const ParsedArgs& args = *parsed;
    std::string format = args.text_or("--format", "csv");
    if (format != "csv" && format != "jsonl") throw UsageError("--format must be csv or jsonl, got '" + format + "'");
    const std::string out_path = args.text_or("--out", "-");
    check_output_path(out_path, "--out");
    engine::Options options = estimator_options(args);
    engine::Estimator estimator(options);
    StepStream stream(args.positional()[0]);

    // Into a temporary file renamed over --out at the end: a run that fails leaves an existing file as it was.
    OutputFile file(out_path);
    std::FILE* out = file.stream();
    const std::string& out_name = file.name();
    bool quiet = args.flag("--quiet");
    Progress progress(!quiet && isatty(STDERR_FILENO));
    if (format == "csv") std::fprintf(out, "step,line,requests,total_us\n");

    using clock = std::chrono::steady_clock;
    clock::duration parse_time{}, model_time{};
    std::size_t steps = 0, requests = 0;
    StepChunk chunk;
    std::vector<double> times;
    constexpr std::size_t kChunkSteps = 4096;
    while (true) {
        chunk.clear();
        auto t0 = clock::now();
        bool more = stream.next(chunk, kChunkSteps);
        auto t1 = clock::now();
        if (chunk.step_sizes.empty()) {
            if (!more) break;
            continue;
        }
        times.resize(chunk.step_sizes.size());
        try {
            estimator.step_time_batch(chunk.requests.data(), chunk.requests.size(), chunk.step_sizes.data(),
                                      chunk.step_sizes.size(), times.data());
        } catch (const Error& e) {
            fail_at_line(estimator, chunk, args.positional()[0], e);
        }
        auto t2 = clock::now();
        parse_time += t1 - t0;
        model_time += t2 - t1;
        for (std::size_t i = 0; i < times.size(); ++i) {
            if (format == "csv") {
                std::fprintf(out, "%zu,%zu,%lld,%.17g\n", steps + i, chunk.line_numbers[i],
                             static_cast<long long>(chunk.step_sizes[i]), times[i]);
            } else {
                std::fprintf(out, "{\"step\":%zu,\"line\":%zu,\"requests\":%lld,\"total_us\":%.17g}\n", steps + i,
                             chunk.line_numbers[i], static_cast<long long>(chunk.step_sizes[i]), times[i]);
            }
        }
        // Stop at the first lost write rather than time the rest of the stream for nothing.
        if (std::ferror(out)) finish_output(out, out_name);
        steps += times.size();
        requests += chunk.requests.size();
        progress.update(stream.bytes_read(), stream.bytes_total());
        if (!more) break;
    }
    progress.finish();
    file.commit();
    if (!quiet) {
        double parse_s = std::chrono::duration<double>(parse_time).count();
        double model_s = std::chrono::duration<double>(model_time).count();
        double total_s = parse_s + model_s;
        std::fprintf(stderr,
                     "replayed %zu steps (%zu requests) in %.3f s: %.0f steps/s; parsing %.3f s (%.1f MB/s), model "
                     "%.3f s (%.0f ns/step)\n",
                     steps, requests, total_s, total_s > 0 ? static_cast<double>(steps) / total_s : 0.0, parse_s,
                     parse_s > 0 ? static_cast<double>(stream.bytes_total()) / 1e6 / parse_s : 0.0, model_s,
                     steps > 0 ? model_s * 1e9 / static_cast<double>(steps) : 0.0);
    }
    return 0;
}

}  // namespace mfusim::cli
