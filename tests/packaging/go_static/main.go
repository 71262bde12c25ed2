// A third party's program: one static binary that predicts a decode step's time.
package main

import (
	"fmt"
	"os"

	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
)

func main() {
	est, err := mfusim.Open(mfusim.Options{Model: "llama-3.1-8b-instruct", GPU: "H100"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer est.Close()
	us, err := est.StepTime([]mfusim.Request{mfusim.Decode(2048)})
	if err != nil || !(us > 0) {
		fmt.Fprintln(os.Stderr, "step time:", us, err)
		os.Exit(1)
	}
	fmt.Printf("libmfusim %s (static): one decode step of llama-3.1-8b-instruct on H100 takes %.3f us\n", mfusim.Version(), us)
}
