#include "roofline/analytical.hpp"

#include <algorithm>
#include <cmath>

namespace mfusim::roofline {

double bandwidth_bytes_per_us(const gpu::GpuProfile& gpu) {
    return gpu.streaming_bandwidth_gbs() * 1e3 * gpu.memory_efficiency;  // GB/s = 1e3 bytes/us
}

// (c^p + m^p)^(1/p): how far a kernel near its ridge point is held back by both compute and memory. p = 4 (the
// Hopper fit) is kept exact without pow: two square roots.
double soft_max(double c, double m, double p) {
    if (p == 4 || p <= 0) {
        double c2 = c * c, m2 = m * m;
        return std::sqrt(std::sqrt(c2 * c2 + m2 * m2));
    }
    double hi = std::max(c, m);
    if (hi <= 0) return 0;
    return hi * std::pow(std::pow(c / hi, p) + std::pow(m / hi, p), 1.0 / p);
}

namespace {

double ceil_div(double a, double b) {
    return std::ceil(a / b);
}

}  // namespace

GemmPrecision bf16_gemm(const gpu::GpuProfile& gpu) {
    return GemmPrecision{2, 2, 2, gpu.peak_bf16_tflops * 1e12, gpu.gemm_max_efficiency};
}

GemmPrecision fp8_gemm(const gpu::GpuProfile& gpu) {
    return GemmPrecision{1, 1, 2, gpu.peak_fp8_tflops * 1e12, gpu.gemm_max_efficiency_fp8};
}

GemmPrecision fp4_gemm(const gpu::GpuProfile& gpu) {
    constexpr double kNvfp4Bytes = 0.5 + 1.0 / 16.0;  // E2M1 plus one FP8 scale per 16 elements
    return GemmPrecision{kNvfp4Bytes, kNvfp4Bytes, 2, gpu.peak_fp4_tflops * 1e12, gpu.gemm_max_efficiency_fp8};
}

GemmCost gemm_analytical(const gpu::GpuProfile& gpu, const GemmPrecision& p, double groups, double m, int64_t k,
                         int64_t n) {
    GemmCost cost;
    if (groups <= 0 || m <= 0 || k <= 0 || n <= 0) return cost;
    double kd = static_cast<double>(k), nd = static_cast<double>(n);
    double sms = static_cast<double>(std::max(gpu.sm_count, 1));
    double per_sm_flops_us = p.peak_flops * p.plateau / sms * 1e-6;  // FLOPs per microsecond per SM
    double best = 0;
    bool first = true;
    for (const auto& tile : kGemmTiles) {
        for (int orientation = 0; orientation < 2; ++orientation) {
            double bm = tile[orientation], bn = tile[1 - orientation];
            double tiles = std::ceil(groups * ceil_div(m, bm) * ceil_div(nd, bn));
            for (int split : kSplitK) {
                if (split > 1) {
                    if (groups != 1 || tiles * split > 2 * sms || k / split < kSplitKMinK) continue;
                }
                double waves = std::ceil(tiles * split / sms);
                double kk = std::ceil(kd / split);
                double t = waves * 2.0 * bm * bn * kk / per_sm_flops_us;
                if (first || t < best) {
                    best = t;
                    first = false;
                }
            }
        }
    }
    cost.compute_us = best;
    cost.flops = 2.0 * groups * m * kd * nd;
    cost.bytes = groups * (m * kd * p.a_bytes + kd * nd * p.b_bytes + m * nd * p.c_bytes);
    cost.memory_us = cost.bytes / bandwidth_bytes_per_us(gpu);
    cost.time_us = gpu.kernel_launch_us + soft_max(cost.compute_us, cost.memory_us, gpu.gemm_overlap_exponent);
    return cost;
}

PrefillConstants prefill_constants(const gpu::GpuProfile& gpu, const AttentionGeometry& g, double peak_flops) {
    PrefillConstants k;
    k.sms = static_cast<double>(std::max(gpu.sm_count, 1));
    k.block_q = gpu.attention_block_q > 0 ? gpu.attention_block_q : static_cast<double>(kAttentionBlockQ);
    k.block_k = gpu.attention_block_k > 0 ? gpu.attention_block_k : static_cast<double>(kAttentionBlockK);
    double block_flops = 2.0 * k.block_q * k.block_k * static_cast<double>(g.qk_dim + g.v_dim);
    k.block_us = block_flops / (peak_flops * attention_tile_efficiency(gpu, g) / k.sms) * 1e6;
    k.bytes_per_us = bandwidth_bytes_per_us(gpu);
    k.overhead_blocks = gpu.attention_tile_overhead_blocks + 0.5;
    // FA3's pack-GQA shares a tile among a KV group's query heads. FA2 swaps a group's query heads into one tile
    // only for 1-token queries (its decode path, seqlenq_ngroups_swapped), never for prefill chunks (A100: large
    // batches of 16-64-token chunks were 30-60% too fast with packing); TRT-LLM's context FMHA gives every query
    // head its own tiles (B200: 35-68% too fast with packing).
    k.pack_gqa = gpu.attention_kernel == gpu::AttentionKernel::fa3;  // + half a block: the last partial KV block
    return k;
}

void add_prefill_chunk(const PrefillConstants& k, const AttentionGeometry& g, PrefillWork& w, int64_t new_tokens,
                       int64_t context) {
    if (new_tokens <= 0) return;
    const double bq = k.block_q, inv_bk = 1.0 / k.block_k;
    const auto bq_i = static_cast<int64_t>(bq);
    const double n = static_cast<double>(new_tokens), c = static_cast<double>(context);
    const double tiles = static_cast<double>((new_tokens + bq_i - 1) / bq_i);
    // Keys visited by each query tile (causal): tile j ends at row min((j+1) bq, n).
    const double keys = (tiles - 1) * c + 0.5 * bq * (tiles - 1) * tiles + (c + n);
    const double last_tile = (c + n) * inv_bk + k.overhead_blocks;
    const double qh = static_cast<double>(g.q_heads);
    double blocks = qh * (keys * inv_bk + tiles * k.overhead_blocks);
    if (k.pack_gqa && new_tokens < bq_i && g.q_heads > g.kv_heads && g.kv_heads > 0) {
        // Short chunks pack the query heads of a KV group into one tile (FA3 pack-GQA).
        const int64_t group = g.q_heads / g.kv_heads;
        const int64_t packed_tiles = (new_tokens * group + bq_i - 1) / bq_i;
        blocks = std::min(blocks, static_cast<double>(g.kv_heads * packed_tiles) * last_tile);
    }
    w.tile_blocks += blocks;
    w.max_tile_blocks = std::max(w.max_tile_blocks, last_tile);
    const double flops = 2.0 * qh * static_cast<double>(g.qk_dim + g.v_dim) * (n * c + 0.5 * n * (n + 1));
    w.flops += flops;
    w.flops_span += flops * (c + n);
    // The new tokens' traffic (q in, o out, their K/V read and written to the cache) does not overlap with the
    // tiles' compute: vLLM writes the cache in its own kernel before the attention one, and each tile loads its
    // queries in its prologue and stores its output in its epilogue (one CTA per SM). The cached prefix's K/V
    // streams through the tiles' main loops, overlapped with their compute.
    const double new_bytes = n * (qh * static_cast<double>(g.qk_dim + g.v_dim) * g.activation_bytes  // q in, o out
                                  + 2.0 * g.kv_bytes_per_token);  // new K/V read, cache write
    const double prefix_bytes = c * g.kv_bytes_per_token;
    w.bytes += new_bytes + prefix_bytes;
    w.serial_memory_us += new_bytes / k.bytes_per_us;
    // The chunk's compute lasts at least its longest tile (the critical path), which its prefix reads overlap.
    const double memory_us = prefix_bytes / k.bytes_per_us,
                 compute_us = std::max(blocks / k.sms, last_tile) * k.block_us;
    w.hidden_memory_us += std::min(memory_us, compute_us);
    w.excess_memory_us += std::max(0.0, memory_us - compute_us);
    w.chunks += 1;
}

void add_bidirectional_chunk(const PrefillConstants& k, const AttentionGeometry& g, PrefillWork& w, int64_t tokens) {
    if (tokens <= 0) return;
    const auto bq_i = static_cast<int64_t>(k.block_q);
    const double n = static_cast<double>(tokens), inv_bk = 1.0 / k.block_k;
    const double tiles = static_cast<double>((tokens + bq_i - 1) / bq_i);
    const double tile = n * inv_bk + k.overhead_blocks;  // every tile reads all n keys
    const double blocks = static_cast<double>(g.q_heads) * tiles * tile;
    w.tile_blocks += blocks;
    w.max_tile_blocks = std::max(w.max_tile_blocks, tile);
    const double flops = 2.0 * static_cast<double>(g.q_heads) * static_cast<double>(g.qk_dim + g.v_dim) * n * n;
    w.flops += flops;
    w.flops_span += flops * n;
    // q in, o out, K/V read: nothing is cached or written to a cache, nothing streams under the tiles.
    const double bytes =
        n * (static_cast<double>(g.q_heads) * static_cast<double>(g.qk_dim + g.v_dim) * g.activation_bytes +
             g.kv_bytes_per_token);
    w.bytes += bytes;
    w.serial_memory_us += bytes / k.bytes_per_us;
    w.chunks += 1;
}

void add_prefill_chunk(const gpu::GpuProfile& gpu, const AttentionGeometry& g, PrefillWork& w, int64_t new_tokens,
                       int64_t context) {
    add_prefill_chunk(prefill_constants(gpu, g, gpu.peak_bf16_tflops * 1e12), g, w, new_tokens, context);
}

// A tile's time per FLOP is its matmuls' plus its softmax's: 1/eff(d) = A + B/d, one exponential per score against
// 4d matmul FLOPs. attention_max_efficiency fixes eff(128) and attention_softmax_head_dim = B/A the head dim at
// which the two take equal time; B = peak / (4 x the exponentials per second the tile sustains) (fitted: ~4e12/s on
// both H100 and B200, their SFUs' rate), so a GPU whose SFUs are exp_throughput_scale times faster divides B by it.
double attention_tile_efficiency(const gpu::GpuProfile& gpu, const AttentionGeometry& g) {
    const double d = static_cast<double>(g.qk_dim + g.v_dim) / 2;
    const double d0 = gpu.attention_softmax_head_dim;
    const double a = 128.0 / ((128.0 + d0) * gpu.attention_max_efficiency), b = a * d0;
    return std::min(0.95, 1.0 / (a + b / (gpu.exp_throughput_scale * d)));
}

double prefill_attention_us(const gpu::GpuProfile& gpu, const AttentionGeometry& g, double peak_flops,
                            const PrefillWork& w) {
    return prefill_attention_us(gpu, prefill_constants(gpu, g, peak_flops), w);
}

PrefillParts prefill_attention_parts(const gpu::GpuProfile& gpu, const PrefillConstants& k, const PrefillWork& w) {
    if (w.chunks <= 0) return {};
    double compute = std::max(w.tile_blocks / k.sms, w.max_tile_blocks) * k.block_us;
    return PrefillParts{gpu.attention_launch_us, std::max(compute, w.hidden_memory_us) + w.serial_memory_us,
                        w.excess_memory_us};
}

void PrefillWork::add_copies(const PrefillWork& one, double count) {
    static_assert(sizeof(PrefillWork) == 9 * sizeof(double),
                  "PrefillWork gained a field: add it here, as a sum over chunks or a maximum");
    tile_blocks += one.tile_blocks * count;
    max_tile_blocks = std::max(max_tile_blocks, one.max_tile_blocks);
    flops += one.flops * count;
    flops_span += one.flops_span * count;
    bytes += one.bytes * count;
    serial_memory_us += one.serial_memory_us * count;
    hidden_memory_us += one.hidden_memory_us * count;
    excess_memory_us += one.excess_memory_us * count;
    chunks += one.chunks * count;
}

double prefill_attention_us(const gpu::GpuProfile& gpu, const PrefillConstants& k, const PrefillWork& w) {
    PrefillParts p = prefill_attention_parts(gpu, k, w);
    return p.launch_us + p.body_us + p.excess_us;
}

double decode_attention_flops(const AttentionGeometry& g, const DecodeWork& w) {
    return 2.0 * static_cast<double>(g.q_heads) * static_cast<double>(g.qk_dim + g.v_dim) * w.kv_tokens * w.queries;
}

double decode_attention_bytes(const AttentionGeometry& g, const DecodeWork& w) {
    return w.kv_tokens * g.kv_bytes_per_token + w.requests * w.queries * static_cast<double>(g.q_heads) *
                                                    static_cast<double>(g.qk_dim + g.v_dim) * g.activation_bytes;
}

namespace {

// FlashAttention-2's split-KV decode (flash_api.cpp, vllm-flash-attn on Ampere/Ada), from the batch's request count
// and mean context. A 1-token query of a GQA group runs with the group's query heads swapped into the query tile
// (seqlenq_ngroups_swapped): one CTA per (request, KV head), its KV split over num_splits CTAs when those fill less
// than 0.8 of the 2 CTAs per SM FA2's heuristic counts (it picks the fewest splits within 0.85 of the best wave
// efficiency, at most 128 and one per KV block: here in closed form). MHA (no swap) never splits: one CTA per
// (request, head) walks the whole context. A CTA streams its KV slice at decode_cta_bandwidth_gbs at most (a
// latency-bound pipeline), so small batches over long contexts are bound by the slice, not by HBM; its fixed work
// (decode_cta_overhead_us) overlaps with the HBM stream. A split launch ends with the combine kernel, whose CTAs
// each read 4 rows (head_dim 128; 8 at 64, else 16) of every split's fp32 partial output. For batch > 1, a
// swapped group with more than one KV head is transposed into the swapped layout and back: two copy kernels.
double fa2_decode_us(const gpu::GpuProfile& gpu, const AttentionGeometry& g, double hbm_us, const DecodeWork& w) {
    const double sms = static_cast<double>(std::max(gpu.sm_count, 1));
    const double kv_heads = static_cast<double>(std::max<int64_t>(g.kv_heads, 1));
    const bool swapped = static_cast<double>(g.q_heads) > kv_heads;
    const double mean_keys = std::max(w.kv_tokens / w.requests, 1.0);
    const double block_n = g.qk_dim <= 64 ? 256 : g.qk_dim <= 128 ? 128 : 64;  // FA2 split-KV kernel's KV block
    const double kv_blocks = std::ceil(mean_keys / block_n);
    const double group_tiles = swapped ? std::ceil(static_cast<double>(g.q_heads) / kv_heads * w.queries / 64) : 1;
    const double ctas = w.requests * (swapped ? kv_heads : static_cast<double>(g.q_heads)) * group_tiles;
    const double slots = 2 * sms;
    double splits = 1;
    if (swapped && ctas < 0.8 * slots)
        splits = std::max(1.0, std::min({std::ceil(0.85 * slots / ctas), kv_blocks, 128.0}));
    const double slice_keys = std::min(std::ceil(kv_blocks / splits) * block_n, mean_keys);
    const double cta_bytes_per_us = gpu.decode_cta_bandwidth_gbs * 1e3;
    const double head_scale = static_cast<double>(g.qk_dim + g.v_dim) / 256.0;
    const double cta_us =
        gpu.decode_cta_overhead_us * head_scale + slice_keys * g.kv_bytes_per_token / kv_heads / cta_bytes_per_us;
    const double waves = std::max(1.0, ctas * splits / sms);
    double t = gpu.attention_launch_us + std::max(hbm_us, waves * cta_us);
    if (swapped && w.requests > 1 && kv_heads > 1) t += 2 * gpu.kernel_launch_us;
    if (splits > 1) {
        const double rows_per_cta = g.v_dim % 128 == 0 ? 4 : g.v_dim % 64 == 0 ? 8 : 16;
        const double row_bytes = splits * (static_cast<double>(g.v_dim) * 4 + 4);  // fp32 partial output and LSE
        const double rows = w.requests * w.queries * static_cast<double>(g.q_heads);
        t += gpu.kernel_launch_us +
             std::max(rows * row_bytes / bandwidth_bytes_per_us(gpu), rows_per_cta * row_bytes / cta_bytes_per_us);
    }
    return t;
}

}  // namespace

double decode_attention_us(const gpu::GpuProfile& gpu, const AttentionGeometry& g, double peak_flops,
                           const DecodeWork& w) {
    if (w.requests <= 0) return 0;
    double sms = static_cast<double>(std::max(gpu.sm_count, 1));
    double fixed = w.requests * static_cast<double>(std::max<int64_t>(g.kv_heads, 1)) * gpu.decode_cta_overhead_us *
                   static_cast<double>(g.qk_dim + g.v_dim) / 256.0 / sms;
    double memory = decode_attention_bytes(g, w) / bandwidth_bytes_per_us(gpu);
    double compute = decode_attention_flops(g, w) / (peak_flops * gpu.attention_max_efficiency) * 1e6;
    if (gpu.attention_kernel == gpu::AttentionKernel::fa2 && gpu.decode_cta_bandwidth_gbs > 0) {
        return fa2_decode_us(gpu, g, std::max(memory, compute), w);
    }
    // Split-KV decode kernels finish with a combine kernel: one more launch than prefill.
    return gpu.attention_launch_us + gpu.kernel_launch_us + fixed + std::max(memory, compute);
}

double indexer_flops(const IndexerGeometry& g, const IndexerWork& w) {
    return 2.0 * w.pairs * static_cast<double>(g.heads * g.head_dim);
}

double indexer_bytes(const IndexerGeometry& g, const IndexerWork& w) {
    // Keys from the indexer cache, plus each query's FP8 heads and fp32 head weights (small next to the keys).
    return w.keys_read * g.key_bytes +
           w.queries * static_cast<double>(g.heads) * (static_cast<double>(g.head_dim) + 4.0);
}

double indexer_us(const gpu::GpuProfile& gpu, const IndexerGeometry& g, double peak_flops, const IndexerWork& w) {
    if (w.queries <= 0) return 0;
    const double memory = indexer_bytes(g, w) / bandwidth_bytes_per_us(gpu);
    const double compute = indexer_flops(g, w) / (peak_flops * gpu.attention_max_efficiency) * 1e6;
    return 2.0 * gpu.kernel_launch_us + std::max(memory, compute);
}

double linear_attention_flops(const LinearAttentionGeometry& g, const LinearAttentionWork& w) {
    double dk = static_cast<double>(g.key_dim), dv = static_cast<double>(g.value_dim);
    double hv = static_cast<double>(g.value_heads);
    double score_heads = g.score_heads > 0 ? static_cast<double>(g.score_heads) : hv;
    // Chunked scan per token: the intra-chunk products (scores against the chunk's keys, applied to its values)
    // and the state update and readout, 2 FLOPs per multiply-add. Decode: state update and readout only.
    double chunk = g.chunk_products * static_cast<double>(g.chunk) * (score_heads * dk + hv * dv);
    double prefill = w.prefill_tokens * 2.0 * (g.state_products * hv * dk * dv + chunk);
    double decode = w.decode_requests * hv * 2.0 * g.state_products * dk * dv;
    return prefill + decode;
}

double recurrent_state_bytes(const LinearAttentionGeometry& g) {
    double dk = static_cast<double>(g.key_dim), dv = static_cast<double>(g.value_dim);
    double hk = static_cast<double>(g.key_heads), hv = static_cast<double>(g.value_heads);
    double conv_taps = static_cast<double>(std::max<int64_t>(g.conv_kernel - 1, 0));
    return hv * dk * dv * 4.0 + (2 * hk * dk + hv * dv) * conv_taps * 2.0;
}

double linear_attention_bytes(const LinearAttentionGeometry& g, const LinearAttentionWork& w) {
    double dk = static_cast<double>(g.key_dim), dv = static_cast<double>(g.value_dim);
    double hk = static_cast<double>(g.key_heads), hv = static_cast<double>(g.value_heads);
    double state = hv * dk * dv * 4.0 * 2.0                                               // fp32 state read + write
                   + (2 * hk * dk + hv * dv) * static_cast<double>(g.conv_kernel) * 2.0;  // conv state
    double per_token = (2 * hk * dk + 2 * hv * dv) * 2.0 * 2.0;                           // q k v in, o out, bf16
    return (w.prefill_sequences + w.decode_requests) * state + (w.prefill_tokens + w.decode_requests) * per_token;
}

namespace {

double link_bytes_per_us(double both_directions_gbs) {
    return std::max(both_directions_gbs / 2, 1e-3) * 1e3;  // one direction; GB/s = 1e3 bytes/us
}

// NVLink joins these GPUs all-to-all (an HGX switch or a bridge pair); a profile without a domain size but with
// NVLink is taken to join any TP group.
bool over_nvlink(const gpu::GpuProfile& gpu, int64_t tp) {
    return gpu.nvlink_bandwidth_gbs > 0 && (gpu.nvlink_domain_gpus <= 0 || tp <= gpu.nvlink_domain_gpus);
}

}  // namespace

double nccl_allreduce_us(const gpu::GpuProfile& gpu, double bytes, int64_t tp) {
    if (tp <= 1) return 0;
    const double t = static_cast<double>(tp);
    const double latency = gpu.allreduce_latency_us + 2.0 * (t - 1) * gpu.allreduce_hop_latency_us;
    const double ring_bytes = bytes * 2.0 * (t - 1) / t;  // what each GPU sends in a ring (and a tree, in volume)
    if (gpu.spans_domains(tp)) {
        // NCCL's rings cross from one NVLink domain to the next through the NICs (one per GPU, rail-aligned), and
        // each of the 2(domains - 1) crossings adds a fabric latency. NCCL runs its channels (rings) in parallel,
        // each leaving a domain through a different GPU's NIC, so the group's GPUs in a domain share the crossings:
        // each NIC carries 1 / rails of the ring's bytes (two HGX H100 nodes: an all-reduce bus bandwidth of
        // about 8 x 50 GB/s, near the NVLink ring's, not one NIC's 50). Every GPU still forwards the ring's bytes
        // over NVLink; the slower of the two sets the time.
        const double domains = std::ceil(t / static_cast<double>(gpu.nvlink_domain_gpus));
        const double rails = std::ceil(t / domains);
        const double nic = ring_bytes / (rails * gpu.network_bandwidth_gbs * 1e3);
        const double nvlink = ring_bytes / (link_bytes_per_us(gpu.nvlink_bandwidth_gbs) * gpu.nvlink_efficiency);
        return latency + 2.0 * (domains - 1) * gpu.network_latency_us + std::max(nic, nvlink);
    }
    if (!over_nvlink(gpu, tp)) {
        // Peer to peer, NCCL's ring owns each GPU's link. On a host whose GPUs' transfers share the host bridges
        // instead (pcie_peer_to_peer 0) the measured L40S times per byte grow as 1 : 5.4 : 24 at 2 / 4 / 8 GPUs
        // (aic-l40s nccl.csv), as the t(t-1)/2 pairs of GPUs (1 : 6 : 28) and not as the ring's 2(t-1)/t
        // (1 : 1.5 : 1.75). At 2 GPUs both are the message once. An NVLink GPU's group beyond its domain (several
        // nodes) keeps the ring.
        const bool ring = gpu.pcie_peer_to_peer != 0 || gpu.nvlink_bandwidth_gbs > 0;
        const double shared_bytes = ring ? ring_bytes : bytes * t * (t - 1) / 2;
        return latency + shared_bytes / (link_bytes_per_us(gpu.pcie_bandwidth_gbs) * gpu.pcie_efficiency);
    }
    const double link = link_bytes_per_us(gpu.nvlink_bandwidth_gbs);
    double transfer = ring_bytes / (link * gpu.nvlink_efficiency);
    // NVLS (NVLink 4+ behind a switch): the switch reduces, each GPU sends and receives the message once. NCCL
    // takes it where it is faster (8 GPUs: 1.75x the message for a ring against 1x).
    if (gpu.nvlink_generation >= 4 && gpu.nvlink_domain_gpus >= 4 && gpu.nvls_efficiency > 0) {
        transfer = std::min(transfer, bytes / (link * gpu.nvls_efficiency));
    }
    if (gpu.allreduce_ll_efficiency > 0) {
        // Two protocols, as NCCL's tuner picks per message: LL (flags in every 8 bytes: low latency, a fraction of
        // the link) and Simple (the link at nvlink_efficiency after a longer fixed latency).
        const double steps = latency - gpu.allreduce_latency_us;
        const double ll = latency + ring_bytes / (link * gpu.allreduce_ll_efficiency);
        return std::min(ll, gpu.allreduce_simple_latency_us + steps + transfer);
    }
    return latency + transfer;
}

double custom_allreduce_us(const gpu::GpuProfile& gpu, double bytes, int64_t tp) {
    if (tp <= 1) return 0;
    const bool nvlink = over_nvlink(gpu, tp);
    // vLLM runs its custom all-reduce only where every GPU reaches every other by P2P: all NVLink, or two PCIe
    // GPUs (CustomAllreduce refuses more than two without full NVLink); NCCL serves the rest.
    if (!nvlink && tp > 2) return nccl_allreduce_us(gpu, bytes, tp);
    const double t = static_cast<double>(tp);
    const double link =
        nvlink ? link_bytes_per_us(gpu.nvlink_bandwidth_gbs) : link_bytes_per_us(gpu.pcie_bandwidth_gbs);
    // custom_all_reduce.cuh: one-shot (every GPU reads all peers' buffers whole) for 2 GPUs and small messages
    // (up to 4 GPUs below 512 KB, up to 8 below 256 KB), else two-shot (reduce-scatter then all-gather through
    // the peers' buffers: 2(tp-1)/tp of the message).
    const double one_shot_max = tp == 2 ? 1e300 : tp <= 4 ? 512.0 * 1024 : tp <= 8 ? 256.0 * 1024 : 0;
    auto time_of = [&](double moved) {
        return gpu.custom_allreduce_latency_us + (t - 1) * gpu.custom_allreduce_peer_us +
               moved / (link * gpu.custom_allreduce_efficiency);
    };
    if (bytes < one_shot_max) return time_of(bytes * (t - 1));
    // Just past the switch two-shot is no faster than one-shot was at it (its second barrier round), so the time
    // never drops as a message grows: a step with more tokens never takes less time.
    const double two_shot = time_of(bytes * 2.0 * (t - 1) / t);
    return one_shot_max > 0 ? std::max(two_shot, time_of(one_shot_max * (t - 1))) : two_shot;
}

double allreduce_us(const gpu::GpuProfile& gpu, double bytes, int64_t tp) {
    return nccl_allreduce_us(gpu, bytes, tp);
}

double expected_active_experts(double experts, double topk, double tokens) {
    if (experts <= 0 || tokens <= 0) return 0;
    if (topk >= experts) return experts;
    return experts * (1.0 - std::pow(1.0 - topk / experts, tokens));
}

}  // namespace mfusim::roofline
