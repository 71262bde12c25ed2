//go:build mfusim

// mfusim.go: libmfusim as a BLIS latency backend (--latency-model mfusim). Kept in libmfusim's repository at
// bindings/go/blis/latency/mfusim.go and copied unchanged into BLIS's sim/latency/ (docs/blis.md in libmfusim).
// It builds only with -tags mfusim (cgo and libmfusim needed); without the tag mfusim_off.go answers an error, so
// BLIS builds and tests as before.
package latency

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/inference-sim/inference-sim/sim"
	"github.com/libmfusim/libmfusim/bindings/go/adapter"
	"github.com/libmfusim/libmfusim/bindings/go/mfusim"
	"github.com/sirupsen/logrus"
)

// MfusimModelConfigFolder is the HF config folder BLIS resolved for the run (--model-config-folder, the bundled
// model_configs/<model>, or the fetched one): cmd/root.go sets it before the instances are built, and the model is
// read from its config.json, the same file BLIS sizes the KV cache and max model length from.
var MfusimModelConfigFolder string

// The environment variables a run may set (none is needed):
//
//	MFUSIM_MODEL        a catalogue name, config.json path or JSON text that wins over every other source
//	MFUSIM_ENGINE       engine profile: vllm (default), sglang, trtllm, none, JSON, or a calibrated profile file
//	MFUSIM_BENCH_DATA   a bench_data directory of measured kernel tables (default: the analytical model)
//	MFUSIM_CALIBRATION  a calibration file written by `mfusim calibrate`
const (
	envModel       = "MFUSIM_MODEL"
	envEngine      = "MFUSIM_ENGINE"
	envBenchData   = "MFUSIM_BENCH_DATA"
	envCalibration = "MFUSIM_CALIBRATION"
)

// mfusimRequest reads a *sim.Request for the adapter (zero-size: no allocation, the call inlines).
//
// The cached prefix, under BLIS's ProgressIndex semantics: on the step that admits a request, ProgressIndex is 0
// while the chunk starts after the CachedPrefixTokens the KV cache found (batch_formation.go, phase 2); the step
// then sets ProgressIndex to the tokens computed *including* the cached ones, so every later chunk and decode
// already counts them. The part of the cached prefix not yet in ProgressIndex is therefore
// max(0, CachedPrefixTokens - ProgressIndex): the whole prefix on the admission step, 0 afterwards (it stays
// right should BLIS ever start ProgressIndex at the cached count). A preemption resets ProgressIndex to 0 and the
// re-admission stores the new cache hit.
type mfusimRequest struct{}

func (mfusimRequest) Tokens(r *sim.Request) (progress, newTokens, promptLen, cachedPrefix int64) {
	cached := r.CachedPrefixTokens - r.ProgressIndex
	if cached < 0 {
		cached = 0
	}
	return r.ProgressIndex, int64(r.NumNewTokens), r.InputLen(), cached
}

// MfusimLatencyModel is the sim.LatencyModel of --latency-model mfusim: the adapter's four answers, with BLIS's
// LoRA step-overhead factor applied to StepTime as the other backends apply it.
type MfusimLatencyModel struct {
	*adapter.Model[*sim.Request]
	adapterCost sim.AdapterCost
	source      string // where the model came from, for the run's report
}

// StepTime is libmfusim's step (GPU step plus the engine's own loop), times the LoRA factor when one applies.
func (m *MfusimLatencyModel) StepTime(batch []*sim.Request) int64 {
	base := m.Model.StepTime(batch)
	if m.adapterCost == nil {
		return base
	}
	f := m.adapterCost.StepOverheadFactor(batch)
	if math.IsNaN(f) || math.IsInf(f, 0) || f <= 1 || float64(base)*f >= float64(math.MaxInt64/2) {
		return base
	}
	return max(1, int64(float64(base)*f))
}

// Source says where the model came from (a config path, the catalogue, or BLIS's parsed config).
func (m *MfusimLatencyModel) Source() string { return m.source }

// The estimators of a run, one per distinct configuration, shared by its instances (an Estimator is immutable and
// thread-safe; each instance's Model owns only its request buffer), and the Models, for the run's report.
var mfusimRun struct {
	sync.Mutex
	estimators map[string]*mfusim.Estimator
	models     []*MfusimLatencyModel
}

// newMfusimModel builds the latency model of one simulated instance. Every failure is an error naming what to
// change; nothing here panics.
func newMfusimModel(hw sim.ModelHardwareConfig, ac sim.AdapterCost) (sim.LatencyModel, error) {
	if hw.TP <= 0 {
		return nil, fmt.Errorf("latency model: mfusim requires TP > 0, got %d", hw.TP)
	}
	if hw.DP > 1 || hw.EnableExpertParallel {
		return nil, fmt.Errorf("latency model: mfusim: --dp > 1 and --enable-expert-parallel are not wired through " +
			"this backend yet (libmfusim's ExpertParallel/AttentionDataParallel options are; see docs/blis.md)")
	}
	model, source, err := resolveMfusimModel(hw)
	if err != nil {
		return nil, fmt.Errorf("latency model: mfusim: %w", err)
	}
	opts := mfusim.Options{
		Model:          model,
		GPU:            mfusimGPU(hw.GPU),
		TensorParallel: hw.TP,
		Engine:         os.Getenv(envEngine),
		BenchDataDir:   os.Getenv(envBenchData),
		Calibration:    os.Getenv(envCalibration),
		Quant:          mfusimQuant(hw.ModelConfig, source),
	}
	est, err := mfusimEstimator(opts)
	if err != nil {
		if errors.Is(err, mfusim.ErrUnknownName) {
			return nil, fmt.Errorf("latency model: mfusim (model from %s, GPU %q): %w; libmfusim's GPUs: %s",
				source, hw.GPU, err, strings.Join(mfusim.GPUs(), ", "))
		}
		return nil, fmt.Errorf("latency model: mfusim (model from %s, GPU %q): %w", source, hw.GPU, err)
	}
	am, err := adapter.New[*sim.Request](est, mfusimRequest{})
	if err != nil {
		return nil, fmt.Errorf("latency model: mfusim: %w", err)
	}
	if w := am.LoadWarnings(); w != "" {
		logrus.Warnf("mfusim: %s", strings.ReplaceAll(w, "\n", "; "))
	}
	m := &MfusimLatencyModel{Model: am, adapterCost: ac, source: source}
	mfusimRun.Lock()
	mfusimRun.models = append(mfusimRun.models, m)
	mfusimRun.Unlock()
	return m, nil
}

// mfusimEstimator opens an estimator for opts, or returns the one this run already opened for them.
func mfusimEstimator(opts mfusim.Options) (*mfusim.Estimator, error) {
	key, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	mfusimRun.Lock()
	defer mfusimRun.Unlock()
	if est, ok := mfusimRun.estimators[string(key)]; ok {
		return est, nil
	}
	est, err := mfusim.Open(opts)
	if err != nil {
		return nil, err
	}
	if mfusimRun.estimators == nil {
		mfusimRun.estimators = map[string]*mfusim.Estimator{}
	}
	mfusimRun.estimators[string(key)] = est
	return est, nil
}

// resolveMfusimModel picks the model libmfusim loads, first of: $MFUSIM_MODEL; the config.json of the folder
// BLIS resolved (MfusimModelConfigFolder); hw.Model as a config.json path or its folder; hw.Model in libmfusim's
// catalogue (with or without the HF organisation, any case); BLIS's parsed hw.ModelConfig. It returns the
// model (path, name or JSON text) and a description of its source.
func resolveMfusimModel(hw sim.ModelHardwareConfig) (model, source string, err error) {
	if v := strings.TrimSpace(os.Getenv(envModel)); v != "" {
		return v, "$" + envModel, nil
	}
	if MfusimModelConfigFolder != "" {
		p := filepath.Join(MfusimModelConfigFolder, "config.json")
		if isFile(p) {
			return p, p, nil
		}
	}
	if hw.Model != "" {
		if isFile(hw.Model) {
			return hw.Model, hw.Model, nil
		}
		if p := filepath.Join(hw.Model, "config.json"); isFile(p) {
			return p, p, nil
		}
		if name, ok := mfusimCatalogueName(hw.Model); ok {
			return name, "libmfusim's catalogue (" + name + ")", nil
		}
	}
	if hw.ModelConfig.NumLayers > 0 {
		text, err := MfusimHFConfig(hw.ModelConfig)
		if err != nil {
			return "", "", err
		}
		return text, "BLIS's parsed model config", nil
	}
	return "", "", fmt.Errorf("model %q: not a config.json path, not in libmfusim's catalogue (%s), and BLIS "+
		"resolved no config for it: pass --model-config-folder DIR (a Hugging Face config.json), or set $%s",
		hw.Model, strings.Join(mfusim.Models(), ", "), envModel)
}

// mfusimCatalogueName matches a BLIS model id ("meta-llama/llama-2-7b-hf", any case) to a catalogue name.
func mfusimCatalogueName(id string) (string, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	short := id[strings.LastIndex(id, "/")+1:]
	for _, n := range mfusim.Models() {
		if l := strings.ToLower(n); l == id || l == short {
			return n, true
		}
	}
	return "", false
}

// mfusimGPU maps BLIS's hardware names (hardware_config.json: H100, A100-SXM, A100-80, L40S) onto libmfusim's
// built-in GPUs; any other name (a libmfusim GPU, a GPU profile JSON path or text) passes through.
func mfusimGPU(name string) string {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "A100-SXM", "A100-80", "A100-SXM4-80GB":
		return "A100" // BLIS's A100s are the 80 GB SXM part, libmfusim's "A100"
	}
	return name
}

// mfusimQuant is the weight format when the model comes from BLIS's parsed config, which carries the weights'
// bytes per parameter but not the checkpoint's quantization_config; a config.json or catalogue entry states it.
func mfusimQuant(mc sim.ModelConfig, source string) string {
	if source != "BLIS's parsed model config" || mc.WeightBytesPerParam <= 0 || mc.WeightBytesPerParam == mc.BytesPerParam {
		return ""
	}
	switch mc.WeightBytesPerParam {
	case 1:
		return "fp8"
	case 0.5:
		return "int4_wo"
	}
	return ""
}

// MfusimHFConfig writes BLIS's parsed model config as the Hugging Face config.json text libmfusim reads. BLIS
// keeps a zero for absent keys; libmfusim reads a key's presence, so zero optional keys are left out, and a MoE
// whose expert width BLIS left 0 (the Mixtral convention: experts of intermediate_size, moe_intermediate_size
// absent) gets intermediate_size as its moe_intermediate_size. MLA needs keys BLIS does not parse (v_head_dim,
// qk_nope_head_dim): it is refused, naming the config.json route.
func MfusimHFConfig(mc sim.ModelConfig) (string, error) {
	if mc.KVLoraRank > 0 {
		return "", errors.New("an MLA model (kv_lora_rank > 0) needs its config.json: pass --model-config-folder DIR " +
			"or set $" + envModel)
	}
	cfg := map[string]any{
		"num_hidden_layers":   mc.NumLayers,
		"hidden_size":         mc.HiddenDim,
		"num_attention_heads": mc.NumHeads,
		"num_key_value_heads": mc.NumKVHeads,
		"vocab_size":          mc.VocabSize,
		"intermediate_size":   mc.IntermediateDim,
	}
	if mc.NumKVHeads == 0 {
		cfg["num_key_value_heads"] = mc.NumHeads
	}
	optional := map[string]int{"head_dim": mc.HeadDim, "intermediate_size_mlp": mc.DenseIntermediateDim,
		"first_k_dense_replace": mc.FirstKDenseReplace}
	if mc.IsMoE() {
		width := mc.MoEExpertFFNDim
		if width == 0 {
			width = mc.IntermediateDim
		}
		cfg["num_local_experts"] = mc.NumLocalExperts
		cfg["num_experts_per_tok"] = mc.NumExpertsPerTok
		cfg["moe_intermediate_size"] = width
		optional["shared_expert_intermediate_size"] = mc.SharedExpertFFNDim
		optional["interleave_moe_layer_step"] = mc.InterleaveMoELayerStep
	}
	for k, v := range optional {
		if v > 0 {
			cfg[k] = v
		}
	}
	if mc.HiddenAct != "" {
		cfg["hidden_act"] = mc.HiddenAct
	}
	switch mc.BytesPerParam {
	case 4:
		cfg["torch_dtype"] = "float32"
	case 2, 0:
		cfg["torch_dtype"] = "bfloat16"
	}
	text, err := json.Marshal(cfg)
	return string(text), err
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// MfusimStats sums the adapter counters of this run's models (one per instance): Calls, Steps, Requests and
// Errors, with the last error seen. A run that reports Errors > 0 had steps libmfusim refused (answered with the
// previous step's time): read LastError.
func MfusimStats() (adapter.Stats, int) {
	mfusimRun.Lock()
	defer mfusimRun.Unlock()
	var s adapter.Stats
	for _, m := range mfusimRun.models {
		st := m.Stats()
		s.Calls += st.Calls
		s.Steps += st.Steps
		s.Requests += st.Requests
		s.Errors += st.Errors
		if st.LastError != nil {
			s.LastError = st.LastError
		}
	}
	return s, len(mfusimRun.models)
}

// MfusimReport is the run's one-line summary for the log: instances, steps, mean batch, errors, model sources
// and the engine terms answered outside the steps.
func MfusimReport() string {
	s, n := MfusimStats()
	mfusimRun.Lock()
	sources := map[string]bool{}
	var terms mfusim.EngineTerms
	for _, m := range mfusimRun.models {
		sources[m.source] = true
		terms = m.EngineTerms()
	}
	mfusimRun.Unlock()
	src := make([]string, 0, len(sources))
	for k := range sources {
		src = append(src, k)
	}
	sort.Strings(src)
	mean := 0.0
	if s.Steps > 0 {
		mean = float64(s.Requests) / float64(s.Steps)
	}
	line := fmt.Sprintf("mfusim: %d instance(s), %d steps, %.1f requests per step, %d calls, %d errors; model from %s; "+
		"outside the steps: admission %.0f us + %.2f us per prompt token, %.1f us per output token",
		n, s.Steps, mean, s.Calls, s.Errors, strings.Join(src, ", "), terms.AdmissionUS, terms.InputTokenUS,
		terms.OutputTokenUS)
	if s.LastError != nil {
		line += "; last error: " + s.LastError.Error()
	}
	return line
}
