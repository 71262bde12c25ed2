package mfusim

// EngineTerms are the time terms of the estimator's engine profile (docs/engine.md) that act outside an engine
// step: what a serving simulator adds per request before its first step and per output token. The terms inside
// a step (step_us, request_us, layer_us, ...) are already part of every StepTime and are not repeated here.
type EngineTerms struct {
	AdmissionUS   float64 // us per request before its first step: HTTP, API server, engine-core queue
	InputTokenUS  float64 // us per prompt token before the first step: tokenisation, input processing
	OutputTokenUS float64 // us per generated token off the GPU's path: detokenisation, streaming
}

// EngineTerms reads the engine terms of the estimator through mfusim_estimator_engine_terms. In compat mode
// (InferSim has no engine outside the kernels) it fails with ErrUnsupported, and the simulator adapter (package
// adapter) answers those terms as 0, saying so in its load warnings.
func (e *Estimator) EngineTerms() (EngineTerms, error) { return e.engineTerms() }
