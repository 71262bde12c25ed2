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
