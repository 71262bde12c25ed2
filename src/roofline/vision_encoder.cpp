#include "roofline/vision_encoder.hpp"

#include <algorithm>

#include "roofline/analytical.hpp"

namespace mfusim::roofline {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

}  // namespace

EncoderCost encoder_cost(const config::EncoderTower& v, const config::EncoderGrid& grid, const KernelModel& kernels,
                         int64_t tp, const std::function<double(double)>& allreduce_us) {
    EncoderCost c;
    c.grid = grid;
    const gpu::GpuProfile& gpu = kernels.gpu();
    const double bw = gpu.streaming_bandwidth_gbs() * 1e3 * gpu.memory_efficiency;  // bytes per us
    const int64_t m = grid.patches, h = v.hidden;
    const auto layers = static_cast<double>(v.layers);
    // One GEMM x[rows, k] W[n, k]^T run `times` times, under `op`.
    auto gemm = [&](mfusim_op op, int64_t rows, int64_t k, int64_t n, double times) {
        if (rows <= 0 || k <= 0 || n <= 0) return;
        const GemmSite site = kernels.gemm_site(k, n);
        EncoderOpCost& o = c.ops[op];
        o.time_us += site.time_us(rows) * times;
        o.flops += site.flops(rows) * times;
        o.bytes += site.bytes(rows) * times;
    };
    // The front end (a patch embedding, or the audio's convolutions), each a GEMM over its rows; vLLM runs it
    // replicated (not sharded).
    for (const config::FrontEndGemm& f : v.front_end)
        gemm(MFUSIM_OP_FFN, m * f.rows_per_position, f.k, f.n > 0 ? f.n : h, 1);
    // The blocks, sharded over TP like vLLM's vision attention and MLP.
    // The head width is the attention's width over the heads (wider than hidden / heads where qkv_hidden_size says).
    const int64_t heads = ceil_div(v.heads, tp), head_dim = config::attention_width(v) / v.heads;
    const int64_t inter = ceil_div(v.intermediate, tp);
    gemm(MFUSIM_OP_QKV_PROJ, m, h, 3 * heads * head_dim, layers);
    gemm(MFUSIM_OP_O_PROJ, m, heads * head_dim, h, layers);
    gemm(MFUSIM_OP_FFN, m, h, (v.gated_mlp ? 2 : 1) * inter, layers);
    gemm(MFUSIM_OP_FFN, m, inter, h, layers);
    // Attention: the full layers over each group of full_tokens, the windowed ones over each window.
    AttentionGeometry g;
    g.q_heads = g.kv_heads = heads;
    g.qk_dim = g.v_dim = head_dim;
    g.kv_bytes_per_token = 2.0 * static_cast<double>(heads * head_dim) * 2.0;
    const double peak = kernels.attention_peak_flops();
    const PrefillConstants constants = prefill_constants(gpu, g, peak);
    const bool windowed = v.window_patches > 0;
    const double full_layers = windowed ? static_cast<double>(v.full_layers) : layers;
    auto attention = [&](int64_t groups, int64_t tokens, double times) {
        if (times <= 0 || groups <= 0) return;
        PrefillWork one, all;
        add_bidirectional_chunk(constants, g, one, tokens);
        all.add_copies(one, static_cast<double>(groups));  // one varlen launch over the groups
        EncoderOpCost& o = c.ops[MFUSIM_OP_ATTN_PREFILL];
        o.time_us += prefill_attention_us(gpu, constants, all) * times;
        o.flops += all.flops * times;
        o.bytes += all.bytes * times;
    };
    attention(grid.full_groups, grid.full_tokens, full_layers);
    attention(grid.windows, grid.window_tokens, layers - full_layers);
    attention(grid.crop_groups, grid.crop_tokens, full_layers);
    c.attention_flops = c.ops[MFUSIM_OP_ATTN_PREFILL].flops;
    // Downsampling convolutions (PerceptionEncoder's vit_downsampler1/2, vLLM Conv2dLayer, replicated): implicit
    // GEMMs over their output positions.
    int64_t in = h;
    for (size_t i = 0; i < v.downsample.size() && i < grid.downsample_rows.size(); ++i) {
        const config::DownsampleConv& d = v.downsample[i];
        gemm(MFUSIM_OP_FFN, grid.downsample_rows[i], d.kernel * d.kernel * in, d.out, 1);
        in = d.out;
    }
    // The merger (and Qwen3-VL's deepstack mergers): merge x merge patches concatenated, an MLP to the language
    // model's width, over the image's tokens (fc1 ColumnParallel, fc2 RowParallel); an audio tower's projector is
    // one linear over its pooled positions (replicated).
    const auto mergers = static_cast<double>(v.mergers);
    if (v.merger_hidden > 0) {
        const int64_t merger_inner = ceil_div(v.merger_hidden, tp);
        gemm(MFUSIM_OP_FFN, grid.tokens, v.merger_in, merger_inner, mergers);
        gemm(MFUSIM_OP_FFN, grid.tokens, merger_inner, v.out_hidden, mergers);
    } else {
        gemm(MFUSIM_OP_FFN, grid.tokens, v.merger_in, v.out_hidden, mergers);
    }
    // TP: an all-reduce after the attention output and after the MLP in every block, and after each merger.
    if (tp > 1) {
        EncoderOpCost& o = c.ops[MFUSIM_OP_TP_ALLREDUCE];
        const double block_message = static_cast<double>(m * h) * 2.0;
        const double merger_message = v.merger_hidden > 0 ? static_cast<double>(grid.tokens * v.out_hidden) * 2.0 : 0.0;
        o.time_us = 2.0 * layers * allreduce_us(block_message) +
                    (merger_message > 0 ? mergers * allreduce_us(merger_message) : 0.0);
        o.bytes = 2.0 * layers * block_message + mergers * merger_message;
        o.bound = MFUSIM_BOUND_COMMUNICATION;
    }
    // Element-wise kernels per patch and block, streamed once each (bf16): two norms (read, write), two residual
    // adds (two reads, a write), rotary on q and k, the MLP's activation over its inner width.
    const double elementwise_bytes =
        2.0 * (4.0 * static_cast<double>(h) + 6.0 * static_cast<double>(h) +
               4.0 * static_cast<double>(heads * head_dim) + 3.0 * static_cast<double>(inter));
    EncoderOpCost& ew = c.ops[MFUSIM_OP_OVERHEAD];
    ew.bytes = elementwise_bytes * static_cast<double>(m) * layers;
    ew.time_us = ew.bytes / bw;
    ew.bound = MFUSIM_BOUND_MEMORY;
    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
        EncoderOpCost& o = c.ops[op];
        if (op != MFUSIM_OP_TP_ALLREDUCE && op != MFUSIM_OP_OVERHEAD && o.time_us > 0) {
            const double compute_us = o.flops / peak * 1e6, memory_us = o.bytes / bw;
            o.bound = memory_us > compute_us ? MFUSIM_BOUND_MEMORY : MFUSIM_BOUND_COMPUTE;
        }
        c.total_us += o.time_us;
    }
    return c;
}

}  // namespace mfusim::roofline
