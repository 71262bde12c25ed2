/* SWIG interface for the Go package mfusimswig: mfusim.h, with Go-shaped typemaps:
 *  - mfusim_status results become Go `error` values (*Error, nil on success); the trailing mfusim_error* vanishes;
 *  - (requests, n_requests) pairs take a []Request, step sizes a []int64, batch outputs a []float64: the slices'
 *    memory is passed to C as is, never copied;
 *  - out-pointers of handles (mfusim_estimator**, mfusim_report**) take *Estimator / *Report, scalars *float64.
 * Generated at build time (bindings/CMakeLists.txt); the hand-written Go files of the package are errors.go and
 * request.go. */
%module mfusimswig

%include <stdint.i>

/* ---- errors: status -> error ---------------------------------------------------------------------------- */
/* The wrapper hands C a stack error struct. On failure it returns the status byte and the message as one
 * C-allocated string (takeError turns it into an *Error and frees it); on success an empty string, no allocation. */
%fragment("mfusim_error_string", "header", fragment="AllocateString") %{
#include "mfusim.h"
static _gostring_ mfusim_swig_error_string(const mfusim_error* e) {
    char buf[1 + sizeof e->message];
    size_t n = strlen(e->message);
    buf[0] = (char)e->status;
    memcpy(buf + 1, e->message, n);
    return Swig_AllocateString(buf, n + 1);
}
%}
%typemap(in, numinputs=0) mfusim_error* error (mfusim_error temp) %{ temp.status = 0; $1 = &temp; %}
%typemap(gotype) mfusim_status "error"
%typemap(imtype) mfusim_status "string"
%typemap(out) mfusim_status %{ _swig_go_result.p = 0; _swig_go_result.n = 0; (void)$1; %}
/* argout runs after out; _swig_go_result is the wrapper's return value. */
%typemap(argout, fragment="mfusim_error_string") mfusim_error* error
%{ if ($1->status != MFUSIM_OK) _swig_go_result = mfusim_swig_error_string($1); %}
%typemap(goout) mfusim_status %{ $result = takeError($1) %}

/* ---- slices in, without copies --------------------------------------------------------------------------- */
%typemap(gotype) (const mfusim_request* requests, size_t n_requests) "[]Request"
%typemap(in) (const mfusim_request* requests, size_t n_requests)
%{ $1 = ($1_ltype)$input.array; $2 = (size_t)$input.len; %}
%typemap(gotype) (const int64_t* step_sizes, size_t n_steps) "[]int64"
%typemap(in) (const int64_t* step_sizes, size_t n_steps)
%{ $1 = ($1_ltype)$input.array; $2 = (size_t)$input.len; %}
%typemap(gotype) (double* out, size_t n_out) "[]float64"
%typemap(in) (double* out, size_t n_out) %{ $1 = ($1_ltype)$input.array; $2 = (size_t)$input.len; %}

/* ---- out-pointers ---------------------------------------------------------------------------------------- */
%typemap(gotype) double* out_us, double* out "*float64"
%typemap(in) double* out_us, double* out %{ $1 = (double*)$input; %}

%define MFUSIM_HANDLE_OUT(CTYPE, GOTYPE)
%typemap(gotype) CTYPE** out "*" #GOTYPE
%typemap(imtype) CTYPE** out "*uintptr"
%typemap(goin) CTYPE** out %{
	var created uintptr
	$result = &created
%}
%typemap(in) CTYPE** out %{ $1 = (CTYPE**)$input; %}
%typemap(goargout) CTYPE** out %{
	if created != 0 {
		*$1 = Swigcptr##GOTYPE(created)
	}
%}
%enddef
MFUSIM_HANDLE_OUT(mfusim_estimator, Estimator)
MFUSIM_HANDLE_OUT(mfusim_report, Report)

/* ---- Go names -------------------------------------------------------------------------------------------- */
%rename(Estimator) mfusim_estimator;
%rename(Report) mfusim_report;
%rename(Options) mfusim_options;
%rename(Scenario) mfusim_scenario;
%rename(StepResult) mfusim_step_result;
%rename(OpDetail) mfusim_op_detail;
%rename(Serving) mfusim_serving;
%rename(ServingResult) mfusim_serving_result;
%rename(ServingEstimate) mfusim_serving_estimate;
%rename(VersionNumber) mfusim_version_number;
%rename(VersionString) mfusim_version_string;
%rename(StatusString) mfusim_status_string;
%rename(EstimatorCreate) mfusim_estimator_create;
%rename(EstimatorFree) mfusim_estimator_free;
%rename(EstimatorLoadWarnings) mfusim_estimator_load_warnings;
%rename(StepTime) mfusim_step_time;
%rename(StepDetail) mfusim_step_detail;
%rename(OpName) mfusim_op_name;
%rename(BoundName) mfusim_bound_name;
%rename(SourceName) mfusim_source_name;
%rename(Estimate) mfusim_estimate;
%rename(ReportFree) mfusim_report_free;
%rename(ReportCount) mfusim_report_count;
%rename(ReportName) mfusim_report_name;
%rename(ReportValueAt) mfusim_report_value_at;
%rename(ReportValue) mfusim_report_value;
%rename(ReportWarnings) mfusim_report_warnings;
%rename(ReportSoftErrors) mfusim_report_soft_errors;
%rename(CatalogueModelCount) mfusim_catalogue_model_count;
%rename(CatalogueModelName) mfusim_catalogue_model_name;
%rename(CatalogueGpuCount) mfusim_catalogue_gpu_count;
%rename(CatalogueGpuName) mfusim_catalogue_gpu_name;
%rename(StepTimeBatch) mfusim_swig_step_time_batch;

/* Status parameters (mfusim_status_string) stay plain numbers. */
%typemap(gotype) mfusim_status status "int32"
%typemap(imtype) mfusim_status status "int32"
%typemap(in) mfusim_status status %{ $1 = (mfusim_status)$input; %}

%include "../swig/common.i"
