// The launch flags and the harness a measured run used that its row states through its own facts
// (docs/simulate.md, section 7: "Launch flags the rows imply" and "Which harness a row ran under").
//
// Attention DP: the aggregated InferenceX runs (../shared/reference/measured/silicon, the H200 file: run ids,
// workflow_run_id, bench_serving with --random-range-ratio 0.8 and 10 prompts per client) launch TensorRT-LLM from
// one template per recipe, and every template that can run attention DP turns attention-DP balancing on exactly
// when attention DP is on (SemiAnalysisAI/InferenceX benchmarks/dsr1_fp8_h200_trt_slurm.sh:
// `attention_dp_config: {enable_balance: true, timeout_iters: 60, batching_wait_iters: 0}`;
// gptoss_fp4_b200_trt_slurm.sh: `attention_dp_config: {enable_balance: true}`, the engine's waits). The row's
// attention_dp_size says whether attention DP was on, so the flag follows from the row. The wait lengths differ
// between templates, so they stay the profile's.
//
// Harness: the row's `silicon_data_source` names the collection it came from. AIConfigurator's gap-analysis
// collection (`source_file=.../aic-auto-gap-analysis/...`, the whole H100 file) launched and benchmarked
// TensorRT-LLM with a client and flags it does not record, and its TensorRT-LLM runs carry a per-request time
// before the first token that the same engine under InferenceX's client does not show (docs/simulate.md). It is
// that collection's, not the engine's, so it is added here, by the row's collection, outside the step.
// Nothing here reads a model, GPU or version name.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "config/model_config.hpp"
#include "config/quantization.hpp"
#include "engine/estimator.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"

namespace mfusim::compare {

// Which benchmark collection a row came from, read from its `silicon_data_source`.
// Only the collection whose harness adds a term is told apart; InferenceX's rows (`workflow_run_id=`,
// `source_file=<date>.csv`, `db-dump/`) and rows without a source are `other`.
enum class Collection : uint8_t {
    other,
    gap_analysis,  // AIConfigurator's gap analysis: `aic-auto-gap-analysis` in the source file's path
};

Collection collection_of(std::string_view silicon_data_source);

// The collection as `compare --serving --rows` names it in its `collection` column: "gap_analysis" or "other".
const char* collection_name(Collection collection);

// Whether a row's `backend_version` is the release of the serving framework that wrapped its engine rather than the
// engine's own: the source names the image the run used (`image=<repository>:<tag>`), that image is NVIDIA Dynamo's
// runtime for the engine (`ai-dynamo/<engine>-runtime`), and its tag is the version. The disaggregated db-dump rows
// write Dynamo's tag there (`tensorrtllm-runtime:0.8.1.post1` beside backend_version 0.8.1.post1), where the
// gap-analysis rows of the same images write the engine's (1.2.0rc6.post1 beside `tensorrtllm-runtime:0.8.0`).
// Read as an engine release, Dynamo 0.8.1 would be TensorRT-LLM 0.8.1, older than every row; such a row is answered
// unversioned instead, the built-in profile's values.
bool version_names_wrapper(std::string_view silicon_data_source, std::string_view backend_version);

// The clients the benchmark held in flight, `silicon_concurrency=N` in the row's `silicon_data_source` (the `cN` of
// an InferenceX run id); 0 when the source does not say. AIConfigurator's `batch_size` column is the batch of one
// attention-DP replica (every H200 TensorRT-LLM row with attention DP: batch_size x attention_dp_size =
// silicon_concurrency); read_silicon_csv takes this count as the clients there.
int64_t concurrency_of(std::string_view silicon_data_source);

// The weight format a row's deployment served, from its `gemm_quant_mode` and the checkpoint's own quantization:
// the format to impose (`options.quant`), or "" to serve the checkpoint as it is. The rows label a block-FP8
// checkpoint (weight_block_size [128, 128]: DeepSeek-V3/R1, MiniMax-M2.5, Qwen3-235B-A22B-FP8) `fp8` as often as
// `fp8_block`, but an engine serves such a checkpoint with its block scales (vLLM's and SGLang's Fp8Config reads
// weight_block_size; nothing requantizes it per tensor), so `fp8` on a block-FP8 checkpoint is the checkpoint.
// AIConfigurator's per-tensor FP8 labels fp8_static and fp8_ootb are fp8; a label that names no format of this
// library (sq, nvfp4_wo) is passed on, and the estimator refuses it by name. An FP4 label (nvfp4, mxfp4) on a
// checkpoint already in FP4 is the checkpoint too: the rows label gpt-oss's MXFP4 checkpoint `nvfp4`, and every engine
// serves it in MXFP4 (vLLM's Mxfp4MoEMethod, SGLang's Mxfp4Config, TensorRT-LLM's W4A16_MXFP4 / W4A8_MXFP4_MXFP8);
// none requantizes it to NVFP4, whose kernels differ on both Hopper (no FP4 GEMM) and Blackwell (FP4 activations).
// A 16-bit label (float16, bfloat16, bf16, fp16) on a quantized checkpoint is the checkpoint as well: no engine widens
// a quantized checkpoint to BF16 on load, and AIConfigurator labels gpt-oss's GEMMs float16 beside its MXFP4 experts
// (MoEQuantMode w4a16_mxfp4, which is mxfp4 here); `fp4`, the precision column's word, is nvfp4.
std::string served_quant(std::string_view row_quant, const config::Quantization& checkpoint);
// The format label of a row: its gemm_quant_mode, except that `fp8` beside a moe_quant_mode of `fp8_block` is a
// block-FP8 checkpoint (zai-org/GLM-5-FP8, Qwen/Qwen3.5-397B-A17B-FP8: the rows name the base model, whose config
// is 16-bit, and label the GEMMs fp8 and the experts fp8_block), so `fp8_block`. `moe` is "" where the file has no
// such column.
std::string row_quant_label(std::string_view gemm, std::string_view moe);

// What a row's deployment serves: the format to impose (served_quant) and the format its main weights then run in
// (the routed experts', else the dense MLP's), for the launch settings that follow the weights.
struct ServedWeights {
    std::string quant;
    config::WeightFormat main = config::WeightFormat::bf16;
};
ServedWeights served_weights(std::string_view row_quant, const config::Quantization& checkpoint);
// The same for the checkpoint `model` names (a config file or a built-in model's name), its quantization read from it.
ServedWeights served_weights(std::string_view row_quant, const std::string& model);

// The checkpoint a row served in place of the config it names, or nothing (the config's, with `served_quant`
// imposed). A row that names a base MoE model and NVFP4 (the rows name the base model: InferenceX serves
// nvidia/DeepSeek-R1-0528-NVFP4-v2, nvidia/Qwen3.5-397B-A17B-NVFP4, nvidia/GLM-5.2-NVFP4, nvidia/MiniMax-M3-NVFP4,
// nvidia/Kimi-K2.6-NVFP4: configs/nvidia-master.yaml) served NVIDIA's ModelOpt NVFP4 checkpoint of it, which keeps
// the attention projections in 16 bits: the exclude_modules of 9 of the 10 such checkpoints in
// ../shared/reference/model_configs_aic name every layer's self_attn (or MLA's q_a/q_b/kv_a/kv_b projections),
// Qwen3.5's its linear_attn too (DeepSeek-V3.1 and V3.2, GLM-5 and 5.1, Kimi-K2.6 and K2.7, MiniMax-M2.5 and M2.7,
// Qwen3.5-122B and 397B; not Qwen3-235B-A22B). Imposed on the base config instead, NVFP4 would have quantized them:
// on B200 a DeepSeek-R1 decode step under attention DP 8 (32 requests a rank) reads 16.3 ms so against 19.4 ms as
// NVIDIA's DeepSeek-V3.1 checkpoint is read. So: routed experts and dense MLPs NVFP4, attention and recurrent
// mixers 16-bit, and the FP8 KV cache those checkpoints state (kv_cache_quant_algo FP8). Where the configs folder
// holds NVIDIA's NVFP4 checkpoint of the row's model itself (`nvidia_checkpoint`: serving_compare.hpp,
// nvidia_nvfp4_config_for), its own formats are taken instead, for a dense model too (Qwen3-235B-A22B's quantizes
// its attention). Otherwise a dense model's row keeps the imposed format (NVIDIA's dense FP4 checkpoints quantize
// their attention), as does any other label.
std::optional<config::Quantization> launch_checkpoint(std::string_view row_quant, const config::ModelConfig& model,
                                                      const config::Quantization* nvidia_checkpoint = nullptr);

// What the gap-analysis collection adds to each TensorRT-LLM request before the engine sees it, over the engine's
// own OpenAI-server path (`admission_us` of the built-in profile): the 100 ms fitted on those runs (the 489 H100
// rows, docs/engine.md) less the 17.76 ms of the server path that the built-in profile keeps.
inline constexpr double gap_analysis_trtllm_admission_us = 100000.0 - engines::openai_server_admission_us;

// Whether a row of `collection` served by `profile` on a GPU of the Blackwell generation or not (FP4 tensor cores:
// B200, B300, GB200, GB300, RTX PRO 6000; RowGpu::blackwell_generation), its main weights served in `weights`
// (served_weights), ran an FP8 KV cache its columns do not state. InferenceX's launches, outside the gap-analysis
// collection (whose launches are unknown: the engine's default there):
// - TensorRT-LLM: `kv_cache_config.dtype: fp8` in every template (benchmarks/*_trt*.sh: DeepSeek-R1 FP8/FP4 on H200
//   and B200, Llama-3.1-70B, MiniMax-M2.5, Qwen3.5, gpt-oss on B200) and every srt-slurm recipe; the one exception,
//   gpt-oss on H200 ("auto"), is answered with FP8 too (its KV is small: docs/disagg.md, section 19);
// - SGLang on the Blackwell generation: `--kv-cache-dtype fp8_e4m3` in every template of quantized weights
//   (qwen3.5_fp4_rtx6000pro_sglang.sh on the RTX PRO 6000 too; dsr1_fp{4,8}_b200.sh,
//   glm5_fp{4,8}_b200.sh, qwen3.5_fp{4,8}_b200.sh, since 2025-11), not the BF16 one (qwen3.5_bf16_b200.sh); on
//   Hopper only one of three sets it (qwen3.5_fp8_h200.sh, not dsr1_fp8_h200.sh or glm5_fp8_h200.sh): not applied;
// - vLLM on Blackwell: `--kv-cache-dtype fp8` in every B200/B300 template of FP8 or NVFP4 weights (kimik2.5_fp4,
//   minimaxm2.5_fp{4,8}, minimaxm3_fp{4,8}, dsv4_fp4 on b200 and b300) and in gpt-oss's MXFP4 one (its config.yaml,
//   `kv-cache-dtype: fp8`, gptoss_fp4_b200.sh since 2025-12-05), not at INT4 (kimik2.5_int4_b{2,3}00.sh); on Hopper
//   one of five sets it (minimaxm2.5_fp8_h200.sh; not gptoss_fp4_h200.sh's config.yaml): not applied. (The 2025
//   Llama-3.1-70B script, 70b_fp8_h200_slurm.sh, set it too; a launch file states it: `kv_cache: "fp8"`.)
bool launch_fp8_kv_cache(const engines::EngineProfile& profile, Collection collection, bool blackwell_generation,
                         config::WeightFormat weights);

// The stream interval of InferenceX's SGLang launches (launch_recipe).
inline constexpr int64_t inferencex_sglang_stream_interval = 10;
// The memory share (--mem-fraction-static) InferenceX's SGLang launches state: the median of the single-node
// templates (benchmarks/dsr1_fp8_h200.sh 0.82, dsr1_fp4_b200.sh 0.85, glm5_fp8_h200.sh 0.85, glm5_fp8_b200.sh 0.85,
// glm5_fp4_b200.sh 0.9, qwen3.5_fp8_h200.sh 0.8), and of the 261 settings in NVIDIA/srt-slurm's attention-DP recipes
// for the disaggregated pools (quartiles 0.75 / 0.80 / 0.85; every one of its 144 such recipes sets it).
inline constexpr double inferencex_sglang_mem_fraction_static = 0.85;
inline constexpr double srt_slurm_sglang_mem_fraction_static = 0.80;
// The prompt tokens one prefill batch of NVIDIA/srt-slurm's SGLang prefill workers takes: per recipe the smaller of
// --chunked-prefill-size and --max-prefill-tokens (SGLang's default 16384 where a recipe leaves it; -1, no chunking,
// leaves max-prefill-tokens), over the 159 recipes with a prefill worker: quartiles 8192 / 16384 / 16384. SGLang's
// default chunked_prefill_size on Hopper (8192) batches one 8k prompt at a time; the recipes take two or more, which
// spreads each eager extend batch's host work (eager_moe_layer_us) over them (docs/disagg.md, section 21).
inline constexpr int64_t srt_slurm_sglang_prefill_batch_tokens = 16384;

// The token budget per step (TensorRT-LLM's max_num_tokens, vLLM's max_num_batched_tokens) InferenceX's launches give
// a run of `clients` clients at prompts of at most `input_len` tokens on a GPU of the Blackwell generation or not, its
// main weights served in `weights`, outside the gap-analysis collection; 0 elsewhere (the profile's own). TensorRT-LLM
// does not chunk prompts by default (EngineProfile::chunked_prefill), so every template sizes the budget to hold a
// whole prompt beside every client's decode token: `MAX_NUM_TOKENS=$(( (CONC + ISL + 64
// + 63) / 64 * 64 ))`, at least 8192 (benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200_trt.sh,
// dsr1_fp4_b200_trt.sh, dsr1_fp8_b200_trt.sh; dsv4_fp4_b200_trt.sh ISL + 256; Llama-3.1-70B 16384, gpt-oss 20000,
// Qwen3.5 16384-32768 fixed). The rule of the DeepSeek templates is taken, never below the profile's budget: a larger
// fixed budget differs from it only when more prompts arrive at once than it holds. A speculative run's decodes carry
// `draft_tokens` drafts each, which TensorRT-LLM counts in the budget too, and its templates make room for them:
// `MAX_NUM_TOKENS=$(( ((MTP+1)*MAX_BATCH_SIZE+ISL+64+63)/64*64 ))` (dsr1_fp{4,8}_b200_trt_mtp.sh,
// dsr1_fp8_h200_trt_mtp.sh). Without them a prompt beside every client's drafts would never fit, and the prompt
// would wait for the decodes to end. The templates' floor (8192 in the non-speculative DeepSeek ones since InferenceX
// 64af5a771, 2026-01-21; none before, and none in the MTP ones) is the profile's budget, which a launch file sets
// for the runs of a template (examples/launches/inferencex.json).
//
// vLLM on the Blackwell generation at FP8 or NVFP4 weights: `--max-num-batched-tokens $((ISL * 2))` in five of the six
// such templates (minimaxm2.5_fp{4,8}_b{2,3}00.sh, kimik2.5_fp4_b200.sh; not kimik2.5_fp4_b300.sh), so two prompts a
// step where the engine's default (8192) takes eight 1k prompts or one 8k prompt in two chunks; gpt-oss's MXFP4
// template states vLLM's 8192 and the INT4 ones nothing: the profile's own there.
inline constexpr int64_t inferencex_vllm_prompts_per_step = 2;
int64_t launch_token_budget(const engines::EngineProfile& profile, Collection collection, bool blackwell_generation,
                            config::WeightFormat weights, int64_t clients, int64_t input_len, int64_t draft_tokens);

// The expert parallelism a measured row's engine ran at. A row that states no expert parallelism (moe_ep_size 1) on a
// layout whose engine does not load the experts split so (roofline::loads_expert_shards: vLLM refuses a block-FP8
// shard that is not a whole number of blocks) was still measured, so the engine loaded it the only way it can: with
// expert parallelism over the whole group (vLLM's --enable-expert-parallel: EP = TP x DP). InferenceX's MiniMax-M2.5
// H200 and B200 vLLM templates of March 2026 pass --enable-expert-parallel whatever the run's EP_SIZE (`if [
// "$EP_SIZE" -ge 1 ]`, benchmarks/single_node/minimaxm2.5_fp8_{h200,b200}.sh) while the rows record moe_ep_size 1.
// Any other row keeps its stated `ep`.
int64_t launch_expert_parallel(const engines::EngineProfile& profile, const config::ModelConfig& model,
                               config::WeightFormat experts, int64_t tp, int64_t attention_dp, int64_t ep);
// The largest memory share InferenceX's templates give an engine (--mem-fraction-static, --gpu-memory-utilization,
// free_gpu_memory_fraction: 0.75 to 0.95, 0.95 in 16 launches, e.g. benchmarks/single_node/dsr1_fp8_b200.sh at TP 4,
// whose DeepSeek-R1 FP8 weights leave no KV cache at the 0.85 the SGLang rows are answered with).
inline constexpr double launch_memory_share_ceiling = 0.95;

// The memory share a measured row's engine must have run at, when the profile's own leaves its weights no KV cache:
// the run was measured, so its launch gave the engine more memory than the profile's share (as
// launch_expert_parallel reads a split the engine could load). launch_memory_share_ceiling when that leaves a KV
// cache; 0 (keep the profile's) when the profile's share already does, or when not even the ceiling does (the
// deployment cannot hold its weights, and is refused as before).
double launch_memory_share(const roofline::RooflineModel& model);
// The estimator `options` describe as the row's engine was launched: at launch_memory_share where the profile's share
// leaves its weights no KV cache (built a second time only then, since the weights per GPU are the roofline's own).
std::shared_ptr<engine::Estimator> launched_estimator(engine::Options options);

// How often InferenceX's SGLang launches on the Blackwell generation let the scheduler take new requests
// (--scheduler-recv-interval, EngineProfile::scheduler_recv_interval): every 10 decode steps, every 30 from 16
// clients on ("recv every ~10 requests; if CONC >= 16, relax to ~30", benchmarks/single_node/dsr1_fp4_b200.sh,
// dsr1_fp{4,8}_b300.sh, qwen3.5_{bf16,fp4,fp8}_b200.sh and the others of 2026-04: 12 of the 14 B200 / B300 SGLang
// templates without MTP set it, 9 of them by that rule, 3 at 10 whatever the clients; none on Hopper). Outside the
// gap-analysis collection, for a profile that keeps SGLang's default of 1; 0 (the profile's own) elsewhere.
inline constexpr int64_t inferencex_sglang_recv_interval = 10;
inline constexpr int64_t inferencex_sglang_relaxed_recv_interval = 30;
inline constexpr int64_t inferencex_sglang_relaxed_recv_clients = 16;
int64_t launch_scheduler_recv_interval(const engines::EngineProfile& profile, Collection collection,
                                       bool blackwell_generation, int64_t clients);

// Where a row's engine ran: one serving engine (the aggregated rows), or the pools of a disaggregated deployment.
enum class Launch : uint8_t { single_node, disaggregated };

// The profile a row of `attention_dp` replicas from `collection` ran: under TensorRT-LLM's schedulers with
// attention DP, balancing on with the profile's wait lengths; under TensorRT-LLM in the gap-analysis collection,
// that collection's per-request time added to `admission_us`; under SGLang outside the gap-analysis collection
// (InferenceX's launches), streaming every inferencex_sglang_stream_interval tokens where the profile streams every
// token, and at the launches' stated memory share where the profile derives it, with srt-slurm's prefill batch in a
// disaggregated deployment where the profile takes the GPU's default; under SGLang on one node, its default MoE
// gather under attention DP (no single-node launch names --moe-a2a-backend); under vLLM on one node outside the
// gap-analysis collection, MXFP4 experts with MXFP8 activations where TRT-LLM-gen's MoE runs them (InferenceX's
// Blackwell template exports VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1); otherwise the profile unchanged.
engines::EngineProfile launch_recipe(engines::EngineProfile profile, int64_t attention_dp,
                                     Collection collection = Collection::other, Launch launch = Launch::single_node);

}  // namespace mfusim::compare
