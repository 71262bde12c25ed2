package mfusimswig

/*
#include <stddef.h>
#include <mfusim.h>
enum {
	mfusim_swig_request_size = sizeof(mfusim_request),
	mfusim_swig_request_context = offsetof(mfusim_request, context),
	mfusim_swig_request_flags = offsetof(mfusim_request, flags)
};
*/
import "C"

import "unsafe"

// Request has the exact layout of mfusim_request, so []Request goes to C as is (the typemaps pass the slice's
// memory). SWIG's own proxy for mfusim_request is suppressed: a proxy per request would copy.
type Request struct {
	NewTokens int64
	Context   int64
	Flags     uint32
	reserved  uint32
}

// Compile-time layout checks against the C header.
var (
	_ = [1]int{}[unsafe.Sizeof(Request{})-uintptr(C.mfusim_swig_request_size)]
	_ = [1]int{}[uintptr(C.mfusim_swig_request_size)-unsafe.Sizeof(Request{})]
	_ = [1]int{}[unsafe.Offsetof(Request{}.Context)-uintptr(C.mfusim_swig_request_context)]
	_ = [1]int{}[uintptr(C.mfusim_swig_request_context)-unsafe.Offsetof(Request{}.Context)]
	_ = [1]int{}[unsafe.Offsetof(Request{}.Flags)-uintptr(C.mfusim_swig_request_flags)]
	_ = [1]int{}[uintptr(C.mfusim_swig_request_flags)-unsafe.Offsetof(Request{}.Flags)]
)

// requestLayout reports Go's size and offsets of Request next to C's, for the layout test.
func requestLayout() (goVals, cVals [3]uintptr) {
	var r Request
	return [3]uintptr{unsafe.Sizeof(r), unsafe.Offsetof(r.Context), unsafe.Offsetof(r.Flags)},
		[3]uintptr{C.mfusim_swig_request_size, C.mfusim_swig_request_context, C.mfusim_swig_request_flags}
}
