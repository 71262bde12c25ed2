//go:build mfusim

package latency

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/inference-sim/sim"
	"github.com/libmfusim/libmfusim/bindings/go/adapter"
	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
)

// The backend is a sim.LatencyModel (the fixture's interface is BLIS's @ f90a1e3a).
var _ sim.LatencyModel = (*MfusimLatencyModel)(nil)

func hwFor(model, gpu string, tp int) sim.ModelHardwareConfig {
	return sim.ModelHardwareConfig{Model: model, GPU: gpu, TP: tp, DP: 1, Backend: "mfusim"}
}

func open(t *testing.T, hw sim.ModelHardwareConfig) *MfusimLatencyModel {
	t.Helper()
	m, err := newMfusimModel(hw, nil)
	if err != nil {
		t.Fatalf("newMfusimModel(%q): %v", hw.Model, err)
	}
	return m.(*MfusimLatencyModel)
}

func prompt(n int) []sim.TokenID { return make([]sim.TokenID, n) }

// decodeStep is a batch of n decodes over ctx tokens each, as BLIS hands it to StepTime.
func decodeStep(n int, ctx int64) []*sim.Request {
	b := make([]*sim.Request, n)
	for i := range b {
		b[i] = &sim.Request{InputTokens: prompt(int(ctx)), OutputTokens: prompt(8), ProgressIndex: ctx, NumNewTokens: 1}
	}
	return b
}

func TestResolvesCatalogueNamesAsBLISSpellsThem(t *testing.T) {
	m := open(t, hwFor("meta-llama/Llama-2-7b-hf", "H100", 1))
	if !strings.Contains(m.Source(), "llama-2-7b-hf") {
		t.Fatalf("source %q, want the catalogue's llama-2-7b-hf", m.Source())
	}
	if got := m.StepTime(decodeStep(32, 1024)); got <= 1 {
		t.Fatalf("StepTime = %d", got)
	}
	if a100 := open(t, hwFor("llama-2-7b-hf", "A100-80", 1)); a100.StepTime(decodeStep(32, 1024)) <= m.StepTime(decodeStep(32, 1024)) {
		t.Fatal("BLIS's A100-80 should map to libmfusim's A100, slower than H100")
	}
}

// A model outside the catalogue with no config: an error naming the way out, never a panic (the old wiring
// panicked with "did you mean 'llama-2-7b-hf'?" for Llama-2-70B).
func TestUnknownModelIsAnErrorNotAPanic(t *testing.T) {
	_, err := newMfusimModel(hwFor("meta-llama/llama-2-70b-hf", "H100", 4), nil)
	if err == nil || !strings.Contains(err.Error(), "--model-config-folder") || !strings.Contains(err.Error(), "llama-2-70b-hf") {
		t.Fatalf("err = %v, want one naming the model and --model-config-folder", err)
	}
	for _, hw := range []sim.ModelHardwareConfig{hwFor("llama-2-7b-hf", "H100", 0), hwFor("llama-2-7b-hf", "nonesuch-gpu", 1),
		{Model: "llama-2-7b-hf", GPU: "H100", TP: 1, DP: 2}} {
		if _, err := newMfusimModel(hw, nil); err == nil {
			t.Fatalf("%+v: no error", hw)
		}
	}
	_, err = newMfusimModel(hwFor("llama-2-7b-hf", "nonesuch-gpu", 1), nil)
	if err == nil || !strings.Contains(err.Error(), "H100") {
		t.Fatalf("unknown GPU: %v, want the list of GPUs", err)
	}
}

// Llama-2-70B is not in the catalogue: BLIS's parsed config (what cmd/root.go parses from its config.json) serves.
func TestBLISParsedConfigServesModelsOutsideTheCatalogue(t *testing.T) {
	hw := hwFor("meta-llama/llama-2-70b-hf", "H100", 4)
	hw.ModelConfig = sim.ModelConfig{NumLayers: 80, HiddenDim: 8192, NumHeads: 64, NumKVHeads: 8, VocabSize: 32000,
		BytesPerParam: 2, IntermediateDim: 28672, HiddenAct: "silu"}
	m := open(t, hw)
	if m.Source() != "BLIS's parsed model config" {
		t.Fatalf("source %q", m.Source())
	}
	small := open(t, hwFor("llama-2-7b-hf", "H100", 4))
	if m.StepTime(decodeStep(8, 1024)) <= small.StepTime(decodeStep(8, 1024)) {
		t.Fatal("70B decode not slower than 7B at the same TP")
	}
}

// BLIS parses Mixtral with MoEExpertFFNDim 0 (its experts are intermediate_size wide): the step must equal the
// catalogue's Mixtral (the real HF config), where passing the parsed config as JSON failed
// ("moe_intermediate_size" 0).
func TestMixtralParsedConfigMatchesItsHFConfig(t *testing.T) {
	hw := hwFor("some-org/my-mixtral", "H100", 2)
	hw.ModelConfig = sim.ModelConfig{NumLayers: 32, HiddenDim: 4096, NumHeads: 32, NumKVHeads: 8, VocabSize: 32000,
		BytesPerParam: 2, IntermediateDim: 14336, NumLocalExperts: 8, NumExpertsPerTok: 2, HiddenAct: "silu"}
	parsed := open(t, hw)
	ref := open(t, hwFor("mixtral-8x7b-v0.1", "H100", 2))
	for _, batch := range [][]*sim.Request{decodeStep(1, 512), decodeStep(64, 2048)} {
		a, b := parsed.StepTime(batch), ref.StepTime(batch)
		if math.Abs(float64(a-b)) > 0.01*float64(b) {
			t.Fatalf("%d requests: parsed config %d us, HF config %d us", len(batch), a, b)
		}
	}
	text, err := MfusimHFConfig(hw.ModelConfig)
	if err != nil || !strings.Contains(text, `"moe_intermediate_size":14336`) {
		t.Fatalf("MfusimHFConfig = %s, %v", text, err)
	}
}

// The folder cmd/root.go resolved wins, and a real HF config.json from the reference data is read (Mixtral's MoE
// width under intermediate_size with num_local_experts).
func TestConfigFolderFromRootGo(t *testing.T) {
	ref := os.Getenv("MFUSIM_REFERENCE_DIR")
	if ref == "" {
		ref = filepath.Join("..", "..", "..", "..", "..", "shared", "reference")
	}
	dir := filepath.Join(ref, "model_configs", "mixtral-8x7b-v0.1")
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		t.Skipf("reference data absent (%v): set MFUSIM_REFERENCE_DIR", err)
	}
	MfusimModelConfigFolder = dir
	defer func() { MfusimModelConfigFolder = "" }()
	m := open(t, hwFor("mistralai/mixtral-8x7b-v0.1", "H100", 2))
	if !strings.HasSuffix(m.Source(), "config.json") {
		t.Fatalf("source %q, want the folder's config.json", m.Source())
	}
	cat := open(t, hwFor("mixtral-8x7b-v0.1", "H100", 2))
	MfusimModelConfigFolder = ""
	if a, b := m.StepTime(decodeStep(16, 1024)), cat.StepTime(decodeStep(16, 1024)); math.Abs(float64(a-b)) > 0.01*float64(b) {
		t.Fatalf("config.json %d us, catalogue %d us", a, b)
	}
}

// blisInstance replays BLIS's request states (sim/batch_formation.go VLLMBatchFormation.FormBatch and the
// ProgressIndex update of sim/simulator.go Step, @ f90a1e3a) for one request at a time: admission with a prefix
// cache hit (ProgressIndex stays 0, the chunk starts after the cached tokens, ComputedTokens = chunk + cached,
// CachedPrefixTokens = cached: the blis.patch line), continuing chunks (NumNewTokens = InputLen - ProgressIndex,
// capped by the long-prefill threshold), decodes (1 token), and preemption (ProgressIndex reset to 0).
type blisInstance struct {
	threshold int64
	computed  map[*sim.Request]int64
}

func (b *blisInstance) admit(r *sim.Request, cached int64) {
	n := min(r.InputLen()-cached, b.threshold)
	r.NumNewTokens = int(n)
	r.CachedPrefixTokens = cached
	b.computed[r] = n + cached
}

func (b *blisInstance) schedule(r *sim.Request) {
	if n := r.InputLen() - r.ProgressIndex; n > 0 {
		n = min(n, b.threshold)
		r.NumNewTokens = int(n)
		b.computed[r] += n
		return
	}
	r.NumNewTokens = 1
	b.computed[r]++
}

func (b *blisInstance) finish(r *sim.Request) {
	if r.ProgressIndex < r.InputLen() {
		r.ProgressIndex = b.computed[r]
	} else if r.NumNewTokens > 0 {
		r.ProgressIndex++
	}
}

// The cached prefix is counted once: every step's context is exactly the tokens in the request's KV cache (cached
// prefix plus everything computed before), on the admission step and on every later chunk and decode, and after a
// preemption and re-admission with a different hit. The former rule (context = cached + ProgressIndex) counted
// the prefix twice after admission.
func TestCachedPrefixCountedOnceUnderBLISProgressIndex(t *testing.T) {
	m := open(t, hwFor("llama-3.1-8b-instruct", "H100", 1))
	inst := &blisInstance{threshold: 256, computed: map[*sim.Request]int64{}}
	r := &sim.Request{InputTokens: prompt(1000), OutputTokens: prompt(4)}
	var kv int64 // tokens in the request's KV cache, by construction
	check := func(what string, wantNew int64, wantOutput bool) {
		t.Helper()
		e := m.Requests([]*sim.Request{r})[0]
		if e.Context != kv || e.NewTokens != wantNew || (e.Flags&mfusim.RequestNoOutput == 0) != wantOutput {
			t.Fatalf("%s: entry {new %d, context %d, flags %d}, want {new %d, context %d (the KV cache), output %v}",
				what, e.NewTokens, e.Context, e.Flags, wantNew, kv, wantOutput)
		}
		if us := m.StepTime([]*sim.Request{r}); us <= 1 {
			t.Fatalf("%s: StepTime %d", what, us)
		}
		inst.finish(r)
		kv += e.NewTokens
		if r.ProgressIndex != kv {
			t.Fatalf("%s: BLIS's ProgressIndex %d after the step, KV cache %d", what, r.ProgressIndex, kv)
		}
	}
	// Admission with 96 cached tokens: chunk 1 covers tokens [96, 352).
	inst.admit(r, 96)
	kv = 96
	check("admission chunk", 256, false)
	inst.schedule(r)
	check("chunk 2", 256, false)
	inst.schedule(r)
	check("chunk 3", 256, false)
	inst.schedule(r)
	check("last chunk", 1000-96-3*256, true)
	for i := 0; i < 3; i++ {
		inst.schedule(r)
		check("decode", 1, true)
	}
	// Preemption frees the blocks; re-admission finds 512 cached.
	r.ProgressIndex, r.NumNewTokens = 0, 0
	inst.admit(r, 512)
	kv = 512
	check("re-admission chunk", 256, false)
	inst.schedule(r)
	check("re-admission last chunk", 1000-512-256, true)
	inst.schedule(r)
	check("decode after re-admission", 1, true)
}

// The admission step of a cache hit is timed over its cached context, on the prompt's last chunk with its LM head:
// slower than the same chunk with nothing cached, and equal to the library's step for that entry.
func TestCachedAdmissionStepMatchesLibraryEntry(t *testing.T) {
	m := open(t, hwFor("llama-3.1-8b-instruct", "H100", 1))
	hit := &sim.Request{InputTokens: prompt(547), NumNewTokens: 451, CachedPrefixTokens: 96}
	us, err := m.Estimator().StepTime([]mfusim.Request{mfusim.Prefill(451, 96, true)})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.StepTime([]*sim.Request{hit}); got != int64(math.Round(us)) {
		t.Fatalf("StepTime %d, library %.1f", got, us)
	}
	cold := &sim.Request{InputTokens: prompt(451), NumNewTokens: 451}
	if m.StepTime([]*sim.Request{hit}) <= m.StepTime([]*sim.Request{cold}) {
		t.Fatal("a chunk over 96 cached tokens is not slower than the same chunk over none")
	}
}

type loraFactor float64

func (loraFactor) LoadLatency(string) float64                  { return 0 }
func (f loraFactor) StepOverheadFactor([]*sim.Request) float64 { return float64(f) }
func (loraFactor) AdapterReservedBytes() float64               { return 0 }

func TestLoRAFactorAndStats(t *testing.T) {
	base := open(t, hwFor("llama-3.1-8b-instruct", "H100", 1))
	lm, err := newMfusimModel(hwFor("llama-3.1-8b-instruct", "H100", 1), loraFactor(1.5))
	if err != nil {
		t.Fatal(err)
	}
	b := decodeStep(4, 512)
	if got, want := lm.StepTime(b), int64(float64(base.StepTime(b))*1.5); got != want {
		t.Fatalf("LoRA step %d, want %d", got, want)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), 0.5} {
		m, _ := newMfusimModel(hwFor("llama-3.1-8b-instruct", "H100", 1), loraFactor(f))
		if m.StepTime(b) != base.StepTime(b) {
			t.Fatalf("factor %v changed the step", f)
		}
	}
	last := base.StepTime(b)
	before, n := MfusimStats()
	bad := []*sim.Request{{InputTokens: prompt(10), ProgressIndex: -5, CachedPrefixTokens: -100, NumNewTokens: 1}}
	if got := base.StepTime(bad); got != last {
		t.Fatalf("a refused step answered %d, want the last good %d", got, last)
	}
	after, n2 := MfusimStats()
	if n2 != n || after.Errors != before.Errors+1 || after.Steps != before.Steps+1 || after.LastError == nil {
		t.Fatalf("stats %+v -> %+v", before, after)
	}
	if r := MfusimReport(); !strings.Contains(r, "errors") || !strings.Contains(r, "llama-3.1-8b-instruct") {
		t.Fatalf("report %q", r)
	}
	var _ adapter.Stats = after
}

// The step BLIS calls is the GPU step plus the engine's own loop: the profile's harness terms (admission_us,
// input_token_us, output_token_us: API server, tokenisation, detokenisation and streaming) never enter StepTime;
// they are QueueingTime and OutputTokenProcessingTime. The engine-loop terms (layer_us, ...) do enter it.
func TestHarnessTermsStayOutOfTheStep(t *testing.T) {
	batches := [][]*sim.Request{decodeStep(1, 512), decodeStep(32, 1024),
		{{InputTokens: prompt(547), NumNewTokens: 451, CachedPrefixTokens: 96}}}
	req := &sim.Request{InputTokens: prompt(1000)}
	t.Setenv(envEngine, "vllm")
	base := open(t, hwFor("llama-3.1-8b-instruct", "H100", 1))
	t.Setenv(envEngine, `{"base": "vllm", "admission_us": 1000, "input_token_us": 2, "output_token_us": 30}`)
	harness := open(t, hwFor("llama-3.1-8b-instruct", "H100", 1))
	t.Setenv(envEngine, `{"base": "vllm", "layer_us": 0}`)
	noLoop := open(t, hwFor("llama-3.1-8b-instruct", "H100", 1))
	for _, b := range batches {
		if got, want := harness.StepTime(b), base.StepTime(b); got != want {
			t.Fatalf("harness terms moved the step: %d us, want %d", got, want)
		}
		// vLLM's layer_us (46.4 us) x 32 layers is the engine loop inside every step.
		if d := base.StepTime(b) - noLoop.StepTime(b); d < 1484 || d > 1486 {
			t.Fatalf("engine loop in the step = %d us, want 46.4 x 32 = 1485", d)
		}
	}
	if got := harness.QueueingTime(req); got != 1000+2*1000 {
		t.Fatalf("QueueingTime %d, want admission 1000 + 2 x 1000 prompt tokens", got)
	}
	if harness.OutputTokenProcessingTime() != 30 || harness.PostDecodeFixedOverhead() != 0 {
		t.Fatal("output_token_us must be OutputTokenProcessingTime; no post-decode term")
	}
}
