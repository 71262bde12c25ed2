package mfusim

// The engine terms the simulator adapter needs outside the steps (mfusim_estimator_engine_terms).

/*
#include <mfusim.h>
*/
import "C"

import "runtime"

func (e *Estimator) engineTerms() (EngineTerms, error) {
	cerr, err := newCError()
	if err != nil {
		return EngineTerms{}, err
	}
	defer freeCError(cerr)
	var t C.mfusim_engine_terms
	if st := C.mfusim_engine_terms_init(&t, C.sizeof_mfusim_engine_terms, cerr); st != C.MFUSIM_OK {
		return EngineTerms{}, errorFrom(st, cerr)
	}
	st := C.mfusim_estimator_engine_terms(e.handle, &t, cerr)
	runtime.KeepAlive(e)
	if st != C.MFUSIM_OK {
		return EngineTerms{}, errorFrom(st, cerr)
	}
	return EngineTerms{AdmissionUS: float64(t.admission_us), InputTokenUS: float64(t.input_token_us),
		OutputTokenUS: float64(t.output_token_us)}, nil
}
