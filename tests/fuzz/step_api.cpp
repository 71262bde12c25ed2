// Fuzz target: the C API's hot path, mfusim_step_time / mfusim_step_detail / mfusim_step_time_batch, with fuzzed
// request arrays (any int64 tokens and contexts, any flag and reserved bits, NULL arrays and outputs, negative and
// oversized step sizes) on fixed estimators of both modes. Properties checked on every call:
//  - the status is a known one and never MFUSIM_ERR_INTERNAL; error.status equals it;
//  - the message is NUL-terminated inside the struct, empty on success and not on failure;
//  - out-pointers are untouched on failure;
//  - on success every time is finite and not negative, and step_detail's total is step_time's, bit for bit.
#include <mfusim.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using mfusim::fuzz::require;

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
    if (mfusim_estimator_create(&options, &estimator, &error) != MFUSIM_OK) {
        std::fprintf(stderr, "fuzz setup: cannot create the %s estimator: %s\n", model, error.message);
        std::abort();
    }
    return estimator;
}

// Created once, freed at exit (LeakSanitizer's final check runs after static destructors).
struct Estimators {
    std::vector<mfusim_estimator*> all = {
        open("qwen3-8b", "H100", MFUSIM_MODE_ROOFLINE, MFUSIM_FIXTURES_DIR "/bench_data", 1),
        open("qwen3-30b-a3b", "H100", MFUSIM_MODE_ROOFLINE, nullptr, 2),
        open("deepseek-v2-lite", "H100", MFUSIM_MODE_ROOFLINE, nullptr, 1),
        open("qwen3-next-80b-a3b", "H100", MFUSIM_MODE_ROOFLINE, nullptr, 1),
        open("qwen3-8b", "H20", MFUSIM_MODE_INFERSIM, nullptr, 1),
        open("qwen3-30b-a3b", "H20", MFUSIM_MODE_INFERSIM, nullptr, 1),
    };
    ~Estimators() {
        for (mfusim_estimator* e : all) mfusim_estimator_free(e);
    }
};

const std::vector<mfusim_estimator*>& estimators() {
    static const Estimators estimators;
    return estimators.all;
}

mfusim_request next_request(mfusim::fuzz::Bytes& in) {
    const uint8_t tag = in.u8();
    mfusim_request r{};
    switch (tag % 4) {
        case 0:  // a decode
            r.new_tokens = 1;
            r.context = in.u32() % (1u << 20);
            break;
        case 1:  // a prefill chunk over a cached prefix
            r.new_tokens = in.u32() % 65536;
            r.context = in.u32() % 65536;
            break;
        case 2:  // anything at all
            r.new_tokens = static_cast<int64_t>(in.u64());
            r.context = static_cast<int64_t>(in.u64());
            break;
        default:  // near the 2^40 bound
            r.new_tokens = (int64_t{1} << 40) - in.u8();
            r.context = (tag & 0x80) ? (int64_t{1} << 40) - in.u8() : 0;
            break;
    }
    r.flags = (tag & 0x10) ? in.u32() : ((tag & 0x20) ? MFUSIM_REQUEST_NO_OUTPUT : 0u);
    r.reserved = (tag & 0x40) ? in.u32() : 0u;
    return r;
}

void check_error(mfusim_status status, const mfusim_error& error) {
    require(status >= MFUSIM_OK && status <= MFUSIM_ERR_NOT_FOUND, "a known status");
    require(status != MFUSIM_ERR_INTERNAL, "never an internal error");
    require(error.status == status, "error.status is the returned status");
    require(std::memchr(error.message, '\0', sizeof error.message) != nullptr, "message NUL-terminated");
    require((status == MFUSIM_OK) == (error.message[0] == '\0'), "a message exactly on failure");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    mfusim::fuzz::Bytes in(data, size);
    const auto& all = estimators();
    const mfusim_estimator* estimator = all[in.u8() % all.size()];
    const uint8_t call = in.u8();
    const bool null_requests = (call & 0x10) != 0, null_out = (call & 0x20) != 0, null_estimator = (call & 0x40);
    const uint8_t n_steps = in.u8() % 6;
    std::vector<int64_t> step_sizes;
    for (uint8_t i = 0; i < n_steps; ++i) {
        const uint8_t b = in.u8();
        step_sizes.push_back(b == 0xFF ? static_cast<int64_t>(in.u64()) : static_cast<int8_t>(b));
    }
    std::vector<mfusim_request> requests;
    while (!in.empty() && requests.size() < 4096) requests.push_back(next_request(in));
    const mfusim_request* array = null_requests ? nullptr : requests.data();
    if (null_estimator) estimator = nullptr;

    mfusim_error error;
    std::memset(&error, 0x5A, sizeof error);  // garbage in: the library must write a full message
    const double sentinel = -12345.0;
    switch (call % 3) {
        case 0: {
            double us = sentinel;
            mfusim_status status =
                mfusim_step_time(estimator, array, requests.size(), null_out ? nullptr : &us, &error);
            check_error(status, error);
            if (status == MFUSIM_OK) {
                require(std::isfinite(us) && us >= 0, "step time finite and not negative");
                mfusim_step_result detail;
                mfusim_step_result_init(&detail, sizeof(detail), NULL);
                require(mfusim_step_detail(estimator, array, requests.size(), &detail, nullptr) == MFUSIM_OK,
                        "step_detail succeeds where step_time does");
                require(detail.total_us == us, "step_detail's total is step_time's");
            } else {
                require(us == sentinel, "out_us untouched on failure");
            }
            break;
        }
        case 1: {
            mfusim_step_result result;
            mfusim_step_result_init(&result, sizeof(result), NULL);
            if (call & 0x80) result.struct_size = in.u8();  // an unknown struct size
            mfusim_step_result before = result;
            mfusim_status status =
                mfusim_step_detail(estimator, array, requests.size(), null_out ? nullptr : &result, &error);
            check_error(status, error);
            if (status == MFUSIM_OK) {
                require(std::isfinite(result.total_us) && result.total_us >= 0, "detail total finite");
                require(result.n_ops == MFUSIM_OP_COUNT, "n_ops is MFUSIM_OP_COUNT");
                for (const mfusim_op_detail& op : result.ops) {
                    require(std::isfinite(op.time_us) && op.time_us >= 0, "op time finite and not negative");
                    require(std::memchr(op.table, '\0', sizeof op.table) != nullptr, "op table NUL-terminated");
                }
            } else {
                require(std::memcmp(&before, &result, sizeof result) == 0, "result untouched on failure");
            }
            break;
        }
        default: {
            // n_requests is the array's true length or less (the library cannot know a longer lie); the step sizes
            // are fuzzed freely and must be checked against it.
            const std::size_t n_requests = (call & 0x80) ? requests.size() / 2 : requests.size();
            std::vector<double> out(step_sizes.size() + 1, sentinel);
            mfusim_status status = mfusim_step_time_batch(estimator, array, n_requests, step_sizes.data(),
                                                          step_sizes.size(), null_out ? nullptr : out.data(), &error);
            check_error(status, error);
            for (std::size_t i = 0; i < out.size(); ++i) {
                if (status == MFUSIM_OK && i < step_sizes.size() && !null_out) {
                    require(std::isfinite(out[i]) && out[i] >= 0, "batch time finite and not negative");
                } else {
                    require(out[i] == sentinel, "out_us untouched on failure and past n_steps");
                }
            }
            break;
        }
    }
    return 0;
}
