package mfusim

/*
#include <stdlib.h>
#include <mfusim.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Calibration is a fitted calibration (docs/calibration.md), from CalibrateSteps or CalibrateKernels: plain Go
// values, copied out of the library's handle, which is freed before the call returns.
type Calibration struct {
	// Document is the calibration file's JSON text: write it to a file, or pass it as Options.Calibration.
	Document string
	// Report is the fit's report for a human: coefficients and errors before, in training and held out.
	Report string
	// Improved is true when the fit beats the defaults on data it did not see (what `mfusim calibrate -o`
	// requires before writing the file). The calibration is returned either way.
	Improved bool
}

// CalibrateSteps fits a calibration to measured engine steps, as `mfusim calibrate --steps` does. stepsPath is a
// JSONL file: a header line {"model": ..., "gpu": ...} (optionally "engine", "tp"), then one line per step,
// {"requests": [{"new_tokens": n, "context": c}, ...], "measured_us": t, "group": "g0"}. opts gives the
// deployment: Model and GPU may be "" when the header names them, the header's engine applies when Engine is "",
// its tp when TensorParallel is 0 (another TensorParallel wins over the header's, as `--tp` does; 1 against a header
// naming another tp is ErrInvalidArgument); Calibration must be "". folds: cross-validation folds, >= 2 (0: 5).
// It reads the file and fits: seconds, not a hot path. Check Improved before using Document.
func CalibrateSteps(stepsPath string, opts Options, folds int) (*Calibration, error) {
	if folds < -1<<31 || folds > 1<<31-1 {
		return nil, &Error{Status: ErrInvalidArgument, Message: fmt.Sprintf("folds %d does not fit in int32", folds)}
	}
	return calibrate(opts, "stepsPath", stepsPath, func(copts *C.mfusim_options, path *C.char,
		out **C.mfusim_calibration, cerr *C.mfusim_error) C.mfusim_status {
		if opts.TensorParallel == 0 {
			copts.tensor_parallel = 0 // the header's tp (else 1); cOptions' default of 1 would be an explicit 1
		}
		return C.mfusim_calibrate_steps(copts, path, C.int32_t(folds), out, cerr)
	})
}

// CalibrateKernels fits the GPU profile's own constants to measured kernels, as `mfusim calibrate --kernels`
// does: kernelsDir is an AIConfigurator-format directory, opts.GPU the GPU they were measured on (the
// calibration applies to it only), opts.BenchDataDir optional MFU tables; the other options are not used.
func CalibrateKernels(kernelsDir string, opts Options) (*Calibration, error) {
	return calibrate(opts, "kernelsDir", kernelsDir, func(copts *C.mfusim_options, dir *C.char, out **C.mfusim_calibration,
		cerr *C.mfusim_error) C.mfusim_status {
		return C.mfusim_calibrate_kernels(copts, dir, out, cerr)
	})
}

type calibrateFunc func(*C.mfusim_options, *C.char, **C.mfusim_calibration, *C.mfusim_error) C.mfusim_status

func calibrate(opts Options, pathName, path string, call calibrateFunc) (*Calibration, error) {
	if err := checkNUL(pathName, path); err != nil {
		return nil, err
	}
	cerr, err := newCError()
	if err != nil {
		return nil, err
	}
	defer freeCError(cerr)
	copts, free, err := cOptions(opts, cerr)
	defer free()
	if err != nil {
		return nil, err
	}
	var cpath *C.char
	if path != "" {
		cpath = C.CString(path)
		defer C.free(unsafe.Pointer(cpath))
	}
	var handle *C.mfusim_calibration
	if st := call(&copts, cpath, &handle, cerr); st != C.MFUSIM_OK {
		return nil, errorFrom(st, cerr)
	}
	defer C.mfusim_calibration_free(handle)
	return &Calibration{
		Document: C.GoString(C.mfusim_calibration_document(handle)),
		Report:   C.GoString(C.mfusim_calibration_report(handle)),
		Improved: C.mfusim_calibration_improved(handle) != 0,
	}, nil
}
