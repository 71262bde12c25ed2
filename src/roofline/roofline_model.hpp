// The per-step roofline model simulators call (DESIGN.md section 2, `roofline`): arbitrary mixed batches of
// prefill chunks over cached prefixes and decodes, under TP, EP and attention DP, with MoE and quantized weights,
// from MFU tables with interpolation or the analytical efficiency model, plus the engine around the kernels.
#pragma once

#include <memory>
#include <string>

#include "config/model_config.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/query.hpp"
#include "roofline/efficiency.hpp"
#include "roofline/vision_encoder.hpp"
#include "tables/tables.hpp"

namespace mfusim::roofline {

// A step given by its composition rather than its requests (serving estimates): `decodes` decode tokens at
// The tokens an attention-DP group's MoE layers process in one lockstep step (docs/simulate.md, "Attention-DP
// groups"), after SGLang's DpPaddingMode.get_dp_padding_mode (python/sglang/srt/layers/dp_attention.py): a step
// with prefill in any replica gathers the tokens present (SUM_LEN), an idle replica adding its one-token dummy
// batch; a decode-only step pads every replica to the busiest one's tokens (MAX_LEN, one CUDA graph size over the
// group) unless the tokens present are at most half of that. `present`: the busy replicas' tokens together;
// `busiest`: the largest replica's; `busy` of `replicas` replicas hold requests.
inline int64_t dp_group_tokens(bool prefill, int64_t present, int64_t busiest, int64_t busy, int64_t replicas) {
    if (!prefill && 2 * present > busiest * replicas) return busiest * replicas;
    return present + (replicas - busy);
}

// `decode_context` cached tokens each, and `chunks` prefill chunks of `chunk_tokens` new tokens over
// `chunk_context` cached tokens each (producing a token when `chunk_outputs`).
struct StepMix {
    int64_t decodes = 0;
    int64_t decode_context = 0;
    int64_t chunks = 0;
    int64_t chunk_tokens = 0;
    int64_t chunk_context = 0;
    bool chunk_outputs = true;
    int64_t first_chunks = 0;  // of the chunks, those that start their request: the vision tower runs for them
    // Attention-DP replicas holding this mix (1 to attention_data_parallel); the others idle on the engines'
    // one-token dummy batch and bring no tokens of their own to the MoE layers. 0: all of them.
    int64_t busy_replicas = 0;
    // With every replica busy: the prefill chunks the group's other replicas hold this step, each of this mix's
    // chunk size, their decodes being this mix's; -1: each holds this mix. Replicas whose prompts arrive apart
    // (drawn lengths) prefill in different steps, and the group's step waits for whichever does
    // (docs/serving.md, "Attention-DP replicas").
    int64_t peer_chunks = -1;
};

// How many of each engine term a step incurs (docs/engine.md): its time outside the kernels is
// step_us * step + request_us * requests + layer_us * layers + eager_layer_us * eager_layers +
// eager_moe_layer_us * eager_moe_layers + tp_sync_us * tp_sync + serial_host_step_us * serial_steps.
// All zero under the engine `none`. The calibration fits the terms from these counts.
struct EngineUnits {
    double step = 0;
    double requests = 0;
    double layers = 0;
    double eager_layers = 0;
    double eager_moe_layers = 0;
    double tp_sync = 0;
    double serial_steps = 0;  // 1 where the model's recurrent layers turn the engine's overlap scheduler off
};

// What a deployment holds in GPU memory, per GPU.
struct MemoryFacts {
    double weight_bytes = 0;        // this GPU's share of the weights (experts: its EP shard)
    double kv_bytes_per_token = 0;  // KV cache bytes one token of context occupies on this GPU (unbounded layers)
    // Layers that keep at most kv_window tokens per request (sliding window, chunked attention): their bytes per
    // token, held for min(context, kv_window) tokens.
    double windowed_kv_bytes_per_token = 0;
    int64_t kv_window = 0;
    // The fixed state one request holds on this GPU in its recurrent layers (Gated DeltaNet, Mamba2): fp32
    // recurrent state and conv state, whatever its context. Engines keep it in the same memory pool as the KV
    // cache (vLLM's hybrid allocator), so request_bytes counts it.
    double state_bytes_per_request = 0;
    // KV bytes one request of `context` tokens holds on this GPU.
    double kv_bytes_for(double context) const {
        const double held =
            kv_window > 0 && context > static_cast<double>(kv_window) ? static_cast<double>(kv_window) : context;
        return context * kv_bytes_per_token + held * windowed_kv_bytes_per_token;
    }
    // Cache memory one running request of `context` tokens holds on this GPU: its KV and its recurrent state.
    double request_bytes(double context) const { return kv_bytes_for(context) + state_bytes_per_request; }
    int64_t gpus = 1;      // tensor_parallel x attention_data_parallel
    int64_t replicas = 1;  // attention data-parallel replicas, each scheduling its own requests
};

// The KV cache's format a deployment runs (docs/engine.md, "The checkpoint's KV cache"): the deployment's explicit
// format (fp8_kv / bf16_kv) always wins; otherwise FP8 where the checkpoint states an FP8 KV cache in ModelOpt's
// form and the engine's default KV dtype follows it (engines::follows_checkpoint_kv_cache), else 16-bit.
struct KvCacheChoice {
    bool fp8 = false;
    std::string from;  // "deployment", "checkpoint" or "engine" (the engine's 16-bit default)
    std::string why;   // one line for inspect and serve: the format and where it came from
};
KvCacheChoice resolve_kv_cache(const query::Deployment& deployment, const config::Quantization& checkpoint,
                               const engines::EngineProfile& engine);

class RooflineModel {
  public:
    // Builds every lookup index once; the step path then allocates nothing. `tables` may be null (analytical
    // efficiencies everywhere). Error(config) for a deployment the model cannot be sharded over (TP not dividing
    // the heads, EP not dividing the experts or the GPUs), naming the numbers; Error(unknown_name) for an unknown
    // engine or quantization. `efficiency` (a calibration's multipliers) scales each family's kernel time; it is
    // folded into one constant per operation here, so a calibrated step costs what an uncalibrated one does.
    // `draft_model`: the parsed model of deployment.speculation.draft_model (required for the draft_model drafter,
    // else ignored), built on this GPU, engine and tensor parallelism (vLLM's draft_tensor_parallel_size default).
    RooflineModel(const config::ModelConfig& model, const gpu::GpuProfile& gpu,
                  std::shared_ptr<const tables::BenchData> tables, const query::Deployment& deployment,
                  const engines::EngineProfile& engine = engines::builtin_engines().front(),
                  const std::string& quant = "", const Efficiency& efficiency = {},
                  const config::ModelConfig* draft_model = nullptr);
    ~RooflineModel();
    RooflineModel(RooflineModel&&) noexcept;
    RooflineModel& operator=(RooflineModel&&) noexcept;

    // Thread-safe, allocation-free, one evaluator: step_detail's total is step_time_us's number. Requests are
    // validated by the caller (query::validate_requests).
    double step_time_us(const mfusim_request* requests, std::size_t n) const;
    // One attention-DP replica's step inside its expert-parallel group's lockstep step (docs/simulate.md,
    // "Attention-DP groups"): attention and everything per replica on these requests, the routed experts on them
    // plus `peer_tokens`, the new tokens the group's other replicas bring this step (an idle replica's dummy
    // batch: one). The two-argument form is every replica holding these requests, tokens x (attention DP - 1).
    // Error(invalid_argument) for negative peer_tokens.
    double step_time_us(const mfusim_request* requests, std::size_t n, int64_t peer_tokens) const;
    // step_time_us with the requests validated in the evaluator's own pass over them (Error(invalid_argument)
    // as query::validate_requests): what the public step path calls.
    double checked_step_time_us(const mfusim_request* requests, std::size_t n) const;
    void step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const;
    // The same evaluator over a step's composition; `detail` optional.
    double mix_time_us(const StepMix& mix, mfusim_step_result* detail = nullptr) const;
    // The engine terms' counts in this step: the same numbers the evaluator multiplies by the engine's terms.
    EngineUnits engine_units(const mfusim_request* requests, std::size_t n) const;

    // TTFT / TPOT of a scenario in roofline terms (prefill in chunks of max_prefill_tokens, decode at the mean
    // context), with the same headline names as compat: prefill.ttft_ms, decode.tpot_ms, throughputs.
    query::Report estimate(const query::Scenario& scenario) const;

    const engines::EngineProfile& engine() const;
    // The KV cache's format as the deployment runs it, and why (resolve_kv_cache).
    const KvCacheChoice& kv_cache() const;
    // Whether the engine's host loop takes the next step's batch while the current step runs (its overlap
    // scheduler): the engine's `overlap_scheduler`, except for a model with recurrent layers on an engine that
    // turns the overlap off for them (serial_host_step_us > 0; EngineUnits::serial_steps).
    bool overlaps_scheduling() const;
    const Efficiency& efficiency() const;
    const MemoryFacts& memory() const;
    // Speculative decoding as the deployment runs it (inactive by default): every step's decodes verify drafts.
    const query::Speculation& speculation() const;
    // The modality towers' time for one request's images and audio (deployment.images, deployment.audio; 0
    // without), added to the step of each request's first prefill chunk, and the vision tower's cost for one image
    // by operation.
    double encoder_us_per_request() const;
    const EncoderCost& encoder_per_image() const;
    // The audio tower's cost for one request's clip (deployment.audio; zeros without).
    const EncoderCost& encoder_per_audio() const;
    const gpu::GpuProfile& gpu() const;

    // Fallbacks decided at load time (no table for a GPU or shape, weight-only quantization...), one per line.
    const std::string& load_warnings() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Whether `engine` loads block-FP8 routed experts split over `moe_tp` ranks: each rank's shard of
// moe_intermediate_size a whole number of the weights' blocks (EngineProfile::fp8_block_moe_shard_multiple; vLLM's
// Fp8MoEMethod.create_weights). Always where the experts are not block FP8 or the engine states no such rule. A
// deployment the engine does not load is refused.
bool loads_expert_shards(const engines::EngineProfile& engine, const config::ModelConfig& model,
                         config::WeightFormat experts, int64_t moe_tp);

}  // namespace mfusim::roofline
