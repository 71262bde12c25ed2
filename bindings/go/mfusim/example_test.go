package mfusim_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
)

func Example() {
	est, err := mfusim.Open(mfusim.Options{Model: "llama-3.1-8b-instruct", GPU: "H100"})
	if err != nil {
		log.Fatal(err)
	}
	defer est.Close()

	// One engine step: a 512-token prefill chunk (the prompt's last) and a decode over 2048 cached tokens.
	step := []mfusim.Request{mfusim.Prefill(512, 0, true), mfusim.Decode(2048)}
	us, err := est.StepTime(step) // no allocation; safe from many goroutines
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(us > 0)

	// Typed errors carrying the library's message.
	_, err = est.StepTime([]mfusim.Request{{NewTokens: -1}})
	fmt.Println(errors.Is(err, mfusim.ErrInvalidArgument))
	// Output:
	// true
	// true
}

func ExampleSweep() {
	// TPOT of Llama-3.1-8B on one H100 at three concurrencies: `mfusim sweep --vary concurrency=1,8,64` as rows.
	r := mfusim.DefaultSweepRequest()
	r.Serving, r.Vary, r.VaryValues = true, mfusim.SweepConcurrency, []string{"1", "8", "64"}
	w := mfusim.DefaultServing()
	w.InputLen, w.OutputLen = 1024, 128
	s, err := mfusim.Sweep(mfusim.Options{Model: "llama-3.1-8b-instruct", GPU: "H100"}, w, r)
	if err != nil {
		log.Fatal(err)
	}
	for i, row := range s.Rows {
		fmt.Println(r.VaryValues[row.VaryIndex], row.OK == 1, i == 0 || row.TPOTms >= s.Rows[i-1].TPOTms)
	}
	// Output:
	// 1 true true
	// 8 true true
	// 64 true true
}

func ExamplePlan() {
	// The most output tokens per GPU within a 20 ms TPOT, per GPU: `mfusim plan` as rows.
	r := mfusim.DefaultPlanRequest()
	r.GPUs, r.TPList, r.MaxConcurrency, r.MaxTPOTms = []string{"H100", "H200"}, []int64{1, 2}, 64, 20
	w := mfusim.DefaultServing()
	w.InputLen, w.OutputLen = 1024, 128
	p, err := mfusim.Plan(mfusim.Options{Model: "llama-3.1-8b-instruct"}, w, r)
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range p.GPUs {
		best := p.Rows[g.BestRow]
		fmt.Println(g.Name, best.Best, best.TPOTms <= 20)
	}
	// Output:
	// H100 true true
	// H200 true true
}
