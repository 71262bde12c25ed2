// Many threads on one loaded handle (DESIGN.md section 4: a const mfusim_estimator* is safe to call from many
// threads at once). Each estimator, one per mode, answers a fixed workload once on one thread; then several threads
// answer the same workload concurrently, each in its own order, repeatedly, and every answer must be bit-identical
// to the single-threaded one. Built and run under ThreadSanitizer by ci/sanitizers.sh, which also reports any data
// race the calls have; under a plain build it checks determinism across threads.
#include <gtest/gtest.h>
#include <mfusim.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Step {
    std::vector<mfusim_request> requests;
};

// A fixed, varied workload: decodes at many contexts, prefill chunks over cached prefixes, mixed steps, empty steps.
std::vector<Step> workload(std::size_t n) {
    std::mt19937_64 rng(20240611);
    std::vector<Step> steps(n);
    for (Step& s : steps) {
        std::size_t decodes = rng() % 64, prefills = rng() % 3;
        for (std::size_t i = 0; i < decodes; ++i) s.requests.push_back({1, static_cast<int64_t>(rng() % 32768), 0, 0});
        for (std::size_t i = 0; i < prefills; ++i) {
            uint32_t flags = rng() % 2 ? MFUSIM_REQUEST_NO_OUTPUT : 0u;
            s.requests.push_back(
                {static_cast<int64_t>(1 + rng() % 4096), static_cast<int64_t>(rng() % 8192), flags, 0});
        }
    }
    return steps;
}

struct Answers {
    std::vector<double> times;                           // mfusim_step_time per step
    std::vector<mfusim_step_result> details;             // mfusim_step_detail per step
    std::vector<double> batch;                           // mfusim_step_time_batch over all steps
    std::vector<std::pair<std::string, double>> report;  // mfusim_estimate of a fixed scenario
    std::string warnings;                                // mfusim_estimator_load_warnings
    std::string failure;                                 // first failed call, if any
};

// Answers the workload, visiting the steps from `start` (so that threads interleave differently).
Answers answer(const mfusim_estimator* estimator, const std::vector<Step>& steps, std::size_t start) {
    Answers a;
    const std::size_t n = steps.size();
    a.times.assign(n, 0);
    a.details.resize(n);
    mfusim_error error;
    for (std::size_t k = 0; k < n && a.failure.empty(); ++k) {
        const std::size_t i = (start + k) % n;
        const Step& s = steps[i];
        if (mfusim_step_time(estimator, s.requests.data(), s.requests.size(), &a.times[i], &error) != MFUSIM_OK) {
            a.failure = std::string("step_time: ") + error.message;
        }
        mfusim_step_result_init(&a.details[i], sizeof(a.details[i]), NULL);
        if (mfusim_step_detail(estimator, s.requests.data(), s.requests.size(), &a.details[i], &error) != MFUSIM_OK) {
            a.failure = std::string("step_detail: ") + error.message;
        }
    }
    std::vector<mfusim_request> all;
    std::vector<int64_t> sizes;
    for (const Step& s : steps) {
        all.insert(all.end(), s.requests.begin(), s.requests.end());
        sizes.push_back(static_cast<int64_t>(s.requests.size()));
    }
    a.batch.assign(n, 0);
    if (mfusim_step_time_batch(estimator, all.data(), all.size(), sizes.data(), n, a.batch.data(), &error) !=
        MFUSIM_OK) {
        a.failure = std::string("step_time_batch: ") + error.message;
    }
    mfusim_scenario scenario;
    mfusim_scenario_init(&scenario, sizeof(scenario), NULL);
    scenario.input_len = 2048;
    scenario.output_len = 256;
    scenario.decode_batch = 32;
    mfusim_report* report = nullptr;
    if (mfusim_estimate(estimator, &scenario, &report, &error) != MFUSIM_OK) {
        a.failure = std::string("estimate: ") + error.message;
    } else {
        for (std::size_t i = 0; i < mfusim_report_count(report); ++i) {
            a.report.emplace_back(mfusim_report_name(report, i), mfusim_report_value_at(report, i));
        }
        double first = 0;
        if (a.report.empty() ||
            mfusim_report_value(report, a.report.front().first.c_str(), &first, nullptr) != MFUSIM_OK ||
            first != a.report.front().second) {
            a.failure = "report lookup by name";
        }
        mfusim_report_free(report);
    }
    a.warnings = mfusim_estimator_load_warnings(estimator);
    // The static-storage queries, too.
    for (std::size_t i = 0; i < mfusim_catalogue_model_count(); ++i) a.warnings += mfusim_catalogue_model_name(i)[0];
    a.warnings += mfusim_status_string(MFUSIM_ERR_PARSE);
    a.warnings += mfusim_op_name(MFUSIM_OP_FFN);
    return a;
}

// Bit-identical, doubles included (memcmp: -0.0 vs 0.0 and NaN payloads count).
bool same(const Answers& x, const Answers& y, std::string& why) {
    auto bits = [](const auto& u, const auto& v) {
        return u.size() == v.size() && (u.empty() || std::memcmp(u.data(), v.data(), u.size() * sizeof u[0]) == 0);
    };
    if (!bits(x.times, y.times))
        why = "step_time";
    else if (!bits(x.details, y.details))
        why = "step_detail";
    else if (!bits(x.batch, y.batch))
        why = "step_time_batch";
    else if (x.report.size() != y.report.size())
        why = "estimate (count)";
    else if (x.warnings != y.warnings)
        why = "load warnings / names";
    for (std::size_t i = 0; why.empty() && i < x.report.size(); ++i) {
        if (x.report[i].first != y.report[i].first ||
            std::memcmp(&x.report[i].second, &y.report[i].second, sizeof(double)) != 0) {
            why = "estimate: " + x.report[i].first;
        }
    }
    return why.empty();
}

mfusim_estimator* open(const char* model, const char* gpu, mfusim_mode mode, const char* tables, int32_t tp) {
    mfusim_options options;
    mfusim_options_init(&options, sizeof(options), NULL);
    options.model = model;
    options.gpu = gpu;
    options.mode = mode;
    options.bench_data_dir = tables;
    options.tensor_parallel = tp;
    options.world_size = tp;
    mfusim_estimator* estimator = nullptr;
    mfusim_error error;
    EXPECT_EQ(mfusim_estimator_create(&options, &estimator, &error), MFUSIM_OK) << error.message;
    return estimator;
}

struct Case {
    const char* name;
    const char* model;
    const char* gpu;
    mfusim_mode mode;
    const char* tables;
    int32_t tp;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.name;
}

class OneHandleManyThreads : public ::testing::TestWithParam<Case> {};

TEST_P(OneHandleManyThreads, BitIdenticalToOneThread) {
    const Case& c = GetParam();
    mfusim_estimator* estimator = open(c.model, c.gpu, c.mode, c.tables, c.tp);
    ASSERT_NE(estimator, nullptr);
    const std::vector<Step> steps = workload(300);
    const Answers reference = answer(estimator, steps, 0);
    ASSERT_EQ(reference.failure, "");

    constexpr int kThreads = 8, kRounds = 4;
    std::vector<std::string> problems(kThreads);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();  // start together
            for (int round = 0; round < kRounds && problems[t].empty(); ++round) {
                Answers mine = answer(estimator, steps, static_cast<std::size_t>(t * 37 + round * 11) % steps.size());
                std::string why;
                if (!mine.failure.empty()) {
                    problems[t] = "a call failed: " + mine.failure;
                } else if (!same(reference, mine, why)) {
                    problems[t] = "round " + std::to_string(round) + ": " + why + " differs from one thread's";
                }
            }
        });
    }
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(problems[t], "") << "thread " << t;
    mfusim_estimator_free(estimator);
}

INSTANTIATE_TEST_SUITE_P(
    BothModes, OneHandleManyThreads,
    ::testing::Values(Case{"roofline_dense_tables", "qwen3-8b", "H100", MFUSIM_MODE_ROOFLINE,
                           MFUSIM_FIXTURES_DIR "/bench_data", 1},
                      Case{"roofline_moe_tp2", "qwen3-30b-a3b", "H100", MFUSIM_MODE_ROOFLINE, nullptr, 2},
                      Case{"roofline_mla", "deepseek-v2-lite", "H100", MFUSIM_MODE_ROOFLINE, nullptr, 1},
                      Case{"roofline_hybrid", "qwen3-next-80b-a3b", "H100", MFUSIM_MODE_ROOFLINE, nullptr, 1},
                      Case{"infersim_dense", "qwen3-8b", "H20", MFUSIM_MODE_INFERSIM, nullptr, 1},
                      Case{"infersim_moe", "qwen3-30b-a3b", "H20", MFUSIM_MODE_INFERSIM, nullptr, 1}),
    [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.name); });

// Creating and freeing estimators on many threads at once (each its own handle) is safe too.
TEST(ManyHandles, CreateStepFreeConcurrently) {
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 3; ++i) {
                mfusim_options options;
                mfusim_options_init(&options, sizeof(options), NULL);
                options.model = (t + i) % 2 ? "qwen3-8b" : "qwen3-30b-a3b";
                options.gpu = t % 2 ? "H20" : "H100";
                options.mode = t % 2 ? MFUSIM_MODE_INFERSIM : MFUSIM_MODE_ROOFLINE;
                mfusim_estimator* e = nullptr;
                mfusim_error error;
                double us = 0;
                const mfusim_request r[] = {{512, 0, 0, 0}, {1, 4096, 0, 0}};
                if (mfusim_estimator_create(&options, &e, &error) != MFUSIM_OK ||
                    mfusim_step_time(e, r, 2, &us, &error) != MFUSIM_OK || !(us > 0)) {
                    failures.fetch_add(1);
                }
                mfusim_estimator_free(e);
            }
        });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
}

}  // namespace
