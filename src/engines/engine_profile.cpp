// Built-in engine profiles and JSON overrides. docs/engine.md gives the source of every value; the constants
// marked "fitted" were fitted on ../shared/reference/measured/silicon (H100 serving runs) by `mfusim calibrate
// --serving` and are reported there by leave-one-model-out cross-validation; the others are read off the engines'
// sources and documentation (scheduler defaults) or measured kernels (custom all-reduce size limits).
#include "engines/engine_profile.hpp"

#include <algorithm>
#include <cctype>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/named.hpp"
#include "common/numbers.hpp"
#include "common/suggest.hpp"
#include "engines/engine_version.hpp"

namespace mfusim::engines {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::vector<EngineProfile> make_builtins() {
    std::vector<EngineProfile> engines;

    // vLLM V1 (0.11-0.18): full CUDA graphs for decode-only batches, piecewise graphs with eager attention for
    // mixed ones; custom all-reduce up to 8 MiB (vllm/distributed/device_communicators/custom_all_reduce.py
    // max_size); online-serving defaults on >= 70 GiB GPUs: max_num_batched_tokens 8192, max_num_seqs 1024,
    // gpu_memory_utilization 0.9, cudagraph capture sizes up to 512.
    EngineProfile vllm;
    vllm.name = "vllm";
    vllm.base = "vllm";
    // overlap_scheduler unset: vLLM's async scheduling by release (version_defaults(): off before 0.14.0, on from
    // it); a profile that names no release keeps it off, as the runs its terms were fitted on (docs/engine.md).
    // Fitted (mfusim calibrate --serving on the 237 vLLM rows of silicon_h100_agg.csv, requests per client 6 chosen
    // by cross-validation; docs/engine.md gives the cross-validated figures). Terms the fit drove to zero are
    // hidden by vLLM V1's asynchronous scheduling on these runs, not absent in general.
    vllm.step_us = 0;
    vllm.request_us = 0;
    vllm.layer_us = 46.4;     // ~10 kernels per layer with ~4 us between them, graphed or not
    vllm.eager_layer_us = 0;  // mixed steps' extra launches overlap the prefill chunk's compute
    vllm.tp_sync_us = 0;
    vllm.admission_us = openai_server_admission_us;
    // All of it is the API server's own serial work (one process takes requests in between streaming outputs), and
    // streaming costs the server 35 us per chunk: read from InferenceX's H100 gpt-oss-120b runs at 512 clients (vLLM
    // 0.11.2), whose output rate is capped near 19k tokens/s at every TP and prompt length. A capped server turns
    // requests away until streaming leaves it time, so the engine holds fewer requests than the clients and each waits
    // its turn before its first step (TP 8: 17.8 ms + 1024 x 35 us per 1k/1k request, 18.5 requests/s, first token
    // after 22 s; docs/simulate.md, "The API server's intake"). Below saturation both are the latencies they were.
    vllm.admission_server_us = openai_server_admission_us;
    vllm.output_token_us = 35;
    vllm.input_token_us = 8.5;  // per prompt token before the first step (fitted; see docs/engine.md)
    vllm.cuda_graph_max_batch = 512;
    vllm.custom_allreduce_max_bytes = 8.0 * 1024 * 1024;
    // vllm/engine/arg_utils.py EngineArgs.get_batch_defaults, OPENAI_API_SERVER: devices of >= 70 GiB 8192 tokens
    // and 1024 sequences, others 2048 and 256 (vLLM also keeps the A100-80GB at the lower tier by its name; a
    // profile here goes by memory alone: override max_batched_tokens for it).
    vllm.max_batched_tokens = 0;
    vllm.max_seqs = 0;
    vllm.memory_tiers = {{0, 2048, 256}, {70, 8192, 1024}};
    vllm.gpu_memory_utilization = 0.9;
    vllm.activation_reserve_gb = 4;
    vllm.fp8_block_moe_shard_multiple = 128;  // Fp8MoEMethod.create_weights: block_n of weight_block_size [128, 128]
    // ParallelConfig.all2all_backend "allgather_reducescatter" by default, inside a node too (EngineProfile).
    vllm.moe_gather_within_domain = 1;
    engines.push_back(vllm);

    // SGLang (0.5): CUDA graphs for decode batches up to cuda_graph_max_bs, eager extend (prefill) batches; custom
    // all-reduce like vLLM's; chunked_prefill_size, cuda_graph_max_bs and mem_fraction_static by GPU memory and TP.
    EngineProfile sglang = vllm;
    sglang.name = "sglang";
    sglang.base = "sglang";
    // Its disaggregated DEP recipes set --moe-a2a-backend deepep (deepep_across_domains); SGLang's own default, none,
    // gathers, as InferenceX's single-node templates launch it (compare::launch_recipe).
    sglang.moe_gather_within_domain = 0;
    sglang.moe_gather_extend_allreduce = 1;  // dp_gather by all-reduce when the batch extends (EngineProfile)
    sglang.mixed_batches = false;
    sglang.scheduler = SchedulerPolicy::sglang;
    sglang.kv_block_tokens = 1;            // page_size 1: the radix cache shares prefixes token by token
    sglang.mxfp4_moe_fp8_activations = 1;  // flashinfer_mxfp4 with its "default" (MXFP8) precision (EngineProfile)
    sglang.cuda_graph_max_batch = 0;       // by memory tier and TP (below)
    // SGLang replays CUDA graphs only for decode (and idle / target-verify) batches of at most cuda_graph_max_bs
    // (model_executor/cuda_graph_runner.py, CudaGraphRunner.can_run); every extend (prefill) batch, and a decode
    // batch above that size, runs its layers eagerly from Python: per layer the host time of its kernel launches and
    // Python code, which the GPU waits for at prefill sizes. Fitted on the 84 H100 SGLang rows only (simulated,
    // fixed lengths: TTFT median 12.8% -> 11.1%, TPOT 5.8% -> 5.3%; grid 0-2000 us), held out on H200 in
    // docs/simulate.md section 7. vLLM's piecewise graphs and TensorRT-LLM's 112.6 us are the same term.
    sglang.eager_layer_us = 200;
    // An eager MoE layer issues far more host work than a dense one (sglang/srt/layers/moe: the router's top-k, the
    // token sort of moe_align_block_size, per-token-group FP8 quantisation, the fused-MoE/DeepGEMM launches and the
    // combine), paid by every extend batch. Not identifiable on H100 (its SGLang rows are a dense model); fitted on
    // the H200 MoE rows and reported leave-one-model-out in docs/simulate.md ("SGLang's eager MoE layers").
    sglang.eager_moe_layer_us = 2000;
    // One TokenizerManager process (the HTTP server's, `--tokenizer-worker-num` 1 by default) receives every
    // request and streams every output chunk under one GIL: per token its state update and event
    // (managers/tokenizer_manager.py, TokenizerManager._handle_batch_output) and the OpenAI chunk's serialisation
    // (entrypoints/openai/serving_chat.py, _generate_chat_stream). SGLang calls it the single-core bottleneck under
    // high concurrency (sgl-project/sglang issue 6553, PR 8964 and PR 30682). Read from the H200 rows alone (no
    // H100 SGLang run streams more than 8.3k tokens/s, where it hides): their TP 8, c 512 TPOT / 512 clients, as a
    // saturated server sends one token per client per this time; held out on TP 1-4 (docs/simulate.md, "SGLang's
    // API server as a queue").
    sglang.output_token_us = 50;
    // Its streaming term was fitted on those rows with every request taking in at once; with vLLM's serial intake
    // on top its H200 TTFT goes from 23.4% to 25.3-25.6% (c 256+ overshoots), so SGLang keeps the intake off until
    // both are fitted together (docs/simulate.md, "The API server's intake").
    sglang.admission_server_us = 0;
    // max_running_requests when not given (model_executor/model_runner.py, ModelRunner.init_memory_pool and
    // __init__): min(max_total_num_tokens / 2, the req_to_token pool: max_total_num_tokens / context_len x 512
    // clamped to [2048, 4096]); at least 2048 unless the KV pool is tiny, so the pool is the real limit.
    sglang.max_seqs = 4096;
    // sglang/srt/server_args.py ServerArgs._handle_gpu_memory_settings (0.5.x), by the GPU's memory (GiB) and
    // tp_size: chunked_prefill_size / cuda_graph_max_bs at TP < 4 / at TP >= 4: below 20 GiB 2048 / 8 / 8 (T4),
    // below 35 2048 / 24 / 80 (A10, 4090), below 60 4096 / 32 / 160 (A100-40GB, L40), below 160 8192 / 256 / 512
    // (A100-80GB, H100, H20, H200), above 16384 / 512 / 512 (B200, B300, MI300).
    sglang.memory_tiers = {{0, 2048, 0, 8, 8},
                           {20, 2048, 0, 24, 80},
                           {35, 4096, 0, 32, 160},
                           {60, 8192, 0, 256, 512},
                           {160, 16384, 0, 512, 512}};
    // mem_fraction_static, derived in the same function from those two: reserved MiB = 512 + 1.5 x
    // max(chunked_prefill_size, 2048) + 2 x cuda_graph_max_bs + 1024 x tp_size x pp_size / 8 (+ 3 x
    // cuda_graph_max_bs x dp_size under DP attention, + 1.5 x the same above a graph batch of 300), at least 10 GiB
    // on GPUs above 60 GiB; mem_fraction_static = (memory - reserved) / memory. Activations and graphs are inside
    // the reserve, so no separate activation reserve (H100 TP 2: 0.834; H200 TP 8: 0.897).
    sglang.gpu_memory_utilization = 0;
    sglang.activation_reserve_gb = 0;
    sglang.memory_reserve = {.base_mib = 512,
                             .chunk_token_mib = 1.5,
                             .graph_batch_mib = 2,
                             .gpu_mib = 1024.0 / 8,
                             .dp_graph_batch_mib = 3,
                             .dp_large_graph_batch_mib = 1.5,
                             .large_graph_batch = 300,
                             .floor_mib = 10 * 1024,
                             .floor_above_gib = 60};
    // The decode server polls its transfers and its prealloc queue every loop, with an all-reduce of their states
    // over the CPU group (sglang/srt/disaggregation/decode.py, poll_and_all_reduce): TensorRT-LLM's fitted value,
    // not refitted (docs/disagg.md, section 9: held out, TPOT 18.2% -> 8.2% on the H200 DeepSeek-V3 runs).
    sglang.disagg_decode_step_us = 3750;
    // A model with recurrent layers keeps its radix cache with the default MambaRadixCache strategy no_buffer, which
    // turns the overlap scheduler off (sglang/srt/server_args.py, ServerArgs._handle_mamba_radix_cache: "Disabling
    // overlap schedule since mamba no_buffer is not compatible with overlap schedule"); the scheduler then runs
    // Scheduler.event_loop_normal, whose host work per step (recv_requests, get_next_batch_to_run, the batch's
    // ForwardBatch and graph inputs, process_batch_result) the GPU waits for. Read from the H200 SGLang rows of the
    // only recurrent model among them (TP 8, c 4-64, 15 deployments): the TPOT they leave after the kernels is
    // 2.2-2.9 ms per step at every concurrency (median 2.5), a per-step and not a per-request cost. In-sample only:
    // no other row identifies it (docs/engine.md).
    sglang.serial_host_step_us = 2500;
    // Its overlap loop otherwise (server_args.py: disable_overlap_schedule defaults to false; scheduler.py,
    // Scheduler.event_loop_overlap): each iteration receives requests, schedules and launches batch n, and only
    // then processes batch n-1's result, as TensorRT-LLM's PyExecutor._executor_loop_overlap does.
    sglang.overlap_scheduler = true;
    // --kv-cache-dtype auto is FP8 for a checkpoint whose quant_config states kv_cache_quant_algo "FP8"
    // (ModelRunner.configure_kv_cache_dtype; ModelOptFp8Config / ModelOptFp4Config set the attribute).
    sglang.checkpoint_kv_cache = true;
    // The decode server preallocates a request's KV pages before its prefill runs (decode.py, prealloc queue).
    sglang.disagg_slot_before_prefill = 1;
    // Every SGLang decode recipe of the disaggregated H100/H200 runs sets cuda-graph-max-bs = max-running-requests
    // (NVIDIA/srt-slurm recipes/h100, recipes/h200; docs/disagg.md section 12): no decode batch runs eagerly.
    sglang.disagg_decode_graphs_whole_batch = 1;
    // Its disaggregated DEP recipes run --moe-a2a-backend deepep (SemiAnalysisAI/InferenceX
    // benchmarks/multi_node/srt-slurm-recipes/sglang, e.g. qwen3.5/gb200-fp8/1k1k/1p1d-dep4-dep16.yaml).
    sglang.deepep_across_domains = 1;
    engines.push_back(sglang);

    // TensorRT-LLM (1.0, PyTorch or C++ runtime): in-flight batching in C++, CUDA graphs for decode, its own
    // custom all-reduce (one-shot/two-shot) for small messages; max_num_tokens 8192, max_batch_size 2048,
    // free_gpu_memory_fraction 0.9.
    EngineProfile trtllm = vllm;
    trtllm.moe_gather_within_domain = 0;  // its NVLink all-to-all inside a domain (EngineProfile)
    trtllm.name = "trtllm";
    trtllm.base = "trtllm";
    // Fitted on the 489 TensorRT-LLM rows (requests per client 6 chosen by cross-validation). Their fitted
    // admission (100 ms) is the gap-analysis collection's harness, not the engine's: trtllm-serve under InferenceX's
    // client shows 0-50 ms outside the step on H200 where the step is right (docs/simulate.md, "Which harness a row
    // ran under"). So the profile keeps the OpenAI-server path it inherits from vLLM (admission_us 17.76 ms, the
    // same HTTP, tokenisation and hop to the engine loop), and compare adds the collection's 82.2 ms to that
    // collection's rows (src/compare/launch_recipe.hpp); on those rows the sum is the fit's 100 ms. The serial part
    // and the streaming cost are vLLM's too (admission_server_us, output_token_us): trtllm-serve is the same one
    // Python process taking requests in and streaming chunks out; its H200 TTFT goes from 35.3% to 29.7% with them,
    // H100 from 21.8% to 20.1% (docs/simulate.md, "The API server's intake").
    trtllm.step_us = 0;
    trtllm.request_us = 3.1;
    trtllm.layer_us = 23.6;
    trtllm.eager_layer_us = 112.6;  // context (prefill) iterations run outside CUDA graphs
    trtllm.tp_sync_us = 163.3;
    trtllm.fp8_block_moe_shard_multiple = 0;  // its loader's rule was not read (EngineProfile)
    // TorchLlmArgs.moe_config.backend "CUTLASS" by default; NVIDIA's H200 DeepSeek recipes (InferenceX) set it so.
    trtllm.cutlass_moe = 1;
    trtllm.mxfp4_moe_fp8_activations = 1;  // get_mxfp4_quant_algo: W4A8_MXFP4_MXFP8 on SM >= 100 (EngineProfile)
    trtllm.moe_dispatch_to_rank = 1;  // its MoE all-to-all under attention DP (EngineProfile::moe_dispatch_to_rank)
    trtllm.moe_gather_quantized = 1;  // CutlassFusedMoE.forward_chunk: quantise, then allgather (EngineProfile)
    trtllm.input_token_us = 0;
    // The generation server's loop checks its KV transfers every iteration (CacheTransceiver::
    // checkGenTransferStatus gathers the ready request ids over the worker's ranks): fitted on the 25 H200
    // DeepSeek-V3 disaggregated runs (docs/disagg.md, section 9; H100 EP 16 held out).
    trtllm.disagg_decode_step_us = 3750;
    // NVIDIA's disaggregated perf-test recipes run the generation servers with stream_interval 20 (the context
    // servers with 1); a generation-only request's first answer then comes after 20 decode steps (docs/disagg.md,
    // section 10). Structurally wrong for the measured H200/H100 runs: their srt-slurm recipes set 100 on both
    // servers, and their first token leaves at once (PyExecutor._handle_first_token_response); 20 stands in for a
    // per-request latency of TensorRT-LLM's DeepSeek path that the aggregated rows lack too (docs/disagg.md,
    // section 17). Kept until that latency is modelled; 1, the source's path, takes H200 TTFT from 25.7% to 59.0%.
    trtllm.disagg_stream_interval = 20;
    trtllm.max_seqs = 2048;
    trtllm.max_batched_tokens = 8192;  // max_num_tokens, whatever the GPU
    trtllm.memory_tiers = {};
    trtllm.scheduler = SchedulerPolicy::trtllm;
    trtllm.chunked_prefill = false;   // BaseLlmArgs.enable_chunked_prefill: Field(default=False)
    trtllm.overlap_scheduler = true;  // TorchLlmArgs.disable_overlap_scheduler defaults to false
    // KvCacheConfig.dtype "auto" keeps hf_quant_config.json's kv_cache_quant_algo (validate_and_set_kv_cache_quant).
    trtllm.checkpoint_kv_cache = true;
    trtllm.kv_block_tokens = 32;  // KvCacheConfig tokens_per_block
    // KvCacheConfig.free_gpu_memory_fraction (0.9 by default, the profile's gpu_memory_utilization) is a share of the
    // memory left once the model is loaded and its activations profiled, not of the GPU (EngineProfile).
    trtllm.memory_share_of_free = 1;
    engines.push_back(trtllm);

    // The kernels alone: what kernel benchmarks measure, for comparing against them.
    EngineProfile none;
    none.name = "none";
    none.base = "none";
    none.max_batched_tokens = 8192;
    none.max_seqs = 1024;
    none.gpu_memory_utilization = 0.9;
    engines.push_back(none);
    return engines;
}

}  // namespace

const std::vector<EngineField>& engine_fields() {
    // Fitted terms: the upper bound of a fit is what is physically plausible (a layer's kernel gaps within 50 us), far
    // inside the JSON range, which only keeps a hand-written profile finite; the fit's lower bound is 0.
    static const std::vector<EngineField> fields = {
        {.key = "step_us",
         .number = &EngineProfile::step_us,
         .max = 1e7,
         .unit = "us per step",
         .meaning = "scheduling, input preparation, sampling",
         .fit_max = 5000,
         .doc = "every step (also an empty one): scheduling, input preparation, sampling the GPU waits for"},
        {.key = "request_us",
         .number = &EngineProfile::request_us,
         .max = 1e6,
         .unit = "us per request per step",
         .meaning = "per-request bookkeeping",
         .fit_max = 200,
         .doc = "block tables, positions, sampling parameters of each scheduled request"},
        {.key = "layer_us",
         .number = &EngineProfile::layer_us,
         .max = 1e6,
         .unit = "us per layer",
         .meaning = "gaps between a layer's kernels",
         .fit_max = 50,
         .doc = "gaps between a layer's kernels (about ten of them), CUDA-graphed or not"},
        {.key = "eager_layer_us",
         .number = &EngineProfile::eager_layer_us,
         .max = 1e6,
         .unit = "us per layer",
         .meaning = "added in a step outside full graphs",
         .fit_max = 200,
         .doc = "added when the step runs outside full CUDA graphs: a prefill chunk is present, or the decode batch "
                "exceeds `cuda_graph_max_batch`"},
        {.key = "eager_moe_layer_us",
         .number = &EngineProfile::eager_moe_layer_us,
         .max = 1e6,
         .unit = "us per MoE layer",
         .meaning = "added per MoE layer in a step outside full graphs",
         .doc = "added per MoE layer, on top of `eager_layer_us`, when the step runs outside full CUDA graphs"},
        {.key = "host_step_us",
         .number = &EngineProfile::host_step_us,
         .max = 1e7,
         .unit = "us per step",
         .meaning = "host work overlapping the GPU, per step",
         .doc = "host loop work hidden behind the GPU (overlap scheduler): the step takes the longer of the GPU's time "
                "and `host_step_us` + `host_request_us` x requests"},
        {.key = "host_request_us",
         .number = &EngineProfile::host_request_us,
         .max = 1e6,
         .unit = "us per request per step",
         .meaning = "host work overlapping the GPU, per request",
         .doc = "per scheduled request, the overlapped host loop's work: updating each request with its sampled token, "
                "stop criteria, responses"},
        {.key = "serial_host_step_us",
         .number = &EngineProfile::serial_host_step_us,
         .max = 1e7,
         .unit = "us per step",
         .meaning = "host loop work in series, models with recurrent layers",
         .doc = "the scheduler loop's host work per step that the overlap scheduler hides, paid in series in every "
                "step of a model with recurrent (Gated DeltaNet, Mamba) layers, for which the engine turns the "
                "overlap off"},
        {.key = "cuda_graph_max_batch",
         .integer = &EngineProfile::cuda_graph_max_batch,
         .max = 1 << 20,
         .unit = "requests",
         .doc = "the largest decode batch run as a captured graph"},
        {.key = "tp_sync_us",
         .number = &EngineProfile::tp_sync_us,
         .max = 1e7,
         .unit = "us per step",
         .meaning = "worker synchronisation when TP > 1",
         .fit_max = 2000,
         .doc = "when the deployment has more than one GPU: broadcasting the scheduler output, gathering results"},
        {.key = "custom_allreduce_max_bytes",
         .number = &EngineProfile::custom_allreduce_max_bytes,
         .max = 1e12,
         .unit = "bytes",
         .doc = "all-reduces up to this size use the engine's custom one-/two-shot kernel, NCCL above (vLLM: 8 MiB, "
                "`custom_all_reduce.py`)"},
        {.key = "max_batched_tokens",
         .integer = &EngineProfile::max_batched_tokens,
         .max = 1 << 24,
         .unit = "tokens per step",
         .doc = "the scheduler's token budget; 0 takes the engine's own default for the GPU's memory (below)"},
        {.key = "max_seqs",
         .integer = &EngineProfile::max_seqs,
         .max = 1 << 20,
         .min = 1,
         .unit = "requests",
         .doc = "the most requests running at once; 0 takes the engine's own default for the GPU's memory"},
        {.key = "gpu_memory_utilization",
         .number = &EngineProfile::gpu_memory_utilization,
         .max = 1,
         .unit = "share of GPU memory",
         .doc = "what weights, activations and KV cache may take; 0: the engine's"},
        {.key = "mixed_batches",
         .max = 1,
         .unit = "bool",
         .doc = "whether a step carries prefill chunks with the running decodes (vLLM V1, TensorRT-LLM) or prefill "
                "batches go first (SGLang's default): see `docs/serving.md`"},
        {.key = "chunked_prefill",
         .max = 1,
         .unit = "bool",
         .doc = "whether a prompt that does not fit the step's token budget is cut into chunks (vLLM, SGLang) or "
                "waits for a step with room for all of it (TensorRT-LLM's default, `enable_chunked_prefill` off); "
                "without chunks a prompt above `max_batched_tokens` is refused"},
        {.key = "scheduler",
         .unit = "name",
         .doc = "the simulator's scheduling policy (`vllm-v1`, `sglang`, `trtllm`): `docs/simulate.md`"},
        {.key = "kv_block_tokens",
         .integer = &EngineProfile::kv_block_tokens,
         .max = 1 << 16,
         .unit = "tokens",
         .doc = "the KV cache's block (page) size the simulator allocates in (vLLM 16, SGLang 1, TensorRT-LLM 32)"},
        {.key = "batch_wait_timeout_iters",
         .integer = &EngineProfile::batch_wait_timeout_iters,
         .max = 1 << 20,
         .unit = "iterations",
         .doc = "TensorRT-LLM `batch_wait_timeout_iters` (default 0: off): without attention DP, context requests "
                "wait while generation runs, at most this many iterations (`docs/simulate.md` section 2)"},
        {.key = "batch_wait_max_tokens_ratio",
         .number = &EngineProfile::batch_wait_max_tokens_ratio,
         .max = 1,
         .unit = "share of max_batched_tokens",
         .doc = "TensorRT-LLM `batch_wait_max_tokens_ratio`: the waiting context requests start once their tokens "
                "and the step's generation tokens reach this share of `max_batched_tokens`"},
        {.key = "attention_dp_balance",
         .max = 1,
         .unit = "bool",
         .doc = "TensorRT-LLM `attention_dp_config.enable_balance` (default off): under attention DP, context "
                "requests start when every rank has one (`docs/simulate.md` section 8); `compare` turns it on for "
                "TensorRT-LLM rows with `attention_dp_size` above 1 (section 7, \"Launch flags the rows imply\")"},
        {.key = "attention_dp_timeout_iters",
         .integer = &EngineProfile::attention_dp_timeout_iters,
         .max = 1 << 20,
         .unit = "iterations",
         .doc = "`attention_dp_config.timeout_iters` (50): the most iterations a balanced context request waits "
                "for the other ranks"},
        {.key = "attention_dp_batching_wait_iters",
         .integer = &EngineProfile::attention_dp_batching_wait_iters,
         .max = 1 << 20,
         .unit = "iterations",
         .doc = "`attention_dp_config.batching_wait_iters` (10): iterations every rank's context requests wait "
                "together while every rank also has generation requests"},
        {.key = "overlap_scheduler",
         .max = 1,
         .unit = "bool",
         .doc = "the engine's overlap scheduler (on in `trtllm` and `sglang`; off for recurrent models where "
                "`serial_host_step_us` is set; `vllm`: by `version`, on from 0.14.0, off before and when no "
                "version is named): the next step's batch is taken while the current step runs, so a "
                "request arriving during a step joins the step after next (`docs/simulate.md` "
                "section 2)"},
        {.key = "checkpoint_kv_cache",
         .max = 1,
         .unit = "bool",
         .doc = "whether the engine's default KV dtype (`auto`) takes the FP8 KV cache a ModelOpt checkpoint "
                "states (`kv_cache_quant_algo`, or `kv_cache_scheme` under `quant_method` `modelopt`): on in "
                "`trtllm` and `sglang`; `vllm`: by `version`, on from 0.14.0, off before and when no version is "
                "named; an explicit `--kv-quant` always wins (\"The checkpoint's KV cache\" below)"},
        {.key = "moe_alltoall_above_topk",
         .max = 1,
         .unit = "bool",
         .doc = "under attention DP with EP inside one NVLink domain, the MoE all-to-all only where the EP group is "
                "larger than the experts per token and NVLink joins the GPUs, else the group's tokens gathered as "
                "under `moe_gather_within_domain` (TensorRT-LLM's `select_alltoall_method_type` before PR 8950): "
                "`trtllm` by `version`, on before 1.2.0rc3, off from it and when no version is named; off in "
                "`vllm` and `sglang` (`docs/disagg.md` section 25)"},
        {.key = "version",
         .unit = "release",
         .doc = "the engine's release (`0.14.0`, `1.2.0rc6.post1`; `--engine-version`): the defaults that changed "
                "between releases follow it unless set here (\"Defaults by engine version\" below); not named: "
                "the built-in profile's values"},
        {.key = "admission_us",
         .number = &EngineProfile::admission_us,
         .max = 1e9,
         .unit = "us per request",
         .meaning = "HTTP, queueing into the engine",
         .fit_max = 200000,
         .doc = "before the first step: HTTP, the API server, the engine-core queue, the first token out"},
        {.key = "input_token_us",
         .number = &EngineProfile::input_token_us,
         .max = 1e6,
         .unit = "us per prompt token",
         .meaning = "input processing",
         .fit_max = 200,
         .doc = "before the first step: tokenisation and input processing"},
        {.key = "output_token_us",
         .number = &EngineProfile::output_token_us,
         .max = 1e6,
         .unit = "us per streamed chunk",
         .doc = "off the GPU's path (detokenisation, streaming), per chunk the API server streams: per output token "
                "at stream_interval 1; the simulator adapter's per-token term"},
        {.key = "admission_server_us",
         .number = &EngineProfile::admission_server_us,
         .max = 1e9,
         .unit = "us per request",
         .doc = "the part of `admission_us` that is the API server's serial work: the simulator queues requests for "
                "it in arrival order, behind the server's streaming (`output_token_us`); above `admission_us` it "
                "counts as `admission_us`; 0: every request pays `admission_us` on its own (`docs/simulate.md`, \"The "
                "API server's intake\")"},
        {.key = "stream_interval",
         .integer = &EngineProfile::stream_interval,
         .max = 1 << 20,
         .min = 1,
         .unit = "tokens per chunk",
         .doc = "output tokens per streamed chunk (SGLang `--stream-interval`): the first token alone, then every "
                "this many, and the last; only the clients' ITL sees it (`docs/simulate.md` section 3)"},
        {.key = "scheduler_recv_interval",
         .integer = &EngineProfile::scheduler_recv_interval,
         .max = 1 << 20,
         .min = 1,
         .unit = "decode steps",
         .doc = "SGLang `--scheduler-recv-interval`: the scheduler takes arrived requests once every this many "
                "decode-only steps, at once after a prefill step or when idle (the simulator only; "
                "`docs/simulate.md` section 2)"},
        {.key = "disagg_decode_step_us",
         .number = &EngineProfile::disagg_decode_step_us,
         .max = 1e6,
         .unit = "us per step",
         .doc = "every step of a disaggregated decode worker (not aggregated serving): the loop's KV-transfer "
                "status poll, gathered over the worker's ranks (`docs/disagg.md`, section 9)"},
        {.key = "disagg_stream_interval",
         .integer = &EngineProfile::disagg_stream_interval,
         .max = 1 << 20,
         .min = 1,
         .unit = "decode steps",
         .doc = "a disaggregated decode worker answers a transferred request every this many decode steps, its "
                "first token (the prefill's) with the first answer (TensorRT-LLM's generation server with "
                "`stream_interval`); 1: the first token streams as the request joins the batch (`docs/disagg.md`, "
                "section 10)"},
        {.key = "disagg_slot_before_prefill",
         .integer = &EngineProfile::disagg_slot_before_prefill,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: a disaggregated request takes its decode slot before its prefill (SGLang's prealloc); 0: when "
                "the decode worker admits it after the prefill (TensorRT-LLM's capacity scheduler, vLLM's NIXL "
                "connector), so a slot turns over in transfer + decode (`docs/disagg.md`, section 11)"},
        {.key = "disagg_decode_graphs_whole_batch",
         .integer = &EngineProfile::disagg_decode_graphs_whole_batch,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: a disaggregated decode worker runs every batch it holds as a CUDA graph (SGLang's decode "
                "recipes set `cuda-graph-max-bs` to `max-running-requests`), so its steps pay no eager terms "
                "(`docs/disagg.md`, section 12)"},
        {.key = "fp8_block_moe_shard_multiple",
         .integer = &EngineProfile::fp8_block_moe_shard_multiple,
         .max = 4096,
         .min = 0,
         .unit = "columns",
         .doc = "block-FP8 routed experts: each GPU's expert shard under MoE tensor parallelism must be a multiple "
                "of this (vLLM's and SGLang's Fp8MoEMethod refuse other shards: the weight block's block_n, 128); "
                "0: not checked"},
        {.key = "cutlass_moe",
         .integer = &EngineProfile::cutlass_moe,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: on Hopper the routed experts (BF16, FP8, block FP8) run the CUTLASS MoE's SM90 grouped GEMM "
                "(TensorRT-LLM's default MoE backend), tokens on wgmma's N; 0: the Triton fused_moe "
                "(`docs/kernel-families.md`)"},
        {.key = "mxfp4_moe_fp8_activations",
         .integer = &EngineProfile::mxfp4_moe_fp8_activations,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: MXFP4 routed experts on Blackwell's TRT-LLM-gen MoE quantise their activations to MXFP8 and run "
                "on the FP8 tensor cores (W4A8: SGLang's flashinfer_mxfp4 default precision, TensorRT-LLM's "
                "W4A8_MXFP4_MXFP8); 0: MXFP4 x BF16 (vLLM's SM100 default)"},
        {.key = "moe_dispatch_to_rank",
         .integer = &EngineProfile::moe_dispatch_to_rank,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: under attention DP with EP a rank's fused MoE receives only the tokens routed to its experts "
                "(TensorRT-LLM's MoE all-to-all, DeepEP); 0: every token of the group (vLLM's allgather_reducescatter, "
                "SGLang's default): the kernel's passes over every pair of its input cover those"},
        {.key = "deepep_across_domains",
         .integer = &EngineProfile::deepep_across_domains,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: under attention DP with EP over more than one NVLink domain the MoE all-to-all is DeepEP's "
                "internode kernels (SGLang's --moe-a2a-backend deepep): the NIC's share of the messages, store and "
                "forward in normal mode; 0: no all-to-all there, the group's tokens all-gathered before the experts "
                "and reduce-scattered after them over NCCL (vLLM's allgather_reducescatter, TensorRT-LLM without "
                "MNNVL), every rank's experts seeing every token"},
        {.key = "moe_gather_within_domain",
         .integer = &EngineProfile::moe_gather_within_domain,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: under attention DP with EP inside one NVLink domain (or over PCIe) the engine has no all-to-all "
                "either: the group's tokens all-gathered before the experts and reduce-scattered after them (vLLM's "
                "default all2all_backend allgather_reducescatter); 0: an all-to-all there, timed with DeepEP's "
                "measured kernels (SGLang's --moe-a2a-backend deepep, TensorRT-LLM's MNNVL / NVLink all-to-all, "
                "vLLM's --all2all-backend deepep_* or flashinfer_nvlink_one_sided); `sglang` 0 as its disaggregated "
                "recipes launch it, while `compare` answers its single-node launches with 1, SGLang's default "
                "backend `none` (`docs/disagg.md` section 26)"},
        {.key = "moe_gather_quantized",
         .integer = &EngineProfile::moe_gather_quantized,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: where attention DP gathers the group's tokens for the MoE (MoE TP under attention DP, EP across "
                "NVLink domains without DeepEP) they travel in the experts' input format, per-tensor FP8 (1 byte) or "
                "NVFP4 (4 bits and an FP8 scale per 16) where the experts and the GPU run it, with each token's "
                "top-k ids and weights (TensorRT-LLM's CutlassFusedMoE.forward_chunk: quantise, then allgather); the "
                "reduce-scatter stays BF16; 0: BF16 hidden states (SGLang's dp_gather, vLLM's "
                "allgather_reducescatter)"},
        {.key = "moe_gather_extend_allreduce",
         .integer = &EngineProfile::moe_gather_extend_allreduce,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: where attention DP gathers the group's tokens for the MoE, a step with prefill tokens gathers them "
                "by an all-reduce of the zero-padded group buffer and returns the outputs by another all-reduce "
                "(SGLang's DpPaddingMode SUM_LEN under is_extend_in_batch): twice the bytes of the gather and "
                "reduce-scatter that decode-only steps move (MAX_LEN); 0: the gather and reduce-scatter every step "
                "(TensorRT-LLM, vLLM)"},
        {.key = "activation_reserve_gb",
         .number = &EngineProfile::activation_reserve_gb,
         .max = 1e4,
         .unit = "GiB per GPU",
         .doc = "memory held for activations and graphs, not available to the KV cache"},
        {.key = "memory_share_of_free",
         .integer = &EngineProfile::memory_share_of_free,
         .max = 1,
         .min = 0,
         .unit = "0 or 1",
         .doc = "1: `gpu_memory_utilization` is the KV cache's share of the memory the weights and activations leave "
                "free (TensorRT-LLM's `free_gpu_memory_fraction`); 0: the share of the GPU's memory that weights, "
                "activations and KV cache together may take (vLLM's `gpu_memory_utilization`, SGLang's "
                "`mem_fraction_static`)"},
    };
    return fields;
}

// The fitted rows of the engine profile's field table (engine_fields()), in its order.
const std::vector<EngineTerm>& fitted_engine_terms() {
    static const std::vector<EngineTerm> terms = [] {
        std::vector<EngineTerm> fitted;
        for (const EngineField& f : engine_fields()) {
            if (f.fit_max > 0) fitted.push_back({f.key, f.number, f.fit_max, f.unit, f.meaning});
        }
        return fitted;
    }();
    return terms;
}

namespace {

const EngineProfile* find_builtin(const std::string& name) {
    return find_named(builtin_engines(), lower(name.empty() ? "vllm" : name));
}

const EngineProfile& builtin_or_throw(const std::string& name, const std::string& origin) {
    const EngineProfile* e = find_builtin(name);
    if (!e) {
        throw Error(Status::unknown_name,
                    origin + "'" + name + "' is not a built-in engine (built-in: " + builtin_engine_names() + ")");
    }
    return *e;
}

// The fields of `json` laid over `e`, each checked against its row of engine_fields(); `version` (the caller's release)
// applies before the profile's own `version` field. `origin` names the file (or "engine profile" for JSON text) in
// every message. "base" and "name" are the caller's to read.
EngineProfile overlay_fields(EngineProfile e, const nlohmann::json& json, const std::string& origin,
                             const std::string& version) {
    JsonFields f(json, origin);
    for (const auto& [key, value] : json.items()) {
        if (key == "base" || key == "name" || key.rfind('_', 0) == 0) continue;  // "_comment" keys document
        bool known = false;
        for (const EngineField& field : engine_fields()) known = known || key == field.key;
        if (!known) {
            std::vector<std::string> names{"base", "name"};
            for (const EngineField& field : engine_fields()) names.emplace_back(field.key);
            std::string hint = did_you_mean(key, names);
            f.fail(key.c_str(), "not an engine profile field" +
                                    (hint.empty() ? std::string(" (see docs/engine.md for the list)") : hint));
        }
    }
    if (auto mixed = f.optional_bool("mixed_batches")) e.mixed_batches = *mixed;
    if (auto chunked = f.optional_bool("chunked_prefill")) e.chunked_prefill = *chunked;
    if (auto balance = f.optional_bool("attention_dp_balance")) e.attention_dp_balance = *balance;
    if (auto overlap = f.optional_bool("overlap_scheduler")) e.overlap_scheduler = *overlap;
    if (auto follows = f.optional_bool("checkpoint_kv_cache")) e.checkpoint_kv_cache = *follows;
    if (auto above = f.optional_bool("moe_alltoall_above_topk")) e.moe_alltoall_above_topk = *above;
    // The release: the caller's, unless the profile names its own.
    if (!version.empty()) e = at_version(e, version);
    if (auto named = f.optional_string("version")) {
        if (!parse_engine_version(*named)) {
            f.fail("version", "'" + *named + "' is not a release number (such as 0.14.0, 0.5.1.post1 or 1.2.0rc6)");
        }
        e.version = *named;
    }
    if (auto scheduler = f.optional_string("scheduler")) {
        try {
            e.scheduler = scheduler_policy_named(*scheduler);
        } catch (const Error& error) {
            f.fail("scheduler", error.what());
        }
    }
    for (const EngineField& field : engine_fields()) {
        if (!field.number && !field.integer) continue;  // the booleans and scheduler: above
        if (field.number) {
            if (auto v = f.optional_number(field.key)) {
                if (!(*v >= 0 && *v <= field.max)) {
                    f.fail(field.key,
                           "value " + std::to_string(*v) + " is outside [0, " + std::to_string(field.max) + "]");
                }
                e.*field.number = *v;
            }
        } else if (auto v = f.optional_integer(field.key)) {
            if (static_cast<double>(*v) < field.min || static_cast<double>(*v) > field.max) {
                f.fail(field.key, "value " + std::to_string(*v) + " is outside [" + shortest_text(field.min) + ", " +
                                      shortest_text(field.max) + "]");
            }
            e.*field.integer = *v;
        }
    }
    if (e.gpu_memory_utilization <= 0 && e.memory_reserve.base_mib <= 0) {
        f.fail("gpu_memory_utilization", "must be above 0");
    }
    if (e.kv_block_tokens < 1) f.fail("kv_block_tokens", "must be at least 1");
    if (auto name = f.optional_string("name")) e.name = *name;
    return e;
}

// `origin` names the file (or "engine profile" for JSON text) in every message.
EngineProfile apply_overrides(const std::string& json_text, const std::string& origin, const std::string& version) {
    nlohmann::json json = parse_json(json_text, origin);
    if (!json.is_object()) throw Error(Status::config, origin + ": must be a JSON object");
    refuse_nulls(json, origin);
    JsonFields f(json, origin);
    const EngineProfile& base =
        builtin_or_throw(f.optional_string("base").value_or("vllm"), origin + ": field 'base': ");
    return overlay_fields(base, json, origin, version);
}

}  // namespace

SchedulerPolicy scheduler_policy_named(const std::string& name) {
    for (SchedulerPolicy p : {SchedulerPolicy::vllm_v1, SchedulerPolicy::sglang, SchedulerPolicy::trtllm,
                              SchedulerPolicy::trtllm_max_utilization}) {
        if (name == scheduler_policy_name(p)) return p;
    }
    throw Error(Status::invalid_argument,
                "scheduler '" + name + "' is not one of vllm-v1, sglang, trtllm, trtllm-max-utilization");
}

const char* scheduler_policy_name(SchedulerPolicy policy) {
    switch (policy) {
        case SchedulerPolicy::vllm_v1:
            return "vllm-v1";
        case SchedulerPolicy::sglang:
            return "sglang";
        case SchedulerPolicy::trtllm:
            return "trtllm";
        case SchedulerPolicy::trtllm_max_utilization:
            return "trtllm-max-utilization";
    }
    return "vllm-v1";
}

EngineProfile for_gpu_memory(const EngineProfile& engine, double memory_gb, int64_t gpus, int64_t attention_dp) {
    EngineProfile e = engine;
    for (const EngineProfile::MemoryTier& tier : engine.memory_tiers) {
        if (memory_gb < tier.min_memory_gb) break;
        if (engine.max_batched_tokens == 0 && tier.max_batched_tokens > 0)
            e.max_batched_tokens = tier.max_batched_tokens;
        if (engine.max_seqs == 0 && tier.max_seqs > 0) e.max_seqs = tier.max_seqs;
        const int64_t graphs =
            gpus >= 4 && tier.cuda_graph_max_batch_tp4 > 0 ? tier.cuda_graph_max_batch_tp4 : tier.cuda_graph_max_batch;
        if (engine.cuda_graph_max_batch == 0 && graphs > 0) e.cuda_graph_max_batch = graphs;
    }
    if (engine.gpu_memory_utilization == 0 && engine.memory_reserve.base_mib > 0) {
        e.gpu_memory_utilization = reserved_memory_share(engine.memory_reserve, memory_gb, e.max_batched_tokens,
                                                         e.cuda_graph_max_batch, gpus, attention_dp);
    }
    // A decode pool whose graphs are captured up to its running-request limit (disagg_decode_graphs_whole_batch):
    // raised after the memory share, which those deployments fix themselves (mem-fraction-static in the recipes).
    if (engine.graphs_cover_max_seqs) e.cuda_graph_max_batch = std::max(e.cuda_graph_max_batch, e.max_seqs);
    return e;
}

double reserved_memory_share(const EngineProfile::MemoryReserve& r, double memory_gb, int64_t chunk_tokens,
                             int64_t graph_batch, int64_t gpus, int64_t attention_dp) {
    const auto graphs = static_cast<double>(graph_batch);
    double reserved = r.base_mib + r.chunk_token_mib * static_cast<double>(std::max<int64_t>(chunk_tokens, 2048)) +
                      r.graph_batch_mib * graphs + r.gpu_mib * static_cast<double>(gpus);
    if (attention_dp > 1) {
        reserved += r.dp_graph_batch_mib * graphs * static_cast<double>(attention_dp);
        if (graph_batch > r.large_graph_batch) {
            reserved += r.dp_large_graph_batch_mib * graphs * static_cast<double>(attention_dp);
        }
    }
    if (memory_gb > r.floor_above_gib) reserved = std::max(reserved, r.floor_mib);
    const double memory_mib = memory_gb * 1024;
    // A GPU too small for the reserve keeps a sliver, so the KV-pool check names the GPU rather than a zero share.
    return std::clamp((memory_mib - reserved) / memory_mib, 0.01, 1.0);
}

const std::vector<EngineProfile>& builtin_engines() {
    static const std::vector<EngineProfile> engines = make_builtins();
    return engines;
}

std::string builtin_engine_names() {
    return joined_names(builtin_engines());
}

EngineProfile overlay_engine(const EngineProfile& engine, const nlohmann::json& fields, const std::string& origin) {
    if (!fields.is_object()) throw Error(Status::config, origin + ": must be a JSON object");
    refuse_nulls(fields, origin);
    if (fields.contains("base")) {
        JsonFields(fields, origin).fail("base", "not allowed here: the fields are laid over the row's own profile");
    }
    return overlay_fields(engine, fields, origin, "");
}

EngineProfile resolve_engine(const std::string& name_or_json, const std::string& version) {
    if (is_json_text(name_or_json)) return apply_overrides(name_or_json, "engine profile", version);
    if (find_builtin(name_or_json) == nullptr && is_regular_file(name_or_json)) {
        // A profile written by `mfusim calibrate -o`.
        return apply_overrides(read_file(name_or_json), name_or_json, version);
    }
    const EngineProfile& builtin = builtin_or_throw(name_or_json, "engine: ");
    return version.empty() ? builtin : at_version(builtin, version);
}

bool overlap_scheduler_of(const EngineProfile& engine) {
    if (engine.overlap_scheduler) return *engine.overlap_scheduler;
    return version_default(engine.base, engine.version, "overlap_scheduler").value_or(false);
}

bool follows_checkpoint_kv_cache(const EngineProfile& engine) {
    if (engine.checkpoint_kv_cache) return *engine.checkpoint_kv_cache;
    return version_default(engine.base, engine.version, "checkpoint_kv_cache").value_or(false);
}

bool moe_alltoall_above_topk_of(const EngineProfile& engine) {
    if (engine.moe_alltoall_above_topk) return *engine.moe_alltoall_above_topk;
    return version_default(engine.base, engine.version, "moe_alltoall_above_topk").value_or(false);
}

EngineProfile at_version(EngineProfile engine, const std::string& version) {
    engine_version(version, "engine version");
    if (engine.version.empty()) engine.version = version;
    return engine;
}

}  // namespace mfusim::engines
