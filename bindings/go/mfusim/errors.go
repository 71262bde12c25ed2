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

// Status is a libmfusim status code (stable numbers, only ever appended). A non-zero Status is also an error, so
// the constants below serve as errors.Is targets.
type Status int32

// The statuses of mfusim.h.
const (
	StatusOK           Status = 0
	ErrInvalidArgument Status = 1
	ErrIO              Status = 2
	ErrParse           Status = 3
	ErrConfig          Status = 4
	ErrUnknownName     Status = 5
	ErrUnsupported     Status = 6
	ErrCompatCrash     Status = 7
	ErrStructSize      Status = 8
	ErrOutOfMemory     Status = 9
	ErrInternal        Status = 10
	ErrNotFound        Status = 11
)

// String is the library's short English name of the status ("invalid argument").
func (s Status) String() string { return C.GoString(C.mfusim_status_string(C.mfusim_status(s))) }

// Error makes a Status usable as a sentinel error.
func (s Status) Error() string { return "mfusim: " + s.String() }

// Error is a failed libmfusim call: the status and the library's message naming the input at fault.
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "mfusim: " + e.Status.String()
	}
	return fmt.Sprintf("mfusim: %s: %s", e.Status.String(), e.Message)
}

// Is reports whether target is this error's Status (errors.Is(err, mfusim.ErrIO)) or an *Error with the same
// Status.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Status:
		return e.Status == t
	case *Error:
		return t != nil && e.Status == t.Status
	}
	return false
}

// Unwrap returns the Status, so errors.As(err, &status) works too.
func (e *Error) Unwrap() error { return e.Status }

// newCError allocates the zeroed error struct of a call that is not on a hot path, in C memory (the step calls
// keep theirs on the C stack instead, see mfusim_go_outcome); freeCError releases it, deferred right away.
func newCError() (*C.mfusim_error, error) {
	cerr := (*C.mfusim_error)(C.calloc(1, C.sizeof_mfusim_error))
	if cerr == nil {
		return nil, &Error{Status: ErrOutOfMemory, Message: "no memory for the error struct"}
	}
	return cerr, nil
}

func freeCError(cerr *C.mfusim_error) { C.free(unsafe.Pointer(cerr)) }

// errorFrom converts a status and a filled error struct (from a call that was given one).
func errorFrom(status C.mfusim_status, cerr *C.mfusim_error) error {
	if status == 0 {
		return nil
	}
	return &Error{Status: Status(status), Message: C.GoString(&cerr.message[0])}
}

// The values above are written out (so go doc shows them); this fails to compile unless each equals mfusim.h's.
var (
	_ = [1]int{}[int(StatusOK)-int(C.MFUSIM_OK)]
	_ = [1]int{}[int(C.MFUSIM_OK)-int(StatusOK)]
	_ = [1]int{}[int(ErrInvalidArgument)-int(C.MFUSIM_ERR_INVALID_ARGUMENT)]
	_ = [1]int{}[int(C.MFUSIM_ERR_INVALID_ARGUMENT)-int(ErrInvalidArgument)]
	_ = [1]int{}[int(ErrIO)-int(C.MFUSIM_ERR_IO)]
	_ = [1]int{}[int(C.MFUSIM_ERR_IO)-int(ErrIO)]
	_ = [1]int{}[int(ErrParse)-int(C.MFUSIM_ERR_PARSE)]
	_ = [1]int{}[int(C.MFUSIM_ERR_PARSE)-int(ErrParse)]
	_ = [1]int{}[int(ErrConfig)-int(C.MFUSIM_ERR_CONFIG)]
	_ = [1]int{}[int(C.MFUSIM_ERR_CONFIG)-int(ErrConfig)]
	_ = [1]int{}[int(ErrUnknownName)-int(C.MFUSIM_ERR_UNKNOWN_NAME)]
	_ = [1]int{}[int(C.MFUSIM_ERR_UNKNOWN_NAME)-int(ErrUnknownName)]
	_ = [1]int{}[int(ErrUnsupported)-int(C.MFUSIM_ERR_UNSUPPORTED)]
	_ = [1]int{}[int(C.MFUSIM_ERR_UNSUPPORTED)-int(ErrUnsupported)]
	_ = [1]int{}[int(ErrCompatCrash)-int(C.MFUSIM_ERR_COMPAT_CRASH)]
	_ = [1]int{}[int(C.MFUSIM_ERR_COMPAT_CRASH)-int(ErrCompatCrash)]
	_ = [1]int{}[int(ErrStructSize)-int(C.MFUSIM_ERR_STRUCT_SIZE)]
	_ = [1]int{}[int(C.MFUSIM_ERR_STRUCT_SIZE)-int(ErrStructSize)]
	_ = [1]int{}[int(ErrOutOfMemory)-int(C.MFUSIM_ERR_OUT_OF_MEMORY)]
	_ = [1]int{}[int(C.MFUSIM_ERR_OUT_OF_MEMORY)-int(ErrOutOfMemory)]
	_ = [1]int{}[int(ErrInternal)-int(C.MFUSIM_ERR_INTERNAL)]
	_ = [1]int{}[int(C.MFUSIM_ERR_INTERNAL)-int(ErrInternal)]
	_ = [1]int{}[int(ErrNotFound)-int(C.MFUSIM_ERR_NOT_FOUND)]
	_ = [1]int{}[int(C.MFUSIM_ERR_NOT_FOUND)-int(ErrNotFound)]
	_ = [1]int{}[int(ModeRoofline)-int(C.MFUSIM_MODE_ROOFLINE)]
	_ = [1]int{}[int(C.MFUSIM_MODE_ROOFLINE)-int(ModeRoofline)]
	_ = [1]int{}[int(ModeInferSim)-int(C.MFUSIM_MODE_INFERSIM)]
	_ = [1]int{}[int(C.MFUSIM_MODE_INFERSIM)-int(ModeInferSim)]
	_ = [1]int{}[int(PhasesBoth)-int(C.MFUSIM_PHASES_BOTH)]
	_ = [1]int{}[int(C.MFUSIM_PHASES_BOTH)-int(PhasesBoth)]
	_ = [1]int{}[int(PhasesPrefillOnly)-int(C.MFUSIM_PHASES_PREFILL_ONLY)]
	_ = [1]int{}[int(C.MFUSIM_PHASES_PREFILL_ONLY)-int(PhasesPrefillOnly)]
	_ = [1]int{}[int(PhasesDecodeOnly)-int(C.MFUSIM_PHASES_DECODE_ONLY)]
	_ = [1]int{}[int(C.MFUSIM_PHASES_DECODE_ONLY)-int(PhasesDecodeOnly)]
)
