// Engine profiles: built-ins, overrides, errors, and their terms in a step.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engine/disagg_serve.hpp"
#include "engines/engine_profile.hpp"
#include "gpu/gpu_profile.hpp"
#include "roofline/roofline_model.hpp"
#include "serving/serving.hpp"

namespace mfusim::engines {
namespace {

TEST(EngineProfile, BuiltinsByNameWithVllmTheDefault) {
    EXPECT_EQ(resolve_engine("").name, "vllm");
    EXPECT_EQ(resolve_engine("SGLang").name, "sglang");
    EXPECT_FALSE(resolve_engine("sglang").mixed_batches);
    EXPECT_TRUE(resolve_engine("trtllm").mixed_batches);
    EXPECT_EQ(resolve_engine("none").step_us, 0);
    EXPECT_EQ(builtin_engine_names(), "vllm, sglang, trtllm, none");
}

TEST(EngineProfile, JsonOverridesAnyFieldAndNamesWhatIsWrong) {
    EngineProfile e = resolve_engine(R"({"base": "trtllm", "step_us": 123, "cuda_graph_max_batch": 64,
                                         "mixed_batches": false, "_comment": "ignored"})");
    EXPECT_EQ(e.name, "trtllm");
    EXPECT_EQ(e.step_us, 123);
    EXPECT_EQ(e.cuda_graph_max_batch, 64);
    EXPECT_FALSE(e.mixed_batches);
    auto fails = [](const std::string& text, Status status, const std::string& needle) {
        try {
            resolve_engine(text);
            ADD_FAILURE() << text;
        } catch (const Error& err) {
            EXPECT_EQ(err.status(), status) << text;
            EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
        }
    };
    fails("vllm2", Status::unknown_name, "not a built-in engine (built-in: vllm, sglang, trtllm, none)");
    fails(R"({"base": "x"})", Status::unknown_name, "field 'base'");
    fails(R"({"step_usec": 1})", Status::config, "field 'step_usec': not an engine profile field");
    fails(R"({"step_us": -1})", Status::config, "field 'step_us': value");
    fails(R"({"step_us": 1e300})", Status::config, "outside");
    fails(R"({"max_seqs": 1.5})", Status::config, "max_seqs");
    fails(R"({"gpu_memory_utilization": 0})", Status::config, "gpu_memory_utilization");
    fails(R"({"step_us": [1]})", Status::config, "step_us");
    // TensorRT-LLM's batch waiting and attention-DP balancing (docs/simulate.md): a ratio is a share, a flag a bool.
    fails(R"({"base": "trtllm", "batch_wait_max_tokens_ratio": 1.5})", Status::config, "batch_wait_max_tokens_ratio");
    fails(R"({"base": "trtllm", "attention_dp_balance": 1})", Status::config, "attention_dp_balance");
    fails(R"({"base": "trtllm", "batch_wait_timeout_iter": 20})", Status::config, "did you mean");
    EXPECT_TRUE(resolve_engine(R"({"base": "trtllm", "attention_dp_balance": true})").attention_dp_balance);
}

TEST(EngineProfile, TermsAddToTheStepAsStated) {
    auto cfg = config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct"));  // 32 layers
    query::Deployment d;
    auto time = [&](const std::string& engine, const std::vector<mfusim_request>& step) {
        roofline::RooflineModel m(cfg, gpu::resolve_gpu("H100"), nullptr, d, resolve_engine(engine));
        return m.step_time_us(step.data(), step.size());
    };
    const std::string zero =
        R"({"base": "vllm", "step_us": 0, "request_us": 0, "layer_us": 0, "eager_layer_us": 0, "tp_sync_us": 0)";
    std::vector<mfusim_request> decodes(8, mfusim_request{1, 1000, 0u, 0u});
    std::vector<mfusim_request> mixed = decodes;
    mixed.push_back(mfusim_request{512, 0, 0u, 0u});
    const double base_decode = time(zero + "}", decodes), base_mixed = time(zero + "}", mixed);
    EXPECT_DOUBLE_EQ(time(zero + R"(, "step_us": 100})", decodes) - base_decode, 100);
    EXPECT_DOUBLE_EQ(time(zero + R"(, "request_us": 10})", mixed) - base_mixed, 90);
    // Every step pays layer_us per layer; a prefill chunk makes the step eager, which adds eager_layer_us.
    EXPECT_DOUBLE_EQ(time(zero + R"(, "layer_us": 2})", decodes) - base_decode, 64);
    EXPECT_DOUBLE_EQ(time(zero + R"(, "layer_us": 2})", mixed) - base_mixed, 64);
    EXPECT_DOUBLE_EQ(time(zero + R"(, "eager_layer_us": 3})", decodes) - base_decode, 0);
    EXPECT_DOUBLE_EQ(time(zero + R"(, "eager_layer_us": 3})", mixed) - base_mixed, 96);
    // Past the largest captured graph a decode step is eager too.
    EXPECT_DOUBLE_EQ(time(zero + R"(, "eager_layer_us": 3, "cuda_graph_max_batch": 4})", decodes) - base_decode, 96);
    // TP synchronisation only with more than one GPU.
    EXPECT_DOUBLE_EQ(time(zero + R"(, "tp_sync_us": 50})", decodes) - base_decode, 0);
}

// Host work under TensorRT-LLM's overlap scheduler runs beside the GPU: the step takes the longer of the two, so a
// short host loop costs nothing and a long one sets the step (docs/engine.md, "Overlapped host work").
TEST(EngineProfile, OverlappedHostWorkBoundsTheStepFromBelow) {
    auto cfg = config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct"));
    query::Deployment d;
    auto time = [&](const std::string& engine, const std::vector<mfusim_request>& step) {
        roofline::RooflineModel m(cfg, gpu::resolve_gpu("H100"), nullptr, d, resolve_engine(engine));
        return m.step_time_us(step.data(), step.size());
    };
    std::vector<mfusim_request> decodes(8, mfusim_request{1, 1000, 0u, 0u});
    const double gpu = time(R"({"base": "trtllm"})", decodes);
    ASSERT_GT(gpu, 0);
    // Hidden: the host loop is shorter than the step.
    EXPECT_DOUBLE_EQ(time(R"({"base": "trtllm", "host_step_us": 10, "host_request_us": 1})", decodes), gpu);
    // Exposed: per step plus per scheduled request, whatever the kernels take.
    const double host = gpu + 1000;
    EXPECT_NEAR(
        time(R"({"base": "trtllm", "host_step_us": )" + std::to_string(host - 8 * 50) + R"(, "host_request_us": 50})",
             decodes),
        host, 1e-3);
    // The built-in profiles carry none: nothing the H100 runs identify (docs/engine.md).
    EXPECT_EQ(resolve_engine("trtllm").host_step_us, 0);
    EXPECT_EQ(resolve_engine("trtllm").host_request_us, 0);
}

// SGLang replays CUDA graphs for decode batches up to cuda_graph_max_bs only (CudaGraphRunner.can_run): its extend
// (prefill) batches and larger decode batches run eagerly and pay the host time of every layer; graphed decodes do
// not (docs/simulate.md, section 7, "SGLang's eager extend batches").
TEST(EngineProfile, SglangRunsExtendBatchesAndLargeDecodesEagerly) {
    auto cfg = config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct"));  // 32 layers
    query::Deployment d;
    const EngineProfile sglang = resolve_engine("sglang");
    EngineProfile graphs_only = sglang;
    graphs_only.eager_layer_us = 0;
    // A host cost per eager layer: above vLLM's (piecewise graphs hide it) and within the fit's physical bound.
    EXPECT_GT(sglang.eager_layer_us, resolve_engine("vllm").eager_layer_us);
    EXPECT_LE(sglang.eager_layer_us, 1000);
    auto extra = [&](const std::vector<mfusim_request>& step) {
        roofline::RooflineModel with(cfg, gpu::resolve_gpu("H200"), nullptr, d, sglang);
        roofline::RooflineModel without(cfg, gpu::resolve_gpu("H200"), nullptr, d, graphs_only);
        return with.step_time_us(step.data(), step.size()) - without.step_time_us(step.data(), step.size());
    };
    const double per_step = 32 * sglang.eager_layer_us;
    EXPECT_NEAR(extra({mfusim_request{1024, 0, 0u, 0u}}), per_step, 1e-6 * per_step);  // a prefill (extend) batch
    const auto n =
        static_cast<std::size_t>(for_gpu_memory(sglang, gpu::resolve_gpu("H200").memory_gb).cuda_graph_max_batch);
    EXPECT_NEAR(extra(std::vector<mfusim_request>(n, mfusim_request{1, 1000, 0u, 0u})), 0, 1e-9);  // graphed
    EXPECT_NEAR(extra(std::vector<mfusim_request>(n + 1, mfusim_request{1, 1000, 0u, 0u})), per_step,
                1e-6 * per_step);  // past the largest graph
}

// An eager MoE layer carries the host work of its MoE block on top of the per-layer eager term (docs/simulate.md,
// "SGLang's eager MoE layers"): per MoE layer, only in steps outside the CUDA graphs, never for a dense model.
TEST(EngineProfile, SglangEagerMoeLayersPayTheirHostWork) {
    const EngineProfile sglang = resolve_engine("sglang");
    EngineProfile no_moe_term = sglang;
    no_moe_term.eager_moe_layer_us = 0;
    EXPECT_GT(sglang.eager_moe_layer_us, sglang.eager_layer_us);  // an MoE block issues more than a dense layer
    EXPECT_EQ(resolve_engine("vllm").eager_moe_layer_us, 0);      // piecewise graphs: no eager layers to pay
    EXPECT_EQ(resolve_engine("trtllm").eager_moe_layer_us, 0);
    query::Deployment d;
    auto extra = [&](const std::string& model, const std::vector<mfusim_request>& step) {
        auto cfg = config::parse_model_config(config::resolve_model_source(model));
        roofline::RooflineModel with(cfg, gpu::resolve_gpu("H200"), nullptr, d, sglang);
        roofline::RooflineModel without(cfg, gpu::resolve_gpu("H200"), nullptr, d, no_moe_term);
        return with.step_time_us(step.data(), step.size()) - without.step_time_us(step.data(), step.size());
    };
    const std::vector<mfusim_request> prefill{mfusim_request{1024, 0, 0u, 0u}};
    const std::vector<mfusim_request> graphed(8, mfusim_request{1, 1000, 0u, 0u});
    // Qwen3-30B-A3B: 48 layers, every FFN a mixture of experts.
    const double per_step = 48 * sglang.eager_moe_layer_us;
    EXPECT_NEAR(extra("qwen3-30b-a3b", prefill), per_step, 1e-6 * per_step);
    EXPECT_NEAR(extra("qwen3-30b-a3b", graphed), 0, 1e-9);
    EXPECT_NEAR(extra("llama-3.1-8b-instruct", prefill), 0, 1e-9);  // dense: eager_layer_us only
}

// A model with recurrent layers turns SGLang's overlap scheduler off (ServerArgs._handle_mamba_radix_cache): every
// step of it, prefill or graphed decode, pays the scheduler loop's host work in series; a model without recurrent
// layers keeps the overlap, and the engines that keep theirs (vLLM, TensorRT-LLM) pay nothing.
TEST(EngineProfile, SglangRecurrentModelsPayTheSerialHostStep) {
    const EngineProfile sglang = resolve_engine("sglang");
    EngineProfile overlapped = sglang;
    overlapped.serial_host_step_us = 0;
    EXPECT_GT(sglang.serial_host_step_us, 0);
    EXPECT_EQ(resolve_engine("vllm").serial_host_step_us, 0);
    EXPECT_EQ(resolve_engine("trtllm").serial_host_step_us, 0);
    query::Deployment d;
    auto extra = [&](const std::string& model, const std::vector<mfusim_request>& step) {
        auto cfg = config::parse_model_config(config::resolve_model_source(model));
        roofline::RooflineModel with(cfg, gpu::resolve_gpu("H200"), nullptr, d, sglang);
        roofline::RooflineModel without(cfg, gpu::resolve_gpu("H200"), nullptr, d, overlapped);
        EXPECT_EQ(with.engine_units(step.data(), step.size()).serial_steps,
                  cfg.linear_layer_count + cfg.mamba_layer_count > 0 ? 1.0 : 0.0);
        return with.step_time_us(step.data(), step.size()) - without.step_time_us(step.data(), step.size());
    };
    const std::vector<mfusim_request> prefill{mfusim_request{1024, 0, 0u, 0u}};
    const std::vector<mfusim_request> graphed(8, mfusim_request{1, 1000, 0u, 0u});
    const double t = sglang.serial_host_step_us;
    EXPECT_NEAR(extra("qwen3.5-35b-a3b", graphed), t, 1e-6 * t);  // Gated DeltaNet hybrid
    EXPECT_NEAR(extra("qwen3.5-35b-a3b", prefill), t, 1e-6 * t);
    EXPECT_NEAR(extra("qwen3-30b-a3b", graphed), 0, 1e-9);  // no recurrent layers: overlap kept
}

// SGLang picks chunked_prefill_size and cuda_graph_max_bs from the GPU's memory and tp_size
// (sglang/srt/server_args.py ServerArgs._handle_gpu_memory_settings, 0.5.x); the values are that function's.
TEST(EngineProfile, SglangBudgetAndGraphLimitFollowMemoryAndTp) {
    const EngineProfile sglang = resolve_engine("sglang");
    struct Case {
        double memory_gb;
        int64_t tp, chunk, graphs;
    };
    for (const Case& c : {Case{16, 1, 2048, 8}, Case{16, 8, 2048, 8},             // T4
                          Case{24, 2, 2048, 24}, Case{24, 4, 2048, 80},           // A10, 4090
                          Case{48, 3, 4096, 32}, Case{48, 4, 4096, 160},          // A100-40GB, L40
                          Case{80, 2, 8192, 256}, Case{80, 4, 8192, 512},         // H100
                          Case{141, 1, 8192, 256}, Case{141, 8, 8192, 512},       // H200
                          Case{180, 1, 16384, 512}, Case{180, 8, 16384, 512}}) {  // B200
        const EngineProfile e = for_gpu_memory(sglang, c.memory_gb, c.tp);
        EXPECT_EQ(e.max_batched_tokens, c.chunk) << c.memory_gb << " GiB, TP " << c.tp;
        EXPECT_EQ(e.cuda_graph_max_batch, c.graphs) << c.memory_gb << " GiB, TP " << c.tp;
    }
}

// mem_fraction_static = (memory - reserved) / memory, reserved MiB = 512 + 1.5 max(chunk, 2048) + 2 graphs + 128 TP
// (+ DP-attention padding), at least 10 GiB above 60 GiB (same function).
TEST(EngineProfile, SglangMemoryShareIsItsReserveFormula) {
    const EngineProfile sglang = resolve_engine("sglang");
    auto share = [&](double gib, int64_t gpus, int64_t dp = 1) {
        return for_gpu_memory(sglang, gib, gpus, dp).gpu_memory_utilization;
    };
    EXPECT_NEAR(share(80, 2), (81920.0 - (512 + 1.5 * 8192 + 2 * 256 + 256)) / 81920, 1e-12);
    EXPECT_NEAR(share(141, 8), (144384.0 - (512 + 1.5 * 8192 + 2 * 512 + 1024)) / 144384, 1e-12);
    // Below 60 GiB no 10 GiB floor: a 24 GiB card at TP 1 keeps most of its memory.
    EXPECT_NEAR(share(24, 1), (24576.0 - (512 + 1.5 * 2048 + 2 * 24 + 128)) / 24576, 1e-12);
    // Above 60 GiB the floor: an 80 GiB card whose formula gives less than 10 GiB (a 2048-token budget).
    EngineProfile small = sglang;
    small.max_batched_tokens = 2048;
    small.cuda_graph_max_batch = 8;
    EXPECT_NEAR(for_gpu_memory(small, 80, 1).gpu_memory_utilization, (81920.0 - 10240) / 81920, 1e-12);
    // DP attention pads the graphs per replica, more above a graph batch of 300.
    EXPECT_NEAR(share(141, 8, 8),
                (144384.0 - (512 + 1.5 * 8192 + 2 * 512 + 1024 + 3 * 512 * 8 + 1.5 * 512 * 8)) / 144384, 1e-12);
    // The KV share holds no separate activation reserve: the formula's reserve is it.
    EXPECT_EQ(sglang.activation_reserve_gb, 0);
}

TEST(EngineProfile, ExplicitSglangLimitsWinOverTheDerivedOnes) {
    const EngineProfile e = resolve_engine(
        R"({"base": "sglang", "cuda_graph_max_batch": 64, "max_batched_tokens": 4096, "gpu_memory_utilization": 0.8})");
    const EngineProfile r = for_gpu_memory(e, 141, 8);
    EXPECT_EQ(r.cuda_graph_max_batch, 64);
    EXPECT_EQ(r.max_batched_tokens, 4096);
    EXPECT_EQ(r.gpu_memory_utilization, 0.8);
    // A JSON profile on the sglang base leaves the share derived, and is accepted.
    EXPECT_GT(for_gpu_memory(resolve_engine(R"({"base": "sglang", "step_us": 1})"), 141, 8).gpu_memory_utilization,
              0.85);
}

// TensorRT-LLM's free_gpu_memory_fraction is a share of what the weights and activations leave free, vLLM's
// gpu_memory_utilization a share of the whole GPU: at the same 0.9, Llama-3.1-70B at TP 2 on H100 leaves TensorRT-LLM
// 0.9 x (memory - held) and vLLM 0.9 x memory - held, a tenth of what is held (weights and activations) apart.
TEST(EngineProfile, TrtllmsMemoryShareIsOfTheFreeMemory) {
    const config::ModelConfig llama =
        config::parse_model_config(config::resolve_model_source("llama-3.1-70b-instruct"));
    query::Deployment d;
    d.tensor_parallel = 2;
    EngineProfile vllm = resolve_engine("vllm"), trtllm = resolve_engine("trtllm");
    ASSERT_EQ(trtllm.memory_share_of_free, 1);
    ASSERT_EQ(vllm.memory_share_of_free, 0);
    vllm.gpu_memory_utilization = trtllm.gpu_memory_utilization = 0.9;
    trtllm.activation_reserve_gb = vllm.activation_reserve_gb;
    const roofline::RooflineModel v(llama, gpu::resolve_gpu("H100"), nullptr, d, vllm);
    const roofline::RooflineModel t(llama, gpu::resolve_gpu("H100"), nullptr, d, trtllm);
    const double memory = v.gpu().memory_bytes();
    const double held = v.memory().weight_bytes + vllm.activation_reserve_gb * gpu::GpuProfile::kGiB;
    EXPECT_NEAR(serving::cache_space_bytes(v, 0.9), 0.9 * memory - held, 1.0);
    EXPECT_NEAR(serving::cache_space_bytes(t, 0.9), 0.9 * (memory - held), 1.0);
    EXPECT_NEAR(serving::cache_space_bytes(t, 0.9) - serving::cache_space_bytes(v, 0.9), 0.1 * held, 1.0);
    // Weights that do not fit leave no cache either way.
    const roofline::RooflineModel too_small(llama, gpu::resolve_gpu("L40S"), nullptr, query::Deployment{}, trtllm);
    EXPECT_LT(serving::cache_space_bytes(too_small, 0.9), 0);
}

}  // namespace
// SGLang's disaggregated decode servers are deployed with cuda_graph_max_bs = max_running_requests (docs/disagg.md,
// section 12): a decode pool graphs every batch it can hold, where the same engine aggregated runs a batch past its
// derived graph limit eagerly. The memory share stays the one derived from the engine's own limit.
TEST(EngineProfile, SglangDecodePoolGraphsItsWholeBatch) {
    const EngineProfile sglang = resolve_engine("sglang");
    EXPECT_EQ(sglang.disagg_decode_graphs_whole_batch, 1);
    EXPECT_EQ(resolve_engine("vllm").disagg_decode_graphs_whole_batch, 0);
    EXPECT_EQ(resolve_engine("trtllm").disagg_decode_graphs_whole_batch, 0);
    EngineProfile decode = sglang;
    decode.graphs_cover_max_seqs = true;
    const EngineProfile aggregated = for_gpu_memory(sglang, 141, 8), pool = for_gpu_memory(decode, 141, 8);
    EXPECT_EQ(aggregated.cuda_graph_max_batch, 512);
    EXPECT_EQ(pool.cuda_graph_max_batch, sglang.max_seqs);
    EXPECT_EQ(pool.gpu_memory_utilization, aggregated.gpu_memory_utilization);

    auto step_us = [](const std::string& engine, bool decode_pool, std::size_t batch) {
        engine::Options o;
        o.model = "qwen3-30b-a3b";
        o.gpu = "H200";
        o.engine = engine;
        const engine::Estimator e(decode_pool ? engine::decode_pool_options(o, 1, 1, 1)
                                              : engine::pool_options(o, 1, 1, 1));
        const std::vector<mfusim_request> step(batch, mfusim_request{1, 1000, 0u, 0u});
        return e.step_time_us(step.data(), step.size());
    };
    // Past the aggregated graph limit (256 at TP 1 on 141 GiB) the decode pool saves the eager terms of all 48
    // (MoE) layers; within it, and for an engine without the deployment rule, the pools time a step alike.
    const double eager = 48 * (sglang.eager_layer_us + sglang.eager_moe_layer_us);
    EXPECT_NEAR(step_us("sglang", false, 300) - step_us("sglang", true, 300), eager, 1e-6 * eager);
    EXPECT_EQ(step_us("sglang", false, 200), step_us("sglang", true, 200));
    EXPECT_EQ(step_us("trtllm", false, 300), step_us("trtllm", true, 300));
}

// MXFP4 experts on Blackwell: SGLang (flashinfer_mxfp4 at its "default" precision, mxfp8_quantize on the hidden
// states) and TensorRT-LLM (get_mxfp4_quant_algo: W4A8_MXFP4_MXFP8 on SM >= 100) multiply MXFP8 activations on the FP8
// tensor cores; vLLM's SM100 default keeps BF16 activations. A compute-bound prefill step of the experts is then
// faster under the W4A8 engines than under the same engine profile with BF16 activations, on B200 and GB300; on
// Hopper (no TRT-LLM-gen MoE) the switch changes nothing.
TEST(EngineProfile, Mxfp4ExpertsTakeFp8ActivationsWhereTheEngineQuantisesThem) {
    EXPECT_EQ(resolve_engine("vllm").mxfp4_moe_fp8_activations, 0);
    EXPECT_EQ(resolve_engine("sglang").mxfp4_moe_fp8_activations, 1);
    EXPECT_EQ(resolve_engine("trtllm").mxfp4_moe_fp8_activations, 1);
    const std::string gpt_oss_like = R"({"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
        "hidden_size": 2880, "intermediate_size": 2880, "head_dim": 64, "num_attention_heads": 64,
        "num_key_value_heads": 8, "num_hidden_layers": 4, "num_local_experts": 128, "num_experts_per_tok": 4,
        "experts_per_token": 4, "vocab_size": 201088, "hidden_act": "silu",
        "quantization_config": {"quant_method": "mxfp4",
                                "modules_to_not_convert": ["model.layers.*.self_attn", "lm_head"]}})";
    auto step_us = [&](const char* gpu, const std::string& engine) {
        engine::Options o;
        o.model = gpt_oss_like;
        o.gpu = gpu;
        o.engine = engine;
        const engine::Estimator e(o);
        const std::vector<mfusim_request> step{mfusim_request{8192, 0, 0u, 0u}};
        return e.step_time_us(step.data(), step.size());
    };
    for (const char* engine : {"sglang", "trtllm"}) {
        const std::string bf16 = std::string(R"({"base": ")") + engine + R"(", "mxfp4_moe_fp8_activations": 0})";
        for (const char* gpu : {"B200", "GB300"}) {
            EXPECT_LT(step_us(gpu, engine), 0.9 * step_us(gpu, bf16)) << engine << " on " << gpu;
        }
        EXPECT_EQ(step_us("H200", engine), step_us("H200", bf16)) << engine;
    }
    EXPECT_EQ(step_us("B200", "vllm"), step_us("B200", R"({"base": "vllm", "mxfp4_moe_fp8_activations": 0})"));
}

// vLLM and SGLang refuse to load a block-FP8 expert shard that is not a multiple of the weight block (Fp8MoEMethod.
// create_weights: "output_size of gate's and up's weight = 192 is not divisible by weight quantization block_n =
// 128"), so such a deployment is refused by name; expert parallelism that keeps the experts whole, a shard that
// divides, or an engine without the check, answers.
TEST(EngineProfile, BlockFp8ExpertShardsTheEngineCannotLoadAreRefused) {
    const config::ModelConfig model = config::parse_model_config(config::resolve_model_source("deepseek-v3"));
    ASSERT_EQ(model.quant.experts, config::WeightFormat::fp8_block);
    ASSERT_EQ(model.moe_intermediate_size, 2048);
    const gpu::GpuProfile h100 = gpu::resolve_gpu("H100");
    auto build = [&](const char* engine, int64_t tp, int64_t ep) {
        query::Deployment d;
        d.tensor_parallel = tp;
        d.expert_parallel = ep;
        return roofline::RooflineModel(model, h100, nullptr, d, resolve_engine(engine));
    };
    EXPECT_EQ(resolve_engine("vllm").fp8_block_moe_shard_multiple, 128);
    EXPECT_EQ(resolve_engine("sglang").fp8_block_moe_shard_multiple, 128);
    EXPECT_EQ(resolve_engine("trtllm").fp8_block_moe_shard_multiple, 0);
    // TensorRT-LLM's MoE backend defaults to CUTLASS; vLLM's and SGLang's Hopper default is the Triton fused_moe.
    EXPECT_EQ(resolve_engine("trtllm").cutlass_moe, 1);
    EXPECT_EQ(resolve_engine("vllm").cutlass_moe, 0);
    EXPECT_EQ(resolve_engine("sglang").cutlass_moe, 0);
    // 2048 / 32 = 64 columns per GPU: not a multiple of 128.
    for (const char* engine : {"vllm", "sglang"}) {
        try {
            build(engine, 32, 1);
            ADD_FAILURE() << engine << " loaded a 64-column block-FP8 shard";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), Status::config);
            EXPECT_NE(std::string(e.what()).find("fp8_block_moe_shard_multiple"), std::string::npos) << e.what();
        }
    }
    EXPECT_NO_THROW(build("vllm", 16, 1));   // 128 columns
    EXPECT_NO_THROW(build("vllm", 32, 32));  // experts whole on their GPU
    EXPECT_NO_THROW(build("vllm", 32, 4));   // MoE TP 8: 256 columns
    EXPECT_NO_THROW(build("trtllm", 32, 1));
}

// The engine's terms are host work (scheduling, Python launches, the API server) or fixed kernel-gap latencies
// (layer_us): none of them is tensor or HBM throughput, so a GPU with twice the FLOP/s or bandwidth pays them in
// full; only the kernels' part of a step moves with the GPU (docs/engine.md, "On GPUs the terms were not fitted
// on"). The cross-GPU check behind it: vLLM's layer_us fitted on H100 holds on H200 (1.43x the bandwidth, the same
// launch path) at c 1-8, TPOT bias -2.5%; scaled by bandwidth it would give -11.9%. Every GPU here resolves the same
// scheduler limits for these steps (a few graphed decodes, or one prefill), so the terms' units are the same too.
TEST(EngineProfile, EngineTermsAreTheSameOnEveryGpuWhileTheKernelsMove) {
    query::Deployment d;
    d.tensor_parallel = 2;
    const std::vector<mfusim_request> decode(8, mfusim_request{1, 2000, 0u, 0u});
    const std::vector<mfusim_request> prefill{mfusim_request{2048, 0, 0u, 0u}};
    for (const char* name : {"vllm", "sglang", "trtllm"}) {
        const EngineProfile engine = resolve_engine(name);
        for (const char* model : {"llama-3.1-8b-instruct", "qwen3-30b-a3b"}) {
            const auto cfg = config::parse_model_config(config::resolve_model_source(model));
            for (const auto* step : {&decode, &prefill}) {
                auto detail = [&](const char* gpu) {
                    roofline::RooflineModel m(cfg, gpu::resolve_gpu(gpu), nullptr, d, engine);
                    mfusim_step_result r;
                    r.struct_size = sizeof r;
                    m.step_detail(step->data(), step->size(), r);
                    return r;
                };
                const mfusim_step_result hopper = detail("H200");
                EXPECT_GT(hopper.ops[MFUSIM_OP_ENGINE].time_us, 0) << name << " " << model;
                for (const char* gpu : {"B200", "GB200", "B300"}) {
                    const mfusim_step_result blackwell = detail(gpu);
                    EXPECT_DOUBLE_EQ(blackwell.ops[MFUSIM_OP_ENGINE].time_us, hopper.ops[MFUSIM_OP_ENGINE].time_us)
                        << name << " " << model << " " << gpu << " " << step->front().new_tokens;
                    // The kernels themselves are faster on Blackwell: more HBM bandwidth and tensor throughput.
                    EXPECT_LT(blackwell.total_us - blackwell.ops[MFUSIM_OP_ENGINE].time_us,
                              hopper.total_us - hopper.ops[MFUSIM_OP_ENGINE].time_us)
                        << name << " " << model << " " << gpu;
                }
            }
        }
    }
}

}  // namespace mfusim::engines
