/* The public header end to end from plain C99 (-pedantic -Werror): create, query, step, batch, detail, errors,
 * versioned structs, free. Prints "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L /* getpid, mkdir, rmdir: the calibration test writes its inputs to /tmp */

#include <mfusim.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int passed = 0;
static int failed = 0;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            ++passed;                                                                \
        } else {                                                                     \
            ++failed;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

static mfusim_estimator* open_estimator(const char* model, const char* gpu, mfusim_mode mode, const char* tables) {
    mfusim_options options;
    mfusim_estimator* estimator = NULL;
    mfusim_error error;
    mfusim_options_init(&options, sizeof(options), NULL);
    options.model = model;
    options.gpu = gpu;
    options.mode = mode;
    options.bench_data_dir = tables;
    if (mfusim_estimator_create(&options, &estimator, &error) != MFUSIM_OK) {
        fprintf(stderr, "create failed: %s\n", error.message);
        return NULL;
    }
    return estimator;
}

/* *_init writes exactly the caller's size, and only released sizes: a guard byte after the caller's struct
 * survives, a size that ends inside a field is refused with nothing written. */
static void test_init_sizes(void) {
    mfusim_error error;
    struct {
        mfusim_options options;
        unsigned char guard[64];
    } padded;
    memset(&padded, 0xAB, sizeof padded);
    CHECK(mfusim_options_init(&padded.options, sizeof padded.options, &error) == MFUSIM_OK);
    CHECK(padded.options.struct_size == sizeof padded.options);
    CHECK(padded.options.tensor_parallel == 1 && padded.options.expert_parallel == 1);
    CHECK(padded.options.model == NULL && padded.options.engine == NULL);
    CHECK(padded.guard[0] == 0xAB && padded.guard[63] == 0xAB);
    memset(&padded, 0xAB, sizeof padded);
    CHECK(mfusim_options_init(&padded.options, 12, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(strstr(error.message, "options size 12 is no released layout") != NULL);
    CHECK(((unsigned char*)&padded.options)[0] == 0xAB); /* nothing written */
    CHECK(mfusim_options_init(&padded.options, sizeof padded.options + 8, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(mfusim_options_init(NULL, sizeof padded.options, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    {
        mfusim_scenario scenario;
        mfusim_step_result result;
        mfusim_serving serving;
        mfusim_serving_result served;
        CHECK(mfusim_scenario_init(&scenario, sizeof scenario - 4, &error) == MFUSIM_ERR_STRUCT_SIZE);
        CHECK(mfusim_scenario_init(&scenario, sizeof scenario, &error) == MFUSIM_OK);
        CHECK(scenario.input_len == 4096);
        CHECK(mfusim_step_result_init(&result, 24, &error) == MFUSIM_ERR_STRUCT_SIZE);
        CHECK(mfusim_step_result_init(&result, sizeof result, &error) == MFUSIM_OK && result.n_ops == 0);
        CHECK(mfusim_serving_init(&serving, 7, &error) == MFUSIM_ERR_STRUCT_SIZE);
        CHECK(mfusim_serving_init(&serving, sizeof serving, &error) == MFUSIM_OK && serving.concurrency == 16);
        CHECK(mfusim_serving_result_init(&served, sizeof served, &error) == MFUSIM_OK && served.ttft_ms == 0);
    }
    {
        /* The engine's terms come from its profile; compat mode has none. */
        mfusim_options o;
        mfusim_estimator* e = NULL;
        mfusim_engine_terms terms;
        CHECK(mfusim_engine_terms_init(&terms, 5, &error) == MFUSIM_ERR_STRUCT_SIZE);
        CHECK(mfusim_engine_terms_init(&terms, sizeof terms, &error) == MFUSIM_OK);
        mfusim_options_init(&o, sizeof o, NULL);
        o.model = "qwen3-8b";
        o.gpu = "H100";
        o.engine = "{\"base\": \"sglang\", \"admission_us\": 1234}";
        CHECK(mfusim_estimator_create(&o, &e, &error) == MFUSIM_OK);
        CHECK(mfusim_estimator_engine_terms(e, &terms, &error) == MFUSIM_OK);
        CHECK(strcmp(terms.name, "sglang") == 0 && terms.admission_us == 1234 && terms.mixed_batches == 0);
        mfusim_estimator_free(e);
        /* A name longer than the field is cut at a UTF-8 character boundary: 30 bytes of "a" and a 3-byte euro
         * sign do not fit in 31, and half a euro sign would be invalid UTF-8 (Python raised on it). */
        o.engine = "{\"base\": \"vllm\", \"name\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xe2\x82\xac\"}";
        CHECK(mfusim_estimator_create(&o, &e, &error) == MFUSIM_OK);
        CHECK(mfusim_estimator_engine_terms(e, &terms, &error) == MFUSIM_OK);
        CHECK(strcmp(terms.name, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == 0);
        mfusim_estimator_free(e);
        o.engine = NULL;
        o.mode = MFUSIM_MODE_INFERSIM;
        o.gpu = "H20";
        CHECK(mfusim_estimator_create(&o, &e, &error) == MFUSIM_OK);
        CHECK(mfusim_estimator_engine_terms(e, &terms, &error) == MFUSIM_ERR_UNSUPPORTED);
        mfusim_estimator_free(e);
    }
}

static void test_version(void) {
    CHECK(mfusim_version_number() == MFUSIM_VERSION_NUMBER);
    CHECK(strcmp(mfusim_version_string(), MFUSIM_VERSION_STRING) == 0);
    CHECK(strcmp(mfusim_status_string(MFUSIM_ERR_PARSE), "malformed input") == 0);
    CHECK(strcmp(mfusim_status_string(9999), "unknown status") == 0);
    CHECK(strcmp(mfusim_op_name(MFUSIM_OP_ATTN_DECODE), "attn_decode") == 0);
    CHECK(strcmp(mfusim_op_name(-1), "unknown") == 0);
    CHECK(sizeof(mfusim_request) == 24);
    CHECK(mfusim_catalogue_model_count() >= 20);
    CHECK(mfusim_catalogue_gpu_count() >= 8);
    CHECK(mfusim_catalogue_model_name(100000) == NULL);
}

static void test_errors(void) {
    mfusim_options options;
    mfusim_estimator* estimator = (mfusim_estimator*)&options; /* must stay untouched on failure */
    mfusim_estimator* const sentinel = estimator;
    mfusim_error error;
    mfusim_options_init(&options, sizeof(options), NULL);
    options.model = "no-such-model";
    options.gpu = "H100";
    CHECK(mfusim_estimator_create(&options, &estimator, &error) == MFUSIM_ERR_UNKNOWN_NAME);
    CHECK(error.status == MFUSIM_ERR_UNKNOWN_NAME);
    CHECK(strstr(error.message, "no-such-model") != NULL);
    CHECK(estimator == sentinel);
    /* A NULL error pointer is allowed: only the status comes back. */
    CHECK(mfusim_estimator_create(&options, &estimator, NULL) == MFUSIM_ERR_UNKNOWN_NAME);
    options.model = "qwen3-8b";
    options.gpu = "Z9000";
    CHECK(mfusim_estimator_create(&options, &estimator, &error) == MFUSIM_ERR_UNKNOWN_NAME);
    CHECK(strstr(error.message, "Z9000") != NULL);
    options.gpu = "H100";
    options.struct_size = sizeof(options) + 8; /* a newer caller than this library */
    CHECK(mfusim_estimator_create(&options, &estimator, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(strstr(error.message, "no released layout") != NULL);
    CHECK(mfusim_estimator_create(NULL, &estimator, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    test_init_sizes();
    mfusim_options_init(&options, sizeof(options), NULL);
    options.model = "qwen3-8b";
    options.gpu = "H100";
    options.tensor_parallel = 0;
    CHECK(mfusim_estimator_create(&options, &estimator, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "tensor_parallel") != NULL);
    mfusim_estimator_free(NULL);
    mfusim_report_free(NULL);
    mfusim_error_clear(&error);
    CHECK(error.status == MFUSIM_OK && error.message[0] == '\0');
}

static void test_steps(const char* tables) {
    mfusim_estimator* estimator = open_estimator("llama-3.1-8b-instruct", "H100", MFUSIM_MODE_ROOFLINE, tables);
    mfusim_request decode[64];
    mfusim_request bad = {-1, 0, 0, 0};
    mfusim_error error;
    mfusim_step_result detail;
    double t1 = 0, t64 = 0, empty = -1, batch[2] = {0, 0}, untouched = 123.0;
    int64_t sizes[2] = {1, 64};
    int i;
    CHECK(estimator != NULL);
    if (!estimator) return;
    for (i = 0; i < 64; ++i) {
        decode[i].new_tokens = 1;
        decode[i].context = 4096;
        decode[i].flags = 0;
        decode[i].reserved = 0;
    }
    CHECK(mfusim_step_time(estimator, decode, 1, &t1, &error) == MFUSIM_OK);
    CHECK(mfusim_step_time(estimator, decode, 64, &t64, &error) == MFUSIM_OK);
    CHECK(t1 > 0 && isfinite(t1));
    CHECK(t64 >= t1);
    CHECK(mfusim_step_time(estimator, NULL, 0, &empty, &error) == MFUSIM_OK);
    CHECK(empty >= 0 && empty <= t1);
    /* The batch call: step 0 is decode[0..1), step 1 is decode[0..64) again, concatenated. */
    {
        mfusim_request all[65];
        memcpy(all, decode, sizeof(mfusim_request));
        memcpy(all + 1, decode, sizeof decode);
        CHECK(mfusim_step_time_batch(estimator, all, 65, sizes, 2, batch, &error) == MFUSIM_OK);
        CHECK(batch[0] == t1 && batch[1] == t64);
        /* Sizes that run past the array, or fall short of it, are refused before anything is read. */
        batch[0] = batch[1] = -1;
        CHECK(mfusim_step_time_batch(estimator, all, 64, sizes, 2, batch, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(error.message, "step 1") != NULL);
        CHECK(mfusim_step_time_batch(estimator, all, 66, sizes, 2, batch, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
        CHECK(batch[0] == -1 && batch[1] == -1);
        /* A bad request in the last step, after a step that passed: still nothing written, the step named. */
        all[64] = bad;
        CHECK(mfusim_step_time_batch(estimator, all, 65, sizes, 2, batch, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
        CHECK(batch[0] == -1 && batch[1] == -1);
        CHECK(strstr(error.message, "step 1: request 63") != NULL);
    }
    CHECK(mfusim_step_time(estimator, &bad, 1, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(untouched == 123.0);
    CHECK(strstr(error.message, "request 0") != NULL);
    CHECK(mfusim_step_time(estimator, NULL, 3, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    mfusim_step_result_init(&detail, sizeof(detail), NULL);
    CHECK(mfusim_step_detail(estimator, decode, 64, &detail, &error) == MFUSIM_OK);
    CHECK(detail.total_us == t64);
    CHECK(detail.ops[MFUSIM_OP_ATTN_DECODE].time_us > 0);
    CHECK(detail.n_ops == MFUSIM_OP_COUNT);
    detail.struct_size = 16;
    detail.total_us = -7.0;
    CHECK(mfusim_step_detail(estimator, decode, 64, &detail, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(detail.total_us == -7.0); /* nothing written past a refused size */
    CHECK(strlen(mfusim_estimator_load_warnings(estimator)) < MFUSIM_ERROR_MESSAGE_CAPACITY * 64);
    mfusim_estimator_free(estimator);
}

static void test_compat_estimate(void) {
    mfusim_estimator* estimator = open_estimator("qwen3-8b", "H20", MFUSIM_MODE_INFERSIM, NULL);
    mfusim_scenario scenario;
    mfusim_report* report = NULL;
    mfusim_error error;
    double ttft = 0, tpot = 0, missing = 7;
    size_t i, n;
    CHECK(estimator != NULL);
    if (!estimator) return;
    mfusim_scenario_init(&scenario, sizeof(scenario), NULL);
    CHECK(scenario.input_len == 4096 && scenario.decode_batch < 0);
    CHECK(mfusim_estimate(estimator, &scenario, &report, &error) == MFUSIM_OK);
    CHECK(mfusim_report_value(report, "prefill.ttft_ms", &ttft, &error) == MFUSIM_OK);
    CHECK(mfusim_report_value(report, "decode.tpot_ms", &tpot, &error) == MFUSIM_OK);
    CHECK(ttft > 30.0 && tpot > 5.0); /* InferSim's fixed overheads are included */
    CHECK(mfusim_report_value(report, "no.such", &missing, &error) == MFUSIM_ERR_NOT_FOUND);
    CHECK(missing == 7);
    n = mfusim_report_count(report);
    CHECK(n > 20);
    for (i = 0; i < n; ++i) CHECK(mfusim_report_name(report, i) != NULL);
    CHECK(mfusim_report_name(report, n) == NULL);
    /* No tables: InferSim warns for every missing file. */
    CHECK(strstr(mfusim_report_warnings(report), "not exist") != NULL);
    mfusim_report_free(report);
    scenario.phases = MFUSIM_PHASES_DECODE_ONLY;
    CHECK(mfusim_estimate(estimator, &scenario, &report, &error) == MFUSIM_OK);
    CHECK(mfusim_report_value(report, "prefill.ttft_ms", &missing, &error) == MFUSIM_ERR_NOT_FOUND);
    mfusim_report_free(report);
    mfusim_estimator_free(estimator);
}

/* mfusim_options as a caller built against an older release holds it: `size` bytes initialised inside a larger
 * buffer whose bytes past `size` are 0xAB, which the library must never read. */
typedef struct {
    mfusim_options options;
    unsigned char guard[8];
} old_options;

static void init_old_options(old_options* old, size_t size) {
    mfusim_error error;
    memset(old, 0xAB, sizeof *old);
    CHECK(mfusim_options_init(&old->options, size, &error) == MFUSIM_OK);
    CHECK(((unsigned char*)&old->options)[size] == 0xAB);
}

/* options.calibration (appended after 1.0): a caller built against 1.0 passes the old size, gets no calibration and
 * its bytes past that size are never read; a calibration given as JSON text scales the kernels it names. */
static void test_calibration(void) {
    const size_t v1_0 = offsetof(mfusim_options, calibration);
    mfusim_error error;
    old_options old;
    mfusim_options options;
    mfusim_estimator *plain = NULL, *legacy = NULL, *calibrated = NULL, *refused = NULL;
    mfusim_request step[2] = {{1, 1000, 0u, 0u}, {256, 0, 0u, 0u}};
    double t_plain = 0, t_legacy = 0, t_calibrated = 0;
    CHECK(v1_0 == 96);
    init_old_options(&old, v1_0);
    CHECK(old.options.struct_size == v1_0);
    CHECK(((unsigned char*)&old.options)[v1_0] == 0xAB); /* the 1.0 layout's end: nothing written past it */
    old.options.model = "qwen3-8b";
    old.options.gpu = "H100";
    CHECK(mfusim_estimator_create(&old.options, &legacy, &error) == MFUSIM_OK); /* 0xAB.. calibration never read */

    mfusim_options_init(&options, sizeof options, NULL);
    CHECK(options.calibration == NULL);
    options.model = "qwen3-8b";
    options.gpu = "H100";
    CHECK(mfusim_estimator_create(&options, &plain, &error) == MFUSIM_OK);
    options.calibration = "{\"mfusim_calibration\": 1, \"efficiency\": {\"gemm\": 2.0}}";
    CHECK(mfusim_estimator_create(&options, &calibrated, &error) == MFUSIM_OK);
    options.calibration = "{\"mfusim_calibration\": 1, \"efficiency\": {\"gemm\": 40}}";
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_CONFIG);
    CHECK(strstr(error.message, "efficiency.gemm") != NULL);
    CHECK(refused == NULL);
    if (plain && legacy && calibrated) {
        CHECK(mfusim_step_time(plain, step, 2, &t_plain, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(legacy, step, 2, &t_legacy, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(calibrated, step, 2, &t_calibrated, &error) == MFUSIM_OK);
        CHECK(t_legacy == t_plain);
        CHECK(t_calibrated > 1.2 * t_plain); /* GEMMs are most of a 257-token step */
    }
    mfusim_estimator_free(plain);
    mfusim_estimator_free(legacy);
    mfusim_estimator_free(calibrated);
}

/* The speculative-decoding fields (appended after calibration): a caller of the previous size gets plain decoding and
 * its bytes past that size are never read; a drafter makes decode steps verify k + 1 tokens; an unknown drafter is
 * refused by name. */
static void test_speculative(void) {
    const size_t v1_1 = offsetof(mfusim_options, speculative);
    mfusim_error error;
    old_options old;
    mfusim_options options;
    mfusim_estimator *plain = NULL, *legacy = NULL, *speculative = NULL, *refused = NULL;
    mfusim_request step[4] = {{1, 2000, 0u, 0u}, {1, 2000, 0u, 0u}, {1, 2000, 0u, 0u}, {1, 2000, 0u, 0u}};
    double t_plain = 0, t_legacy = 0, t_speculative = 0;
    CHECK(v1_1 == 104);
    init_old_options(&old, v1_1);
    old.options.model = "qwen3-8b";
    old.options.gpu = "H100";
    CHECK(mfusim_estimator_create(&old.options, &legacy, &error) == MFUSIM_OK); /* 0xAB.. never read */

    mfusim_options_init(&options, sizeof options, NULL);
    CHECK(options.speculative == NULL && options.num_speculative_tokens == 0 && options.acceptance_rate == 0);
    options.model = "qwen3-8b";
    options.gpu = "H100";
    CHECK(mfusim_estimator_create(&options, &plain, &error) == MFUSIM_OK);
    options.speculative = "ngram";
    options.num_speculative_tokens = 3;
    options.acceptance_rate = 0.7;
    CHECK(mfusim_estimator_create(&options, &speculative, &error) == MFUSIM_OK);
    options.speculative = "medusa";
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_UNKNOWN_NAME);
    CHECK(strstr(error.message, "medusa") != NULL);
    options.speculative = "mtp"; /* qwen3-8b has no MTP layers */
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_CONFIG);
    CHECK(refused == NULL);
    if (plain && legacy && speculative) {
        CHECK(mfusim_step_time(plain, step, 4, &t_plain, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(legacy, step, 4, &t_legacy, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(speculative, step, 4, &t_speculative, &error) == MFUSIM_OK);
        CHECK(t_legacy == t_plain);
        CHECK(t_speculative > t_plain && t_speculative < 4 * t_plain);
    }
    mfusim_estimator_free(plain);
    mfusim_estimator_free(legacy);
    mfusim_estimator_free(speculative);
}

/* The images per request (appended after the speculative-decoding fields): a caller of the previous size gets no
 * images and its bytes past that size are never read; with images the model's vision tower is timed in the step of
 * a request's first chunk; a model without one refuses them naming vision_config. */
static void test_images(void) {
    static const char* vl_model =
        "{\"hidden_size\":2048,\"num_hidden_layers\":8,\"num_attention_heads\":16,\"num_key_value_heads\":4,"
        "\"intermediate_size\":6144,\"vocab_size\":32000,\"vision_config\":{\"depth\":27,\"hidden_size\":1152,"
        "\"intermediate_size\":4304,\"num_heads\":16,\"patch_size\":16,\"spatial_merge_size\":2,"
        "\"temporal_patch_size\":2,\"out_hidden_size\":2048}}";
    const size_t v1_2 = offsetof(mfusim_options, images_per_request);
    mfusim_error error;
    old_options old;
    mfusim_options options;
    mfusim_estimator *legacy = NULL, *text = NULL, *images = NULL, *refused = NULL;
    mfusim_request first = {2048, 0, 0u, 0u}, later = {2048, 2048, 0u, 0u};
    double t_legacy = 0, t_text = 0, t_images = 0, t_later_text = 0, t_later_images = 0;
    CHECK(v1_2 == 136);
    init_old_options(&old, v1_2);
    old.options.model = vl_model;
    old.options.gpu = "H100";
    CHECK(mfusim_estimator_create(&old.options, &legacy, &error) == MFUSIM_OK); /* 0xAB.. never read */

    mfusim_options_init(&options, sizeof options, NULL);
    CHECK(options.images_per_request == 0 && options.image_width == 0 && options.image_height == 0);
    options.model = vl_model;
    options.gpu = "H100";
    CHECK(mfusim_estimator_create(&options, &text, &error) == MFUSIM_OK);
    options.images_per_request = 1;
    options.image_width = 1024;
    options.image_height = 768;
    CHECK(mfusim_estimator_create(&options, &images, &error) == MFUSIM_OK);
    options.image_height = 0; /* a size is required with images */
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "image height") != NULL);
    options.image_height = 768;
    options.model = "qwen3-8b";
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_CONFIG);
    CHECK(strstr(error.message, "vision_config") != NULL);
    CHECK(refused == NULL);
    if (legacy && text && images) {
        CHECK(mfusim_step_time(legacy, &first, 1, &t_legacy, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(text, &first, 1, &t_text, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(images, &first, 1, &t_images, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(text, &later, 1, &t_later_text, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(images, &later, 1, &t_later_images, &error) == MFUSIM_OK);
        CHECK(t_legacy == t_text);
        CHECK(t_images > t_text);
        CHECK(t_later_images == t_later_text); /* a later chunk runs no encoder */
    }
    mfusim_estimator_free(legacy);
    mfusim_estimator_free(text);
    mfusim_estimator_free(images);
}

/* audio_seconds_per_request (appended after moe_routing_alpha): a caller of the previous size gets no audio and its
 * bytes past that size are never read; audio adds the tower to the first chunk's step only; a negative,
 * non-finite or too long clip, audio on a model without a tower, or any in compat mode, is refused. */
static void test_audio(void) {
    static const char* audio_model =
        "{\"text_config\":{\"hidden_size\":2048,\"num_hidden_layers\":8,\"num_attention_heads\":16,"
        "\"num_key_value_heads\":4,\"intermediate_size\":6144,\"vocab_size\":32000},\"audio_config\":{"
        "\"d_model\":1280,\"encoder_layers\":32,\"encoder_attention_heads\":20,\"encoder_ffn_dim\":5120,"
        "\"num_mel_bins\":128,\"max_source_positions\":1500}}";
    const size_t v1_4 = offsetof(mfusim_options, audio_seconds_per_request);
    mfusim_error error;
    old_options old;
    mfusim_options options;
    mfusim_estimator *legacy = NULL, *text = NULL, *audio = NULL, *refused = NULL;
    mfusim_request first = {2048, 0, 0u, 0u}, later = {2048, 2048, 0u, 0u};
    double t_legacy = 0, t_text = 0, t_audio = 0, t_later_text = 0, t_later_audio = 0;
    const double bad[4] = {-1.0, 3601.0, NAN, INFINITY};
    int i;
    CHECK(v1_4 == 168);
    init_old_options(&old, v1_4);
    old.options.model = audio_model;
    old.options.gpu = "H100";
    CHECK(mfusim_estimator_create(&old.options, &legacy, &error) == MFUSIM_OK); /* 0xAB.. never read */

    mfusim_options_init(&options, sizeof options, NULL);
    CHECK(options.audio_seconds_per_request == 0);
    options.model = audio_model;
    options.gpu = "H100";
    CHECK(mfusim_estimator_create(&options, &text, &error) == MFUSIM_OK);
    options.audio_seconds_per_request = 12.5;
    CHECK(mfusim_estimator_create(&options, &audio, &error) == MFUSIM_OK);
    for (i = 0; i < 4; ++i) {
        options.audio_seconds_per_request = bad[i];
        CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(error.message, "audio_seconds_per_request") != NULL);
        CHECK(refused == NULL);
    }
    options.audio_seconds_per_request = 45; /* past the padded tower's 30-second window */
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_UNSUPPORTED);
    CHECK(strstr(error.message, "max_source_positions") != NULL);
    options.audio_seconds_per_request = 10;
    options.model = "qwen3-8b";
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_CONFIG);
    CHECK(strstr(error.message, "audio_config") != NULL);
    options.model = audio_model;
    options.mode = MFUSIM_MODE_INFERSIM;
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(refused == NULL);
    if (legacy && text && audio) {
        CHECK(mfusim_step_time(legacy, &first, 1, &t_legacy, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(text, &first, 1, &t_text, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(audio, &first, 1, &t_audio, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(text, &later, 1, &t_later_text, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(audio, &later, 1, &t_later_audio, &error) == MFUSIM_OK);
        CHECK(t_legacy == t_text);
        CHECK(t_audio > t_text);
        CHECK(t_later_audio == t_later_text); /* a later chunk runs no encoder */
    }
    mfusim_estimator_free(legacy);
    mfusim_estimator_free(text);
    mfusim_estimator_free(audio);
}

/* draft_model (appended after audio_seconds_per_request): a caller of the previous size runs no draft model and its
 * bytes past that size are never read; the draft_model drafter needs it and no other drafter takes it; its passes
 * make a decode step dearer than the same verify step drafted by n-gram lookup. */
static void test_draft_model(void) {
    const size_t v1_5 = offsetof(mfusim_options, draft_model);
    mfusim_error error;
    old_options old;
    mfusim_options options;
    mfusim_estimator *legacy = NULL, *ngram = NULL, *drafted = NULL, *refused = NULL;
    mfusim_request decodes[4] = {{1, 2048, 0u, 0u}, {1, 1024, 0u, 0u}, {1, 512, 0u, 0u}, {1, 4096, 0u, 0u}};
    double t_legacy = 0, t_ngram = 0, t_drafted = 0;
    CHECK(v1_5 == 176);
    init_old_options(&old, v1_5);
    old.options.model = "qwen3-14b";
    old.options.gpu = "H100";
    old.options.speculative = "ngram";
    old.options.num_speculative_tokens = 2;
    old.options.acceptance_rate = 0.7;
    CHECK(mfusim_estimator_create(&old.options, &legacy, &error) == MFUSIM_OK); /* 0xAB.. never read */

    mfusim_options_init(&options, sizeof options, NULL);
    CHECK(options.draft_model == NULL);
    options.model = "qwen3-14b";
    options.gpu = "H100";
    options.speculative = "ngram";
    options.num_speculative_tokens = 2;
    options.acceptance_rate = 0.7;
    CHECK(mfusim_estimator_create(&options, &ngram, &error) == MFUSIM_OK);
    options.draft_model = "qwen3-8b"; /* n-gram lookup runs no model */
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "draft_model") != NULL);
    CHECK(refused == NULL);
    options.speculative = "draft_model";
    CHECK(mfusim_estimator_create(&options, &drafted, &error) == MFUSIM_OK);
    options.draft_model = NULL;
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "draft_model") != NULL);
    options.draft_model = "no-such-model";
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_UNKNOWN_NAME);
    CHECK(refused == NULL);
    if (legacy && ngram && drafted) {
        CHECK(mfusim_step_time(legacy, decodes, 4, &t_legacy, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(ngram, decodes, 4, &t_ngram, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(drafted, decodes, 4, &t_drafted, &error) == MFUSIM_OK);
        CHECK(t_legacy == t_ngram);
        CHECK(t_drafted > t_ngram);
    }
    mfusim_estimator_free(legacy);
    mfusim_estimator_free(ngram);
    mfusim_estimator_free(drafted);
}

/* moe_routing_alpha (appended after the images): a caller of the previous size gets the served (random)
 * routing and its bytes past that size are never read; a power law makes a prefill chunk's routed experts slower;
 * a negative, non-finite or too large exponent, or any in compat mode, is refused. */
static void test_moe_routing(void) {
    const size_t v1_3 = offsetof(mfusim_options, moe_routing_alpha);
    mfusim_error error;
    old_options old;
    mfusim_options options;
    mfusim_estimator *served = NULL, *legacy = NULL, *skewed = NULL, *refused = NULL;
    mfusim_request step[1] = {{1024, 0, 0u, 0u}};
    double t_served = 0, t_legacy = 0, t_skewed = 0;
    const double bad[4] = {-1.0, 10.5, NAN, INFINITY};
    int i;
    CHECK(v1_3 == 160);
    init_old_options(&old, v1_3);
    old.options.model = "qwen3-30b-a3b";
    old.options.gpu = "H100";
    old.options.expert_parallel = 8;
    old.options.attention_data_parallel = 8;
    CHECK(mfusim_estimator_create(&old.options, &legacy, &error) == MFUSIM_OK); /* 0xAB.. never read */

    mfusim_options_init(&options, sizeof options, NULL);
    CHECK(options.moe_routing_alpha == 0);
    options.model = "qwen3-30b-a3b";
    options.gpu = "H100";
    options.expert_parallel = 8;
    options.attention_data_parallel = 8;
    CHECK(mfusim_estimator_create(&options, &served, &error) == MFUSIM_OK);
    options.moe_routing_alpha = 1.2;
    CHECK(mfusim_estimator_create(&options, &skewed, &error) == MFUSIM_OK);
    for (i = 0; i < 4; ++i) {
        options.moe_routing_alpha = bad[i];
        CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(error.message, "moe_routing_alpha") != NULL);
        CHECK(refused == NULL);
    }
    options.moe_routing_alpha = 1.2;
    options.mode = MFUSIM_MODE_INFERSIM;
    options.expert_parallel = 1;
    options.attention_data_parallel = 1;
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(refused == NULL);
    if (served && legacy && skewed) {
        CHECK(mfusim_step_time(served, step, 1, &t_served, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(legacy, step, 1, &t_legacy, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(skewed, step, 1, &t_skewed, &error) == MFUSIM_OK);
        CHECK(t_legacy == t_served);
        CHECK(t_skewed > t_served);
    }
    mfusim_estimator_free(served);
    mfusim_estimator_free(legacy);
    mfusim_estimator_free(skewed);
}

/* A calibration's GPU constants (mfusim calibrate --kernels) apply to the GPU they were fitted for, through the same
 * options.calibration; on another GPU, or out of their bounds, the create call fails with a message and no handle. */
static void test_gpu_calibration(void) {
    mfusim_error error;
    mfusim_options options;
    mfusim_estimator *plain = NULL, *calibrated = NULL, *refused = NULL;
    mfusim_request decodes[2] = {{1, 4000, 0u, 0u}, {1, 8000, 0u, 0u}};
    double t_plain = 0, t_calibrated = 0;
    mfusim_options_init(&options, sizeof options, NULL);
    options.model = "qwen3-8b";
    options.gpu = "H100";
    CHECK(mfusim_estimator_create(&options, &plain, &error) == MFUSIM_OK);
    options.calibration =
        "{\"mfusim_calibration\": 2, \"gpu\": {\"name\": \"H100\", \"constants\": {\"memory_efficiency\": 0.4}}}";
    CHECK(mfusim_estimator_create(&options, &calibrated, &error) == MFUSIM_OK);
    if (plain && calibrated) {
        CHECK(mfusim_step_time(plain, decodes, 2, &t_plain, &error) == MFUSIM_OK);
        CHECK(mfusim_step_time(calibrated, decodes, 2, &t_calibrated, &error) == MFUSIM_OK);
        CHECK(t_calibrated > 1.3 * t_plain); /* 0.4 of HBM, not 0.87: weights and KV stream at half the rate */
    }
    options.gpu = "A100";
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_CONFIG);
    CHECK(strstr(error.message, "fitted for 'H100'") != NULL);
    CHECK(refused == NULL);
    options.gpu = "H100";
    options.calibration =
        "{\"mfusim_calibration\": 2, \"gpu\": {\"name\": \"H100\", \"constants\": {\"memory_efficiency\": 1.5}}}";
    CHECK(mfusim_estimator_create(&options, &refused, &error) == MFUSIM_ERR_CONFIG);
    CHECK(strstr(error.message, "gpu.constants.memory_efficiency") != NULL);
    CHECK(refused == NULL);
    mfusim_estimator_free(plain);
    mfusim_estimator_free(calibrated);
}

/* Fitting calibrations through the C API (mfusim_calibrate_steps / _kernels, as `mfusim calibrate` does): steps
 * timed by a "true" model whose GEMMs run 1.5x slower are fitted back, the document applied through
 * options.calibration reproduces them, and bad input fails with a message and no handle. */
static void test_calibrate(void) {
    mfusim_error error;
    mfusim_options options;
    mfusim_estimator *truth = NULL, *fitted = NULL;
    mfusim_calibration *calibration = NULL, *sentinel = (mfusim_calibration*)&error;
    char path[256], dir[256], file[300];
    FILE* f;
    int i;
    /* Paths with a byte that is not UTF-8 (\xe9, Latin-1 e-acute): the documents quoting them must still be
     * written (nlohmann's dump threw type_error 316 for them: MFUSIM_ERR_INTERNAL). */
    snprintf(path, sizeof path, "/tmp/mfusim_c_api_steps_\xe9_%d.jsonl", (int)getpid());
    snprintf(dir, sizeof dir, "/tmp/mfusim_c_api_kernels_\xe9_%d", (int)getpid());

    mfusim_options_init(&options, sizeof options, NULL);
    options.model = "qwen3-8b";
    options.gpu = "H100";
    options.calibration = "{\"mfusim_calibration\": 1, \"efficiency\": {\"gemm\": 1.5}}";
    CHECK(mfusim_estimator_create(&options, &truth, &error) == MFUSIM_OK);
    if (!truth) return;
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "{\"model\": \"qwen3-8b\", \"gpu\": \"H100\"}\n");
    for (i = 0; i < 64; ++i) {
        mfusim_request step[2] = {{1 + (i % 4) * 170, 256 * (i % 8), 0u, 0u}, {1, 500 + 37 * i, 0u, 0u}};
        double t = 0;
        mfusim_step_time(truth, step, 2, &t, NULL);
        fprintf(f,
                "{\"requests\": [{\"new_tokens\": %d, \"context\": %d}, {\"new_tokens\": 1, \"context\": %d}], "
                "\"measured_us\": %.17g, \"group\": \"g%d\"}\n",
                (int)step[0].new_tokens, (int)step[0].context, (int)step[1].context, t, i % 4);
    }
    fclose(f);

    mfusim_options_init(&options, sizeof options, NULL); /* model and gpu from the file's header */
    CHECK(mfusim_calibrate_steps(&options, path, 0, &calibration, &error) == MFUSIM_OK);
    if (calibration) {
        CHECK(mfusim_calibration_improved(calibration) == 1);
        CHECK(strstr(mfusim_calibration_document(calibration), "\"mfusim_calibration\"") != NULL);
        CHECK(strstr(mfusim_calibration_document(calibration), "steps_\xef\xbf\xbd_") != NULL); /* U+FFFD */
        CHECK(strstr(mfusim_calibration_report(calibration), "held out") != NULL);
        options.model = "qwen3-8b";
        options.gpu = "H100";
        options.calibration = mfusim_calibration_document(calibration);
        CHECK(mfusim_estimator_create(&options, &fitted, &error) == MFUSIM_OK);
        if (fitted) {
            mfusim_request probe[3] = {{300, 1000, 0u, 0u}, {1, 4000, 0u, 0u}, {1, 90, 0u, 0u}};
            double t_truth = 0, t_fitted = 0;
            CHECK(mfusim_step_time(truth, probe, 3, &t_truth, &error) == MFUSIM_OK);
            CHECK(mfusim_step_time(fitted, probe, 3, &t_fitted, &error) == MFUSIM_OK);
            CHECK(fabs(t_fitted / t_truth - 1) < 0.03);
        }
        mfusim_estimator_free(fitted);
    }
    mfusim_calibration_free(calibration);
    CHECK(mfusim_calibration_document(NULL) == NULL && mfusim_calibration_improved(NULL) == 0);

    mfusim_options_init(&options, sizeof options, NULL);
    calibration = sentinel;
    CHECK(mfusim_calibrate_steps(&options, NULL, 0, &calibration, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(mfusim_calibrate_steps(&options, path, 1, &calibration, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "folds") != NULL);
    CHECK(mfusim_calibrate_steps(&options, "/nonexistent/steps.jsonl", 0, &calibration, &error) == MFUSIM_ERR_IO);
    CHECK(strstr(error.message, "/nonexistent/steps.jsonl") != NULL);
    CHECK(calibration == sentinel); /* nothing written on failure */
    /* A subnormal measurement turned every relative error infinite and the fit NaN, returned with MFUSIM_OK. */
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "{\"model\": \"qwen3-8b\", \"gpu\": \"H100\"}\n");
    for (i = 0; i < 8; ++i) {
        fprintf(f,
                "{\"requests\": [{\"new_tokens\": %d, \"context\": 100}], \"measured_us\": %s, \"group\": \"g%d\"}\n",
                1 + i, i == 3 ? "1e-310" : "500", i % 4);
    }
    fclose(f);
    CHECK(mfusim_calibrate_steps(&options, path, 0, &calibration, &error) == MFUSIM_ERR_CONFIG);
    CHECK(strstr(error.message, ":5: field 'measured_us': must be a positive time") != NULL);
    CHECK(calibration == sentinel);
    /* tensor_parallel against the header's tp: 1 (also init's default, so not told from unset) is refused, never
     * silently overridden; 0 takes the header's. One step is enough: the deployment is settled before the fit. */
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f,
            "{\"model\": \"qwen3-8b\", \"gpu\": \"H100\", \"tp\": 2}\n"
            "{\"requests\": [{\"new_tokens\": 1, \"context\": 10}], \"measured_us\": 5000}\n");
    fclose(f);
    CHECK(mfusim_calibrate_steps(&options, path, 0, &calibration, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "options.tensor_parallel is 1 but the steps' header says tp 2") != NULL);
    CHECK(calibration == sentinel);
    options.tensor_parallel = 0; /* the header's */
    CHECK(mfusim_calibrate_steps(&options, path, 0, &calibration, &error) == MFUSIM_OK);
    if (calibration != sentinel && calibration) {
        CHECK(strstr(mfusim_calibration_document(calibration), "\"tp\": 2") != NULL);
        mfusim_calibration_free(calibration);
    }
    calibration = sentinel;
    options.tensor_parallel = 1;
    remove(path);

    /* Kernels: a few GEMM rows measured on an "A100" (AIConfigurator layout: m, n, k, latency in ms). */
    mkdir(dir, 0700);
    snprintf(file, sizeof file, "%s/gemm_bf16.csv", dir);
    f = fopen(file, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "m,n,k,latency\n");
    for (i = 0; i < 48; ++i) {
        int n = 1024 << (i % 4), k = 2048 << ((i / 4) % 3), m = 1 << (i / 12 * 3);
        fprintf(f, "%d,%d,%d,%.6f\n", m, n, k, 0.004 + 2.0 * m * n * k / 200e12 * 1e3 + 2.0 * n * k / 1.4e12 * 1e3);
    }
    fclose(f);
    options.gpu = "A100";
    CHECK(mfusim_calibrate_kernels(&options, dir, &calibration, &error) == MFUSIM_OK);
    if (calibration != sentinel && calibration) {
        CHECK(strstr(mfusim_calibration_document(calibration), "\"gpu\"") != NULL);
        CHECK(strstr(mfusim_calibration_document(calibration), "kernels_\xef\xbf\xbd_") != NULL);
        CHECK(strstr(mfusim_calibration_report(calibration), "gemm") != NULL);
        mfusim_calibration_free(calibration);
    }
    calibration = sentinel;
    options.gpu = NULL;
    CHECK(mfusim_calibrate_kernels(&options, dir, &calibration, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "options.gpu") != NULL);
    options.gpu = "A100";
    CHECK(mfusim_calibrate_kernels(&options, "/nonexistent/kernels", &calibration, &error) != MFUSIM_OK);
    CHECK(strstr(error.message, "/nonexistent/kernels") != NULL);
    CHECK(calibration == sentinel);
    remove(file);
    rmdir(dir);
    mfusim_estimator_free(truth);
}

/* The engine simulator: defaults, a run, determinism, the accessors, errors naming the field, struct sizes. */
static int all_finite_non_negative(const mfusim_simulation_summary* s) {
    const mfusim_latency_summary* l[5];
    double v[9];
    int i, j;
    l[0] = &s->ttft_ms;
    l[1] = &s->tpot_ms;
    l[2] = &s->itl_ms;
    l[3] = &s->e2el_ms;
    l[4] = &s->queue_ms;
    v[0] = s->duration_s;
    v[1] = s->request_throughput;
    v[2] = s->request_goodput;
    v[3] = s->output_throughput;
    v[4] = s->total_token_throughput;
    v[5] = s->mean_batch_tokens;
    v[6] = s->mean_running;
    v[7] = v[8] = 0;
    for (i = 0; i < 9; ++i) {
        if (!isfinite(v[i]) || v[i] < 0) return 0;
    }
    for (j = 0; j < 5; ++j) {
        const double* d = &l[j]->mean;
        for (i = 0; i < 8; ++i) {
            if (!isfinite(d[i]) || d[i] < 0) return 0;
        }
    }
    return 1;
}

static void test_simulation(void) {
    mfusim_estimator* estimator = open_estimator("llama-3.1-8b-instruct", "H100", MFUSIM_MODE_ROOFLINE, NULL);
    mfusim_simulation sim;
    mfusim_simulation_result* a = NULL;
    mfusim_simulation_result* b = NULL;
    mfusim_simulation_result* sentinel = (mfusim_simulation_result*)&sim;
    mfusim_simulation_result* untouched = sentinel;
    mfusim_simulation_summary summary;
    mfusim_error error;
    const mfusim_simulated_request* ra;
    const mfusim_simulated_request* rb;
    const mfusim_simulated_step* steps;
    size_t na = 0, nb = 0, nsteps = 0, i;
    double p50 = -1, p99 = -1, p100 = -1, p = 7;
    CHECK(estimator != NULL);
    if (!estimator) return;

    /* Defaults, and only released sizes. */
    CHECK(mfusim_simulation_init(&sim, sizeof sim, &error) == MFUSIM_OK);
    CHECK(sim.struct_size == sizeof sim);
    CHECK(sim.num_prompts == 1000 && sim.warmup == 0 && isinf(sim.request_rate) && sim.burstiness == 1.0);
    CHECK(sim.input_len == 1024 && sim.output_len == 128 && sim.input_distribution == MFUSIM_LENGTH_FIXED);
    CHECK(sim.scheduler == MFUSIM_SCHEDULER_ENGINE && sim.max_batched_tokens == 0 && sim.trace == NULL);
    CHECK(mfusim_simulation_init(&sim, sizeof sim - 4, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(strstr(error.message, "simulation size") != NULL);
    CHECK(mfusim_simulation_init(NULL, sizeof sim, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(mfusim_simulation_summary_init(&summary, 12, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(mfusim_simulation_summary_init(&summary, sizeof summary, &error) == MFUSIM_OK && summary.completed == 0);

    /* A small benchmark: 24 requests of seeded uniform lengths, 4 clients, timeline kept. */
    mfusim_simulation_init(&sim, sizeof sim, NULL);
    sim.num_prompts = 24;
    sim.warmup = 2;
    sim.max_concurrency = 4;
    sim.input_distribution = MFUSIM_LENGTH_UNIFORM;
    sim.input_len = 256;
    sim.input_spread = 64;
    sim.output_len = 16;
    sim.seed = 7;
    sim.slo_ttft_ms = 1e9;
    sim.record_timeline = 1;
    CHECK(mfusim_simulate(estimator, &sim, &a, &error) == MFUSIM_OK);
    CHECK(mfusim_simulate(estimator, &sim, &b, &error) == MFUSIM_OK);
    CHECK(a != NULL && b != NULL);
    if (!a || !b) {
        fprintf(stderr, "simulate failed: %s\n", error.message);
        mfusim_estimator_free(estimator);
        return;
    }
    mfusim_simulation_summary_init(&summary, sizeof summary, NULL);
    CHECK(mfusim_simulation_result_summary(a, &summary, &error) == MFUSIM_OK);
    CHECK(summary.completed == 22 && summary.total_output_tokens == 22 * 16);
    CHECK(summary.steps > 0 && summary.duration_s > 0);
    CHECK(summary.request_goodput == summary.request_throughput); /* a generous SLO: every request meets it */
    CHECK(summary.ttft_ms.mean > 0 && summary.ttft_ms.min <= summary.ttft_ms.median);
    CHECK(summary.ttft_ms.median <= summary.ttft_ms.p99 && summary.ttft_ms.p99 <= summary.ttft_ms.max);
    CHECK(summary.itl_ms.mean > 0 && summary.tpot_ms.mean > 0 && summary.e2el_ms.mean > summary.ttft_ms.mean);
    CHECK(all_finite_non_negative(&summary));
    ra = mfusim_simulation_result_requests(a, &na);
    rb = mfusim_simulation_result_requests(b, &nb);
    CHECK(ra != NULL && na == 24 && nb == 24);
    /* Determinism: the same seed gives identical arrays. */
    CHECK(rb != NULL && memcmp(ra, rb, na * sizeof *ra) == 0);
    CHECK(ra[0].warmup == 1 && ra[1].warmup == 1 && ra[2].warmup == 0);
    for (i = 0; i < na; ++i) {
        CHECK(ra[i].input_len >= 192 && ra[i].input_len <= 320 && ra[i].output_len == 16);
        CHECK(isfinite(ra[i].ttft_ms) && ra[i].ttft_ms > 0 && ra[i].e2el_ms >= ra[i].ttft_ms);
    }
    steps = mfusim_simulation_result_timeline(a, &nsteps);
    CHECK(steps != NULL && (int64_t)nsteps == summary.steps);
    CHECK(steps != NULL && steps[0].duration_ms > 0 && steps[0].running > 0);
    CHECK(mfusim_simulation_result_percentile(a, MFUSIM_METRIC_TTFT, 50, &p50, &error) == MFUSIM_OK);
    CHECK(p50 == summary.ttft_ms.median);
    CHECK(mfusim_simulation_result_percentile(a, MFUSIM_METRIC_ITL, 99, &p99, &error) == MFUSIM_OK);
    CHECK(p99 == summary.itl_ms.p99);
    CHECK(mfusim_simulation_result_percentile(a, MFUSIM_METRIC_E2EL, 100, &p100, &error) == MFUSIM_OK);
    CHECK(p100 == summary.e2el_ms.max);
    CHECK(mfusim_simulation_result_percentile(a, MFUSIM_METRIC_TTFT, 101, &p, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(mfusim_simulation_result_percentile(a, 9, 50, &p, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(p == 7 && strstr(error.message, "metric 9") != NULL);
    summary.struct_size = 16;
    summary.completed = -3;
    CHECK(mfusim_simulation_result_summary(a, &summary, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(summary.completed == -3);
    mfusim_simulation_result_free(b);
    b = NULL;

    /* Closed-loop clients started over a ramp: the first four sends are spread over it, not all at 0; a negative
     * ramp is refused by name; a caller of the layout before ramp_up_s (its struct_size) gets none. */
    sim.ramp_up_s = 0.3;
    CHECK(mfusim_simulate(estimator, &sim, &b, &error) == MFUSIM_OK);
    rb = mfusim_simulation_result_requests(b, &nb);
    CHECK(rb != NULL && nb == 24 && rb[0].send_ms == 0 && rb[3].send_ms > 200 && rb[3].send_ms < 300);
    mfusim_simulation_result_free(b);
    b = NULL;
    sim.ramp_up_s = -1;
    CHECK(mfusim_simulate(estimator, &sim, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "ramp_up_s") != NULL && untouched == sentinel);
    sim.struct_size = sizeof sim - sizeof sim.ramp_up_s; /* the first layout: ramp_up_s is not read */
    CHECK(mfusim_simulate(estimator, &sim, &b, &error) == MFUSIM_OK);
    rb = mfusim_simulation_result_requests(b, &nb);
    CHECK(rb != NULL && nb == 24 && memcmp(ra, rb, na * sizeof *ra) == 0);
    mfusim_simulation_result_free(b);
    b = NULL;
    sim.struct_size = sizeof sim;
    sim.ramp_up_s = 0;

    /* A different seed draws different lengths; no timeline unless asked. */
    sim.seed = 8;
    sim.record_timeline = 0;
    CHECK(mfusim_simulate(estimator, &sim, &b, &error) == MFUSIM_OK);
    rb = mfusim_simulation_result_requests(b, &nb);
    CHECK(rb != NULL && nb == na && memcmp(ra, rb, na * sizeof *ra) != 0);
    CHECK(mfusim_simulation_result_timeline(b, &nsteps) == NULL && nsteps == 0);
    mfusim_simulation_result_free(b);

    /* A trace replaces the generated requests. */
    {
        mfusim_trace_request trace[3] = {{0.0, 128, 8, -1, 0}, {0.01, 256, 4, 1, 64}, {0.02, 256, 4, 1, 64}};
        mfusim_simulation t;
        mfusim_simulation_init(&t, sizeof t, NULL);
        t.trace = trace;
        t.trace_count = 3;
        b = NULL;
        CHECK(mfusim_simulate(estimator, &t, &b, &error) == MFUSIM_OK);
        rb = mfusim_simulation_result_requests(b, &nb);
        CHECK(nb == 3 && rb != NULL && rb[0].input_len == 128 && rb[2].output_len == 4);
        mfusim_simulation_result_free(b);
        trace[2].arrival_s = 0.001; /* before the previous request's */
        CHECK(mfusim_simulate(estimator, &t, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(error.message, "trace[2].arrival_s") != NULL && untouched == sentinel);
        t.trace = NULL;
        CHECK(mfusim_simulate(estimator, &t, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(error.message, "trace") != NULL);
    }

    /* A bad field: the error names it and *out is untouched. */
    sim.num_prompts = 0;
    CHECK(mfusim_simulate(estimator, &sim, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "num_prompts") != NULL && untouched == sentinel);
    sim.num_prompts = 24;
    sim.burstiness = -1;
    CHECK(mfusim_simulate(estimator, &sim, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "burstiness") != NULL);
    sim.burstiness = 1;
    sim.max_seqs = -1;
    CHECK(mfusim_simulate(estimator, &sim, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "max_seqs") != NULL);
    sim.max_seqs = 0;
    sim.output_distribution = 17;
    CHECK(mfusim_simulate(estimator, &sim, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "output_distribution") != NULL);
    sim.output_distribution = MFUSIM_LENGTH_FIXED;
    sim.slo_tpot_ms = NAN;
    CHECK(mfusim_simulate(estimator, &sim, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "slo_tpot_ms") != NULL);
    sim.slo_tpot_ms = 0;
    sim.struct_size = 24;
    CHECK(mfusim_simulate(estimator, &sim, &untouched, &error) == MFUSIM_ERR_STRUCT_SIZE);
    sim.struct_size = sizeof sim;
    CHECK(mfusim_simulate(estimator, NULL, &untouched, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(mfusim_simulate(estimator, &sim, NULL, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(untouched == sentinel);

    /* NULL-safe accessors and free. */
    CHECK(mfusim_simulation_result_requests(NULL, &na) == NULL && na == 0);
    CHECK(mfusim_simulation_result_timeline(NULL, NULL) == NULL);
    mfusim_simulation_result_free(NULL);
    mfusim_simulation_result_free(a);
    mfusim_estimator_free(estimator);

    /* Compat mode has no step times to simulate with. */
    estimator = open_estimator("qwen3-8b", "H20", MFUSIM_MODE_INFERSIM, NULL);
    CHECK(estimator != NULL);
    sim.num_prompts = 4;
    CHECK(mfusim_simulate(estimator, &sim, &untouched, &error) == MFUSIM_ERR_UNSUPPORTED);
    mfusim_estimator_free(estimator);
}

/* The disaggregated estimate (since 1.2): two estimators, one per pool; its TTFT is its parts; sizes checked. */
static void test_disagg(void) {
    mfusim_estimator* prefill = open_estimator("llama-3.1-8b-instruct", "H100", MFUSIM_MODE_ROOFLINE, NULL);
    mfusim_estimator* decode = open_estimator("llama-3.1-8b-instruct", "H100", MFUSIM_MODE_ROOFLINE, NULL);
    mfusim_estimator* other_gpu = open_estimator("llama-3.1-8b-instruct", "H200", MFUSIM_MODE_ROOFLINE, NULL);
    mfusim_disagg_serving serving;
    mfusim_disagg_result r;
    mfusim_error error;
    CHECK(prefill && decode && other_gpu);
    if (!prefill || !decode || !other_gpu) return;
    CHECK(mfusim_disagg_serving_init(&serving, 9, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(mfusim_disagg_serving_init(&serving, sizeof serving, &error) == MFUSIM_OK && serving.decode_workers == 1);
    CHECK(mfusim_disagg_result_init(&r, sizeof r, &error) == MFUSIM_OK && r.ttft_ms == 0);
    serving.concurrency = 64;
    serving.prefill_workers = 2;
    serving.decode_workers = 3;
    CHECK(mfusim_disagg_estimate(prefill, decode, &serving, &r, &error) == MFUSIM_OK);
    CHECK(r.ttft_ms > 0 && r.tpot_ms > 0 && isfinite(r.output_throughput_tok_s_gpu));
    CHECK(fabs(r.ttft_ms - (r.admission_ms + r.prefill_queue_ms + r.prefill_ms + r.transfer_ms + r.decode_wait_ms)) <
          1e-9 * r.ttft_ms);
    CHECK(r.prefill_gpus == 1 && r.decode_gpus == 1 && r.transfer_over_network == 0);
    CHECK(mfusim_disagg_estimate(prefill, other_gpu, &serving, &r, &error) == MFUSIM_ERR_CONFIG);
    serving.decode_workers = 0;
    CHECK(mfusim_disagg_estimate(prefill, decode, &serving, &r, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "decode_workers") != NULL);
    CHECK(mfusim_disagg_estimate(prefill, NULL, &serving, &r, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    mfusim_estimator_free(prefill);
    mfusim_estimator_free(decode);
    mfusim_estimator_free(other_gpu);
}

/* The decode estimator in its pool's role, as `serve --disagg` builds it: an SGLang decode server graphs its whole
 * running batch (docs/disagg.md, section 12), so at 400 requests on an H100, past the engine's own graph limit of
 * 256, its step is shorter than the same engine's with the role switched off (disagg_decode_graphs_whole_batch 0),
 * whose batch runs eagerly. No mfusim_options field is needed: the estimator keeps what it was built from. */
static void test_disagg_decode_role(void) {
    const char* engines[2] = {"sglang", "{\"base\": \"sglang\", \"disagg_decode_graphs_whole_batch\": 0}"};
    mfusim_estimator* pools[2] = {NULL, NULL};
    double step_ms[2] = {0, 0};
    mfusim_disagg_serving serving;
    mfusim_disagg_result r;
    mfusim_error error;
    int i;
    for (i = 0; i < 2; ++i) {
        mfusim_options options;
        mfusim_options_init(&options, sizeof(options), NULL);
        options.model = "llama-3.1-8b-instruct";
        options.gpu = "H100";
        options.engine = engines[i];
        CHECK(mfusim_estimator_create(&options, &pools[i], &error) == MFUSIM_OK);
    }
    if (!pools[0] || !pools[1]) return;
    mfusim_disagg_serving_init(&serving, sizeof serving, NULL);
    serving.input_len = 128;
    serving.output_len = 64;
    serving.concurrency = 400;
    serving.decode_batch = 400;
    for (i = 0; i < 2; ++i) {
        mfusim_disagg_result_init(&r, sizeof r, NULL);
        CHECK(mfusim_disagg_estimate(pools[0], pools[i], &serving, &r, &error) == MFUSIM_OK);
        step_ms[i] = r.decode_step_ms;
    }
    CHECK(step_ms[0] > 0 && step_ms[0] < step_ms[1]);
    /* Built once and kept: the same answer again. */
    CHECK(mfusim_disagg_estimate(pools[0], pools[0], &serving, &r, &error) == MFUSIM_OK &&
          r.decode_step_ms == step_ms[0]);
    mfusim_estimator_free(pools[0]);
    mfusim_estimator_free(pools[1]);
}

/* mfusim_plan: the rows of `mfusim plan`, each the serving estimate of its deployment, the best marked per GPU. */
static void test_plan(void) {
    mfusim_error error;
    mfusim_options o;
    mfusim_serving serving;
    mfusim_plan_request request;
    mfusim_plan_result* result = NULL;
    const char* gpus[] = {"H100", "H200"};
    const int64_t tps[] = {1, 2};
    const mfusim_plan_row* rows;
    const mfusim_plan_gpu* per_gpu;
    size_t n_rows = 0, n_gpus = 0, i, g;
    CHECK(mfusim_options_init(&o, sizeof o, &error) == MFUSIM_OK);
    o.model = "llama-3.1-8b-instruct";
    CHECK(mfusim_serving_init(&serving, sizeof serving, &error) == MFUSIM_OK);
    serving.input_len = 1024;
    serving.output_len = 128;
    CHECK(mfusim_plan_request_init(&request, 7, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(mfusim_plan_request_init(&request, sizeof request, &error) == MFUSIM_OK && request.max_concurrency == 512);
    request.gpus = gpus;
    request.gpu_count = 2;
    request.tp_list = tps;
    request.tp_count = 2;
    request.max_concurrency = 16;
    request.max_tpot_ms = 10;
    CHECK(mfusim_plan(&o, &serving, &request, &result, &error) == MFUSIM_OK);
    rows = mfusim_plan_result_rows(result, &n_rows);
    per_gpu = mfusim_plan_result_gpus(result, &n_gpus);
    CHECK(n_gpus == 2 && n_rows == 20); /* two degrees x five concurrencies (1..16) per GPU */
    CHECK(strcmp(mfusim_plan_result_gpu_name(result, 1), "H200") == 0 &&
          mfusim_plan_result_gpu_name(result, 2) == NULL);
    CHECK(mfusim_plan_result_warnings(result) != NULL && mfusim_plan_result_last_skip(result, 0) != NULL);
    for (g = 0; g < n_gpus && per_gpu; ++g) {
        double best = -1;
        int64_t meeting = 0;
        for (i = 0; i < n_rows; ++i) {
            if (rows[i].gpu_index != (int32_t)g) continue;
            CHECK(rows[i].meets_limits == (rows[i].tpot_ms <= 10));
            CHECK(fabs(rows[i].output_tok_s_user - 1000 / rows[i].tpot_ms) < 1e-9 * rows[i].output_tok_s_user);
            if (rows[i].meets_limits && rows[i].output_tok_s_gpu > best) best = rows[i].output_tok_s_gpu;
            meeting += rows[i].meets_limits;
        }
        CHECK(per_gpu[g].meeting_limits == meeting && per_gpu[g].evaluated == 10);
        CHECK(per_gpu[g].best_row >= 0 && rows[per_gpu[g].best_row].best == 1);
        CHECK(rows[per_gpu[g].best_row].output_tok_s_gpu == best);
    }
    /* A row is the serving estimate of its deployment. */
    if (n_rows == 20) {
        mfusim_estimator* e = NULL;
        mfusim_serving_result served;
        o.gpu = "H200";
        o.tensor_parallel = (int32_t)rows[13].tp;
        serving.concurrency = rows[13].concurrency;
        CHECK(mfusim_estimator_create(&o, &e, &error) == MFUSIM_OK);
        CHECK(mfusim_serving_result_init(&served, sizeof served, &error) == MFUSIM_OK);
        CHECK(mfusim_serving_estimate(e, &serving, &served, &error) == MFUSIM_OK);
        CHECK(served.ttft_ms == rows[13].ttft_ms && served.tpot_ms == rows[13].tpot_ms);
        mfusim_estimator_free(e);
        o.gpu = NULL;
        o.tensor_parallel = 1;
    }
    mfusim_plan_result_free(result);
    CHECK(mfusim_plan_result_rows(NULL, &n_rows) == NULL && n_rows == 0);
    mfusim_plan_result_free(NULL);

    gpus[1] = "no-such-gpu";
    result = NULL;
    CHECK(mfusim_plan(&o, &serving, &request, &result, &error) == MFUSIM_ERR_UNKNOWN_NAME && result == NULL);
    gpus[1] = "H200";
    request.tp_count = 0;
    CHECK(mfusim_plan(&o, &serving, &request, &result, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "tp_list") != NULL);
    request.tp_count = 2;
    request.max_ttft_ms = -1;
    CHECK(mfusim_plan(&o, &serving, &request, &result, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "max_ttft_ms") != NULL);
    request.max_ttft_ms = 0;
    request.reserved = 1;
    CHECK(mfusim_plan(&o, &serving, &request, &result, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    request.reserved = 0;
    CHECK(mfusim_plan(&o, &serving, &request, NULL, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(mfusim_plan(NULL, &serving, &request, &result, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
}

/* mfusim_sweep: the points of `mfusim sweep`, each a step time or serving estimate; refused points keep their row. */
static void test_sweep(void) {
    mfusim_error error;
    mfusim_options o;
    mfusim_serving serving;
    mfusim_sweep_request request;
    mfusim_sweep_result* result = NULL;
    const char* batches[] = {"1", "8", "64"};
    const char* models[] = {"llama-3.1-8b-instruct", "no-such-model"};
    const char* concurrencies[] = {"1", "16"};
    const mfusim_sweep_row* rows;
    size_t n = 0, i;
    CHECK(mfusim_options_init(&o, sizeof o, &error) == MFUSIM_OK);
    o.gpu = "H100";
    CHECK(mfusim_serving_init(&serving, sizeof serving, &error) == MFUSIM_OK);
    CHECK(mfusim_sweep_request_init(&request, 3, &error) == MFUSIM_ERR_STRUCT_SIZE);
    CHECK(mfusim_sweep_request_init(&request, sizeof request, &error) == MFUSIM_OK);
    CHECK(request.series == MFUSIM_SWEEP_NONE && request.decode_batch == 32 && request.context == 2048);
    request.vary = MFUSIM_SWEEP_DECODE_BATCH;
    request.vary_values = batches;
    request.vary_count = 3;
    request.series = MFUSIM_SWEEP_MODEL;
    request.series_values = models;
    request.series_count = 2;
    CHECK(mfusim_sweep(&o, &serving, &request, &result, &error) == MFUSIM_OK);
    rows = mfusim_sweep_result_rows(result, &n);
    CHECK(n == 6);
    if (n == 6) {
        /* The step time of each point is mfusim_step_time of that step. */
        mfusim_estimator* e = NULL;
        mfusim_request decodes[64];
        double us = 0;
        o.model = "llama-3.1-8b-instruct";
        CHECK(mfusim_estimator_create(&o, &e, &error) == MFUSIM_OK);
        for (i = 0; i < 64; ++i) {
            decodes[i].new_tokens = 1;
            decodes[i].context = 2048;
            decodes[i].flags = 0;
            decodes[i].reserved = 0;
        }
        CHECK(mfusim_step_time(e, decodes, 8, &us, &error) == MFUSIM_OK);
        CHECK(rows[1].ok == 1 && rows[1].vary_index == 1 && rows[1].series_index == 0 && rows[1].step_ms == us / 1000);
        CHECK(rows[0].step_ms <= rows[1].step_ms && rows[1].step_ms <= rows[2].step_ms);
        CHECK(strlen(mfusim_sweep_result_detail(result, 1)) > 0 && mfusim_sweep_result_error(result, 1)[0] == 0);
        for (i = 3; i < 6; ++i) {
            CHECK(rows[i].ok == 0 && rows[i].series_index == 1 && rows[i].step_ms == 0);
            CHECK(strlen(mfusim_sweep_result_error(result, i)) > 0);
        }
        CHECK(mfusim_sweep_result_error(result, 6) == NULL);
        mfusim_estimator_free(e);
        o.model = NULL;
    }
    mfusim_sweep_result_free(result);

    /* A serving sweep: more clients, more throughput per GPU. */
    o.model = "llama-3.1-8b-instruct";
    request.serving = 1;
    request.vary = MFUSIM_SWEEP_CONCURRENCY;
    request.vary_values = concurrencies;
    request.vary_count = 2;
    request.series = MFUSIM_SWEEP_NONE;
    result = NULL;
    CHECK(mfusim_sweep(&o, &serving, &request, &result, &error) == MFUSIM_OK);
    rows = mfusim_sweep_result_rows(result, &n);
    CHECK(n == 2 && rows[0].ok && rows[1].ok && rows[1].output_tok_s_gpu > rows[0].output_tok_s_gpu);
    mfusim_sweep_result_free(result);

    /* A step parameter in a serving sweep, a bad value, an unknown parameter. */
    request.vary = MFUSIM_SWEEP_DECODE_BATCH;
    CHECK(mfusim_sweep(&o, &serving, &request, &result, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    request.serving = 0;
    batches[0] = "-1";
    request.vary_values = batches;
    request.vary_count = 3;
    CHECK(mfusim_sweep(&o, &serving, &request, &result, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    batches[0] = "1";
    request.vary = 42;
    CHECK(mfusim_sweep(&o, &serving, &request, &result, &error) == MFUSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "sweep_request.vary") != NULL);
    CHECK(mfusim_sweep_result_rows(NULL, &n) == NULL && n == 0);
}

int main(int argc, char** argv) {
    char tables[4096];
    tables[0] = '\0';
    if (argc > 1) snprintf(tables, sizeof tables, "%s/bench_data", argv[1]);
    test_version();
    test_errors();
    test_steps(NULL);
    if (tables[0]) test_steps(tables);
    test_compat_estimate();
    test_calibration();
    test_speculative();
    test_images();
    test_moe_routing();
    test_audio();
    test_draft_model();
    test_gpu_calibration();
    test_calibrate();
    test_simulation();
    test_disagg();
    test_disagg_decode_role();
    test_plan();
    test_sweep();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
