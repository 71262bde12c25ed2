/* Per-call cost of the C API itself on the shared fixtures (bindings/README.md): the baseline every binding is
 * compared with by bindings/bench_all.sh. Prints "c <case> <ns>" lines, each the median of repeated timed runs.
 * Usage: mfusim_bench_c [--quick] */
#define _POSIX_C_SOURCE 199309L
#include <mfusim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static void fail(const char* what, const mfusim_error* error) {
    fprintf(stderr, "bench_c: %s: %s\n", what, error->message);
    exit(1);
}

/* 4 prefill chunks of 512 over 0/1024/2048/3072 cached tokens (even ones not their prompt's last), then decodes
 * over 256 + (i*97 mod 8192) tokens. */
static void mixed_step(mfusim_request* r, size_t n) {
    size_t i;
    for (i = 0; i < n; ++i) {
        memset(&r[i], 0, sizeof r[i]);
        if (i < 4) {
            r[i].new_tokens = 512;
            r[i].context = (int64_t)(1024 * i);
            r[i].flags = i % 2 == 0 ? MFUSIM_REQUEST_NO_OUTPUT : 0;
        } else {
            r[i].new_tokens = 1;
            r[i].context = (int64_t)(256 + (i * 97) % 8192);
        }
    }
}

#define RUNS_MAX 9

static double median_single(const mfusim_estimator* e, const mfusim_request* r, size_t n, int runs, long iters) {
    double samples[RUNS_MAX];
    mfusim_error error;
    double us = 0;
    long i;
    int k;
    for (i = 0; i < iters / 10 + 1; ++i) mfusim_step_time(e, r, n, &us, NULL);
    for (k = 0; k < runs; ++k) {
        double t = now_ns();
        for (i = 0; i < iters; ++i) {
            /* The error struct is passed on every call, as the bindings do: a failure's message comes from it. */
            if (mfusim_step_time(e, r, n, &us, &error) != MFUSIM_OK) fail("step_time", &error);
            sink += us;
        }
        samples[k] = (now_ns() - t) / (double)iters;
    }
    qsort(samples, (size_t)runs, sizeof samples[0], cmp_double);
    return samples[runs / 2];
}

static double median_batch(const mfusim_estimator* e, const mfusim_request* step, size_t n, size_t n_steps, int runs,
                           long iters) {
    double samples[RUNS_MAX];
    mfusim_request* all = malloc(n * n_steps * sizeof *all + 1);
    int64_t* sizes = malloc(n_steps * sizeof *sizes);
    double* out = malloc(n_steps * sizeof *out);
    mfusim_error error;
    size_t s;
    long i;
    int k;
    if (!all || !sizes || !out) return -1;
    for (s = 0; s < n_steps; ++s) {
        memcpy(all + s * n, step, n * sizeof *step);
        sizes[s] = (int64_t)n;
    }
    for (k = 0; k < runs; ++k) {
        double t = now_ns();
        for (i = 0; i < iters; ++i) {
            if (mfusim_step_time_batch(e, all, n * n_steps, sizes, n_steps, out, &error) != MFUSIM_OK) {
                fail("batch", &error);
            }
            sink += out[0];
        }
        samples[k] = (now_ns() - t) / (double)iters / (double)n_steps;
    }
    free(all);
    free(sizes);
    free(out);
    qsort(samples, (size_t)runs, sizeof samples[0], cmp_double);
    return samples[runs / 2];
}

int main(int argc, char** argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int runs = quick ? 3 : 9;
    long scale = quick ? 1 : 10;
    mfusim_options options;
    mfusim_error error;
    mfusim_estimator* e = NULL;
    mfusim_request one = {1, 2048, 0, 0};
    mfusim_request mixed[256];

    if (mfusim_options_init(&options, sizeof(options), &error) != MFUSIM_OK) fail("options_init", &error);
    options.model = "llama-3.1-8b-instruct";
    options.gpu = "H100";
    if (mfusim_estimator_create(&options, &e, &error) != MFUSIM_OK) fail("create", &error);
    mixed_step(mixed, 256);

    printf("c single_1 %.1f\n", median_single(e, &one, 1, runs, 20000 * scale));
    printf("c single_256 %.1f\n", median_single(e, mixed, 256, runs, 2000 * scale));
    printf("c batch_1x1000_per_step %.2f\n", median_batch(e, &one, 1, 1000, runs, 20 * scale));
    printf("c batch_256x64_per_step %.1f\n", median_batch(e, mixed, 256, 64, runs, 30 * scale));
    mfusim_estimator_free(e);
    return 0;
}
