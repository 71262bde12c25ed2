package mfusim

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// As tests/c/c_api_test.c test_calibrate: steps timed by a "true" model whose GEMMs run 1.5x slower are fitted
// back, and the document applied as Options.Calibration reproduces them; bad input fails naming the file.
func TestCalibrateStepsFitsBackTheTruth(t *testing.T) {
	truth := open(t, Options{Model: "qwen3-8b", GPU: "H100",
		Calibration: `{"mfusim_calibration": 1, "efficiency": {"gemm": 1.5}}`})
	var b strings.Builder
	b.WriteString(`{"model": "qwen3-8b", "gpu": "H100"}` + "\n")
	for i := 0; i < 64; i++ {
		step := []Request{{NewTokens: int64(1 + (i%4)*170), Context: int64(256 * (i % 8))},
			{NewTokens: 1, Context: int64(500 + 37*i)}}
		us, err := truth.StepTime(step)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, `{"requests": [{"new_tokens": %d, "context": %d}, {"new_tokens": 1, "context": %d}], `+
			`"measured_us": %.17g, "group": "g%d"}`+"\n", step[0].NewTokens, step[0].Context, step[1].Context, us, i%4)
	}
	path := filepath.Join(t.TempDir(), "steps.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	cal, err := CalibrateSteps(path, Options{}, 0) // model and gpu from the file's header
	if err != nil {
		t.Fatal(err)
	}
	if !cal.Improved || !strings.Contains(cal.Document, `"mfusim_calibration"`) ||
		!strings.Contains(cal.Report, "held out") {
		t.Fatalf("improved %v, document %q, report %q", cal.Improved, cal.Document, cal.Report)
	}
	fitted := open(t, Options{Model: "qwen3-8b", GPU: "H100", Calibration: cal.Document})
	probe := []Request{{NewTokens: 300, Context: 1000}, {NewTokens: 1, Context: 4000}, {NewTokens: 1, Context: 90}}
	want, err := truth.StepTime(probe)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fitted.StepTime(probe)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got/want-1) >= 0.03 {
		t.Errorf("fitted %v us, truth %v us", got, want)
	}

	var e *Error
	if _, err := CalibrateSteps(path, Options{}, 1); !errors.As(err, &e) || e.Status != ErrInvalidArgument ||
		!strings.Contains(e.Message, "folds") {
		t.Errorf("folds 1: %v", err)
	}
	if _, err := CalibrateSteps("/nonexistent/steps.jsonl", Options{}, 0); !errors.As(err, &e) || e.Status != ErrIO ||
		!strings.Contains(e.Message, "/nonexistent/steps.jsonl") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := CalibrateSteps("", Options{}, 0); !errors.As(err, &e) || e.Status != ErrInvalidArgument {
		t.Errorf("no path: %v", err)
	}
}

func TestCalibrateKernelsMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no_kernels_here")
	_, err := CalibrateKernels(dir, Options{GPU: "A100"})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "no_kernels_here") {
		t.Errorf("missing directory: %v", err)
	}
}

// A TensorParallel the caller sets is not silently replaced by the header's tp: 1 (not told from unset in C)
// against a header of tp 2 is refused; 0 takes the header's.
func TestCalibrateStepsTPAgainstTheHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.jsonl")
	trace := `{"model": "qwen3-8b", "gpu": "H100", "tp": 2}` + "\n" +
		`{"requests": [{"new_tokens": 1, "context": 10}], "measured_us": 5000}` + "\n"
	if err := os.WriteFile(path, []byte(trace), 0o600); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := CalibrateSteps(path, Options{TensorParallel: 1}, 0); !errors.As(err, &e) ||
		e.Status != ErrInvalidArgument || !strings.Contains(e.Message, "header says tp 2") {
		t.Errorf("TensorParallel 1 against a header of tp 2: %v", err)
	}
	if cal, err := CalibrateSteps(path, Options{}, 0); err != nil || !strings.Contains(cal.Document, `"tp": 2`) {
		t.Errorf("TensorParallel 0 (the header's): %v", err)
	}
}

// Strings with a NUL byte are refused naming the argument, not passed to C cut at the NUL.
func TestStringsWithNULAreRefused(t *testing.T) {
	check := func(what string, err error, name string) {
		t.Helper()
		var e *Error
		if !errors.As(err, &e) || e.Status != ErrInvalidArgument || !strings.Contains(e.Message, name+": embedded NUL") {
			t.Errorf("%s: %v", what, err)
		}
	}
	_, err := Open(Options{Model: "qwen3-8b\x00junk", GPU: "H100"})
	check("Open", err, "Options.Model")
	_, err = Open(Options{Model: "qwen3-8b", GPU: "H100", Engine: "vllm\x00"})
	check("Open", err, "Options.Engine")
	_, err = CalibrateSteps("steps.jsonl\x00.txt", Options{}, 0)
	check("CalibrateSteps", err, "stepsPath")
	_, err = CalibrateKernels("dir\x00", Options{GPU: "A100"})
	check("CalibrateKernels", err, "kernelsDir")
}
