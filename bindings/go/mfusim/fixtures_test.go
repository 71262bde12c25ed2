package mfusim

import "testing"

// The configurations and steps every binding tests and benchmarks (bindings/README.md, "Shared fixtures").
var rooflineOptions = Options{Model: "llama-3.1-8b-instruct", GPU: "H100", Mode: ModeRoofline}

var compatOptions = Options{Model: "qwen3-8b", GPU: "H20", Mode: ModeInferSim}

// mixedStep is the 256-request mixed step: 4 prefill chunks of 512 tokens over 0, 1024, 2048, 3072 cached tokens
// (the even ones not their prompt's last chunk), then 252 decodes over 256 + (i*97 mod 8192) tokens.
func mixedStep(n int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		if i < 4 {
			reqs[i] = Prefill(512, int64(1024*i), i%2 == 1)
		} else {
			reqs[i] = Decode(int64(256 + (i*97)%8192))
		}
	}
	return reqs
}

// decodeStep is the 1-request step: one decode over 2048 tokens.
func decodeStep() []Request { return []Request{Decode(2048)} }

func open(t testing.TB, o Options) *Estimator {
	t.Helper()
	e, err := Open(o)
	if err != nil {
		t.Fatalf("Open(%+v): %v", o, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
