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
	StatusOK           Status = C.MFUSIM_OK
	ErrInvalidArgument Status = C.MFUSIM_ERR_INVALID_ARGUMENT
	ErrIO              Status = C.MFUSIM_ERR_IO
	ErrParse           Status = C.MFUSIM_ERR_PARSE
	ErrConfig          Status = C.MFUSIM_ERR_CONFIG
	ErrUnknownName     Status = C.MFUSIM_ERR_UNKNOWN_NAME
	ErrUnsupported     Status = C.MFUSIM_ERR_UNSUPPORTED
	ErrCompatCrash     Status = C.MFUSIM_ERR_COMPAT_CRASH
	ErrStructSize      Status = C.MFUSIM_ERR_STRUCT_SIZE
	ErrOutOfMemory     Status = C.MFUSIM_ERR_OUT_OF_MEMORY
	ErrInternal        Status = C.MFUSIM_ERR_INTERNAL
	ErrNotFound        Status = C.MFUSIM_ERR_NOT_FOUND
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

// failure builds the *Error of a call that returned status: it repeats the call with a C-allocated error struct
// to obtain the message. Queries are pure, so the repeated call fails the same way; the first call passed NULL,
// which keeps the successful path free of allocation.
func failure(status C.mfusim_status, again func(*C.mfusim_error) C.mfusim_status) error {
	cerr := (*C.mfusim_error)(C.calloc(1, C.sizeof_mfusim_error))
	if cerr == nil {
		return &Error{Status: Status(status), Message: "(no memory for the error message)"}
	}
	defer C.free(unsafe.Pointer(cerr))
	if st := again(cerr); st != C.MFUSIM_OK {
		return &Error{Status: Status(st), Message: C.GoString(&cerr.message[0])}
	}
	return &Error{Status: Status(status), Message: "(the call failed, then succeeded when repeated for its message)"}
}

// errorFrom converts a status and a filled error struct (from a call that was given one).
func errorFrom(status C.mfusim_status, cerr *C.mfusim_error) error {
	if status == C.MFUSIM_OK {
		return nil
	}
	return &Error{Status: Status(status), Message: C.GoString(&cerr.message[0])}
}
