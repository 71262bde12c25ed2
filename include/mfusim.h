/*
 * mfusim.h - the public C API of libmfusim.
 *
 * libmfusim predicts how long one step of an LLM serving engine takes on a GPU, from benchmarked kernel
 * efficiency (MFU) tables. This is the only public header. It compiles as C99 and as C++.
 *
 * Conventions, holding for every function below:
 *  - Every fallible function returns an mfusim_status (stable numbers, never renumbered) and takes a trailing
 *    `mfusim_error* error`. The error struct is caller-owned; NULL means "I only want the status". On failure
 *    the message is written there; no thread-local or global state is involved, so Go goroutines, Java threads
 *    and Rust tasks may call from any OS thread.
 *  - Out-pointers are written only on success.
 *  - Extensible structs begin with `struct_size`. The caller states which layout it was compiled with by passing
 *    `sizeof` of its struct to the struct's *_init function (`mfusim_options_init(&o, sizeof o, &err)`), which
 *    writes defaults into exactly that many bytes and sets struct_size. The library accepts only the sizes of
 *    released layouts (the struct as it was in some release, MFUSIM_ERR_STRUCT_SIZE otherwise, with the accepted
 *    sizes in the message), reads an input struct and writes an output struct only up to its struct_size, and
 *    gives fields an older caller does not have their defaults. Bindings pass their mirrored struct's size.
 *  - Structs are never passed by value.
 *  - A `const mfusim_estimator*` is immutable: every function taking one is safe to call from many threads at
 *    once, allocates nothing unless it says so, and takes no lock.
 *  - Free functions accept NULL.
 *  - No C++ exception, abort() or exit() crosses this boundary.
 *
 * Ownership is stated per function: "caller owns" means the caller frees with the named *_free function;
 * "borrowed" means valid as long as the named owner lives.
 */
#ifndef MFUSIM_H
#define MFUSIM_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(MFUSIM_BUILDING_LIBRARY)
#define MFUSIM_API __declspec(dllexport)
#else
#define MFUSIM_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define MFUSIM_API __attribute__((visibility("default")))
#else
#define MFUSIM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------------------- */
/* Version                                                                                                    */
/* ---------------------------------------------------------------------------------------------------------- */

#define MFUSIM_VERSION_MAJOR 1
#define MFUSIM_VERSION_MINOR 0
#define MFUSIM_VERSION_PATCH 0
#define MFUSIM_VERSION_NUMBER (MFUSIM_VERSION_MAJOR * 10000 + MFUSIM_VERSION_MINOR * 100 + MFUSIM_VERSION_PATCH)
#define MFUSIM_VERSION_STRING "1.0.0"

/* The version of the library actually loaded, as MFUSIM_VERSION_NUMBER; compare with the macro you built with. */
MFUSIM_API uint32_t mfusim_version_number(void);
/* "MAJOR.MINOR.PATCH"; static storage. */
MFUSIM_API const char* mfusim_version_string(void);

/* ---------------------------------------------------------------------------------------------------------- */
/* Status codes and errors                                                                                    */
/* ---------------------------------------------------------------------------------------------------------- */

/* Stable numbers: codes are only ever appended. */
typedef int32_t mfusim_status;
enum {
    MFUSIM_OK = 0,
    MFUSIM_ERR_INVALID_ARGUMENT = 1, /* a NULL where a value is needed, a bad option or request value       */
    MFUSIM_ERR_IO = 2,               /* a file or directory is missing or unreadable                          */
    MFUSIM_ERR_PARSE = 3,            /* malformed JSON or CSV: the message names file, line and column        */
    MFUSIM_ERR_CONFIG = 4,           /* well-formed input that describes an impossible model, GPU or table    */
    MFUSIM_ERR_UNKNOWN_NAME = 5,     /* no built-in model, GPU or quantity of that name                       */
    MFUSIM_ERR_UNSUPPORTED = 6,      /* valid input the chosen model cannot evaluate                          */
    MFUSIM_ERR_COMPAT_CRASH = 7,     /* compat mode: InferSim itself raises here; the message says what       */
    MFUSIM_ERR_STRUCT_SIZE = 8,      /* a struct_size the library does not know (newer caller)                */
    MFUSIM_ERR_OUT_OF_MEMORY = 9,
    MFUSIM_ERR_INTERNAL = 10, /* a bug in libmfusim: please report the message                         */
    MFUSIM_ERR_NOT_FOUND = 11 /* a named quantity is absent from this report                           */
};

/* A short, static, English name for a status ("invalid argument"); never NULL, also for unknown codes. */
MFUSIM_API const char* mfusim_status_string(mfusim_status status);

#define MFUSIM_ERROR_MESSAGE_CAPACITY 1024

/* Caller-owned error detail. Fixed layout forever (not extensible). On failure `status` is set and `message`
 * holds a NUL-terminated sentence (truncated to fit) naming the file, line, field or value at fault. */
typedef struct mfusim_error {
    mfusim_status status;
    char message[MFUSIM_ERROR_MESSAGE_CAPACITY];
} mfusim_error;

/* Sets status MFUSIM_OK and an empty message. */
MFUSIM_API void mfusim_error_clear(mfusim_error* error);

/* ---------------------------------------------------------------------------------------------------------- */
/* Creating an estimator                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

/* Which model answers queries. */
typedef int32_t mfusim_mode;
enum {
    MFUSIM_MODE_ROOFLINE = 0, /* the per-step model for simulators (default)                                   */
    MFUSIM_MODE_INFERSIM = 1  /* InferSim @ f2293dab number for number, quirks included                          */
};

typedef struct mfusim_options {
    size_t struct_size;
    /* Model: a built-in catalogue name (see mfusim_catalogue_model_name), a path to a Hugging Face
     * config.json, or the JSON text itself (anything starting with '{'). Required. */
    const char* model;
    /* GPU: a built-in name (H100, H20, ...; case-insensitive) or a path to a JSON profile; a profile may name
     * a built-in "base" and override any field. Required. */
    const char* gpu;
    /* A bench_data directory (InferSim/BLIS layout), or NULL for none: every lookup then takes its fallback
     * (compat: InferSim's defaults; roofline: the analytical efficiency model), and provenance says so. */
    const char* bench_data_dir;
    mfusim_mode mode;
    int32_t tensor_parallel;   /* TP degree, >= 1. Default 1. */
    int32_t world_size;        /* GPUs in the deployment, >= 1. Default 1 (compat: InferSim's --world-size). */
    int32_t num_nodes;         /* Default 1. */
    int32_t fp8_gemm;          /* 0/1: FP8 weights and FP8 peak for GEMMs. */
    int32_t fp8_kv;            /* 1: FP8 KV; 0: the engine's default (may follow the checkpoint: docs/engine.md). */
    int32_t deepep;            /* 0/1: DeepEP expert-parallel communication (compat). */
    int32_t two_batch_overlap; /* 0/1: InferSim's TBO (compat). */
    double sm_ratio;           /* Compat TBO prefill SM share. Default 108/132. */
    /* Roofline: the serving engine around the kernels (its per-step, per-request and per-token costs, launch
     * behaviour and all-reduce algorithm): "vllm" (NULL or "": the default), "sglang", "trtllm", or "none" (the
     * kernels alone, as measured by kernel benchmarks). See docs/engine.md. */
    const char* engine;
    /* Roofline: weight quantization of the linear layers, overriding what the checkpoint's quantization_config
     * states: "bf16", "fp8" (per-tensor), "fp8_block", "nvfp4", "mxfp4", "int8_wo" (8-bit
     * integer weight-only), "int4_wo" (AWQ/GPTQ weight-only); NULL or "": as the checkpoint states. */
    const char* quant;
    int32_t expert_parallel;         /* Roofline: GPUs the routed experts are sharded over (EP). Default 1. */
    int32_t attention_data_parallel; /* Roofline: attention data-parallel replicas inside the EP group. Default 1. */
    /* Appended after 1.0 (callers built against 1.0 pass the old size and get none). Roofline: a calibration
     * written by `mfusim calibrate` (a path, or the JSON text itself, anything starting with '{'); NULL or "":
     * none. Its engine terms replace the engine's (the engine named by `engine`,
     * which must be the one it was fitted on, or by the calibration when `engine` is unset) and its multipliers
     * scale each kernel family's time. Calibrated steps cost what uncalibrated ones do. See docs/calibration.md. */
    const char* calibration;
    /* Appended after calibration (callers built before pass the old size and get none). Roofline: speculative
     * decoding (docs/speculative.md). `speculative`: the drafter, "mtp" (the model's num_nextn_predict_layers),
     * "eagle" (an EAGLE head, timed as one layer of the model), "ngram" (no GPU work) or "draft_model" (a separate
     * model, `draft_model` below); NULL or "": none.
     * `num_speculative_tokens`: drafts per request and step, 0..16 (0: plain decoding; mtp: 0 means
     * num_nextn_predict_layers). The tokens a verify step makes: `mean_accepted_length` (1..k+1) when above 0, else
     * (1 - a^(k+1)) / (1 - a) from `acceptance_rate` a in [0, 1]. Defaults: NULL, 0, 0, 0. */
    const char* speculative;
    int32_t num_speculative_tokens;
    double acceptance_rate;
    double mean_accepted_length;
    /* Appended after the speculative-decoding fields (callers built before pass the old size and get none).
     * Roofline: the images each request brings, encoded by the model's vision tower (its config's vision_config) in
     * the step of the request's first prefill chunk (docs/architectures.md, "Vision encoders"): 0..64 images of
     * image_width x image_height pixels (1..16384 each, required with images). A model without a vision tower, or
     * one whose tower cannot be timed, refuses images (MFUSIM_ERR_CONFIG / MFUSIM_ERR_UNSUPPORTED naming the key).
     * Defaults: 0, 0, 0. */
    int64_t images_per_request;
    int64_t image_width;
    int64_t image_height;
    /* Appended after the images (callers built before pass the old size and get 0). Roofline: how the routed
     * experts' tokens spread over the experts (docs/kernel-families.md, "Routing imbalance"): 0, as served, each
     * token's top-k drawn at random and the expert-parallel group's busiest rank timed (the default); alpha in
     * (0, 10], expert popularity as AIConfigurator's bounded power law x^-alpha, the group's most loaded rank timed.
     * Anything else, or non-zero in compat mode, is MFUSIM_ERR_INVALID_ARGUMENT. */
    double moe_routing_alpha;
    /* Appended after moe_routing_alpha (callers built before pass the old size and get 0). Roofline: the seconds of
     * audio each request brings (one clip), encoded by the model's audio tower (its config's audio_config) in the
     * step of the request's first prefill chunk (docs/architectures.md, "Audio encoders"): 0 (no audio, the
     * default) to 3600. A model without an audio tower, or one whose tower cannot be timed, refuses audio
     * (MFUSIM_ERR_CONFIG / MFUSIM_ERR_UNSUPPORTED naming the key); a value out of range or not finite, or non-zero
     * in compat mode, is MFUSIM_ERR_INVALID_ARGUMENT. */
    double audio_seconds_per_request;
    /* Appended after audio_seconds_per_request (callers built before pass the old size and get none). Roofline: the
     * draft model of speculative = "draft_model" (docs/speculative.md): a catalogue name, a config.json path or the
     * JSON text itself, run whole in every draft pass at tensor_parallel. Required with that drafter, refused
     * (MFUSIM_ERR_INVALID_ARGUMENT) with any other. NULL or "": none. */
    const char* draft_model;
} mfusim_options;

/* Writes the defaults into the first struct_size bytes of *options (pass sizeof of your mfusim_options) and
 * sets options->struct_size. MFUSIM_ERR_STRUCT_SIZE (nothing written) for a size that is no released layout. */
MFUSIM_API mfusim_status mfusim_options_init(mfusim_options* options, size_t struct_size, mfusim_error* error);

/* Opaque. Created loaded and immutable; const pointers are safe to share across threads. */
typedef struct mfusim_estimator mfusim_estimator;

/* Parses the model and GPU, loads the tables, and builds everything the queries need. On success *out is a new
 * estimator the caller owns (free with mfusim_estimator_free). Not on any hot path: it reads files. */
MFUSIM_API mfusim_status mfusim_estimator_create(const mfusim_options* options, mfusim_estimator** out,
                                                 mfusim_error* error);
MFUSIM_API void mfusim_estimator_free(mfusim_estimator* estimator);

/* Messages produced while loading that did not stop it (fallbacks taken, table problems tolerated), one per
 * line; "" if none. Borrowed from the estimator. */
MFUSIM_API const char* mfusim_estimator_load_warnings(const mfusim_estimator* estimator);

/* ---------------------------------------------------------------------------------------------------------- */
/* Steps: the hot path                                                                                        */
/* ---------------------------------------------------------------------------------------------------------- */

/* One request's share of an engine step. Fixed layout forever (arrays of it cross the boundary): 24 bytes, no
 * pointers, so Go, Rust and Java can pass slices without copying. */
typedef struct mfusim_request {
    int64_t new_tokens; /* tokens computed this step: a prefill chunk's length, or 1 for a decode */
    int64_t context;    /* tokens already in the KV cache before this step (cached prefix / decode history) */
    uint32_t flags;     /* MFUSIM_REQUEST_* bits */
    uint32_t reserved;  /* must be 0 */
} mfusim_request;

/* This request produces no token this step (a prefill chunk that is not the last): no LM head for it. */
#define MFUSIM_REQUEST_NO_OUTPUT 1u

/* Time of one engine step in microseconds. n_requests may be 0: roofline mode then answers the fixed per-step
 * overhead of the engine, compat mode 0 (InferSim has no step without work). Safe from many threads; no
 * allocation. */
MFUSIM_API mfusim_status mfusim_step_time(const mfusim_estimator* estimator, const mfusim_request* requests,
                                          size_t n_requests, double* out_us, mfusim_error* error);

/* Many steps in one call: step i is the next step_sizes[i] requests of `requests` (concatenated), so the step
 * sizes must add up to n_requests exactly. out_us has n_steps slots. On failure nothing is written to out_us and
 * the message names the step index. */
MFUSIM_API mfusim_status mfusim_step_time_batch(const mfusim_estimator* estimator, const mfusim_request* requests,
                                                size_t n_requests, const int64_t* step_sizes, size_t n_steps,
                                                double* out_us, mfusim_error* error);

/* Operations of the breakdown. Stable numbers, only appended. */
typedef int32_t mfusim_op;
enum {
    MFUSIM_OP_QKV_PROJ = 0,     /* fused q/k/v projection GEMM (MLA: its down/up projections)           */
    MFUSIM_OP_ATTN_PREFILL = 1, /* attention over the prefill chunks, cached prefixes counted            */
    MFUSIM_OP_ATTN_DECODE = 2,  /* attention of the decode tokens over their KV history                  */
    MFUSIM_OP_O_PROJ = 3,       /* attention output projection GEMM                                      */
    MFUSIM_OP_FFN = 4,          /* dense MLP (gate/up + down GEMMs)                                       */
    MFUSIM_OP_MOE_EXPERTS = 5,  /* routed experts (grouped GEMM), max with their weight load             */
    MFUSIM_OP_MOE_SHARED = 6,   /* shared experts                                                        */
    MFUSIM_OP_LINEAR_ATTN = 7,  /* linear-attention (GDN) layers, core and projections                   */
    MFUSIM_OP_LM_HEAD = 8,      /* logits for the tokens that produce output                             */
    MFUSIM_OP_TP_ALLREDUCE = 9, /* tensor-parallel all-reduces                                           */
    MFUSIM_OP_EP_COMM = 10,     /* expert-parallel dispatch/combine or compat's plain all-reduce         */
    MFUSIM_OP_WEIGHT_LOAD = 11, /* weight bytes beyond what compute hides (memory-bound small batches)   */
    MFUSIM_OP_OVERHEAD = 12,    /* small GPU kernels: norms, rotary, activations, residual adds          */
    MFUSIM_OP_ENGINE = 13,      /* the engine around the kernels: scheduling, input preparation, sampling,
                                   kernel launch gaps, TP synchronisation (options.engine)               */
    MFUSIM_OP_COUNT = 14        /* operations this version knows; grows as operations are appended          */
};
/* Slots in mfusim_step_result.ops: fixed, so that appending operations never changes the struct's layout. */
#define MFUSIM_OP_CAPACITY 32
/* "qkv_proj", "attn_prefill", ...: the names used by the CLI's JSON. Static storage; "unknown" if out of range. */
MFUSIM_API const char* mfusim_op_name(mfusim_op op);

/* What dominated an operation. */
typedef int32_t mfusim_bound;
enum {
    MFUSIM_BOUND_NONE = 0,
    MFUSIM_BOUND_COMPUTE = 1,
    MFUSIM_BOUND_MEMORY = 2,
    MFUSIM_BOUND_COMMUNICATION = 3,
    MFUSIM_BOUND_FIXED = 4
};
MFUSIM_API const char* mfusim_bound_name(mfusim_bound bound);

/* Where an efficiency value came from. */
typedef int32_t mfusim_source;
enum {
    MFUSIM_SOURCE_NONE = 0,               /* the operation needs no efficiency value (or did not run)              */
    MFUSIM_SOURCE_TABLE_EXACT = 1,        /* a measured row matched exactly                                        */
    MFUSIM_SOURCE_TABLE_INTERPOLATED = 2, /* interpolated between measured rows                               */
    MFUSIM_SOURCE_TABLE_NEAREST = 3,      /* the nearest measured row or shape, at `distance`                      */
    MFUSIM_SOURCE_ANALYTICAL = 4,         /* no table covers it: the analytical efficiency model                   */
    MFUSIM_SOURCE_DEFAULT = 5             /* a constant default (compat: InferSim's per-GPU default MFU)            */
};
MFUSIM_API const char* mfusim_source_name(mfusim_source source);

typedef struct mfusim_op_detail {
    double time_us;    /* this operation's share of the step, all layers, per GPU */
    double flops;      /* FLOPs per GPU for the whole step (0 where not modelled) */
    double bytes;      /* bytes moved per GPU for the whole step (0 where not modelled) */
    double efficiency; /* the MFU applied (0 if none) */
    double distance;   /* TABLE_NEAREST: distance to the measured shape (units per source table) */
    mfusim_bound bound;
    mfusim_source source;
    char table[96]; /* the table that supplied `efficiency`, relative to bench_data; "" if none */
} mfusim_op_detail;

typedef struct mfusim_step_result {
    size_t struct_size;
    double total_us;
    mfusim_bound bound; /* the bound of the operation that took the most time */
    int32_t n_ops;      /* valid entries of ops (MFUSIM_OP_COUNT of the library that filled it, at most
                           MFUSIM_OP_CAPACITY); 0 until filled; the slots after them are zero           */
    mfusim_op_detail ops[MFUSIM_OP_CAPACITY];
} mfusim_step_result;

/* Zeroes the first struct_size bytes of *result (pass sizeof of your mfusim_step_result), sets struct_size.
 * MFUSIM_ERR_STRUCT_SIZE (nothing written) for a size that is no released layout. */
MFUSIM_API mfusim_status mfusim_step_result_init(mfusim_step_result* result, size_t struct_size, mfusim_error* error);

/* The step time with its breakdown by operation and the provenance of each efficiency value; total_us equals
 * what mfusim_step_time answers (one evaluator). Writes *out only up to out->struct_size, which must be a released
 * size. Safe from many threads; no allocation. Slower than mfusim_step_time (it fills ~4.6 KB). */
MFUSIM_API mfusim_status mfusim_step_detail(const mfusim_estimator* estimator, const mfusim_request* requests,
                                            size_t n_requests, mfusim_step_result* out, mfusim_error* error);

/* ---------------------------------------------------------------------------------------------------------- */
/* Scenario estimates (InferSim's TTFT / TPOT question)                                                        */
/* ---------------------------------------------------------------------------------------------------------- */

typedef int32_t mfusim_phases;
enum { MFUSIM_PHASES_BOTH = 0, MFUSIM_PHASES_PREFILL_ONLY = 1, MFUSIM_PHASES_DECODE_ONLY = 2 };

typedef struct mfusim_scenario {
    size_t struct_size;
    int64_t input_len;          /* prompt tokens (InferSim --target-isl). Default 4096. */
    int64_t output_len;         /* generated tokens (--target-osl). Default 2048. */
    int64_t max_prefill_tokens; /* tokens per prefill step per GPU. Default 4096. */
    int64_t decode_batch;       /* decode batch per GPU; < 0: ceil(target_tgs * target_tpot_ms / 1000). Default -1. */
    double target_tgs;          /* tokens/GPU/s goal for the default batch. Default 2560. */
    double target_tpot_ms;      /* TPOT SLO in ms. Default 50. */
    mfusim_phases phases;
} mfusim_scenario;

/* Writes the defaults into the first struct_size bytes (pass sizeof of your mfusim_scenario), sets struct_size.
 * MFUSIM_ERR_STRUCT_SIZE (nothing written) for a size that is no released layout. */
MFUSIM_API mfusim_status mfusim_scenario_init(mfusim_scenario* scenario, size_t struct_size, mfusim_error* error);

/* Opaque result of mfusim_estimate: named numbers (the oracle's column names, e.g. "prefill.ttft_ms",
 * "decode.tpot_ms", "decode.attn_core_mfu") plus warnings and soft errors. Immutable. */
typedef struct mfusim_report mfusim_report;

/* Evaluates a scenario. On success *out is a new report the caller owns (free with mfusim_report_free).
 * Allocates the report; safe from many threads. */
MFUSIM_API mfusim_status mfusim_estimate(const mfusim_estimator* estimator, const mfusim_scenario* scenario,
                                         mfusim_report** out, mfusim_error* error);
MFUSIM_API void mfusim_report_free(mfusim_report* report);

/* The quantities in the report in a fixed order: name (borrowed from the report) and value. */
MFUSIM_API size_t mfusim_report_count(const mfusim_report* report);
MFUSIM_API const char* mfusim_report_name(const mfusim_report* report, size_t index);
MFUSIM_API double mfusim_report_value_at(const mfusim_report* report, size_t index);
/* Looks a quantity up by name: MFUSIM_ERR_NOT_FOUND if the report does not have it (a phase that did not run). */
MFUSIM_API mfusim_status mfusim_report_value(const mfusim_report* report, const char* name, double* out,
                                             mfusim_error* error);
/* Strings of the report, borrowed from it: warnings joined by " | " (sorted, de-duplicated, as InferSim), soft
 * errors joined by " | " in emission order; "" if none. */
MFUSIM_API const char* mfusim_report_warnings(const mfusim_report* report);
MFUSIM_API const char* mfusim_report_soft_errors(const mfusim_report* report);

/* ---------------------------------------------------------------------------------------------------------- */
/* The engine profile an estimator uses (roofline mode; docs/engine.md)                                       */
/* ---------------------------------------------------------------------------------------------------------- */

/* The engine's terms, for callers that account for the engine's time outside the steps themselves (a simulator's
 * queueing and output-processing delays). The step-path terms are already inside mfusim_step_time. */
typedef struct mfusim_engine_terms {
    size_t struct_size;
    char name[32];          /* "vllm", "sglang", "trtllm", "none", or a profile's own name */
    double step_us;         /* per step (inside mfusim_step_time) */
    double request_us;      /* per scheduled request per step (inside mfusim_step_time) */
    double layer_us;        /* per layer per step (inside mfusim_step_time) */
    double eager_layer_us;  /* per layer in a step outside full CUDA graphs (inside mfusim_step_time) */
    double tp_sync_us;      /* per step with more than one GPU (inside mfusim_step_time) */
    double admission_us;    /* per request before its first step: HTTP, queueing into the engine */
    double input_token_us;  /* per prompt token before its first step: tokenisation, input processing */
    double output_token_us; /* per generated token, off the GPU's path: detokenisation, streaming */
    int64_t cuda_graph_max_batch;
    int64_t max_batched_tokens;
    int64_t max_seqs;
    double gpu_memory_utilization;
    int32_t mixed_batches; /* 1: steps carry prefill chunks with decodes; 0: prefill batches go first */
} mfusim_engine_terms;

/* Zeroes the first struct_size bytes (pass sizeof of your mfusim_engine_terms), sets struct_size.
 * MFUSIM_ERR_STRUCT_SIZE (nothing written) for a size that is no released layout. */
MFUSIM_API mfusim_status mfusim_engine_terms_init(mfusim_engine_terms* terms, size_t struct_size, mfusim_error* error);

/* The estimator's engine terms, written up to out->struct_size. Roofline mode only (compat: MFUSIM_ERR_UNSUPPORTED).
 * No allocation; safe from many threads. */
MFUSIM_API mfusim_status mfusim_estimator_engine_terms(const mfusim_estimator* estimator, mfusim_engine_terms* out,
                                                       mfusim_error* error);

/* ---------------------------------------------------------------------------------------------------------- */
/* Serving estimates: TTFT / TPOT / throughput at a concurrency (roofline mode)                                */
/* ---------------------------------------------------------------------------------------------------------- */

/* A closed-loop serving workload: `concurrency` clients each keep one request of input_len prompt tokens and
 * output_len generated tokens in flight (a finished request is replaced at once), served by the estimator's
 * engine with aggregated in-flight batching: every step runs the running requests' decodes plus prefill chunks of
 * arriving requests within the token budget. docs/serving.md derives the estimate. */
typedef struct mfusim_serving {
    size_t struct_size;
    int64_t input_len;             /* prompt tokens per request (ISL). Default 1024. */
    int64_t output_len;            /* generated tokens per request (OSL), >= 1. Default 128. */
    int64_t concurrency;           /* requests held in flight by the clients. Default 16. */
    int64_t max_batched_tokens;    /* scheduler token budget per step; 0: the engine's default. */
    int64_t max_seqs;              /* most requests running at once; 0: the engine's default. */
    double gpu_memory_utilization; /* share of GPU memory the engine may use (weights + KV); 0: engine default. */
    /* How the TTFT/TPOT means are taken: 0 (default) = steady state only; k >= 1 = a measurement of k requests
     * per client that starts with every client arriving at once, so 1/k of the requests see that first wave
     * (benchmark tools with num_prompts = k x concurrency). docs/serving.md. */
    double requests_per_client;
} mfusim_serving;

/* Writes the defaults into the first struct_size bytes (pass sizeof of your mfusim_serving), sets struct_size.
 * MFUSIM_ERR_STRUCT_SIZE (nothing written) for a size that is no released layout. */
MFUSIM_API mfusim_status mfusim_serving_init(mfusim_serving* serving, size_t struct_size, mfusim_error* error);

/* What held the number of running requests below the concurrency. */
typedef int32_t mfusim_serving_limit;
enum {
    MFUSIM_SERVING_LIMIT_NONE = 0,         /* every client's request runs at once                                 */
    MFUSIM_SERVING_LIMIT_TOKEN_BUDGET = 1, /* prompts arrive faster than the token budget admits them             */
    MFUSIM_SERVING_LIMIT_MAX_SEQS = 2,     /* max_seqs                                                              */
    MFUSIM_SERVING_LIMIT_KV_CAPACITY = 3   /* the KV cache holds fewer requests than the concurrency               */
};

typedef struct mfusim_serving_result {
    size_t struct_size;
    double ttft_ms;                     /* mean time to first token, waiting for admission included */
    double tpot_ms;                     /* mean time per output token after the first */
    double e2e_ms;                      /* mean request latency: ttft + (output_len - 1) * tpot */
    double output_throughput_tok_s_gpu; /* generated tokens per second per GPU of the deployment */
    double request_throughput_req_s;    /* finished requests per second, whole deployment */
    double decode_step_ms;              /* a step of the steady decode batch alone */
    double mixed_step_ms;               /* a step of the decode batch plus the prefill chunks it carries */
    double mixed_step_fraction;         /* share of steps that carry prefill chunks */
    double decode_batch;                /* mean requests decoding in a step (per attention replica) */
    double prefill_tokens_per_mixed_step;
    double prefill_steps_per_request; /* steps a prompt's chunks span */
    double queue_ms;                  /* share of ttft spent waiting for admission */
    double running_requests;          /* mean requests admitted at once (per attention replica) */
    double kv_capacity_tokens;        /* KV-cache tokens per attention replica */
    mfusim_serving_limit limited_by;
} mfusim_serving_result;

/* Zeroes the first struct_size bytes (pass sizeof of your mfusim_serving_result), sets struct_size.
 * MFUSIM_ERR_STRUCT_SIZE (nothing written) for a size that is no released layout. */
MFUSIM_API mfusim_status mfusim_serving_result_init(mfusim_serving_result* result, size_t struct_size,
                                                    mfusim_error* error);

/* The steady-state serving estimate of a workload, from this estimator's own step times (so the two always
 * agree). Roofline mode only (compat: MFUSIM_ERR_UNSUPPORTED). Writes *out only up to out->struct_size. No
 * allocation; safe from many threads; about 10 step evaluations. */
MFUSIM_API mfusim_status mfusim_serving_estimate(const mfusim_estimator* estimator, const mfusim_serving* serving,
                                                 mfusim_serving_result* out, mfusim_error* error);

/* Disaggregated serving (docs/disagg.md; since 1.2): a prefill pool and a decode pool of identical workers, each
 * pool described by its own estimator (the same model and GPU, that pool's tensor_parallel, expert_parallel and
 * attention_data_parallel). `concurrency` clients each keep one request in flight; TTFT = the engine's admission +
 * waiting for a prefill worker + the prefill + the KV transfer to a decode worker + waiting for a decode slot;
 * TPOT = the decode pool's step at its mean batch. */
typedef struct mfusim_disagg_serving {
    size_t struct_size;
    int64_t input_len;             /* prompt tokens per request (ISL). Default 1024. */
    int64_t output_len;            /* generated tokens per request (OSL), >= 1. Default 128. */
    int64_t concurrency;           /* requests held in flight by the clients. Default 16. */
    int64_t prefill_workers;       /* workers of the prefill pool, >= 1. Default 1. */
    int64_t decode_workers;        /* workers of the decode pool, >= 1. Default 1. */
    int64_t prefill_batch;         /* most prompts per prefill batch of an attention replica; 0: the token budget's */
    int64_t decode_batch;          /* most requests an attention replica decodes at once; 0: the engine's max_seqs */
    int64_t max_batched_tokens;    /* the prefill workers' token budget; 0: the engine's default. */
    double gpu_memory_utilization; /* share of GPU memory the engines may use; 0: their default. */
} mfusim_disagg_serving;

/* Writes the defaults into the first struct_size bytes, sets struct_size; MFUSIM_ERR_STRUCT_SIZE as above. */
MFUSIM_API mfusim_status mfusim_disagg_serving_init(mfusim_disagg_serving* serving, size_t struct_size,
                                                    mfusim_error* error);

typedef struct mfusim_disagg_result {
    size_t struct_size;
    double ttft_ms;                     /* mean time to first token: the five parts below (+ docs/disagg.md, s. 10) */
    double tpot_ms;                     /* mean time per output token after the first */
    double e2e_ms;                      /* mean request latency: ttft + (output_len - 1) * tpot */
    double output_throughput_tok_s_gpu; /* generated tokens per second per GPU, both pools' GPUs counted */
    double request_throughput_req_s;    /* finished requests per second, whole deployment */
    double admission_ms;                /* the engine's admission, tokenisation and first token out */
    double prefill_queue_ms;            /* waiting for a prefill worker */
    double prefill_ms;                  /* one prompt's prefill on an idle worker */
    double transfer_ms;                 /* the KV cache from the prefill to the decode worker */
    double decode_wait_ms;              /* waiting for a decode slot */
    double prefill_batch_ms;            /* one prefill batch of prompts_per_batch prompts */
    double prompts_per_batch;           /* per attention replica of a prefill worker */
    double prefill_utilization;         /* busy share of the prefill pool */
    double decode_step_ms;              /* the decode step at decode_batch */
    double decode_batch;                /* mean requests decoding per attention replica */
    double decode_slots;                /* the most requests a decode replica holds (batch, max_seqs, KV cache) */
    double kv_transfer_bytes;           /* one request's KV over the busiest GPU link */
    int64_t transfer_over_network;      /* 1: RDMA between nodes; 0: NVLink inside one domain */
    int64_t prefill_gpus;               /* GPUs of one prefill worker */
    int64_t decode_gpus;                /* GPUs of one decode worker */
} mfusim_disagg_result;

/* Zeroes the first struct_size bytes, sets struct_size; MFUSIM_ERR_STRUCT_SIZE as above. */
MFUSIM_API mfusim_status mfusim_disagg_result_init(mfusim_disagg_result* result, size_t struct_size,
                                                   mfusim_error* error);

/* The disaggregated serving estimate. Both estimators in roofline mode (else MFUSIM_ERR_UNSUPPORTED) on one GPU
 * (else MFUSIM_ERR_CONFIG). Writes *out only up to out->struct_size. Safe from many threads; its cost grows with
 * the concurrency (a mean value analysis over the clients: about a millisecond at 1,000). */
MFUSIM_API mfusim_status mfusim_disagg_estimate(const mfusim_estimator* prefill, const mfusim_estimator* decode,
                                                const mfusim_disagg_serving* serving, mfusim_disagg_result* out,
                                                mfusim_error* error);

/* ---------------------------------------------------------------------------------------------------------- */
/* Calibration: fitting the model to your own measurements (docs/calibration.md), as `mfusim calibrate` does    */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct mfusim_calibration mfusim_calibration;

/* Fits a calibration to measured engine steps (`mfusim calibrate --steps`): `steps_path` is a JSONL file of
 * measured steps; `options` gives the deployment, where model and gpu may be NULL when the file's header names
 * them, the header's engine applies when options->engine is NULL or "", and its tp when options->tensor_parallel
 * is 0 (else 1); any other tensor_parallel is the caller's and wins over the header, as `--tp` does, except that 1
 * (mfusim_options_init's default) against a header naming another tp is MFUSIM_ERR_INVALID_ARGUMENT;
 * options->calibration must be unset. `folds`: cross-validation folds, >= 2 (0: 5). On success *out is a new
 * calibration the caller owns (free with mfusim_calibration_free), whether or not it beats the defaults:
 * mfusim_calibration_improved says. Reads files and fits: seconds, not a hot path. */
MFUSIM_API mfusim_status mfusim_calibrate_steps(const mfusim_options* options, const char* steps_path, int32_t folds,
                                                mfusim_calibration** out, mfusim_error* error);
/* Fits the GPU profile's own constants to measured kernels (`mfusim calibrate --kernels`): `kernels_dir` is an
 * AIConfigurator-format directory, options->gpu the GPU they were measured on, options->bench_data_dir optional
 * MFU tables; the other options are not used. Same ownership as mfusim_calibrate_steps. */
MFUSIM_API mfusim_status mfusim_calibrate_kernels(const mfusim_options* options, const char* kernels_dir,
                                                  mfusim_calibration** out, mfusim_error* error);
MFUSIM_API void mfusim_calibration_free(mfusim_calibration* calibration);
/* The calibration file's JSON text: write it to a file, or pass it as options.calibration. Borrowed: valid until
 * the calibration is freed. NULL for NULL. */
MFUSIM_API const char* mfusim_calibration_document(const mfusim_calibration* calibration);
/* The fit's report for a human: coefficients and errors before, in training and held out. Borrowed; NULL for NULL. */
MFUSIM_API const char* mfusim_calibration_report(const mfusim_calibration* calibration);
/* 1 when the fit beats the defaults on data it did not see (what `mfusim calibrate -o` requires before writing),
 * else 0 (0 for NULL). */
MFUSIM_API int32_t mfusim_calibration_improved(const mfusim_calibration* calibration);

/* ---------------------------------------------------------------------------------------------------------- */
/* Engine simulation: a serving benchmark replayed step by step (roofline mode; docs/simulate.md)              */
/* ---------------------------------------------------------------------------------------------------------- */

/* How prompt and output lengths are drawn. Stable numbers, only appended. */
typedef int32_t mfusim_length_distribution;
enum {
    MFUSIM_LENGTH_FIXED = 0,    /* the mean exactly                                                          */
    MFUSIM_LENGTH_UNIFORM = 1,  /* integers in [mean - spread, mean + spread] (vLLM bench's range ratio x mean) */
    MFUSIM_LENGTH_NORMAL = 2,   /* standard deviation `spread` (AIPerf's --isl-stddev)                       */
    MFUSIM_LENGTH_LOGNORMAL = 3 /* log-normal with that mean and standard deviation                          */
};

/* The scheduler the simulated engine runs. Stable numbers, only appended. */
typedef int32_t mfusim_scheduler_policy;
enum {
    MFUSIM_SCHEDULER_ENGINE = 0,  /* the estimator's engine's own scheduler (default)                           */
    MFUSIM_SCHEDULER_VLLM_V1 = 1, /* vLLM V1: running first, chunked prefill, preemption by recomputation     */
    MFUSIM_SCHEDULER_SGLANG = 2,  /* SGLang: prefill batches first, new-token-ratio admission, retraction      */
    MFUSIM_SCHEDULER_TRTLLM = 3,  /* TensorRT-LLM: GUARANTEED_NO_EVICT admission, generation first             */
    MFUSIM_SCHEDULER_TRTLLM_MAX_UTILIZATION = 4 /* TensorRT-LLM MAX_UTILIZATION: pauses the newest on KV shortage */
};

/* One request of a trace. Fixed layout forever (arrays of it cross the boundary): 40 bytes, no pointers. */
typedef struct mfusim_trace_request {
    double arrival_s;   /* send time, seconds from the start; non-decreasing along the trace */
    int64_t input_len;  /* prompt tokens, >= 1 */
    int64_t output_len; /* generated tokens, >= 1 */
    int64_t prefix_id;  /* requests with the same id share their first prefix_len prompt tokens; -1: none */
    int64_t prefix_len; /* 0..input_len; needs prefix_id >= 0 when > 0 */
} mfusim_trace_request;

/* A simulated serving benchmark (vLLM's `bench serve`, AIPerf): the workload, the scheduler's overrides, the SLOs
 * for goodput. Every scheduler value 0 means "the estimator's engine's default" (mfusim_estimator_engine_terms). */
typedef struct mfusim_simulation {
    size_t struct_size;
    int64_t num_prompts;     /* requests sent, 1..2^20. Default 1000. Ignored with a trace. */
    int64_t warmup;          /* the first requests sent, left out of the statistics; < the requests. Default 0. */
    double request_rate;     /* requests per second (0.001 to 1e9), or INFINITY (default): every request sent at 0 */
    double burstiness;       /* gamma shape of the gaps: 1 Poisson (default), < 1 burstier, > 1 steadier */
    int64_t max_concurrency; /* most requests in flight (vLLM bench's semaphore); 0 (default): no limit */
    mfusim_length_distribution input_distribution;  /* Default MFUSIM_LENGTH_FIXED. */
    mfusim_length_distribution output_distribution; /* Default MFUSIM_LENGTH_FIXED. */
    double input_len;                               /* mean prompt tokens. Default 1024. */
    double input_spread;                            /* see mfusim_length_distribution. Default 0. */
    double output_len;                              /* mean generated tokens. Default 128. */
    double output_spread;                           /* Default 0. */
    int64_t num_prefix_prompts; /* shared system prompts: request i starts with prefix i mod this; 0: none */
    int64_t prefix_len;         /* tokens of each shared prefix, counted within the input length */
    uint64_t seed;              /* of the workload's random draws; the same seed gives the same run. Default 0. */
    int32_t constant_rate;      /* 0/1: send at exact 1/request_rate intervals instead of gamma gaps */
    mfusim_scheduler_policy scheduler;
    int64_t max_batched_tokens;           /* token budget per step; 0: the engine's */
    int64_t max_seqs;                     /* most running requests; 0: the engine's */
    int64_t block_tokens;                 /* KV block size in tokens; 0: 16 */
    int64_t long_prefill_token_threshold; /* vLLM: most tokens of one prefill chunk per step; 0: no cap */
    double gpu_memory_utilization;        /* share of GPU memory for weights + KV; 0: the engine's */
    int32_t disable_chunked_prefill;      /* 0/1 */
    int32_t disable_prefix_caching;       /* 0/1 */
    double slo_ttft_ms;                   /* goodput SLOs (vLLM bench --goodput), ms; 0: none */
    double slo_tpot_ms;
    double slo_e2el_ms;
    /* A trace replaces the generated requests (num_prompts, the rate and the length distributions are then unused;
     * max_concurrency still applies). Borrowed for the duration of mfusim_simulate only. NULL: none. */
    const mfusim_trace_request* trace;
    size_t trace_count;
    int32_t record_timeline; /* 0/1: keep one mfusim_simulated_step per engine step */
    int32_t reserved;        /* must be 0 */
    /* Appended later (an older caller's struct_size leaves it 0). Closed-loop clients (an infinite rate with
     * max_concurrency) start one after another, evenly over this many seconds, instead of all at time 0; each then
     * sends its next request when its last completes. 0 (default): all at once. */
    double ramp_up_s;
} mfusim_simulation;

/* Writes the defaults into the first struct_size bytes (pass sizeof of your mfusim_simulation), sets struct_size.
 * MFUSIM_ERR_STRUCT_SIZE (nothing written) for a size that is no released layout. */
MFUSIM_API mfusim_status mfusim_simulation_init(mfusim_simulation* simulation, size_t struct_size, mfusim_error* error);

/* Opaque, immutable result of mfusim_simulate; const pointers are safe to share across threads. */
typedef struct mfusim_simulation_result mfusim_simulation_result;

/* Runs the simulation with this estimator's step times (a deterministic function of the estimator and *simulation).
 * Roofline mode only (compat: MFUSIM_ERR_UNSUPPORTED). MFUSIM_ERR_INVALID_ARGUMENT names the field at fault;
 * MFUSIM_ERR_CONFIG when the weights leave no KV cache; MFUSIM_ERR_UNSUPPORTED when a request can never fit the
 * cache. On success *out is a new result the caller owns (free with mfusim_simulation_result_free). Allocates;
 * safe from many threads on one estimator; takes time in proportion to the engine steps simulated. */
MFUSIM_API mfusim_status mfusim_simulate(const mfusim_estimator* estimator, const mfusim_simulation* simulation,
                                         mfusim_simulation_result** out, mfusim_error* error);
MFUSIM_API void mfusim_simulation_result_free(mfusim_simulation_result* result);

/* A distribution over the measured (non-warm-up) requests, as vLLM bench reports it: population standard deviation,
 * percentiles with linear interpolation. All zeros when there is no value. Fixed layout forever: 64 bytes. */
typedef struct mfusim_latency_summary {
    double mean;
    double median;
    double std;
    double p90;
    double p95;
    double p99;
    double min;
    double max;
} mfusim_latency_summary;

typedef struct mfusim_simulation_summary {
    size_t struct_size;
    int64_t completed; /* measured requests */
    int64_t total_input_tokens;
    int64_t total_output_tokens;
    double duration_s;             /* first measured send -> last measured completion */
    double request_throughput;     /* requests/s */
    double request_goodput;        /* requests/s meeting every SLO */
    double output_throughput;      /* generated tokens/s, whole deployment */
    double total_token_throughput; /* prompt + generated tokens/s */
    int64_t steps;                 /* engine steps */
    int64_t preemptions;
    int64_t prefix_hit_tokens;       /* prompt tokens served from the prefix cache */
    double mean_batch_tokens;        /* tokens computed per step */
    double mean_running;             /* requests running per step */
    mfusim_latency_summary ttft_ms;  /* time to first token, per request */
    mfusim_latency_summary tpot_ms;  /* time per output token after the first, requests with >1 output token */
    mfusim_latency_summary itl_ms;   /* inter-token latency, per token */
    mfusim_latency_summary e2el_ms;  /* request latency */
    mfusim_latency_summary queue_ms; /* reaching the engine -> first scheduled */
} mfusim_simulation_summary;

/* Zeroes the first struct_size bytes (pass sizeof of your mfusim_simulation_summary), sets struct_size.
 * MFUSIM_ERR_STRUCT_SIZE (nothing written) for a size that is no released layout. */
MFUSIM_API mfusim_status mfusim_simulation_summary_init(mfusim_simulation_summary* summary, size_t struct_size,
                                                        mfusim_error* error);
/* The run's summary, written up to out->struct_size. No allocation; safe from many threads. */
MFUSIM_API mfusim_status mfusim_simulation_result_summary(const mfusim_simulation_result* result,
                                                          mfusim_simulation_summary* out, mfusim_error* error);

/* One request as the client saw it. Fixed layout forever (arrays of it cross the boundary): 80 bytes. */
typedef struct mfusim_simulated_request {
    double send_ms;  /* from the benchmark's start */
    double ttft_ms;  /* send -> first token */
    double tpot_ms;  /* (e2el - ttft) / (output_len - 1); 0 for one output token */
    double e2el_ms;  /* send -> last token */
    double queue_ms; /* reaching the engine -> first scheduled */
    int64_t input_len;
    int64_t output_len;
    int64_t preemptions;
    int64_t prefix_hit_tokens;
    int32_t warmup;   /* 1: a warm-up request, left out of the statistics */
    int32_t reserved; /* 0 */
} mfusim_simulated_request;

/* Every request in send order, warm-up included; *count (may be NULL) their number. Borrowed from the result: valid
 * until it is freed. NULL (and *count 0) for NULL. */
MFUSIM_API const mfusim_simulated_request* mfusim_simulation_result_requests(const mfusim_simulation_result* result,
                                                                             size_t* count);

/* The quantities a percentile can be asked of. Stable numbers, only appended. */
typedef int32_t mfusim_metric;
enum {
    MFUSIM_METRIC_TTFT = 0, /* per measured request */
    MFUSIM_METRIC_TPOT = 1, /* per measured request with more than one output token */
    MFUSIM_METRIC_ITL = 2,  /* per generated token after the first (the weighted inter-token latencies) */
    MFUSIM_METRIC_E2EL = 3,
    MFUSIM_METRIC_QUEUE = 4
};

/* The p-th percentile (0 <= p <= 100) of a metric in ms, NumPy's linear interpolation (0 when there is no value).
 * MFUSIM_ERR_INVALID_ARGUMENT for an unknown metric or p out of range. No allocation; safe from many threads. */
MFUSIM_API mfusim_status mfusim_simulation_result_percentile(const mfusim_simulation_result* result,
                                                             mfusim_metric metric, double p, double* out,
                                                             mfusim_error* error);

/* One engine step (sums over the attention replicas; KV use of the fullest). Fixed layout forever: 40 bytes. */
typedef struct mfusim_simulated_step {
    double start_ms;
    double duration_ms;
    int32_t running;
    int32_t waiting;
    int32_t prefill_tokens;
    int32_t decode_tokens;
    double kv_used; /* share of the KV cache in use, 0..1 */
} mfusim_simulated_step;

/* The steps in order when the simulation had record_timeline set; otherwise NULL and *count 0. *count may be NULL.
 * Borrowed from the result. */
MFUSIM_API const mfusim_simulated_step* mfusim_simulation_result_timeline(const mfusim_simulation_result* result,
                                                                          size_t* count);

/* ---------------------------------------------------------------------------------------------------------- */
/* Planning: the deployment search of `mfusim plan` as data (docs/c-api.md; since 1.3)                        */
/* ---------------------------------------------------------------------------------------------------------- */

/* What mfusim_plan searches beyond the model (mfusim_options) and the workload (mfusim_serving): per GPU, tensor
 * parallelism from tp_list, expert parallelism for MoE models (1 or the TP degree) and concurrency (powers of two up
 * to max_concurrency), with the serving estimate; with `disagg` also prefill/decode pools (docs/disagg.md, 6). */
typedef struct mfusim_plan_request {
    size_t struct_size;
    const char* const* gpus; /* GPU names or profile paths; NULL (gpu_count 0): H100, H200, B200. Borrowed. */
    size_t gpu_count;        /* at most 64 */
    const int64_t* tp_list;  /* degrees 1..65536 (with disagg: GPUs per worker too); NULL: 1, 2, 4, 8. Borrowed. */
    size_t tp_count;         /* at most 64 */
    int64_t max_concurrency; /* the largest concurrency tried, 1..2^20. Default 512. */
    double max_ttft_ms;      /* mean TTFT limit; 0 (default): none */
    double max_tpot_ms;      /* mean TPOT limit; 0 (default): none */
    int64_t gpu_budget;      /* most GPUs of one deployment; 0 (default): none (with disagg: 16) */
    int32_t simulate;        /* 0/1: answer each point by the simulated benchmark (docs/simulate.md) */
    int32_t disagg;          /* 0/1: also search disaggregated deployments (roofline mode only) */
    const int64_t* decode_batches; /* with disagg: requests per decode replica, 1..65536; NULL: 1, 2, ..., 256 */
    size_t decode_batch_count;     /* at most 64 */
    int32_t least_loaded_router;   /* with disagg and simulate: 0/1, round-robin (default) or least-loaded */
    int32_t reserved;              /* must be 0 */
} mfusim_plan_request;

/* Writes the defaults into the first struct_size bytes, sets struct_size; MFUSIM_ERR_STRUCT_SIZE as above. */
MFUSIM_API mfusim_status mfusim_plan_request_init(mfusim_plan_request* request, size_t struct_size,
                                                  mfusim_error* error);

/* One deployment evaluated. Fixed layout forever (arrays of it cross the boundary): 152 bytes, no pointers. */
typedef struct mfusim_plan_row {
    int32_t gpu_index;     /* into the request's GPUs */
    int32_t disaggregated; /* 0: one aggregated replica (tp, ep); 1: prefill and decode pools */
    int32_t meets_limits;  /* 1: mean TTFT and TPOT within the request's limits */
    int32_t best;          /* 1: the most output tokens/s per GPU among its GPU's rows meeting the limits */
    int64_t tp;            /* aggregated: tensor and expert parallel degrees; 0 when disaggregated */
    int64_t ep;
    int64_t gpus;            /* of the whole deployment */
    int64_t concurrency;     /* clients, each keeping one request in flight */
    int64_t prefill_workers; /* disaggregated only (else 0): workers per pool and each worker's parallelism */
    int64_t prefill_tp;
    int64_t prefill_ep;
    int64_t prefill_attention_dp;
    int64_t decode_workers;
    int64_t decode_tp;
    int64_t decode_ep;
    int64_t decode_attention_dp;
    int64_t decode_batch;     /* requests per decode replica */
    double ttft_ms;           /* mean time to first token */
    double tpot_ms;           /* mean time per output token after the first */
    double output_tok_s_gpu;  /* generated tokens per second per GPU */
    double output_tok_s_user; /* 1000 / tpot_ms: the speed one user sees */
} mfusim_plan_row;

/* Per GPU of the request: what the search did. Fixed layout forever: 40 bytes. */
typedef struct mfusim_plan_gpu {
    int64_t evaluated;           /* rows of this GPU */
    int64_t meeting_limits;      /* of them, within the limits */
    int64_t best_row;            /* index into the rows of the chosen deployment; -1: none meets the limits */
    int64_t skipped_not_fitting; /* deployments whose weights (or one request's KV cache) do not fit */
    int64_t skipped_invalid;     /* deployments the model cannot be sharded over */
} mfusim_plan_gpu;

/* Opaque, immutable result of mfusim_plan; const pointers are safe to share across threads. */
typedef struct mfusim_plan_result mfusim_plan_result;

/* Searches deployments as `mfusim plan` does (the same rows as its --json, in the same order). `options` names the
 * model, engine, quantization and mode (its gpu, tensor_parallel and expert_parallel are searched and ignored);
 * `serving` the lengths and engine limits (its concurrency is searched and ignored); `request` may be NULL for its
 * defaults. Deployments that do not fit or cannot be sharded are counted, not failed; an unknown GPU or model is
 * MFUSIM_ERR_UNKNOWN_NAME, a request out of bounds MFUSIM_ERR_INVALID_ARGUMENT naming the field. On success *out is
 * a new result the caller owns (free with mfusim_plan_result_free). Builds estimators: seconds, not a hot path. */
MFUSIM_API mfusim_status mfusim_plan(const mfusim_options* options, const mfusim_serving* serving,
                                     const mfusim_plan_request* request, mfusim_plan_result** out, mfusim_error* error);
MFUSIM_API void mfusim_plan_result_free(mfusim_plan_result* result);
/* Every deployment evaluated, GPU by GPU in the request's order, each GPU's in search order; *count (may be NULL)
 * their number. Borrowed from the result: valid until it is freed. NULL (and *count 0) for NULL or no rows. */
MFUSIM_API const mfusim_plan_row* mfusim_plan_result_rows(const mfusim_plan_result* result, size_t* count);
/* One entry per GPU of the request, in its order. Borrowed; NULL (and *count 0) for NULL. */
MFUSIM_API const mfusim_plan_gpu* mfusim_plan_result_gpus(const mfusim_plan_result* result, size_t* count);
/* The GPU's name as the request gave it, and the reason of its last skipped deployment ("" when none). Borrowed;
 * NULL for NULL or an index out of range. */
MFUSIM_API const char* mfusim_plan_result_gpu_name(const mfusim_plan_result* result, size_t gpu_index);
MFUSIM_API const char* mfusim_plan_result_last_skip(const mfusim_plan_result* result, size_t gpu_index);
/* Every estimator's load warnings, one per line, without repeats ("" when none). Borrowed; NULL for NULL. */
MFUSIM_API const char* mfusim_plan_result_warnings(const mfusim_plan_result* result);

/* Sweeping: `mfusim sweep` as data (since 1.3). One parameter varied (and optionally a second, the series), and at
 * every point either the time of one step or the serving metrics. Stable numbers, only appended. */
typedef int32_t mfusim_sweep_param;
enum {
    MFUSIM_SWEEP_NONE = -1,        /* no series                                                   */
    MFUSIM_SWEEP_DECODE_BATCH = 0, /* step: decode requests in the step, 0..2^20                   */
    MFUSIM_SWEEP_CONTEXT = 1,      /* step: tokens each decode has cached                          */
    MFUSIM_SWEEP_CHUNK = 2,        /* step: new tokens of one prefill chunk, 0 for none            */
    MFUSIM_SWEEP_CONCURRENCY = 3,  /* serving: requests in flight                                  */
    MFUSIM_SWEEP_ISL = 4,          /* serving: prompt tokens                                       */
    MFUSIM_SWEEP_OSL = 5,          /* serving: generated tokens                                    */
    MFUSIM_SWEEP_TP = 6,           /* tensor-parallel degree                                       */
    MFUSIM_SWEEP_GPU = 7,          /* GPU names or profile paths                                   */
    MFUSIM_SWEEP_MODEL = 8         /* model names, paths or JSON                                   */
};

typedef struct mfusim_sweep_request {
    size_t struct_size;
    int32_t serving;                /* 0 (default): time one step per point; 1: the serving metrics */
    int32_t simulate;               /* serving: 0/1, the simulated benchmark instead of the closed form */
    mfusim_sweep_param vary;        /* the x axis. Default MFUSIM_SWEEP_DECODE_BATCH. */
    mfusim_sweep_param series;      /* a second parameter; MFUSIM_SWEEP_NONE (default): none */
    const char* const* vary_values; /* decimal integers or names, 1..4096 of them. Borrowed. */
    size_t vary_count;
    const char* const* series_values; /* as vary_values, with a series. Borrowed. */
    size_t series_count;
    int64_t decode_batch; /* the step every point starts from: decodes (default 32) */
    int64_t context;      /* ... at this many cached tokens each (default 2048) */
    int64_t chunk;        /* ... and one prefill chunk of this many new tokens (default 0: none) */
} mfusim_sweep_request;

/* Writes the defaults into the first struct_size bytes, sets struct_size; MFUSIM_ERR_STRUCT_SIZE as above. */
MFUSIM_API mfusim_status mfusim_sweep_request_init(mfusim_sweep_request* request, size_t struct_size,
                                                   mfusim_error* error);

/* One point of a sweep. Fixed layout forever (arrays of it cross the boundary): 64 bytes, no pointers. */
typedef struct mfusim_sweep_row {
    int32_t vary_index;   /* into vary_values */
    int32_t series_index; /* into series_values; 0 without a series */
    int32_t ok;           /* 1: evaluated; 0: refused (mfusim_sweep_result_error says why), the metrics 0 */
    int32_t reserved;     /* 0 */
    double step_ms;       /* step sweeps: the step's time */
    double ttft_ms;       /* serving sweeps: as mfusim_serving_result */
    double tpot_ms;
    double output_tok_s_gpu;
    double e2e_ms;
    double request_throughput_req_s;
} mfusim_sweep_row;

/* Opaque, immutable result of mfusim_sweep; const pointers are safe to share across threads. */
typedef struct mfusim_sweep_result mfusim_sweep_result;

/* Evaluates every point as `mfusim sweep` does (series-major: every x of the first series value, then the next).
 * `options` is the deployment every point starts from (a varied GPU, model or TP replaces its own), `serving` the
 * workload of a serving sweep. A point the library refuses keeps its row with ok 0; a request that mixes step and
 * serving parameters, or a value out of its parameter's bound, is MFUSIM_ERR_INVALID_ARGUMENT. On success *out is
 * a new result the caller owns (free with mfusim_sweep_result_free). Builds estimators: not a hot path. */
MFUSIM_API mfusim_status mfusim_sweep(const mfusim_options* options, const mfusim_serving* serving,
                                      const mfusim_sweep_request* request, mfusim_sweep_result** out,
                                      mfusim_error* error);
MFUSIM_API void mfusim_sweep_result_free(mfusim_sweep_result* result);
/* The points; *count (may be NULL) their number. Borrowed; NULL (and *count 0) for NULL. */
MFUSIM_API const mfusim_sweep_row* mfusim_sweep_result_rows(const mfusim_sweep_result* result, size_t* count);
/* Per row: what bounded the step ("compute", ...) or limited the running requests ("kv_capacity", ...), and why a
 * refused point was refused ("" when evaluated). Borrowed; NULL for NULL or an index out of range. */
MFUSIM_API const char* mfusim_sweep_result_detail(const mfusim_sweep_result* result, size_t row);
MFUSIM_API const char* mfusim_sweep_result_error(const mfusim_sweep_result* result, size_t row);
/* Every estimator's load warnings, one per line ("" when none). Borrowed; NULL for NULL. */
MFUSIM_API const char* mfusim_sweep_result_warnings(const mfusim_sweep_result* result);

/* ---------------------------------------------------------------------------------------------------------- */
/* Catalogues                                                                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

/* Built-in models and GPUs, for listing. Names are static storage; index out of range gives NULL. */
MFUSIM_API size_t mfusim_catalogue_model_count(void);
MFUSIM_API const char* mfusim_catalogue_model_name(size_t index);
MFUSIM_API size_t mfusim_catalogue_gpu_count(void);
MFUSIM_API const char* mfusim_catalogue_gpu_name(size_t index);

#ifdef __cplusplus
}
#endif

#endif /* MFUSIM_H */
