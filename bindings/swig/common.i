/* What every SWIG binding of mfusim.h shares: a checked batch entry point, the ignores, and the struct helpers.
 * Language files (bindings/go-swig/mfusim.i, bindings/java/src/main/swig/mfusim.i) define their typemaps first,
 * then %include this file. */

%{
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mfusim.h"

/* mfusim_step_time_batch checks the step sizes against n_requests itself, but cannot know how many slots `out`
 * has; bindings pass slices, so this checks that one length before handing over. */
static mfusim_status mfusim_swig_step_time_batch(const mfusim_estimator* estimator, const mfusim_request* requests,
                                                 size_t n_requests, const int64_t* step_sizes, size_t n_steps,
                                                 double* out, size_t n_out, mfusim_error* error) {
    if (n_out < n_steps) {
        if (error) {
            error->status = MFUSIM_ERR_INVALID_ARGUMENT;
            snprintf(error->message, sizeof error->message, "out has %zu slots for %zu steps", n_out, n_steps);
        }
        return MFUSIM_ERR_INVALID_ARGUMENT;
    }
    return mfusim_step_time_batch(estimator, requests, n_requests, step_sizes, n_steps, out, error);
}

static char* mfusim_swig_strdup(const char* s) {
    char* copy;
    size_t n;
    if (!s) return NULL;
    n = strlen(s) + 1;
    copy = (char*)malloc(n);
    if (copy) memcpy(copy, s, n);
    return copy;
}
%}

/* Hidden: errors become the language's errors, requests are the language's own 24-byte records. */
%ignore mfusim_error;
%ignore mfusim_error_clear;
%ignore mfusim_request;
%ignore mfusim_step_time_batch; /* replaced by mfusim_swig_step_time_batch, which also checks `out` */
%ignore mfusim_options_init;    /* the Options constructor calls it */
%ignore mfusim_scenario_init;
%ignore mfusim_step_result_init;
%ignore mfusim_serving_init;
%ignore mfusim_serving_result_init;
%ignore mfusim_step_result::ops;  /* reached through op(i) */
%ignore mfusim_step_result::struct_size;
%ignore mfusim_options::struct_size;
%ignore mfusim_scenario::struct_size;
%ignore mfusim_serving::struct_size;
%ignore mfusim_serving_result::struct_size;
%ignore mfusim_disagg_serving_init;
%ignore mfusim_disagg_result_init;
%ignore mfusim_disagg_serving::struct_size;
%ignore mfusim_disagg_result::struct_size;
%ignore MFUSIM_ERROR_MESSAGE_CAPACITY;

/* The option strings are owned by the struct: set copies, the destructor frees. */
%typemap(memberin) const char* model, const char* gpu, const char* bench_data_dir, const char* engine, const char* quant,
                   const char* calibration
%{ free((char*)$1); $1 = mfusim_swig_strdup($input); %}

%extend mfusim_options {
    mfusim_options() {
        mfusim_options* o = (mfusim_options*)calloc(1, sizeof(mfusim_options));
        /* This proxy's layout is the header's: the library accepts its size (released layouts only). */
        if (o && mfusim_options_init(o, sizeof *o, NULL) != MFUSIM_OK) { free(o); o = NULL; }
        return o;
    }
    ~mfusim_options() {
        free((char*)$self->model);
        free((char*)$self->gpu);
        free((char*)$self->bench_data_dir);
        free((char*)$self->engine);
        free((char*)$self->quant);
        free((char*)$self->calibration);
        free($self);
    }
}
%extend mfusim_scenario {
    mfusim_scenario() {
        mfusim_scenario* s = (mfusim_scenario*)calloc(1, sizeof(mfusim_scenario));
        if (s && mfusim_scenario_init(s, sizeof *s, NULL) != MFUSIM_OK) { free(s); s = NULL; }
        return s;
    }
    ~mfusim_scenario() { free($self); }
}
%extend mfusim_step_result {
    mfusim_step_result() {
        mfusim_step_result* r = (mfusim_step_result*)calloc(1, sizeof(mfusim_step_result));
        if (r && mfusim_step_result_init(r, sizeof *r, NULL) != MFUSIM_OK) { free(r); r = NULL; }
        return r;
    }
    ~mfusim_step_result() { free($self); }
    /* Borrowed from the result; NULL unless 0 <= op < n_ops (the entries the library filled). */
    const mfusim_op_detail* op(int op) const {
        const int slots = (int)(sizeof $self->ops / sizeof $self->ops[0]);
        return op >= 0 && op < $self->n_ops && op < slots ? &$self->ops[op] : NULL;
    }
}

%extend mfusim_serving {
    mfusim_serving() {
        mfusim_serving* s = (mfusim_serving*)calloc(1, sizeof(mfusim_serving));
        if (s && mfusim_serving_init(s, sizeof *s, NULL) != MFUSIM_OK) { free(s); s = NULL; }
        return s;
    }
    ~mfusim_serving() { free($self); }
}
%extend mfusim_serving_result {
    mfusim_serving_result() {
        mfusim_serving_result* r = (mfusim_serving_result*)calloc(1, sizeof(mfusim_serving_result));
        if (r && mfusim_serving_result_init(r, sizeof *r, NULL) != MFUSIM_OK) { free(r); r = NULL; }
        return r;
    }
    ~mfusim_serving_result() { free($self); }
}

%extend mfusim_disagg_serving {
    mfusim_disagg_serving() {
        mfusim_disagg_serving* s = (mfusim_disagg_serving*)calloc(1, sizeof(mfusim_disagg_serving));
        if (s && mfusim_disagg_serving_init(s, sizeof *s, NULL) != MFUSIM_OK) { free(s); s = NULL; }
        return s;
    }
    ~mfusim_disagg_serving() { free($self); }
}
%extend mfusim_disagg_result {
    mfusim_disagg_result() {
        mfusim_disagg_result* r = (mfusim_disagg_result*)calloc(1, sizeof(mfusim_disagg_result));
        if (r && mfusim_disagg_result_init(r, sizeof *r, NULL) != MFUSIM_OK) { free(r); r = NULL; }
        return r;
    }
    ~mfusim_disagg_result() { free($self); }
}

/* The opaque handles, declared to SWIG as member-less structs it never creates or frees itself, so they get proxy
 * types of their own names. */
%nodefaultctor mfusim_estimator;
%nodefaultdtor mfusim_estimator;
%nodefaultctor mfusim_report;
%nodefaultdtor mfusim_report;
struct mfusim_estimator {};
struct mfusim_report {};

%include "mfusim.h"

mfusim_status mfusim_swig_step_time_batch(const mfusim_estimator* estimator, const mfusim_request* requests,
                                          size_t n_requests, const int64_t* step_sizes, size_t n_steps,
                                          double* out, size_t n_out, mfusim_error* error);
