//go:build !mfusim_engine_terms

package mfusim

// Until mfusim.h has mfusim_estimator_engine_terms (proposed in docs/blis.md, "What the C API still needs").
func (e *Estimator) engineTerms() (EngineTerms, error) {
	if e.handle == nil {
		return EngineTerms{}, &Error{Status: ErrInvalidArgument, Message: "the estimator is closed"}
	}
	return EngineTerms{}, &Error{Status: ErrUnsupported,
		Message: "this libmfusim has no mfusim_estimator_engine_terms: the engine's admission, input-token and " +
			"output-token terms cannot be read"}
}
