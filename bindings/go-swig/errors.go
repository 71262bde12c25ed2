// Package mfusimswig is the SWIG-generated Go binding of libmfusim: mfusim.h wrapped by SWIG 4.1 with typemaps
// that turn statuses into Go errors and take Go slices without copying. The generated files (mfusimswig.go,
// mfusim_wrap.c) are produced at build time from mfusim.i; this file and request.go are hand-written.
//
// Compared with the hand-written package (bindings/go/mfusim), this one mirrors the C API one to one
// (EstimatorCreate / EstimatorFree, Options with setters, out-pointers) and exists to show and measure what a
// generator gives. Threading rules are the C library's: an Estimator may be used from many goroutines at once;
// EstimatorFree must not race with its use.
package mfusimswig

/*
#cgo pkg-config: mfusim
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Status is a libmfusim status code; a non-zero Status is also an error, for errors.Is.
type Status int32

// The statuses of mfusim.h, as typed constants (the generated MFUSIM_* variables are plain ints).
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

func (s Status) String() string { return StatusString(int32(s)) }
func (s Status) Error() string  { return "mfusim: " + s.String() }

// Error is a failed call: the status and the library's message.
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("mfusim: %s: %s", e.Status.String(), e.Message) }

// Is matches a Status sentinel or an *Error of the same status.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Status:
		return e.Status == t
	case *Error:
		return t != nil && t.Status == e.Status
	}
	return false
}

func (e *Error) Unwrap() error { return e.Status }

// takeError is the goout typemap of mfusim_status: "" is success; otherwise the wrapper returned a C-allocated
// string of the status byte followed by the message, which this copies and frees.
func takeError(s string) error {
	if len(s) == 0 {
		return nil
	}
	p := unsafe.StringData(s)
	b := unsafe.Slice(p, len(s))
	err := &Error{Status: Status(b[0]), Message: string(b[1:])}
	C.free(unsafe.Pointer(p))
	return err
}
