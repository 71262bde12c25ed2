// The per-step roofline model (docs/roofline.md). Per layer kind and per GPU: projection GEMMs on every token of
// the step, prefill attention of the chunks over their cached prefixes, decode attention from the KV bytes each
// request reads, dense FFN or MoE (expected active experts), Gated-DeltaNet layers, two TP all-reduces per layer,
// the LM head for the tokens that produce output, and the named overheads of the GPU profile. Everything that
// depends only on the model and deployment is built once here; a step is one pass over its requests plus a
// fixed number of grid lookups.
#include "roofline/roofline_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"
#include "roofline/kernels.hpp"
#include "query/names.hpp"

namespace mfusim::roofline {

namespace {

using tables::AttentionFamily;
using tables::Phase;

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// What one pass over the requests of a step gathers.
struct StepWork {
    int64_t tokens = 0;          // new tokens of the step (GEMM rows)
    int64_t outputs = 0;         // requests that produce a token (LM head rows)
    int64_t prefill_tokens = 0;  // new tokens of prefill chunks
    int64_t prefill_span = 0;    // sum over prefill chunks of context + new tokens (MLA K/V up-projection rows)
    double prefill_sequences = 0;
    PrefillWork prefill;
    DecodeWork decode;
};

}  // namespace

struct RooflineModel::Impl {
    config::ModelConfig model;
    query::Deployment deployment;
    std::unique_ptr<KernelModel> kernels;  // heap: sites point into it
    std::string warnings;

    bool mla = false, hybrid = false, moe = false;
    double full_layers = 0, linear_layers = 0, dense_ffn_layers = 0, moe_layers = 0, layers = 0;

    // Full-attention layers.
    GemmSite qkv, o;                    // GQA (qkv: fused q/k/v)
    GemmSite mla_q, mla_q_b, mla_kv_a;  // MLA: fused q_a + kv_a (or q), q_b (when q_lora_rank), kv_a (no q_lora)
    GemmSite mla_kv_b, mla_absorb_k, mla_absorb_v;  // MLA: prefill K/V up-projection; decode W_UK, W_UV
    bool mla_has_q_b = false, mla_separate_kv_a = false;
    PrefillAttentionSite prefill;
    DecodeAttentionSite decode;
    // FFN.
    GemmSite ffn_up, ffn_down;
    GemmSite router, moe_up, moe_down, shared_up, shared_down;
    bool has_shared = false;
    // Linear-attention layers.
    GemmSite linear_in, linear_out;
    LinearAttentionSite linear;
    GemmSite lm_head;

    double allreduce_bytes_per_token = 0;  // one all-reduce's message per token
    double elementwise_us_per_token = 0;   // all layers: norms, rotary, activation, MoE permutation
    double layer_overhead_us = 0;          // all layers
    double step_overhead_us = 0;

    // One pass over the requests. Counts and token sums are integers (one-cycle adds, exact, and no floating-point
    // dependency chain); only the prefill chunks, which need their own arithmetic, touch doubles.
    StepWork gather(const mfusim_request* requests, std::size_t n) const {
        StepWork w;
        int64_t tokens = 0, outputs = 0, decodes = 0, prefill_tokens = 0, prefill_span = 0, sequences = 0;
        uint64_t decode_keys = 0;  // unsigned: wraps only past 2^64 keys in one step
        for (std::size_t i = 0; i < n; ++i) {
            const mfusim_request& r = requests[i];
            const int64_t t = r.new_tokens;
            if (t <= 0) continue;
            tokens += t;
            outputs += (r.flags & MFUSIM_REQUEST_NO_OUTPUT) ? 0 : 1;
            if (t == 1) {
                ++decodes;
                decode_keys += static_cast<uint64_t>(r.context) + 1;
            } else {
                prefill.add_chunk(w.prefill, t, r.context);
                prefill_tokens += t;
                prefill_span += t + r.context;
                ++sequences;
            }
        }
        w.tokens = tokens;
        w.outputs = outputs;
        w.prefill_tokens = prefill_tokens;
        w.prefill_span = prefill_span;
        w.prefill_sequences = static_cast<double>(sequences);
        w.decode.requests = static_cast<double>(decodes);
        w.decode.kv_tokens = static_cast<double>(decode_keys);
        return w;
    }

    double attention_projections_us(const StepWork& w) const {
        if (!mla) return qkv.time_us(w.tokens) + o.time_us(w.tokens);
        double t = mla_q.time_us(w.tokens) + o.time_us(w.tokens);
        if (mla_has_q_b) t += mla_q_b.time_us(w.tokens);
        if (mla_separate_kv_a) t += mla_kv_a.time_us(w.tokens);
        int64_t decodes = static_cast<int64_t>(w.decode.requests);
        return t + mla_kv_b.time_us(w.prefill_span) + mla_absorb_k.time_us(decodes) + mla_absorb_v.time_us(decodes);
    }

    double total_us(const StepWork& w) const {
        if (w.tokens <= 0) return step_overhead_us;
        double attention = attention_projections_us(w) + prefill.time_us(w.prefill) + decode.time_us(w.decode);
        double t = full_layers * attention;
        if (linear_layers > 0) {
            double lin = linear_in.time_us(w.tokens) + linear_out.time_us(w.tokens) +
                         linear.prefill_us(static_cast<double>(w.prefill_tokens), w.prefill_sequences) +
                         linear.decode_us(w.decode.requests);
            t += linear_layers * lin;
        }
        if (dense_ffn_layers > 0) t += dense_ffn_layers * (ffn_up.time_us(w.tokens) + ffn_down.time_us(w.tokens));
        if (moe_layers > 0) {
            double m = router.time_us(w.tokens) + moe_up.time_us(w.tokens) + moe_down.time_us(w.tokens);
            if (has_shared) m += shared_up.time_us(w.tokens) + shared_down.time_us(w.tokens);
            t += moe_layers * m;
        }
        if (deployment.tensor_parallel > 1) {
            double message = allreduce_bytes_per_token * static_cast<double>(w.tokens);
            t += 2.0 * layers * kernels->allreduce_time_us(message, deployment.tensor_parallel);
        }
        t += lm_head.time_us(w.outputs);
        t += step_overhead_us + layer_overhead_us + elementwise_us_per_token * static_cast<double>(w.tokens);
        return t;
    }

    void detail(const StepWork& w, mfusim_step_result& out) const;
};

namespace {

// Accumulates one operation of the breakdown.
struct OpAccumulator {
    mfusim_op_detail& d;
    double peak_flops;
    double longest = -1;
    void add(double time_us, double flops, double bytes, mfusim_bound bound, const OpProvenance& p) {
        d.time_us += time_us;
        d.flops += flops;
        d.bytes += bytes;
        if (time_us > longest) {
            longest = time_us;
            d.bound = bound;
            d.source = p.source;
            d.distance = p.distance;
            std::memset(d.table, 0, sizeof d.table);
            if (p.table) std::strncpy(d.table, p.table->c_str(), sizeof d.table - 1);
        }
    }
    void finish() {
        d.efficiency = d.time_us > 0 && d.flops > 0 ? d.flops / (d.time_us * 1e-6 * peak_flops) : 0;
        if (d.time_us <= 0) {
            d.bound = MFUSIM_BOUND_NONE;
            d.source = MFUSIM_SOURCE_NONE;
        }
    }
};

mfusim_bound roofline_bound(double compute_us, double memory_us) {
    return memory_us > compute_us ? MFUSIM_BOUND_MEMORY : MFUSIM_BOUND_COMPUTE;
}

}  // namespace

void RooflineModel::Impl::detail(const StepWork& w, mfusim_step_result& out) const {
    query::clear_step_result(out);
    const gpu::GpuProfile& gpu = kernels->gpu();
    double gemm_peak = kernels->gemm_precision().peak_flops;
    double attention_peak = kernels->attention_peak_flops();
    double bw = gpu.memory_bandwidth_gbs * 1e3 * gpu.memory_efficiency;
    mfusim_op_detail& weight = out.ops[MFUSIM_OP_WEIGHT_LOAD];

    // A GEMM: its time, split into the part its compute accounts for and the weight streaming beyond it.
    auto gemm = [&](OpAccumulator& acc, const GemmSite& site, int64_t m, double count, bool split_weights) {
        if (m <= 0 || count <= 0) return;
        double t = site.time_us(m) * count;
        GemmCost c = site.analytical(m);
        double excess = split_weights && c.memory_us > c.compute_us ? (c.memory_us - c.compute_us) / c.memory_us : 0;
        acc.add(t * (1 - excess), site.flops(m) * count, site.bytes(m) * count,
                roofline_bound(c.compute_us, c.memory_us), site.provenance(m));
        if (excess > 0) {
            weight.time_us += t * excess;
            weight.bytes += site.weight_bytes(m) * count;
            weight.bound = MFUSIM_BOUND_MEMORY;
            weight.source = MFUSIM_SOURCE_ANALYTICAL;
        }
    };

    if (w.tokens > 0) {
        OpAccumulator qkv_op{out.ops[MFUSIM_OP_QKV_PROJ], gemm_peak};
        OpAccumulator o_op{out.ops[MFUSIM_OP_O_PROJ], gemm_peak};
        if (!mla) {
            gemm(qkv_op, qkv, w.tokens, full_layers, true);
        } else {
            int64_t decodes = static_cast<int64_t>(w.decode.requests);
            gemm(qkv_op, mla_q, w.tokens, full_layers, true);
            if (mla_has_q_b) gemm(qkv_op, mla_q_b, w.tokens, full_layers, true);
            if (mla_separate_kv_a) gemm(qkv_op, mla_kv_a, w.tokens, full_layers, true);
            gemm(qkv_op, mla_kv_b, w.prefill_span, full_layers, true);
            gemm(qkv_op, mla_absorb_k, decodes, full_layers, true);
            gemm(qkv_op, mla_absorb_v, decodes, full_layers, true);
        }
        gemm(o_op, o, w.tokens, full_layers, true);
        qkv_op.finish();
        o_op.finish();

        if (w.prefill.chunks > 0 && full_layers > 0) {
            OpAccumulator acc{out.ops[MFUSIM_OP_ATTN_PREFILL], attention_peak};
            const AttentionGeometry& g = prefill.geometry();
            double compute = w.prefill.flops / (attention_peak * attention_tile_efficiency(gpu, g)) * 1e6;
            acc.add(prefill.time_us(w.prefill) * full_layers, w.prefill.flops * full_layers,
                    w.prefill.bytes * full_layers, roofline_bound(compute, w.prefill.bytes / bw),
                    prefill.provenance(w.prefill));
            acc.finish();
        }
        if (w.decode.requests > 0 && full_layers > 0) {
            OpAccumulator acc{out.ops[MFUSIM_OP_ATTN_DECODE], attention_peak};
            const AttentionGeometry& g = decode.geometry();
            double flops = decode_attention_flops(g, w.decode), bytes = decode_attention_bytes(g, w.decode);
            double compute = flops / (attention_peak * gpu.attention_max_efficiency) * 1e6;
            acc.add(decode.time_us(w.decode) * full_layers, flops * full_layers, bytes * full_layers,
                    roofline_bound(compute, bytes / bw), decode.provenance(w.decode));
            acc.finish();
        }
        if (dense_ffn_layers > 0) {
            OpAccumulator acc{out.ops[MFUSIM_OP_FFN], gemm_peak};
            gemm(acc, ffn_up, w.tokens, dense_ffn_layers, true);
            gemm(acc, ffn_down, w.tokens, dense_ffn_layers, true);
            acc.finish();
        }
        if (moe_layers > 0) {
            OpAccumulator acc{out.ops[MFUSIM_OP_MOE_EXPERTS], gemm_peak};
            gemm(acc, router, w.tokens, moe_layers, false);
            gemm(acc, moe_up, w.tokens, moe_layers, false);
            gemm(acc, moe_down, w.tokens, moe_layers, false);
            acc.finish();
            if (has_shared) {
                OpAccumulator shared{out.ops[MFUSIM_OP_MOE_SHARED], gemm_peak};
                gemm(shared, shared_up, w.tokens, moe_layers, true);
                gemm(shared, shared_down, w.tokens, moe_layers, true);
                shared.finish();
            }
        }
        if (linear_layers > 0) {
            OpAccumulator acc{out.ops[MFUSIM_OP_LINEAR_ATTN], attention_peak};
            gemm(acc, linear_in, w.tokens, linear_layers, false);
            gemm(acc, linear_out, w.tokens, linear_layers, false);
            const LinearAttentionGeometry& g = linear.geometry();
            LinearAttentionWork lw{static_cast<double>(w.prefill_tokens), w.prefill_sequences, w.decode.requests};
            double flops = linear_attention_flops(g, lw), bytes = linear_attention_bytes(g, lw);
            double core_prefill = linear.prefill_us(static_cast<double>(w.prefill_tokens), w.prefill_sequences);
            double core_decode = linear.decode_us(w.decode.requests);
            double compute = flops / (attention_peak * gpu.linear_attention_efficiency) * 1e6;
            acc.add((core_prefill + core_decode) * linear_layers, flops * linear_layers, bytes * linear_layers,
                    roofline_bound(compute, bytes / bw), linear.provenance(core_prefill >= core_decode));
            acc.finish();
        }
        if (w.outputs > 0) {
            OpAccumulator acc{out.ops[MFUSIM_OP_LM_HEAD], gemm_peak};
            gemm(acc, lm_head, w.outputs, 1.0, true);
            acc.finish();
        }
        if (deployment.tensor_parallel > 1) {
            mfusim_op_detail& d = out.ops[MFUSIM_OP_TP_ALLREDUCE];
            double message = allreduce_bytes_per_token * static_cast<double>(w.tokens);
            d.time_us = 2.0 * layers * kernels->allreduce_time_us(message, deployment.tensor_parallel);
            d.bytes = 2.0 * layers * message;
            d.bound = MFUSIM_BOUND_COMMUNICATION;
            d.source = MFUSIM_SOURCE_ANALYTICAL;
        }
    }
    if (weight.time_us > 0) weight.efficiency = 0;
    mfusim_op_detail& overhead = out.ops[MFUSIM_OP_OVERHEAD];
    overhead.time_us = step_overhead_us;
    if (w.tokens > 0) {
        overhead.time_us += layer_overhead_us + elementwise_us_per_token * static_cast<double>(w.tokens);
        overhead.bytes = elementwise_us_per_token * static_cast<double>(w.tokens) * bw;
    }
    overhead.bound = MFUSIM_BOUND_FIXED;
    overhead.source = MFUSIM_SOURCE_DEFAULT;

    double total = 0, longest = -1;
    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
        total += out.ops[op].time_us;
        if (out.ops[op].time_us > longest) {
            longest = out.ops[op].time_us;
            out.bound = out.ops[op].bound;
        }
    }
    // The breakdown is the fast path's total split by operation: report the fast path's own number.
    out.total_us = total_us(w);
    (void)total;
}

// ---------------------------------------------------------------------------------------------------------------

RooflineModel::RooflineModel(const config::ModelConfig& model, const gpu::GpuProfile& gpu,
                             std::shared_ptr<const tables::BenchData> tables, const query::Deployment& deployment)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.model = model;
    m.deployment = deployment;
    const int64_t tp = deployment.tensor_parallel;
    std::vector<std::string> warnings;
    if (tp < 1) throw Error(Status::config, "tensor_parallel must be at least 1, got " + std::to_string(tp));
    if (model.num_heads % tp != 0) {
        throw Error(Status::config, "tensor_parallel " + std::to_string(tp) + " does not divide num_attention_heads " +
                                        std::to_string(model.num_heads) + ": the attention heads cannot be sharded");
    }
    if (model.attention == config::AttentionKind::gqa && model.num_kv_heads >= tp && model.num_kv_heads % tp != 0) {
        throw Error(Status::config, "tensor_parallel " + std::to_string(tp) + " does not divide num_key_value_heads " +
                                        std::to_string(model.num_kv_heads) + ": the KV heads cannot be sharded");
    }
    bool fp8 = (deployment.fp8_gemm || model.weight_bytes <= 1.0) && gpu.has_fp8();
    if (deployment.fp8_gemm && !gpu.has_fp8()) {
        throw Error(Status::config, "fp8_gemm: GPU " + gpu.name + " has no FP8 tensor cores (peak_fp8_tflops is 0)");
    }
    if (!fp8 && model.weight_bytes < 2.0) {
        warnings.push_back("weights of " + std::to_string(model.weight_bytes) +
                           " bytes run as weight-only quantization with BF16 compute on " + gpu.name);
    }
    if (deployment.world_size > tp || deployment.deepep || deployment.two_batch_overlap) {
        warnings.push_back(
            "world_size, deepep and two_batch_overlap are compat-mode options; the roofline model "
            "runs one tensor-parallel group (experts sharded by TP)");
    }
    m.kernels = std::make_unique<KernelModel>(gpu, std::move(tables), fp8 ? GemmDtype::fp8 : GemmDtype::bf16,
                                              deployment.fp8_kv, fp8 ? 0.0 : model.weight_bytes);
    const KernelModel& k = *m.kernels;
    warnings.insert(warnings.begin(), k.warnings().begin(), k.warnings().end());

    const int64_t h = model.hidden_size;
    m.layers = static_cast<double>(model.num_layers);
    m.full_layers = static_cast<double>(model.full_attention_layers());
    m.linear_layers = m.layers - m.full_layers;
    m.moe = model.is_moe();
    m.moe_layers = static_cast<double>(model.moe_layers());
    m.dense_ffn_layers = m.layers - m.moe_layers;
    m.mla = model.attention == config::AttentionKind::mla;
    m.hybrid = model.full_attention_interval > 0;

    const double kv_element = k.kv_element_bytes();
    const int64_t hq = model.num_heads / tp;
    const int64_t hkv = model.num_kv_heads >= tp ? model.num_kv_heads / tp : 1;
    double elementwise_bytes = 0;  // per token, all layers
    if (!m.mla) {
        const int64_t d = model.head_dim;
        m.qkv = k.gemm_site(h, (hq + 2 * hkv) * d);
        m.o = k.gemm_site(hq * d, h);
        AttentionGeometry g{hq, hkv, d, d, model.kv_bytes_per_token_per_layer(kv_element, tp), 2.0};
        std::array<int64_t, 3> shape{model.num_heads, model.num_kv_heads, d};
        m.prefill = k.prefill_site(g, AttentionFamily::mha, shape, tp);
        m.decode = k.decode_site(g, AttentionFamily::mha, shape, tp);
        elementwise_bytes += m.full_layers * 4.0 * static_cast<double>((hq + hkv) * d);  // rotary
    } else {
        const int64_t r_q = model.q_lora_rank, r_kv = model.kv_lora_rank, d_r = model.qk_rope_head_dim;
        const int64_t d_n = model.qk_nope_head_dim, d_v = model.v_head_dim, d_qk = d_n + d_r;
        if (r_q > 0) {
            m.mla_q = k.gemm_site(h, r_q + r_kv + d_r);  // fused q_a and kv_a (replicated on every rank)
            m.mla_q_b = k.gemm_site(r_q, hq * d_qk);
            m.mla_has_q_b = true;
        } else {
            m.mla_q = k.gemm_site(h, hq * d_qk);
            m.mla_kv_a = k.gemm_site(h, r_kv + d_r);
            m.mla_separate_kv_a = true;
        }
        m.mla_kv_b = k.gemm_site(r_kv, hq * (d_n + d_v));
        m.mla_absorb_k = k.gemm_site(d_n, hq * r_kv);
        m.mla_absorb_v = k.gemm_site(r_kv, hq * d_v);
        m.o = k.gemm_site(hq * d_v, h);
        double latent = static_cast<double>(r_kv + d_r) * kv_element;
        AttentionGeometry gp{hq, hq, d_qk, d_v, latent, 2.0};
        AttentionGeometry gd{hq, 1, r_kv + d_r, r_kv, latent, 2.0};
        m.prefill = k.prefill_site(gp, AttentionFamily::mla, {model.num_heads, d_n, d_r}, tp);
        m.decode = k.decode_site(gd, AttentionFamily::mla, {model.num_heads, r_kv, d_r}, tp);
        elementwise_bytes += m.full_layers * 4.0 * static_cast<double>(hq * d_r + d_r);
    }
    if (m.dense_ffn_layers > 0) {
        int64_t inter = ceil_div(model.intermediate_size, tp);
        if (model.intermediate_size % tp != 0) {
            warnings.push_back("intermediate_size " + std::to_string(model.intermediate_size) +
                               " is not a multiple of tensor_parallel " + std::to_string(tp) + ": rounded up per GPU");
        }
        m.ffn_up = k.gemm_site(h, 2 * inter);
        m.ffn_down = k.gemm_site(inter, h);
        elementwise_bytes += m.dense_ffn_layers * 6.0 * static_cast<double>(inter);
    }
    if (m.moe) {
        const double experts = static_cast<double>(model.num_experts);
        const double topk = static_cast<double>(model.experts_per_token);
        int64_t inter = ceil_div(model.moe_intermediate_size, tp);
        std::array<int64_t, 6> key{model.num_experts, 1, model.num_experts, model.experts_per_token, h, inter};
        m.router = k.gemm_site(h, model.num_experts);
        m.moe_up = k.grouped_site(experts, topk, h, 2 * inter, key, false);
        m.moe_down = k.grouped_site(experts, topk, inter, h, key, true);
        elementwise_bytes +=
            m.moe_layers * (6.0 * topk * static_cast<double>(inter) + 8.0 * topk * static_cast<double>(h));
        if (model.num_shared_experts > 0 && model.shared_expert_intermediate_size > 0) {
            int64_t shared = ceil_div(model.num_shared_experts * model.shared_expert_intermediate_size, tp);
            m.shared_up = k.gemm_site(h, 2 * shared);
            m.shared_down = k.gemm_site(shared, h);
            m.has_shared = true;
            elementwise_bytes += m.moe_layers * 6.0 * static_cast<double>(shared);
        }
    }
    if (m.linear_layers > 0) {
        int64_t hk = std::max<int64_t>(1, model.linear_num_key_heads / tp);
        int64_t hv = std::max<int64_t>(1, model.linear_num_value_heads / tp);
        int64_t dk = model.linear_key_head_dim, dv = model.linear_value_head_dim;
        m.linear_in = k.gemm_site(h, 2 * hk * dk + 2 * hv * dv + 2 * hv);  // in_proj_qkvz and in_proj_ba
        m.linear_out = k.gemm_site(hv * dv, h);
        LinearAttentionGeometry g{hk, hv, dk, dv, model.linear_conv_kernel};
        m.linear = k.linear_site(
            g, {model.linear_conv_kernel, model.linear_num_key_heads, dk, model.linear_num_value_heads, dv});
    }
    elementwise_bytes += m.layers * 16.0 * static_cast<double>(h);  // two fused residual-add + RMSNorm per layer
    if (model.vocab_size > 0) m.lm_head = k.gemm_site(h, ceil_div(model.vocab_size, tp));
    m.allreduce_bytes_per_token = 2.0 * static_cast<double>(h);  // bf16 activations
    m.elementwise_us_per_token = elementwise_bytes / (gpu.memory_bandwidth_gbs * 1e3 * gpu.memory_efficiency);
    m.layer_overhead_us = m.layers * gpu.layer_overhead_us;
    m.step_overhead_us = gpu.step_overhead_us;

    // Provenance decided at load time for the attention kernels, in words.
    auto describe = [&](const char* what, const OpProvenance& p) {
        if (p.source == MFUSIM_SOURCE_ANALYTICAL) {
            warnings.push_back(std::string(what) + ": no table covers this shape on " + gpu.name +
                               "; analytical efficiency model");
        } else if (p.source == MFUSIM_SOURCE_TABLE_NEAREST && p.distance > 0) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.3g", p.distance);
            warnings.push_back(std::string(what) + ": nearest table " + *p.table + " at " + buf + " octaves");
        }
    };
    if (m.full_layers > 0) {
        PrefillWork probe;
        m.prefill.add_chunk(probe, 1024, 0);
        describe("prefill attention", m.prefill.provenance(probe));
        describe("decode attention", m.decode.provenance(DecodeWork{16, 16 * 1024}));
    }
    for (const std::string& line : warnings) m.warnings += (m.warnings.empty() ? "" : "\n") + line;
}

RooflineModel::~RooflineModel() = default;
RooflineModel::RooflineModel(RooflineModel&&) noexcept = default;
RooflineModel& RooflineModel::operator=(RooflineModel&&) noexcept = default;

double RooflineModel::step_time_us(const mfusim_request* requests, std::size_t n) const {
    return impl_->total_us(impl_->gather(requests, n));
}

void RooflineModel::step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const {
    impl_->detail(impl_->gather(requests, n), out);
}

const std::string& RooflineModel::load_warnings() const {
    return impl_->warnings;
}

query::Report RooflineModel::estimate(const query::Scenario& s) const {
    query::Report report;
    const Impl& m = *impl_;
    if (s.input_len < 1) throw Error(Status::invalid_argument, "input_len must be at least 1");
    if (s.output_len < 0) throw Error(Status::invalid_argument, "output_len must not be negative");
    if (s.max_prefill_tokens < 1) throw Error(Status::invalid_argument, "max_prefill_tokens must be at least 1");
    const double tp = static_cast<double>(m.deployment.tensor_parallel);
    mfusim_step_result detail;
    detail.struct_size = sizeof detail;

    auto add_ops = [&](const char* phase, const mfusim_step_result& r, double scale, bool accumulate) {
        for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
            std::string name = std::string(phase) + "." + query::op_name(op) + "_us";
            const double* prior = report.find(name);
            double value = r.ops[op].time_us * scale + (accumulate && prior ? *prior : 0.0);
            report.set(name, value);
        }
    };

    if (s.phases != query::Phases::decode_only) {
        double total_us = 0;
        int64_t steps = 0;
        for (int64_t done = 0; done < s.input_len; done += s.max_prefill_tokens) {
            mfusim_request r{std::min(s.max_prefill_tokens, s.input_len - done), done, 0u, 0u};
            if (done + r.new_tokens < s.input_len) r.flags = MFUSIM_REQUEST_NO_OUTPUT;
            m.detail(m.gather(&r, 1), detail);
            total_us += detail.total_us;
            add_ops("prefill", detail, 1.0, steps > 0);
            ++steps;
        }
        double ttft_ms = total_us / 1000;
        report.set("prefill.max_prefill_tokens", static_cast<double>(s.max_prefill_tokens));
        report.set("prefill.steps", static_cast<double>(steps));
        report.set("prefill.ttft_ms", ttft_ms);
        report.set("prefill.throughput_tgs_tok_gpu_s", static_cast<double>(s.input_len) / tp / (ttft_ms / 1000));
    }
    if (s.phases != query::Phases::prefill_only) {
        int64_t batch = s.decode_batch >= 0 ? s.decode_batch
                                            : static_cast<int64_t>(std::ceil(s.target_tgs * s.target_tpot_ms / 1000.0));
        if (batch < 1) throw Error(Status::invalid_argument, "decode batch must be at least 1");
        int64_t context = s.input_len + s.output_len / 2;
        std::vector<mfusim_request> requests(static_cast<std::size_t>(batch), mfusim_request{1, context, 0u, 0u});
        m.detail(m.gather(requests.data(), requests.size()), detail);
        double tpot_ms = detail.total_us / 1000;
        report.set("decode.batch_size", static_cast<double>(batch));
        report.set("decode.context", static_cast<double>(context));
        add_ops("decode", detail, 1.0, false);
        report.set("decode.attn_core_mfu", detail.ops[MFUSIM_OP_ATTN_DECODE].efficiency);
        report.set("decode.tpot_ms", tpot_ms);
        report.set("decode.throughput_tgs_tok_gpu_s", static_cast<double>(batch) / tp / (tpot_ms / 1000));
        if (tpot_ms > s.target_tpot_ms) {
            report.warnings.push_back("decode: TPOT " + std::to_string(tpot_ms) + " ms exceeds the target " +
                                      std::to_string(s.target_tpot_ms) + " ms");
        }
    }
    std::sort(report.warnings.begin(), report.warnings.end());
    report.warnings.erase(std::unique(report.warnings.begin(), report.warnings.end()), report.warnings.end());
    return report;
}

}  // namespace mfusim::roofline
