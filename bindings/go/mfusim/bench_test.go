package mfusim

import "testing"

// Benchmarks on the shared fixtures (bindings/README.md); bindings/bench_all.sh compares them with C, Rust, Java.

func benchSingle(b *testing.B, reqs []Request) {
	e := open(b, rooflineOptions)
	b.ReportAllocs()
	b.ResetTimer()
	var sink float64
	for i := 0; i < b.N; i++ {
		v, err := e.StepTime(reqs)
		if err != nil {
			b.Fatal(err)
		}
		sink += v
	}
	_ = sink
}

func BenchmarkStepTime1(b *testing.B)   { benchSingle(b, decodeStep()) }
func BenchmarkStepTime256(b *testing.B) { benchSingle(b, mixedStep(256)) }

// benchBatch evaluates nSteps copies of step per call and reports the time per step.
func benchBatch(b *testing.B, step []Request, nSteps int) {
	e := open(b, rooflineOptions)
	reqs := make([]Request, 0, len(step)*nSteps)
	sizes := make([]int64, nSteps)
	for i := range sizes {
		reqs = append(reqs, step...)
		sizes[i] = int64(len(step))
	}
	out := make([]float64, nSteps)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := e.StepTimeBatch(reqs, sizes, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nSteps), "ns/step")
}

func BenchmarkStepTimeBatch1x1000(b *testing.B) { benchBatch(b, decodeStep(), 1000) }
func BenchmarkStepTimeBatch256x64(b *testing.B) { benchBatch(b, mixedStep(256), 64) }
