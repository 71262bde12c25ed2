#include "roofline/families.hpp"

#include <algorithm>
#include <cmath>

#include "roofline/all_to_all.hpp"
#include "roofline/precision.hpp"

namespace mfusim::roofline {

namespace {

GemmPrecision precision_of(const gpu::GpuProfile& gpu, config::WeightFormat format) {
    KernelPrecision p = kernel_precision(format, gpu);
    if (p.dtype == GemmDtype::fp8) return fp8_gemm(gpu);
    if (p.dtype == GemmDtype::fp4) return fp4_gemm(gpu);
    GemmPrecision bf16 = bf16_gemm(gpu);
    if (p.weight_bytes > 0) bf16.b_bytes = p.weight_bytes;
    return bf16;
}

double gemm_us(const gpu::GpuProfile& gpu, const GemmPrecision& p, double m, int64_t k, int64_t n) {
    return m <= 0 ? 0.0 : gemm_analytical(gpu, p, 1, m, k, n).time_us;
}

}  // namespace

double fused_moe_us(const gpu::GpuProfile& gpu, const MoeShape& s) {
    if (s.tokens <= 0 || s.experts <= 0 || s.ep <= 0 || s.tp <= 0) return 0;
    const GemmPrecision p = precision_of(gpu, s.format);
    const double experts = static_cast<double>(s.experts / s.ep);
    const double topk = static_cast<double>(s.topk) / static_cast<double>(s.ep);
    const int64_t inter = (s.inter + s.tp - 1) / s.tp;
    const double active = expected_active_experts(experts, topk, s.tokens);
    if (active <= 0) return 0;
    const double m = s.tokens * topk / active;
    const int64_t up = (s.gated ? 2 : 1) * inter;
    return gemm_analytical(gpu, p, active, m, s.hidden, up).time_us +
           gemm_analytical(gpu, p, active, m, inter, s.hidden).time_us;
}

double mla_attention_us(const gpu::GpuProfile& gpu, const MlaShape& s, const MlaBatch& b) {
    if (b.batch <= 0) return 0;
    const double kv_element = s.fp8_kv ? 1.0 : 2.0;
    const double latent = static_cast<double>(s.kv_lora + s.rope) * kv_element;
    const double peak = gpu.peak_bf16_tflops * 1e12;
    const double batch = static_cast<double>(b.batch);
    if (b.decode) {
        AttentionGeometry g{s.heads, 1, s.kv_lora + s.rope, s.kv_lora, latent, 2.0};
        double keys = static_cast<double>(b.cached + 1);
        if (s.index_topk > 0) keys = std::min(keys, static_cast<double>(s.index_topk));
        return decode_attention_us(gpu, g, peak, DecodeWork{batch, batch * keys});
    }
    AttentionGeometry g{s.heads, s.heads, s.nope + s.rope, s.v, latent, 2.0};
    PrefillWork one;
    add_prefill_chunk(gpu, g, one, b.new_tokens, b.cached);
    PrefillWork work;
    work.add_copies(one, batch);
    double t = prefill_attention_us(gpu, g, peak, work);
    if (s.index_topk > 0) {
        // Sparse: each query reads at most index_topk keys; the dense causal time scaled by the pairs read.
        const double n = static_cast<double>(b.new_tokens), c = static_cast<double>(b.cached),
                     k = static_cast<double>(s.index_topk);
        double dense = 0, sparse = 0;
        for (double pos = c + 1; pos <= c + n; pos += std::max(1.0, std::floor(n / 256))) {
            dense += pos;
            sparse += std::min(pos, k);
        }
        if (dense > 0) t *= sparse / dense;
    }
    return t;
}

double mla_module_us(const gpu::GpuProfile& gpu, const MlaShape& s, const MlaBatch& b) {
    if (b.batch <= 0) return 0;
    const GemmPrecision p = precision_of(gpu, s.gemm);
    const double tokens = static_cast<double>(b.batch * (b.decode ? 1 : b.new_tokens));
    const int64_t d_qk = s.nope + s.rope;
    double t = 0;
    if (s.q_lora > 0) {
        t += gemm_us(gpu, p, tokens, s.hidden, s.q_lora + s.kv_lora + s.rope);
        t += gemm_us(gpu, p, tokens, s.q_lora, s.heads * d_qk);
    } else {
        t += gemm_us(gpu, p, tokens, s.hidden, s.heads * d_qk);
        t += gemm_us(gpu, p, tokens, s.hidden, s.kv_lora + s.rope);
    }
    if (b.decode) {
        t += gemm_us(gpu, p, tokens, s.nope, s.heads * s.kv_lora);
        t += gemm_us(gpu, p, tokens, s.kv_lora, s.heads * s.v);
    } else {
        t += gemm_us(gpu, p, static_cast<double>(b.batch * (b.new_tokens + b.cached)), s.kv_lora,
                     s.heads * (s.nope + s.v));
    }
    t += gemm_us(gpu, p, tokens, s.heads * s.v, s.hidden);
    if (s.index_heads > 0) {
        const int64_t q_in = s.q_lora > 0 ? s.q_lora : s.hidden;
        t += gemm_us(gpu, p, tokens, q_in, s.index_heads * s.index_dim);
        t += gemm_us(gpu, p, tokens, s.hidden, s.index_dim + s.index_heads);
        IndexerGeometry ig{s.index_heads, s.index_dim, static_cast<double>(s.index_dim) + 4.0};
        const double batch = static_cast<double>(b.batch);
        IndexerWork w;
        if (b.decode) {
            w = {batch, batch * static_cast<double>(b.cached + 1), batch * static_cast<double>(b.cached + 1)};
        } else {
            const double n = static_cast<double>(b.new_tokens), c = static_cast<double>(b.cached);
            w = {batch * n, batch * (n * c + n * (n + 1) / 2), batch * (c + n)};
        }
        const double peak = (gpu.has_fp8() ? gpu.peak_fp8_tflops : gpu.peak_bf16_tflops) * 1e12;
        t += indexer_us(gpu, ig, peak, w);
    }
    return t + mla_attention_us(gpu, s, b);
}

double causal_conv_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, int64_t batch, int64_t seq_len,
                      bool decode) {
    if (batch <= 0 || seq_len <= 0) return 0;
    const double channels = static_cast<double>(2 * g.key_heads * g.key_dim + g.value_heads * g.value_dim);
    const double tokens = static_cast<double>(batch) * static_cast<double>(decode ? 1 : seq_len);
    const double taps = static_cast<double>(g.conv_kernel);
    // bf16 in and out per token, the weights once, the conv state read and written per sequence.
    const double bytes = channels * (4.0 * tokens + 2.0 * taps + 4.0 * taps * static_cast<double>(batch));
    return gpu.kernel_launch_us + bytes / (gpu.streaming_bandwidth_gbs() * 1e3 * gpu.memory_efficiency);
}

double recurrent_scan_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, int64_t batch, int64_t seq_len,
                         bool decode) {
    const double peak = gpu.peak_bf16_tflops * 1e12;
    const double sequences = static_cast<double>(batch);
    if (decode) return linear_attention_decode_us(gpu, g, peak, sequences);
    return linear_attention_prefill_us(gpu, g, peak, sequences * static_cast<double>(seq_len), sequences);
}

double deepep_us(const gpu::GpuProfile& gpu, const DeepEpShape& s) {
    if (s.gpus <= 1 || s.tokens <= 0) return 0;
    const double g = static_cast<double>(s.gpus);
    const double bytes = s.tokens * static_cast<double>(s.topk * s.hidden) * 2.0 * (g - 1) / g;
    return 2.0 * all_to_all_us(gpu, bytes, s.gpus);
}

}  // namespace mfusim::roofline
