// The serving engine around the kernels (DESIGN.md section 2, "The engine around the kernels"): the time a real
// engine spends outside the kernel bodies, as named terms with units, and the scheduler defaults a serving estimate
// needs. Built-in profiles `vllm` (default), `sglang`, `trtllm`, and `none` (kernels alone); docs/engine.md gives
// each value's source. A JSON object {"base": "vllm", "<field>": value, ...} overrides any field.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace mfusim::engines {

// The OpenAI server's path before the first step (API server, tokenisation, engine-core queue, first token out),
// fitted on vLLM's H100 runs; vLLM's admission_us, inherited by SGLang and TensorRT-LLM (docs/engine.md).
inline constexpr double openai_server_admission_us = 17762.9;

// The schedulers the engine simulator runs, by the names profiles and the CLI use: "vllm-v1", "sglang", "trtllm"
// (GUARANTEED_NO_EVICT) and "trtllm-max-utilization".
enum class SchedulerPolicy : uint8_t { vllm_v1, sglang, trtllm, trtllm_max_utilization };
SchedulerPolicy scheduler_policy_named(const std::string& name);  // Error(invalid_argument) naming the choices
const char* scheduler_policy_name(SchedulerPolicy policy);

struct EngineProfile {
    std::string name;
    std::string base;  // the built-in profile it derives from ("vllm", "sglang", "trtllm", "none"): its version rows
    // The engine's release ("0.14.0"; "" when not named): the defaults that changed between releases follow it
    // (engines/engine_version.hpp, version_defaults()); a field the profile sets explicitly wins over them.
    std::string version;

    // --- In every step, on the GPU's critical path (microseconds) ---
    double step_us = 0;         // CPU work the GPU waits for once per step: scheduling, input preparation, sampling
    double request_us = 0;      // per request scheduled in the step: block table, positions, sampling parameters
    double layer_us = 0;        // per layer, in every step: the gaps between the layer's kernels (CUDA-graphed or not)
    double eager_layer_us = 0;  // per layer, added when the step runs outside full CUDA graphs (prefill chunks
                                // present, or a batch larger than the captured graphs): launches and host work
    double eager_moe_layer_us = 0;     // per MoE layer, on top of eager_layer_us in such a step: the host work of the
                                       // eager MoE block (router, top-k, token sort, quantisation, expert GEMMs)
    int64_t cuda_graph_max_batch = 0;  // largest decode batch run as a captured graph (0: never graphed)
    double tp_sync_us = 0;             // per step when TP > 1: scheduler output broadcast to the workers, results back
    // Host work that overlaps the GPU (TensorRT-LLM's overlap scheduler, PyExecutor._executor_loop_overlap: step n+1's
    // scheduling, input preparation and launch run on the CPU while step n's kernels run, then step n's sampled
    // tokens are processed per request: stop criteria, response handling, py_decoding_iter). The step takes the
    // longer of the GPU's time and this host time, per step plus per scheduled request (0: no overlapped host work).
    double host_step_us = 0;
    double host_request_us = 0;
    // The scheduler loop's host work per step (scheduling, batch preparation, result processing) that the engine's
    // overlap scheduler hides behind the GPU, paid in series by a model with recurrent layers (Gated DeltaNet,
    // Mamba) for which the engine turns that overlap off. 0: the engine keeps its overlap for them.
    double serial_host_step_us = 0;
    // All-reduces of at most this many bytes use the engine's custom one-/two-shot kernel (NVLink only); larger
    // ones NCCL. 0: NCCL always.
    double custom_allreduce_max_bytes = 0;

    // --- Scheduler of a serving estimate ---
    // Whether a step carries prefill chunks together with the running decodes (vLLM V1, TensorRT-LLM in-flight
    // batching). Without it (SGLang's default, enable_mixed_chunk off) prefill batches take priority over decode
    // batches, so clients with equal lengths move in synchronized waves (docs/serving.md).
    bool mixed_batches = true;
    // Whether a prompt longer than the step's remaining token budget is cut into chunks (vLLM V1 and SGLang by
    // default) or waits for a step with room for all of it (TensorRT-LLM: BaseLlmArgs.enable_chunked_prefill defaults
    // to false, and the micro-batch scheduler then skips a context request that does not fit). Without chunks, a
    // prompt above max_batched_tokens is refused (TensorRT-LLM's LLM._check_arguments: "The sum of prompt length
    // ... should not exceed max_num_tokens"); the simulator refuses it up front.
    bool chunked_prefill = true;
    // The engine simulator's scheduling policy (src/simulate/scheduler.hpp follows each engine's source).
    SchedulerPolicy scheduler = SchedulerPolicy::vllm_v1;
    int64_t kv_block_tokens = 16;       // KV cache block (page) size in tokens
    int64_t max_batched_tokens = 0;     // token budget per step (chunked prefill); 0: by memory tier
    int64_t max_seqs = 0;               // most requests running at once; 0: by memory tier
    double gpu_memory_utilization = 0;  // share of GPU memory for weights, activations and KV cache
    // TensorRT-LLM's batch waiting (TorchLlmArgs batch_wait_timeout_iters / batch_wait_max_tokens_ratio, both 0 by
    // default; PyExecutor._waiting_requests): while generation requests run and no attention DP, scheduled context
    // requests are held back until their tokens plus the step's generation tokens reach this ratio of
    // max_num_tokens, or for at most this many iterations. 0 iterations: off.
    int64_t batch_wait_timeout_iters = 0;
    double batch_wait_max_tokens_ratio = 0;
    // TensorRT-LLM's attention-DP context balancing (attention_dp_config: enable_balance, off by default;
    // PyExecutor._balance_adp_requests): context requests start only when every rank has one, or after
    // `attention_dp_timeout_iters` iterations, or when some rank has no generation request; when every rank has
    // both, they wait `attention_dp_batching_wait_iters` more. TensorRT-LLM's defaults when enabled: 50 and 10.
    bool attention_dp_balance = false;
    int64_t attention_dp_timeout_iters = 50;
    int64_t attention_dp_batching_wait_iters = 10;

    // The engine's overlap scheduler (TensorRT-LLM's PyTorch backend unless disable_overlap_scheduler,
    // PyExecutor._executor_loop_overlap; SGLang's Scheduler.event_loop_overlap): iteration n fetches new requests and
    // schedules batch n, launches it, and only then waits for step n-1 and answers its tokens. So batch n+1 is taken
    // while step n runs, as step n-1 ends: a request reaching the engine after that joins step n+2, not n+1 (one
    // step more of waiting than a loop that schedules after each step). An idle engine's fetch blocks, so a request
    // arriving then starts at once. An engine with serial_host_step_us > 0 turns it off for recurrent models
    // (RooflineModel::overlaps_scheduling). Unset: the engine's default for its `version` (vLLM's async scheduling,
    // on by default from 0.14.0: version_defaults()), off where no row applies; overlap_scheduler_of() resolves it.
    std::optional<bool> overlap_scheduler;

    // Whether the engine's default KV-cache dtype ("auto") follows a checkpoint that states an FP8 KV cache in
    // NVIDIA ModelOpt's form (config::KvCacheStatement::modelopt): TensorRT-LLM's PyTorch backend
    // (pyexecutor/model_loader.py, validate_and_set_kv_cache_quant: "auto" keeps the checkpoint's
    // quant_config.kv_cache_quant_algo), SGLang (ModelRunner.configure_kv_cache_dtype: "auto" is FP8 E4M3 when the
    // model's quant_config.kv_cache_quant_algo is "FP8"), vLLM from 0.14.0 (utils/torch_utils.py,
    // resolve_kv_cache_dtype_string / get_kv_cache_quant_algo_string, applied where EngineArgs builds the
    // CacheConfig: quant_method "modelopt*" only). None of them reads compressed-tensors' kv_cache_scheme for
    // "auto". An explicit KV format (--kv-quant) always wins. Unset: the engine's default for its `version`
    // (version_defaults()), off where no row applies; follows_checkpoint_kv_cache() resolves it.
    std::optional<bool> checkpoint_kv_cache;

    // Whether, under attention DP with EP inside one NVLink domain, the engine runs its MoE all-to-all only where the
    // expert-parallel group is larger than the experts each token picks and NVLink joins every GPU, and gathers the
    // group's tokens otherwise (as moe_gather_within_domain does everywhere): TensorRT-LLM's
    // CutlassFusedMoE.select_alltoall_method_type before PR 8950 (`moe_ep_size > experts_per_token and
    // MnnvlMemory.supports_mnnvl()`, else NotEnabled, its allgather and reducescatter), so DeepSeek's top-8 at DEP 8
    // gathered and gpt-oss's top-4 did not. Unset: the engine's default for its `version` (version_defaults(): on for
    // TensorRT-LLM before 1.2.0rc3), off where no row applies; moe_alltoall_above_topk_of() resolves it.
    std::optional<bool> moe_alltoall_above_topk;

    // --- Per request, outside the steps (serving estimate; the simulator adapter's queueing and output terms) ---
    double admission_us = 0;     // a request's fixed cost before its first step: HTTP, queueing into the engine
    double input_token_us = 0;   // per prompt token before the first step: tokenisation
    double output_token_us = 0;  // per generated token, off the GPU's path: detokenisation and streaming
    // The part of admission_us that is the API server's own serial work on a request (parsing it, handing it to the
    // engine): in the simulator a request takes it in arrival order, one request at a time, and only while the server
    // is not streaming (output_token_us, which the server serves first); the rest of admission_us and input_token_us
    // are latencies each request pays on its own. At low load a request's pre-step time is admission_us either way;
    // when streaming fills the server, requests queue here before they reach the engine, and a closed loop runs
    // fewer of them at once (docs/simulate.md, "The API server's intake"). The closed forms read admission_us whole;
    // a value above admission_us counts as admission_us (a calibration may fit admission_us lower).
    double admission_server_us = 0;
    // Output tokens per streamed chunk (SGLang --stream-interval, default 1): a request's tokens are sent when its
    // output length is 1 mod this (its first token alone, then every this many) and when it finishes
    // (scheduler_output_processor_mixin.py, stream_output_generation). Only the clients' ITL sees it.
    int64_t stream_interval = 1;
    // SGLang's --scheduler-recv-interval (1 by default): its scheduler takes the requests that reached it only when
    // a counter reaches this many; each decode-only step adds 1, an extend (prefill) step or an idle loop enough
    // to take them at once (managers/scheduler_recv_skipper.py, SchedulerRecvSkipper.handle: weights DECODE 1,
    // default 1000). So between prefills a new request waits for up to this many decode steps.
    int64_t scheduler_recv_interval = 1;
    // Per step of a disaggregated decode worker, on its critical path: the loop's KV-transfer bookkeeping, a
    // collective over the worker's ranks every iteration (docs/disagg.md, section 9). Aggregated steps never pay it.
    double disagg_decode_step_us = 0;
    // Decode steps between a disaggregated decode worker's streamed answers to a request whose KV it received, the
    // first token (sampled by the prefill worker) included: TensorRT-LLM's generation server answers a
    // generation-only request when its py_decoding_iter is a multiple of stream_interval (or it finishes), its
    // first iteration's answer skipped under the overlap scheduler (PyExecutor._handle_responses), so the client's
    // first token leaves with the answer after that many decode steps (docs/disagg.md, section 10). 1: the first
    // token streams as the request joins the decode batch, the rest as produced (SGLang: the prebuilt batch's token
    // is 1 mod --stream-interval, so it goes alone at once).
    int64_t disagg_stream_interval = 1;
    // When a disaggregated request takes its decode slot (the engine's max_batch_size per decode rank, its KV
    // pages): 1, before its prefill (SGLang's decode server preallocates the pages and sends their indices to the
    // prefill server, which only then runs the forward: disaggregation/decode.py, the prealloc queue); 0, after it,
    // when the generation server admits the transferred request (TensorRT-LLM's capacity scheduler reserves a
    // generation-only request's KV, fitting_disagg_gen_init_requests, only once the context server has sent its
    // parameters; vLLM's NIXL connector allocates the decode blocks when the decode instance schedules the request
    // the proxy sends after the prefill). A request waiting for a slot holds none before its prefill in the second
    // case, so a slot turns over in transfer + decode, not prefill + transfer + decode (docs/disagg.md, section 11).
    int64_t disagg_slot_before_prefill = 0;
    // 1: the engine's disaggregated decode servers run every decode batch they hold as a captured CUDA graph: their
    // deployments set cuda_graph_max_bs to max_running_requests (SGLang's srt-slurm decode recipes, docs/disagg.md
    // section 12), and a decode server runs no extend forward (the transferred KV arrives built). A decode pool of
    // such an engine (engine::Options::disagg_decode) therefore never pays eager_layer_us / eager_moe_layer_us.
    int64_t disagg_decode_graphs_whole_batch = 0;
    // The routed experts' shard a GPU holds under MoE tensor parallelism (moe_intermediate_size / (tp x dp / ep))
    // must be a multiple of this many columns when the experts are block-FP8: vLLM's Fp8MoEMethod.create_weights
    // (model_executor/layers/quantization/fp8.py) and SGLang's, which follows it, refuse to load a shard that is
    // not a multiple of the weight block's block_n (128), "The output_size of gate's and up's weight = 192 is not
    // divisible by weight quantization block_n = 128" (MiniMax-M2.5 or Qwen3-235B-FP8 at TP 8). 0: no such check
    // (TensorRT-LLM's loader was not read for it).
    int64_t fp8_block_moe_shard_multiple = 0;
    // 1: the engine's fused MoE on Hopper is the CUTLASS MoE's SM90 grouped GEMM for BF16 and FP8 experts
    // (roofline/families.hpp, moe_runs_cutlass_sm90): TensorRT-LLM's PyTorch backend, whose MoeConfig.backend
    // defaults to CUTLASS (CutlassFusedMoE). 0: vLLM's / SGLang's Triton fused_moe (vLLM 0.12-0.18's
    // get_fp8_moe_backend takes FlashInfer's CUTLASS on SM90 only under VLLM_USE_FLASHINFER_MOE_FP8, off by default).
    int64_t cutlass_moe = 0;
    // 1: MXFP4 routed experts on TRT-LLM-gen's MoE (Blackwell, roofline/families.hpp moe_runs_trtllm_gen) take their
    // activations quantised to MXFP8 and multiply on the FP8 tensor cores (W4A8, MoeShape::fp8_activations).
    // SGLang: server_args picks moe_runner_backend flashinfer_mxfp4 for an MXFP4 GPT-OSS on SM100, whose
    // Mxfp4MoEMethod.apply (srt/layers/quantization/mxfp4.py) runs mxfp8_quantize on the hidden states under
    // flashinfer_mxfp4_moe_precision "default" (its default; "bf16" keeps BF16). TensorRT-LLM:
    // ModelConfig.get_mxfp4_quant_algo (tensorrt_llm/_torch/model_config.py) answers W4A8_MXFP4_MXFP8 on SM >= 100
    // unless OVERRIDE_QUANT_ALGO says otherwise. 0: MXFP4 x BF16 (vLLM: get_mxfp4_backend returns
    // SM100_FI_MXFP4_BF16 unless VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8 is set).
    int64_t mxfp4_moe_fp8_activations = 0;
    // 1: under attention data parallelism with expert parallelism, a rank's fused MoE receives only the tokens routed
    // to its experts (an all-to-all dispatch: TensorRT-LLM's MoE all-to-all, enabled under attention DP,
    // should_enable_alltoall in tensorrt_llm/_torch/models/modeling_deepseekv3.py; DeepEP's dispatch,
    // Buffer.get_dispatch_layout's is_token_in_rank); 0: every token of the group (vLLM's default
    // all2all_backend allgather_reducescatter, SGLang's default moe_a2a_backend none, which gather the replicas'
    // tokens). roofline/families.hpp, MoeShape::dispatched.
    int64_t moe_dispatch_to_rank = 0;
    // 1: under attention data parallelism with expert parallelism over more than one NVLink domain, the MoE
    // all-to-all is DeepEP's internode kernels (SGLang's --moe-a2a-backend deepep, which its disaggregated DEP
    // recipes set; roofline/families.hpp, deepep_us). 0: NCCL's collectives there, the group's tokens gathered
    // (vLLM's default all2all_backend allgather_reducescatter; TensorRT-LLM's NVLink all-to-all needs one domain's
    // memory, and DeepEP ran only under TRTLLM_CAN_USE_DEEP_EP=1 in the releases read, else its allgather and
    // reducescatter: docs/disagg.md sections 24-25). Inside one domain the step times every engine's dispatch with
    // DeepEP's measured kernels whatever this says, unless it gathers there (moe_gather_within_domain,
    // moe_alltoall_above_topk).
    int64_t deepep_across_domains = 0;
    // 1: under attention data parallelism with expert parallelism inside one NVLink domain (or over PCIe) the engine
    // has no all-to-all either and gathers the group's tokens, as across domains: vLLM's default all2all_backend,
    // allgather_reducescatter (vllm/config/parallel.py, ParallelConfig), used wherever no other backend is named.
    // 0: an all-to-all, timed with DeepEP's measured kernels (SGLang's DEP recipes set --moe-a2a-backend deepep;
    // TensorRT-LLM's MNNVL or NVLink one-sided all-to-all inside an HGX node or NVL72 domain, before 1.2 only above
    // the top-k: moe_alltoall_above_topk; vLLM launched with --all2all-backend deepep_low_latency or
    // flashinfer_nvlink_one_sided).
    int64_t moe_gather_within_domain = 0;
    // 1: where attention DP gathers the group's tokens for the MoE (MoE TP under attention DP; EP across NVLink
    // domains without DeepEP), the engine quantises them to the experts' input format first and gathers each token's
    // routing with them: TensorRT-LLM's CutlassFusedMoE.forward_chunk (run_post_quant_allgather: per-tensor FP8, or
    // NVFP4 with its FP8 scale per 16, then allgather of x, x_sf, token_selected_experts and token_final_scales); the
    // reduce-scatter after the experts stays in the output's BF16. 0: BF16 hidden states (SGLang's dp_gather, vLLM's
    // allgather_reducescatter).
    int64_t moe_gather_quantized = 0;
    // 1: where attention DP gathers the group's tokens for the MoE, a step that extends (prefill tokens in the batch)
    // gathers them by an all-reduce of the zero-padded group buffer and returns the experts' partial outputs by
    // another all-reduce before keeping its own rows: SGLang's DpPaddingMode.get_dp_padding_mode answers SUM_LEN
    // whenever is_extend_in_batch (python/sglang/srt/layers/dp_attention.py, _dp_gather_via_all_reduce, then the
    // MoE's tensor_model_parallel_all_reduce and dp_scatter), twice the bytes of a gather and reduce-scatter. Its
    // decode-only steps take MAX_LEN, an all-gather and reduce-scatter (dp_reduce_scatter_tensor): what 0 times in
    // every step (TensorRT-LLM's allgather / reducescatter, vLLM's all_gatherv / reduce_scatterv).
    int64_t moe_gather_extend_allreduce = 0;
    // Set on a disaggregated decode pool's profile where disagg_decode_graphs_whole_batch is 1 (never read from
    // JSON): for_gpu_memory then raises cuda_graph_max_batch to max_seqs, after the memory share is derived from the
    // engine's own graph limit.
    bool graphs_cover_max_seqs = false;
    double activation_reserve_gb = 0;  // GPU memory held for activations and graphs, per GPU
    // 1: gpu_memory_utilization is the share of the memory the weights and activations leave free that the KV
    // cache takes (TensorRT-LLM's KvCacheConfig.free_gpu_memory_fraction, "90% of free GPU memory for KV cache" by
    // default); 0: the share of the whole GPU that weights, activations and KV cache together may take (vLLM's
    // gpu_memory_utilization, SGLang's mem_fraction_static). serving::cache_space_bytes reads it.
    int64_t memory_share_of_free = 0;

    // Scheduler defaults the engine itself picks by the GPU's memory (vLLM EngineArgs.get_batch_defaults, SGLang
    // ServerArgs' chunked_prefill_size): the last tier whose min_memory_gb the GPU has fills max_batched_tokens and
    // max_seqs where the profile leaves them 0. Explicit values (a JSON override) win.
    // The tier also fills cuda_graph_max_batch where the profile leaves it 0: SGLang's cuda_graph_max_bs, which
    // below 160 GB takes a larger value from TP 4 on (ServerArgs._handle_gpu_memory_settings, `tp_size < 4`).
    struct MemoryTier {
        double min_memory_gb = 0;
        int64_t max_batched_tokens = 0;
        int64_t max_seqs = 0;
        int64_t cuda_graph_max_batch = 0;      // TP 1-3
        int64_t cuda_graph_max_batch_tp4 = 0;  // TP 4 and more
    };
    std::vector<MemoryTier> memory_tiers;

    // Where gpu_memory_utilization is 0, it is derived as SGLang derives mem_fraction_static (ServerArgs.
    // _handle_gpu_memory_settings): (memory - reserved) / memory, with reserved in MiB = base_mib +
    // chunk_token_mib x max(chunked_prefill_size, 2048) + graph_batch_mib x cuda_graph_max_bs + gpu_mib x TP
    // (+ dp_graph_batch_mib x cuda_graph_max_bs x DP under attention DP, and dp_large_graph_batch_mib x the same
    // above large_graph_batch), at least floor_mib on GPUs above floor_above_gib. The share then covers weights and
    // KV cache only: activations and graphs are inside `reserved`.
    struct MemoryReserve {
        double base_mib = 0;
        double chunk_token_mib = 0;
        double graph_batch_mib = 0;
        double gpu_mib = 0;
        double dp_graph_batch_mib = 0;
        double dp_large_graph_batch_mib = 0;
        int64_t large_graph_batch = 0;
        double floor_mib = 0;
        double floor_above_gib = 0;
    };
    MemoryReserve memory_reserve;
};

// Whether the engine runs its overlap scheduler: the profile's explicit value, else its version's default
// (version_defaults()), else off.
bool overlap_scheduler_of(const EngineProfile& engine);

// Whether the engine's "auto" KV dtype takes a ModelOpt checkpoint's stated KV format: the profile's explicit
// value, else its version's default (version_defaults()), else off.
bool follows_checkpoint_kv_cache(const EngineProfile& engine);

// Whether the engine's MoE all-to-all under attention DP needs an EP group larger than the experts per token: the
// profile's explicit value, else its version's default (version_defaults()), else off.
bool moe_alltoall_above_topk_of(const EngineProfile& engine);

// `engine` at release `version` (Error(config) naming the version when it is not a release number): the defaults
// that changed between releases follow it, except fields the profile sets explicitly. An engine whose profile
// already names a version keeps it.
EngineProfile at_version(EngineProfile engine, const std::string& version);

// `engine` with its memory-tier defaults resolved for a GPU of `memory_gb` (docs/engine.md, "Scheduler defaults")
// serving a deployment of `gpus` GPUs per replica (the engine's tp_size: TP x attention DP) and `attention_dp`
// attention replicas: token budget, sequence limit, CUDA-graph batch limit and, where the profile derives it, the
// memory share.
EngineProfile for_gpu_memory(const EngineProfile& engine, double memory_gb, int64_t gpus = 1, int64_t attention_dp = 1);

// SGLang's mem_fraction_static for a GPU of `memory_gb` (GiB, as torch reports it in MiB / 1024) from the profile's
// reserve, its resolved token budget and CUDA-graph batch limit (see EngineProfile::MemoryReserve).
double reserved_memory_share(const EngineProfile::MemoryReserve& r, double memory_gb, int64_t chunk_tokens,
                             int64_t graph_batch, int64_t gpus, int64_t attention_dp);

const std::vector<EngineProfile>& builtin_engines();

// Every field of an engine profile a JSON profile may set, described once: key, member (number or integer; neither
// for mixed_batches and scheduler, read apart), the JSON range [min, max], and for the terms `calibrate` fits, their
// unit, meaning and the fit's physically plausible upper bound (fit_max > 0; the fit's lower bound is 0), and one
// sentence of doc. The JSON reader (resolve_engine), fitted_engine_terms() and docs/engine.md's table read it.
struct EngineField {
    const char* key;
    double EngineProfile::*number = nullptr;
    int64_t EngineProfile::*integer = nullptr;
    double max = 0;
    double min = 0;  // 1 where 0 would divide by zero (no request could ever run)
    const char* unit = "";
    const char* meaning = "";  // a few words, for a fit's report
    double fit_max = 0;
    const char* doc = "";  // one sentence: where the term acts (docs/engine.md's table is written from it)
};
const std::vector<EngineField>& engine_fields();

// A row of engine_fields() that `calibrate --serving` fits (fit_max > 0), as the fitters and the calibration file
// read it.
struct EngineTerm {
    const char* name;
    double EngineProfile::*member;
    double max;  // physically plausible upper bound
    const char* unit;
    const char* meaning;
};
// The fitted terms, in order: step_us, request_us, layer_us, eager_layer_us, tp_sync_us, admission_us,
// input_token_us.
const std::vector<EngineTerm>& fitted_engine_terms();
std::string builtin_engine_names();  // "vllm, sglang, trtllm, none", for messages

// "" (the default, vllm), a built-in name (case-insensitive), or JSON text {"base": ..., fields...}, at release
// `version` ("": none named; a JSON "version" field wins over it). Error(unknown_name) naming the built-in engines;
// Error(config) naming a field that is unknown or out of range, or a version that is not a release number.
EngineProfile resolve_engine(const std::string& name_or_json, const std::string& version = "");

// `engine` with the fields of the JSON object `fields` laid over it, each checked as resolve_engine checks a
// profile's (a launch's flags over a row's own profile: compare/launch_file.hpp). "base" is refused, since the base is
// `engine`. Error(config) "<origin>: field '<name>': <what>".
EngineProfile overlay_engine(const EngineProfile& engine, const nlohmann::json& fields, const std::string& origin);

}  // namespace mfusim::engines
