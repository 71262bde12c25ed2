// Package mfusim is the Go binding of libmfusim, which predicts how long one step of an LLM serving engine takes
// on a GPU.
//
// It is a thin, hand-written cgo layer over the C API in mfusim.h, found with pkg-config: set PKG_CONFIG_PATH to
// <prefix>/lib/pkgconfig for an installed libmfusim, or to <build>/pkgconfig-uninstalled for a build tree.
//
//   - go build: links the shared library (pkg-config mfusim); its .pc file carries an rpath, so no
//     LD_LIBRARY_PATH is needed.
//   - go build -tags mfusim_static: links libmfusim.a with the C++ runtime (pkg-config mfusim-static), for a
//     single binary with no libmfusim or libstdc++ run-time dependency.
//
// # Hot path
//
// [Estimator.StepTime] and [Estimator.StepTimeBatch] allocate nothing: the request slice is handed to C as is
// (a [Request] has the exact layout of mfusim_request), results come back by value or into caller-owned slices,
// and the C error struct lives on the C stack of a small helper: a failure's message is copied out of that same
// call's struct (no call is ever repeated). Reuse request slices across steps; see the adapter
// package for a simulator-facing example.
//
// # Concurrency and ownership
//
// An open *Estimator is immutable: every method except Close may be called from any number of goroutines at
// once (the C library guarantees a const estimator is thread-safe and keeps no thread-local state, so goroutines
// moving between OS threads are fine). Close frees the native estimator; it is idempotent, but must not run
// concurrently with other calls on the same Estimator. A finalizer closes estimators that were never closed, as
// a backstop only. Reports returned by Estimate are plain Go values and need no Close.
//
// # Calibration
//
// [CalibrateSteps] and [CalibrateKernels] fit a calibration in-process, as `mfusim calibrate --steps` and
// `--kernels` do (docs/calibration.md): seconds of work, not a hot path. The [Calibration] they return is a plain
// Go value (the native handle is freed before they return); its Document goes in [Options].Calibration.
//
// # Errors
//
// Every failure is an *[Error] carrying the C status and the C library's message. Statuses are comparable with
// errors.Is:
//
//	if errors.Is(err, mfusim.ErrUnknownName) { ... }
package mfusim
