/* SWIG interface for the Java binding: the JNI layer io.mfusim.swig (class MfusimNative), over which io.mfusim
 * builds the idiomatic API. Generated at build time by bindings/CMakeLists.txt, which also compiles the C wrapper
 * into libmfusim_jni.so.
 *
 * Java-shaped typemaps:
 *  - the trailing mfusim_error* vanishes; a failed call throws io.mfusim.MfusimException(status, message), raised
 *    after every pinned array has been released (the error argument comes last, so its freearg runs last);
 *  - requests travel as a long[] of packed 24-byte records (new_tokens, context, flags | reserved << 32 on a
 *    little-endian machine), step sizes as long[], outputs as double[]; all are pinned with
 *    GetPrimitiveArrayCritical, never copied per call;
 *  - functions with out-parameters are wrapped by small helpers below that return the value instead. */
%module MfusimNative

/* The JNI class loads libmfusim_jni itself (io.mfusim.NativeLibrary says from where). */
%pragma(java) jniclasscode=%{
  static {
    io.mfusim.NativeLibrary.load();
  }
%}

%include <stdint.i>
/* SWIGWORDSIZE64 makes int64_t a C long (as on the LP64 platform), and SWIG maps C long to a Java int: use
 * Java long for it. */
%apply long long { int64_t };

%{
#include <jni.h>
#include "mfusim.h"

static void mfusim_java_throw(JNIEnv* jenv, const mfusim_error* error) {
    jclass cls;
    jmethodID ctor;
    jstring message;
    jobject exception;
    if ((*jenv)->ExceptionCheck(jenv)) return;
    cls = (*jenv)->FindClass(jenv, "io/mfusim/MfusimException");
    if (!cls) return;
    ctor = (*jenv)->GetMethodID(jenv, cls, "<init>", "(ILjava/lang/String;)V");
    if (!ctor) return;
    message = (*jenv)->NewStringUTF(jenv, error->message);
    if (!message) return;
    exception = (*jenv)->NewObject(jenv, cls, ctor, (jint)error->status, message);
    if (exception) (*jenv)->Throw(jenv, (jthrowable)exception);
}

/* A packed long[] of requests: 3 longs per request. */
static int mfusim_java_requests_fit(size_t packed_len, size_t n_requests, mfusim_error* error) {
    if (n_requests <= packed_len / 3) return 1;
    error->status = MFUSIM_ERR_INVALID_ARGUMENT;
    snprintf(error->message, sizeof error->message, "%zu requests do not fit in a packed array of %zu longs",
             n_requests, packed_len);
    return 0;
}
%}

/* ---- errors --------------------------------------------------------------------------------------------- */
%typemap(in, numinputs=0) mfusim_error* error (mfusim_error temp) %{ temp.status = MFUSIM_OK; $1 = &temp; %}
%typemap(freearg) mfusim_error* error %{ if ($1->status != MFUSIM_OK) mfusim_java_throw(jenv, $1); %}

/* ---- pinned arrays -------------------------------------------------------------------------------------- */
%define MFUSIM_PINNED_ARRAY(CTYPE, NAME, LENGTH, JNITYPE, JTYPE, RELEASE)
%typemap(jni) (CTYPE NAME, size_t LENGTH) #JNITYPE
%typemap(jtype) (CTYPE NAME, size_t LENGTH) #JTYPE
%typemap(jstype) (CTYPE NAME, size_t LENGTH) #JTYPE
/* Null arrays are refused in Java, before any array is pinned. */
%typemap(javain) (CTYPE NAME, size_t LENGTH) "java.util.Objects.requireNonNull($javainput, \"NAME\")"
/* Lengths first (in), pinning after every argument is converted (check): no JNI call may come between a
 * GetPrimitiveArrayCritical and its release. A failed pin (out of memory, exception pending) passes NULL, which the
 * library refuses, and the pending exception wins. */
%typemap(in) (CTYPE NAME, size_t LENGTH) %{
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
    $1 = NULL;
%}
%typemap(check) (CTYPE NAME, size_t LENGTH) %{ $1 = ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL); %}
%typemap(freearg) (CTYPE NAME, size_t LENGTH) %{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void*)$1, RELEASE); %}
%enddef
MFUSIM_PINNED_ARRAY(const int64_t*, packed, packed_len, jlongArray, long[], JNI_ABORT)
MFUSIM_PINNED_ARRAY(const int64_t*, step_sizes, n_steps, jlongArray, long[], JNI_ABORT)
MFUSIM_PINNED_ARRAY(double*, out, n_out, jdoubleArray, double[], 0)
/* Simulation traces travel as 5 longs per mfusim_trace_request (arrival_s as its raw double bits), results as 10
 * longs per mfusim_simulated_request: the same 40 and 80 bytes. */
MFUSIM_PINNED_ARRAY(const int64_t*, trace_packed, trace_len, jlongArray, long[], JNI_ABORT)
MFUSIM_PINNED_ARRAY(int64_t*, records, records_len, jlongArray, long[], 0)
/* The timeline travels as 5 longs per mfusim_simulated_step (40 bytes: two doubles' bits, four int32 packed in
 * two longs, one double's bits). */
MFUSIM_PINNED_ARRAY(int64_t*, step_records, step_records_len, jlongArray, long[], 0)
/* The seed is a Java long (its bits). */
%apply long long { uint64_t seed };
/* Planning and sweeping: short lists, copied (not pinned: the call builds estimators for seconds, and a pinned array
 * would hold the garbage collector off that long). Names travel as String[] (various.i: copied into malloc'd C
 * strings before the call, NULL-terminated). */
%define MFUSIM_COPIED_ARRAY(NAME, LENGTH)
%typemap(jni) (const int64_t* NAME, size_t LENGTH) "jlongArray"
%typemap(jtype) (const int64_t* NAME, size_t LENGTH) "long[]"
%typemap(jstype) (const int64_t* NAME, size_t LENGTH) "long[]"
%typemap(javain) (const int64_t* NAME, size_t LENGTH) "java.util.Objects.requireNonNull($javainput, \"NAME\")"
%typemap(in) (const int64_t* NAME, size_t LENGTH) %{
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
    $1 = $2 ? (int64_t*)malloc($2 * sizeof(int64_t)) : NULL;
    if ($1) (*jenv)->GetLongArrayRegion(jenv, $input, 0, (jsize)$2, (jlong*)$1);
%}
%typemap(freearg) (const int64_t* NAME, size_t LENGTH) %{ free((void*)$1); %}
%enddef
MFUSIM_COPIED_ARRAY(tp_values, tp_len)
MFUSIM_COPIED_ARRAY(batch_values, batch_len)
%include <various.i>
%apply char** STRING_ARRAY { char** gpu_names, char** vary_names, char** series_names };

/* ---- helpers returning what the C API writes through out-pointers ---------------------------------------- */
%ignore mfusim_estimator_create;
%ignore mfusim_step_time;
%ignore mfusim_step_detail;
%ignore mfusim_estimate;
%ignore mfusim_report_value;
%ignore mfusim_swig_step_time_batch;
%ignore mfusim_serving_estimate;
%ignore mfusim_disagg_estimate;
%ignore mfusim_calibrate_steps;
%ignore mfusim_calibrate_kernels;
%ignore mfusim_simulate;
%ignore mfusim_simulation_result_requests;
%ignore mfusim_simulation_result_timeline;
%ignore mfusim_simulation_result_percentile;
%ignore mfusim_simulation_init;    /* the Simulation constructor calls it */
%ignore mfusim_simulation_summary_init;
%ignore mfusim_simulation::struct_size;
%ignore mfusim_simulation::trace;  /* mfusim_java_simulate passes the trace */
%ignore mfusim_simulation::trace_count;
%ignore mfusim_simulation::reserved;
%ignore mfusim_simulation_summary::struct_size;
%ignore mfusim_java_count;         /* helpers of the helpers below */
%ignore mfusim_java_copied;
%ignore mfusim_plan;               /* mfusim_java_plan passes the request's lists */
%ignore mfusim_plan_request_init;  /* the PlanRequest constructor calls it */
%ignore mfusim_plan_result_rows;   /* reached row by row: mfusim_java_plan_row */
%ignore mfusim_plan_result_gpus;
%ignore mfusim_plan_request::struct_size;
%ignore mfusim_plan_request::gpus;
%ignore mfusim_plan_request::gpu_count;
%ignore mfusim_plan_request::tp_list;
%ignore mfusim_plan_request::tp_count;
%ignore mfusim_plan_request::decode_batches;
%ignore mfusim_plan_request::decode_batch_count;
%ignore mfusim_plan_request::reserved;
%ignore mfusim_sweep;              /* mfusim_java_sweep passes the values */
%ignore mfusim_sweep_request_init;
%ignore mfusim_sweep_result_rows;
%ignore mfusim_sweep_request::struct_size;
%ignore mfusim_sweep_request::vary_values;
%ignore mfusim_sweep_request::vary_count;
%ignore mfusim_sweep_request::series_values;
%ignore mfusim_sweep_request::series_count;
%ignore mfusim_sweep_row::reserved;

/* ---- Java names ----------------------------------------------------------------------------------------- */
%rename("%(lowercamelcase)s", %$isfunction) "";
%rename(Options) mfusim_options;
%rename(Scenario) mfusim_scenario;
%rename(StepResult) mfusim_step_result;
%rename(OpDetail) mfusim_op_detail;
%rename(Estimator) mfusim_estimator;
%rename(Report) mfusim_report;
%rename(Serving) mfusim_serving;
%rename(ServingResult) mfusim_serving_result;
%rename(DisaggServing) mfusim_disagg_serving;
%rename(DisaggResult) mfusim_disagg_result;
%rename(Calibration) mfusim_calibration;
%rename(Simulation) mfusim_simulation;
%rename(SimulationSummary) mfusim_simulation_summary;
%rename(LatencySummary) mfusim_latency_summary;
%rename(SimulationResult) mfusim_simulation_result;
%rename(PlanRequest) mfusim_plan_request;
%rename(PlanRow) mfusim_plan_row;
%rename(PlanGpu) mfusim_plan_gpu;
%rename(PlanResult) mfusim_plan_result;
%rename(SweepRequest) mfusim_sweep_request;
%rename(SweepRow) mfusim_sweep_row;
%rename(SweepResult) mfusim_sweep_result;

/* The calibration handle, opaque like the estimator's (common.i declares those): a proxy type of its own name. */
%nodefaultctor mfusim_calibration;
%nodefaultdtor mfusim_calibration;
struct mfusim_calibration {};
%nodefaultctor mfusim_simulation_result;
%nodefaultdtor mfusim_simulation_result;
struct mfusim_simulation_result {};

%nodefaultctor mfusim_plan_result;
%nodefaultdtor mfusim_plan_result;
struct mfusim_plan_result {};
%nodefaultctor mfusim_sweep_result;
%nodefaultdtor mfusim_sweep_result;
struct mfusim_sweep_result {};
/* Rows are borrowed from their result (copied into Java values at once), never made or freed by Java. */
%nodefaultctor mfusim_plan_row;
%nodefaultdtor mfusim_plan_row;
%nodefaultctor mfusim_plan_gpu;
%nodefaultdtor mfusim_plan_gpu;
%nodefaultctor mfusim_sweep_row;
%nodefaultdtor mfusim_sweep_row;

%extend mfusim_plan_request {
    mfusim_plan_request() {
        mfusim_plan_request* r = (mfusim_plan_request*)calloc(1, sizeof(mfusim_plan_request));
        if (r && mfusim_plan_request_init(r, sizeof *r, NULL) != MFUSIM_OK) { free(r); r = NULL; }
        return r;
    }
    ~mfusim_plan_request() { free($self); }
}
%extend mfusim_sweep_request {
    mfusim_sweep_request() {
        mfusim_sweep_request* r = (mfusim_sweep_request*)calloc(1, sizeof(mfusim_sweep_request));
        if (r && mfusim_sweep_request_init(r, sizeof *r, NULL) != MFUSIM_OK) { free(r); r = NULL; }
        return r;
    }
    ~mfusim_sweep_request() { free($self); }
}

%extend mfusim_simulation {
    mfusim_simulation() {
        mfusim_simulation* s = (mfusim_simulation*)calloc(1, sizeof(mfusim_simulation));
        if (s && mfusim_simulation_init(s, sizeof *s, NULL) != MFUSIM_OK) { free(s); s = NULL; }
        return s;
    }
    ~mfusim_simulation() { free($self); }
}
%extend mfusim_simulation_summary {
    mfusim_simulation_summary() {
        mfusim_simulation_summary* s = (mfusim_simulation_summary*)calloc(1, sizeof(mfusim_simulation_summary));
        if (s && mfusim_simulation_summary_init(s, sizeof *s, NULL) != MFUSIM_OK) { free(s); s = NULL; }
        return s;
    }
    ~mfusim_simulation_summary() { free($self); }
}

%include "../../../../swig/common.i"

/* After common.i, whose checked batch entry point the batch helper calls. */
%inline %{
/* A new estimator the caller owns (free with mfusim_estimator_free), or NULL with the exception pending. */
static mfusim_estimator* mfusim_java_create(const mfusim_options* options, mfusim_error* error) {
    mfusim_estimator* out = NULL;
    mfusim_estimator_create(options, &out, error);
    return out;
}

static double mfusim_java_step_time(const mfusim_estimator* estimator, const int64_t* packed, size_t packed_len,
                                    size_t n_requests, mfusim_error* error) {
    double us = 0;
    if (mfusim_java_requests_fit(packed_len, n_requests, error))
        mfusim_step_time(estimator, (const mfusim_request*)packed, n_requests, &us, error);
    return us;
}

static void mfusim_java_step_time_batch(const mfusim_estimator* estimator, const int64_t* packed, size_t packed_len,
                                        size_t n_requests, const int64_t* step_sizes, size_t n_steps, double* out,
                                        size_t n_out, mfusim_error* error) {
    if (mfusim_java_requests_fit(packed_len, n_requests, error))
        mfusim_swig_step_time_batch(estimator, (const mfusim_request*)packed, n_requests, step_sizes, n_steps, out,
                                    n_out, error);
}

static void mfusim_java_step_detail(const mfusim_estimator* estimator, const int64_t* packed, size_t packed_len,
                                    size_t n_requests, mfusim_step_result* out, mfusim_error* error) {
    if (mfusim_java_requests_fit(packed_len, n_requests, error))
        mfusim_step_detail(estimator, (const mfusim_request*)packed, n_requests, out, error);
}

/* A new report the caller owns (free with mfusim_report_free), or NULL with the exception pending. */
static mfusim_report* mfusim_java_estimate(const mfusim_estimator* estimator, const mfusim_scenario* scenario,
                                           mfusim_error* error) {
    mfusim_report* out = NULL;
    mfusim_estimate(estimator, scenario, &out, error);
    return out;
}

static double mfusim_java_report_value(const mfusim_report* report, const char* name, mfusim_error* error) {
    double value = 0;
    mfusim_report_value(report, name, &value, error);
    return value;
}

/* Fills *out (a released layout, as the ServingResult constructor makes it), or leaves the exception pending. */
static void mfusim_java_serving_estimate(const mfusim_estimator* estimator, const mfusim_serving* serving,
                                         mfusim_serving_result* out, mfusim_error* error) {
    mfusim_serving_estimate(estimator, serving, out, error);
}

/* Fills *out (a released layout, as the DisaggResult constructor makes it), or leaves the exception pending. */
static void mfusim_java_disagg_estimate(const mfusim_estimator* prefill, const mfusim_estimator* decode,
                                        const mfusim_disagg_serving* serving, mfusim_disagg_result* out,
                                        mfusim_error* error) {
    mfusim_disagg_estimate(prefill, decode, serving, out, error);
}

/* A new calibration the caller owns (free with mfusim_calibration_free), or NULL with the exception pending. */
static mfusim_calibration* mfusim_java_calibrate_steps(const mfusim_options* options, const char* steps_path,
                                                       int32_t folds, mfusim_error* error) {
    mfusim_calibration* out = NULL;
    mfusim_calibrate_steps(options, steps_path, folds, &out, error);
    return out;
}

static mfusim_calibration* mfusim_java_calibrate_kernels(const mfusim_options* options, const char* kernels_dir,
                                                         mfusim_error* error) {
    mfusim_calibration* out = NULL;
    mfusim_calibrate_kernels(options, kernels_dir, &out, error);
    return out;
}

/* A new simulation result the caller owns (free with mfusim_simulation_result_free), or NULL with the exception
 * pending. trace_packed: 5 longs per trace request; empty for none. */
static mfusim_simulation_result* mfusim_java_simulate(const mfusim_estimator* estimator,
                                                      const mfusim_simulation* simulation,
                                                      const int64_t* trace_packed, size_t trace_len,
                                                      mfusim_error* error) {
    mfusim_simulation copy;
    mfusim_simulation_result* out = NULL;
    if (!simulation) {
        mfusim_simulate(estimator, NULL, &out, error);
        return out;
    }
    copy = *simulation;
    copy.trace = trace_len >= 5 ? (const mfusim_trace_request*)trace_packed : NULL;
    copy.trace_count = trace_len / 5;
    mfusim_simulate(estimator, &copy, &out, error);
    return out;
}

static size_t mfusim_java_simulation_request_count(const mfusim_simulation_result* result) {
    size_t n = 0;
    mfusim_simulation_result_requests(result, &n);
    return n;
}

/* Copies the requests as 10 longs each into records; answers how many it copied. */
static size_t mfusim_java_simulation_requests(const mfusim_simulation_result* result, int64_t* records,
                                              size_t records_len) {
    size_t n = 0;
    const mfusim_simulated_request* p = mfusim_simulation_result_requests(result, &n);
    if (n > records_len / 10) n = records_len / 10;
    if (p && n) memcpy(records, p, n * sizeof *p);
    return n;
}

static size_t mfusim_java_simulation_step_count(const mfusim_simulation_result* result) {
    size_t n = 0;
    mfusim_simulation_result_timeline(result, &n);
    return n;
}

/* Copies the timeline as 5 longs per step into step_records; answers how many steps it copied. */
static size_t mfusim_java_simulation_timeline(const mfusim_simulation_result* result, int64_t* step_records,
                                              size_t step_records_len) {
    size_t n = 0;
    const mfusim_simulated_step* p = mfusim_simulation_result_timeline(result, &n);
    if (n > step_records_len / 5) n = step_records_len / 5;
    if (p && n) memcpy(step_records, p, n * sizeof *p);
    return n;
}

static double mfusim_java_simulation_percentile(const mfusim_simulation_result* result, int32_t metric, double p,
                                                mfusim_error* error) {
    double value = 0;
    mfusim_simulation_result_percentile(result, metric, p, &value, error);
    return value;
}

static size_t mfusim_java_count(char** names) {
    size_t n = 0;
    while (names && names[n]) ++n;
    return n;
}

/* A copy of an array the typemap could not allocate is the one failure before the call. */
static int mfusim_java_copied(const int64_t* values, size_t len, mfusim_error* error) {
    if (len == 0 || values) return 1;
    error->status = MFUSIM_ERR_OUT_OF_MEMORY;
    snprintf(error->message, sizeof error->message, "no memory to copy %zu values", len);
    return 0;
}

/* A new plan result the caller owns (free with mfusim_plan_result_free), or NULL with the exception pending. Empty
 * lists take the library's defaults. */
static mfusim_plan_result* mfusim_java_plan(const mfusim_options* options, const mfusim_serving* serving,
                                            const mfusim_plan_request* request, const int64_t* tp_values,
                                            size_t tp_len, const int64_t* batch_values, size_t batch_len,
                                            char** gpu_names, mfusim_error* error) {
    mfusim_plan_request copy;
    mfusim_plan_result* out = NULL;
    if (!request || !mfusim_java_copied(tp_values, tp_len, error) ||
        !mfusim_java_copied(batch_values, batch_len, error)) {
        if (!request) mfusim_plan(options, serving, NULL, &out, error);
        return out;
    }
    copy = *request;
    copy.gpu_count = mfusim_java_count(gpu_names);
    copy.gpus = copy.gpu_count ? (const char* const*)gpu_names : NULL;
    copy.tp_list = tp_values;
    copy.tp_count = tp_len;
    copy.decode_batches = batch_values;
    copy.decode_batch_count = batch_len;
    mfusim_plan(options, serving, &copy, &out, error);
    return out;
}

static size_t mfusim_java_plan_row_count(const mfusim_plan_result* result) {
    size_t n = 0;
    mfusim_plan_result_rows(result, &n);
    return n;
}

/* Borrowed from the result; NULL for an index out of range. */
static const mfusim_plan_row* mfusim_java_plan_row(const mfusim_plan_result* result, size_t i) {
    size_t n = 0;
    const mfusim_plan_row* rows = mfusim_plan_result_rows(result, &n);
    return rows && i < n ? &rows[i] : NULL;
}

static size_t mfusim_java_plan_gpu_count(const mfusim_plan_result* result) {
    size_t n = 0;
    mfusim_plan_result_gpus(result, &n);
    return n;
}

static const mfusim_plan_gpu* mfusim_java_plan_gpu(const mfusim_plan_result* result, size_t i) {
    size_t n = 0;
    const mfusim_plan_gpu* gpus = mfusim_plan_result_gpus(result, &n);
    return gpus && i < n ? &gpus[i] : NULL;
}

/* A new sweep result the caller owns (free with mfusim_sweep_result_free), or NULL with the exception pending. */
static mfusim_sweep_result* mfusim_java_sweep(const mfusim_options* options, const mfusim_serving* serving,
                                              const mfusim_sweep_request* request, char** vary_names,
                                              char** series_names, mfusim_error* error) {
    mfusim_sweep_request copy;
    mfusim_sweep_result* out = NULL;
    if (!request) {
        mfusim_sweep(options, serving, NULL, &out, error);
        return out;
    }
    copy = *request;
    copy.vary_count = mfusim_java_count(vary_names);
    copy.vary_values = copy.vary_count ? (const char* const*)vary_names : NULL;
    copy.series_count = mfusim_java_count(series_names);
    copy.series_values = copy.series_count ? (const char* const*)series_names : NULL;
    mfusim_sweep(options, serving, &copy, &out, error);
    return out;
}

static size_t mfusim_java_sweep_row_count(const mfusim_sweep_result* result) {
    size_t n = 0;
    mfusim_sweep_result_rows(result, &n);
    return n;
}

static const mfusim_sweep_row* mfusim_java_sweep_row(const mfusim_sweep_result* result, size_t i) {
    size_t n = 0;
    const mfusim_sweep_row* rows = mfusim_sweep_result_rows(result, &n);
    return rows && i < n ? &rows[i] : NULL;
}
%}
