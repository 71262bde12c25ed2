#include "roofline/families.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "roofline/precision.hpp"

namespace mfusim::roofline {

namespace {

GemmPrecision precision_of(const gpu::GpuProfile& gpu, config::WeightFormat format) {
    return moe_precision(gpu, format);
}

double gemm_us(const gpu::GpuProfile& gpu, const GemmPrecision& p, double m, int64_t k, int64_t n) {
    if (m <= 0) return 0.0;
    double t = gemm_analytical(gpu, p, 1, m, k, n).time_us;
    // Block-FP8 on Ada: sm_89 has neither CUTLASS's blockwise-scaled GEMM nor DeepGEMM (both sm_90+), so vLLM runs
    // its Triton kernel (w8a8_triton_block_scaled_mm / _w8a8_triton_block_scaled_mm,
    // vllm/model_executor/layers/quantization/utils/fp8_utils.py) with its default config where no tuned file
    // names the device: BLOCK_SIZE_M 64, BLOCK_SIZE_N 128, BLOCK_SIZE_K 128 (the scale block), no split-K. Each
    // program walks the whole K of its 128 weight columns alone, so a decode GEMM of few output columns (the fused
    // q_a/kv_a projection: 2,112 columns, 17 programs on 142 SMs) reads its weights at the rate one SM's loads
    // stream (`l2_stream_bandwidth_per_sm_gbs`), not at the memory's: waves of programs x their K x 128 FP8 bytes.
    if (p.scale_block_k > 0 && gpu.architecture == gpu::Architecture::ada && gpu.l2_stream_bandwidth_per_sm_gbs > 0) {
        const double programs = std::ceil(m / 64.0) * std::ceil(static_cast<double>(n) / 128.0);
        const double waves = std::ceil(programs / static_cast<double>(std::max(gpu.sm_count, 1)));
        const double slab = static_cast<double>(k) * 128.0 * p.b_bytes;
        t = std::max(t, waves * slab / (gpu.l2_stream_bandwidth_per_sm_gbs * 1e3));
    }
    // W8A8 FP8 and W4A4 NVFP4 GEMMs quantize their bf16 activations first (vLLM's scaled_fp8_quant /
    // per_token_group_quant_fp8 / scaled_fp4_quant): one more kernel reading the bf16 input and writing it at the
    // GEMM's activation bytes with its scales.
    if (p.a_bytes == 1) {
        t += gpu.kernel_launch_us + m * static_cast<double>(k) * (2.0 + p.a_bytes) / bandwidth_bytes_per_us(gpu);
    }
    return t;
}

// Whether a kernel's buffers stay in the L2 between calls: a benchmark's (warm) or the step's (cold, every other
// layer runs in between).
enum class Buffers { cold, warm };

// The bandwidth of L2 hits on buffers of `footprint` bytes that a kernel touches every call: where they are warm
// and fit the L2, the L2's bandwidth (or memory's where that is faster); 0 where they come from memory.
// The L2's rate for hits, all SMs together (bytes per us; 0 where the profile states none).
double l2_bytes_per_us(const gpu::GpuProfile& gpu) {
    return gpu.l2_bandwidth_per_sm_gbs * 1e3 * static_cast<double>(std::max(gpu.sm_count, 1));
}

double l2_hit_bytes_per_us(const gpu::GpuProfile& gpu, double footprint, Buffers buffers) {
    const double l2_bytes = gpu.l2_cache_mb * 1024.0 * 1024.0;
    const double l2 = l2_bytes_per_us(gpu);
    if (buffers == Buffers::cold || l2_bytes <= 0 || l2 <= 0 || footprint > l2_bytes) return 0;
    return std::max(l2, bandwidth_bytes_per_us(gpu));
}

// The same for a streaming kernel (one pass over its inputs and outputs, nothing reused within the call: the
// prefill conv): where its warm buffers fit the L2 they are hits at `l2_stream_bandwidth_per_sm_gbs` x SMs, what the
// SMs' loads and stores sustain against the L2 at a streaming kernel's occupancy (or memory's rate where that is
// faster); 0 where they come from memory. L40S: the conv's 16-64 MB of warm bf16 in and out stream at 2.4-2.6 TB/s,
// past its 96 MB L2 at 0.58 TB/s; H100 streams every size at 2.1-2.2 TB/s, no faster in its 50 MB L2.
double stream_hit_bytes_per_us(const gpu::GpuProfile& gpu, double footprint, Buffers buffers) {
    const double l2_bytes = gpu.l2_cache_mb * 1024.0 * 1024.0;
    const double l2 = gpu.l2_stream_bandwidth_per_sm_gbs * 1e3 * static_cast<double>(std::max(gpu.sm_count, 1));
    if (buffers == Buffers::cold || l2_bytes <= 0 || l2 <= 0 || footprint > l2_bytes) return 0;
    return std::max(l2, bandwidth_bytes_per_us(gpu));
}

// The module's projections (vLLM's linear layers in DeepseekV2MLAAttention, timed together under one CUDA graph):
// BF16 ones at `mla_gemm_efficiency` of the BF16 peak, quantised ones (FP8 128x128 blocks through DeepGEMM /
// CUTLASS, NVFP4) at `mla_quant_gemm_efficiency` of the FP8 peak, in place of the dense GEMM files' plateau. NVFP4
// takes the FP8 rate, not FP4's twice that: measured per token at one head on B200, NVFP4 21 ns, block FP8 25 ns,
// BF16 21 ns (docs/kernel-families.md).
GemmPrecision module_precision(const gpu::GpuProfile& gpu, config::WeightFormat format) {
    GemmPrecision p = precision_of(gpu, format);
    if (p.a_bytes < 2) {
        p.peak_flops = gpu.peak_fp8_tflops * 1e12;
        p.plateau = gpu.mla_quant_gemm_efficiency;
    } else {
        p.plateau = gpu.mla_gemm_efficiency;
    }
    return p;
}

// Grouped-GEMM tiles of the fused MoE kernels (vLLM's Triton fused_moe configs use BLOCK_SIZE_M 16-128 and
// BLOCK_SIZE_N 32-256; the CUTLASS / TRT-LLM grouped GEMMs similar CTA tiles): every expert's rows padded to
// whole tiles, the waves of all experts' tiles at the grouped plateau, minimised over the tile shapes. The token
// tile of 8 only where the tokens are the MMA's N (GemmPrecision::tokens_on_mma_n): FlashInfer's TRT-LLM-gen MoE
// takes 8-64 tokens per CTA tile (vLLM's `calculate_tile_tokens_dim`, vllm/model_executor/layers/fused_moe/
// utils.py: next power of 2 of tokens x topk / experts, clamped to [8, 64]; FlashInfer's autotuner picks among the
// same tiles), where tcgen05's M of 128 holds the expert's weight rows; M below 16 is not an MMA shape elsewhere.
constexpr int kMoeTileM[] = {8, 16, 32, 64, 128};
constexpr int kMoeTileN[] = {64, 128, 256};
// TRT-LLM-gen's weight tile: tcgen05's M of 128 rows per CTA; its token tiles stop at the launcher's ladder
// (moe_token_tile_max: 64, 128 or 256).
constexpr int kTcgen05M = 128;
// The CUTLASS MoE's fallback tactics (use_cutlass_fallback_tile): 128 tokens on the MMA's M, activations as A; the
// weight columns per GPU and format (GemmPrecision::fallback_tile): Hopper's CtaShape128x16x128B.
constexpr double kFallbackTokens = 128;
constexpr int kHopperFallbackColumns = 16;
// Blackwell's (FlashInfer's SM100 CUTLASS MoE, fused_moe_us): CtaShape128x128x128B, FP4 CtaShape128x64x128B.
constexpr int kBlackwellFallbackColumns = 128, kBlackwellFp4FallbackColumns = 64;

// Weight-only 4-bit experts (moe_runs_marlin) run vLLM's Marlin MoE (`fused_marlin_moe`,
// vllm/model_executor/layers/fused_moe/fused_marlin_moe.py; csrc/moe/marlin_moe_wna16): the weights dequantised to
// BF16 in registers and multiplied with the warp-level `mma.sync.m16n8k16` of SM80 (csrc/quantization/gptq_marlin/
// marlin_mma.h), on every architecture. Hopper's wgmma and Blackwell's tcgen05 are what their BF16 peak counts;
// mma.sync does not reach it where the architecture states a per-SM rate for it (warp_mma_tflops_per_sm).
double moe_peak_flops(const gpu::GpuProfile& gpu, const GemmPrecision& p) {
    if (!p.marlin || gpu.warp_mma_tflops_per_sm <= 0) return p.peak_flops;
    return std::min(p.peak_flops, gpu.warp_mma_tflops_per_sm * 1e12 * static_cast<double>(std::max(gpu.sm_count, 1)));
}

// The token rows of the architecture's warpgroup MMA (Hopper's wgmma: a warpgroup of 4 warps computes 64 rows);
// 0 where warp-level mma.sync is the architecture's full rate (Ampere, Ada) or the tokens sit on the MMA's N
// (Blackwell's TRT-LLM-gen tiles, GemmPrecision::tokens_on_mma_n).
int warpgroup_mma_rows(const gpu::GpuProfile& gpu) {
    return gpu.architecture == gpu::Architecture::hopper ? 64 : 0;
}

// `weight_bytes_per_us`: the bandwidth the active experts' weights are read at (memory's, or the L2's where a
// benchmark's warm weights fit it).
double grouped_gemm_us(const gpu::GpuProfile& gpu, const GemmPrecision& p, const MoeLoad& load, int64_t k, int64_t n,
                       double weight_bytes_per_us) {
    if (load.rows <= 0) return 0;
    const double kd = static_cast<double>(k), nd = static_cast<double>(n);
    const double sms = static_cast<double>(std::max(gpu.sm_count, 1));
    const double efficiency = p.mxfp4_weights && gpu.moe_mxfp4_gemm_efficiency > 0    ? gpu.moe_mxfp4_gemm_efficiency
                              : p.cutlass_sm90 && gpu.moe_cutlass_gemm_efficiency > 0 ? gpu.moe_cutlass_gemm_efficiency
                                                                                      : gpu.moe_gemm_efficiency;
    const double per_sm_flops_us = moe_peak_flops(gpu, p) * p.plateau * efficiency / sms * 1e-6;
    // Block-scaled FP8 (GemmPrecision::scale_block_k): the MMA accumulates one block of K at a time into a fresh
    // partial accumulator, which the kernel then reads back, multiplies by the block's scales and adds to the
    // tile's running sum on the CUDA cores, one round trip per block (CUTLASS's SM100 blockwise-scaling mainloop,
    // include/cutlass/gemm/collective/sm100_mma_array_warpspecialized_blockwise_scaling.hpp: `mma` zeroes and
    // commits a TMEM accumulator per scale block through the AccumulatorPipeline, `accum` waits for it, loads it
    // from TMEM and does `full_acc += scale_a * scale_b * partial`; TRT-LLM-gen's DeepSeek FP8 MoE ships as cubins).
    // A tile pays its K / block round trips of moe_scale_block_step_us in series with its MMAs: the next block's
    // MMA waits on the read-back (overlapped with them, the larger of the two, the B200 train half fitted worse
    // once the MMAs ran at the large tiles' rate: 18.1% against 16.9% median; whether TRT-LLM-gen's cubins
    // double-buffer the partial accumulator as CUTLASS's pipeline does was not read).
    const double scale_steps_us =
        p.scale_block_k > 0 ? std::ceil(kd / p.scale_block_k) * gpu.moe_scale_block_step_us : 0.0;
    // A tile's operands (its bm rows of activations and bn columns of the expert's weights, k deep) pass from
    // the L2 into the SM's shared memory at `moe_tile_load_per_sm_gbs`, overlapped with its MMAs (Triton's
    // software pipeline, num_stages; CUTLASS's TMA producer warp): the larger of the two. vLLM's Triton
    // fused_moe_kernel (vllm/model_executor/layers/fused_moe/fused_moe.py) loads a_ptrs / b_ptrs every
    // BLOCK_SIZE_K step of every (expert block, N block) program, so an expert's weights are read once per
    // BLOCK_SIZE_M block of its rows (moe_align_block_size pads each expert's rows to whole blocks). A tile of
    // many rows and columns does enough MMAs per byte that they hide its loads; the loads bind on a narrow tile
    // (the CUTLASS fallback tactic's 16 weight columns under a 128-token box). Hopper: 50 GB/s x 132 SMs = 6.6
    // TB/s, about its L2's bandwidth. 0: the MMA alone.
    const double per_sm_load_us = gpu.moe_tile_load_per_sm_gbs > 0 ? 1.0 / (gpu.moe_tile_load_per_sm_gbs * 1e3) : 0.0;
    // A token tile of fewer rows than a warpgroup MMA takes runs warp-level mma.sync (warp_mma_tflops_per_sm) where
    // the architecture's full rate needs that MMA: Triton lowers tl.dot to Hopper's wgmma only for a
    // BLOCK_SIZE_M that is a multiple of 64 with num_warps a multiple of 4 (triton lib/Analysis/Utility.cpp,
    // supportMMA, version 3), else to mma.sync (version 2); vLLM's tuned fused_moe configs for H100 take
    // BLOCK_SIZE_M 16-32 at a few rows per expert and 64-128 at many (fused_moe/configs/E=128,N=384,
    // device_name=NVIDIA_H100_80GB_HBM3.json: 16 up to 8 rows per expert, 32 at 16, 64 at 32-64, 128 beyond).
    // CUTLASS's SM90 grouped GEMM puts the tokens on wgmma's N instead (use_cutlass_sm90_tiles): no such split.
    const int warpgroup_rows = warpgroup_mma_rows(gpu);
    // TRT-LLM-gen's MXFP4 x BF16 MoE (gpt-oss's default on Blackwell) widens its E2M1 weights to BF16 before tcgen05
    // takes them, per tile, whatever the tile's tokens: a floor of the tile's weights at the conversion rate, which
    // binds where the tokens are few (decode) and the MMAs do not. MXFP4 x MXFP8 (W4A8) takes E2M1 on the MMA as it
    // is (p.mxfp4_weights is off there). Per-SM rate: moe_mxfp4_convert_per_sm_gws (0: no floor).
    const double per_sm_convert_us =
        p.mxfp4_weights && gpu.moe_mxfp4_convert_per_sm_gws > 0 ? 1.0 / (gpu.moe_mxfp4_convert_per_sm_gws * 1e3) : 0.0;
    // A TRT-LLM-gen tile (tokens on tcgen05's N) takes at least moe_tile_min_us whatever its K: its epilogue and the
    // next tile's start do not hide behind a short K loop (the down projection under MoE TP).
    const double tile_min_us = p.tokens_on_mma_n > 0 && !p.cutlass_sm90 ? gpu.moe_tile_min_us : 0.0;
    // The warp-level rate is stated for BF16; FP8 operands double it as they double the peak.
    const double bf16_peak = gpu.peak_bf16_tflops * 1e12;
    const double warp_flops_us =
        gpu.warp_mma_tflops_per_sm > 0 && bf16_peak > 0
            ? std::min(moe_peak_flops(gpu, p) / sms * 1e-6,
                       gpu.warp_mma_tflops_per_sm * 1e6 * std::max(1.0, p.peak_flops / bf16_peak)) *
                  p.plateau * efficiency
            : per_sm_flops_us;
    double best = -1;
    // The CUTLASS MoE's fallback tactic (use_cutlass_fallback_tile): one tile shape, each tile paying its fixed
    // moe_fallback_tile_us besides its loads and MMAs. The token box is loaded whole whatever the expert's rows:
    // measured, its time does not grow with the rows up to 128 per expert and doubles past them (H100
    // `h=4096 i=14336 k=2/8`, per-tensor FP8: 2.2-2.4 ms from 8 to 256 tokens, 1.1 ms at 512, 3.3 ms at 768).
    if (p.fallback_tile > 0) {
        const double columns = p.fallback_tile;
        double tiles = 0;
        for (const ExpertClass& c : load.classes) {
            tiles += c.count * std::ceil(c.tokens / kFallbackTokens) * std::ceil(nd / columns);
        }
        const double waves = std::ceil(tiles / sms);
        const double mma = waves * 2.0 * kFallbackTokens * columns * kd / per_sm_flops_us;
        const double loads = waves * (kFallbackTokens * p.a_bytes + columns * p.b_bytes) * kd * per_sm_load_us;
        best = std::max(mma, loads) + waves * gpu.moe_fallback_tile_us;
    }
    // Token tiles from 8 only on TRT-LLM-gen (tokens on tcgen05's N); the CUTLASS SM90 grouped GEMM's smallest is
    // 16 (CtaShape128x16x128B, use_cutlass_sm90_tiles).
    const int min_token_tile = p.tokens_on_mma_n > 0 && !p.cutlass_sm90 ? 8 : 16;
    for (int bm : kMoeTileM) {
        if (p.fallback_tile > 0) break;
        if (bm < min_token_tile) continue;
        if (p.tokens_on_mma_n > 0 && bm > p.tokens_on_mma_n) continue;
        // Tokens on the MMA's N (CUTLASS's swapped operands): wgmma whatever the token tile.
        const double tile_flops_us = bm < warpgroup_rows && p.tokens_on_mma_n == 0 ? warp_flops_us : per_sm_flops_us;
        for (int bn : kMoeTileN) {
            if (p.tokens_on_mma_n > 0 && bn != kTcgen05M) continue;
            double tiles = 0;
            for (const ExpertClass& c : load.classes) tiles += c.count * std::ceil(c.tokens / bm) * std::ceil(nd / bn);
            const double waves = std::ceil(tiles / sms);
            const double mma = waves * 2.0 * bm * bn * kd / tile_flops_us;
            const double loads = waves * (bm * p.a_bytes + bn * p.b_bytes) * kd * per_sm_load_us;
            const double t = std::max({mma, loads, waves * bn * kd * per_sm_convert_us, waves * tile_min_us}) +
                             waves * scale_steps_us;
            if (best < 0 || t < best) best = t;
        }
    }
    const double active = load.active_experts();
    // Every active expert's weights once, the rows' activations in and out (one sum where both stream from
    // memory: the step's cold experts, whose figures this keeps bit for bit).
    const double bw = bandwidth_bytes_per_us(gpu);
    const double weights = active * kd * nd * p.b_bytes, activations = load.rows * (kd * p.a_bytes + nd * p.c_bytes);
    const double memory_us =
        weight_bytes_per_us == bw ? (weights + activations) / bw : weights / weight_bytes_per_us + activations / bw;
    // The CUTLASS MoE's tiles (the fallback tactic) stream the experts' weights from memory in the same TMA loads
    // the MMAs consume: its grouped GEMM is CUTLASS's warp-specialized kernel (TensorRT-LLM's moe_gemm_tma_ws
    // launcher, cpp/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_gemm_template_dispatch_tma_ws.h, vendored by
    // FlashInfer; its SM100 mainloop include/cutlass/gemm/collective/sm100_mma_array_warpspecialized.hpp), where a
    // producer warp's TMA fills a ring of shared-memory stages ahead of the MMA warp, so the weight stream and the
    // MMAs run concurrently and the slower of the two is the time: their plain maximum, not the soft maximum of a
    // kernel whose loads and MMAs partly serialise. B200, `h=6144 i=3072 k=4/128` BF16 at EP 1 from 48 tokens: 2.3 ms
    // measured, padded MMAs 2.3 ms, weights 2.1 ms (soft maximum 3.3 ms).
    if (p.fallback_tile > 0) return std::max(best, memory_us);
    return soft_max(best, memory_us, gpu.gemm_overlap_exponent);
}

// Quantile u of the bounded power law x^-alpha on [lo, hi] (AIConfigurator's sample_power_law inverse CDF).
double power_law_quantile(double u, double alpha, double lo, double hi) {
    const double e = 1 - alpha;
    if (std::fabs(e) < 1e-9) return lo * std::pow(hi / lo, u);
    return std::pow((std::pow(hi, e) - std::pow(lo, e)) * u + std::pow(lo, e), 1 / e);
}

// x rounded to bfloat16 (8 significant bits, to nearest, ties to even), in a double.
double bf16(double x) {
    if (x == 0 || !std::isfinite(x)) return x;
    int exponent = 0;
    const double mantissa = std::frexp(x, &exponent);  // x = mantissa x 2^exponent, 0.5 <= |mantissa| < 1
    return std::ldexp(std::nearbyint(std::ldexp(mantissa, 8)), exponent - 8);
}

// The rank's experts as `load.classes`, from `classes` (rows per expert -> how many experts have them, a weight
// where draws are averaged); `load.rows` is the caller's sum. No expert with a pair: the rank computes one pair.
void set_expert_classes(MoeLoad& load, std::map<double, double>& classes) {
    if (classes.empty()) {
        classes[1] = 1;
        load.rows = 1;
    }
    for (const auto& [rows, count] : classes) load.classes.push_back({count, rows});
}

// The kernel benchmarks' balanced routing as AIConfigurator's vLLM collector builds it (collector/vllm/
// collect_moe.py, run_moe_torch: balanced_logits(num_tokens, num_experts, topk) in collector/helper.py, fed as the
// router logits of vLLM's FusedMoE, which the timed call routes itself). balanced_logits gives token t the
// experts (t + j x stride) mod experts, j < topk, stride = ceil(experts / topk); with fewer tokens than stride,
// (t x stride / tokens + j x stride) mod experts in the collector's default dtype, bfloat16, truncated. The
// logits are the softmax of that one-hot sum: the chosen experts tie high, every other expert ties low. vLLM's
// grouped top-k (csrc/moe/grouped_topk_kernels.cu, group_idx_and_topk_idx_kernel, DeepSeek-V3's noaux_tc
// router) scores each group by its two best experts, keeps the topk_groups best groups, ties to the lower group
// (every group holds one chosen expert: groups 0 to topk_groups - 1), and takes the token's top-k among their
// experts, ties to the lower index (WarpSelect, is_stable): the chosen experts there, then the lowest-numbered
// other experts of those groups. EP rank 0 (vLLM's linear expert map: experts 0 to local - 1) is the rank timed.
// 292 us measured on H100 at 32 tokens of h=7168 i=2048/8 k=8/256 block FP8 (EP 1) is 128 experts' weights, not
// 256 (420 us at H100's bandwidth alone).
MoeLoad balanced_rank_load(const MoeShape& s, double local) {
    MoeLoad load;
    const int64_t experts = s.experts, topk = s.topk, n_local = static_cast<int64_t>(local);
    const int64_t tokens = std::max<int64_t>(1, std::llround(s.tokens));
    load.pairs = static_cast<double>(tokens) * static_cast<double>(topk);
    const int64_t stride = (experts + topk - 1) / topk;
    const int64_t groups = s.expert_groups > 1 && experts % s.expert_groups == 0 ? s.expert_groups : 1;
    const int64_t keep_groups = groups > 1 ? std::clamp<int64_t>(s.topk_groups, 1, groups) : 1;
    const int64_t per_group = experts / groups;
    std::vector<double> counts(static_cast<std::size_t>(n_local), 0.0);
    std::vector<char> chosen(static_cast<std::size_t>(experts), 0);
    std::vector<int64_t> picks, group_hits(static_cast<std::size_t>(groups));
    std::vector<char> kept(static_cast<std::size_t>(groups));
    // With at least stride tokens a token's experts depend on t mod experts only: one pass per residue, weighted
    // by the tokens that share it.
    const bool periodic = tokens >= stride;
    const int64_t passes = periodic ? std::min(tokens, experts) : tokens;
    for (int64_t t = 0; t < passes; ++t) {
        const double weight = periodic ? static_cast<double>((tokens - 1 - t) / experts + 1) : 1.0;
        picks.clear();
        for (int64_t j = 0; j < topk; ++j) {
            int64_t e = 0;
            if (periodic) {
                e = (t + j * stride) % experts;
            } else {
                const double offset = bf16(bf16(static_cast<double>(t * stride)) / bf16(static_cast<double>(tokens)));
                const double sum = bf16(offset + bf16(static_cast<double>(j * stride)));
                const double m = bf16(static_cast<double>(experts));
                e = std::min(static_cast<int64_t>(bf16(sum - std::floor(sum / m) * m)), experts - 1);
            }
            if (!chosen[static_cast<std::size_t>(e)]) picks.push_back(e);
            chosen[static_cast<std::size_t>(e)] = 1;
        }
        // The groups kept: the most chosen experts first (two chosen score above one, one above none), ties to the
        // lower group.
        std::fill(group_hits.begin(), group_hits.end(), 0);
        for (int64_t e : picks) ++group_hits[static_cast<std::size_t>(e / per_group)];
        std::fill(kept.begin(), kept.end(), groups == 1 ? 1 : 0);
        int64_t n_kept = groups == 1 ? 1 : 0;
        for (int64_t level = 2; level >= 0; --level) {
            for (int64_t g = 0; g < groups && n_kept < keep_groups; ++g) {
                if (!kept[static_cast<std::size_t>(g)] &&
                    std::min<int64_t>(group_hits[static_cast<std::size_t>(g)], 2) == level) {
                    kept[static_cast<std::size_t>(g)] = 1;
                    ++n_kept;
                }
            }
        }
        int64_t taken = 0;
        auto take = [&](int64_t e) {
            if (e < n_local) counts[static_cast<std::size_t>(e)] += weight;
            ++taken;
        };
        for (int64_t e : picks) {
            if (kept[static_cast<std::size_t>(e / per_group)]) take(e);
        }
        for (int64_t e = 0; e < experts && taken < topk; ++e) {
            if (kept[static_cast<std::size_t>(e / per_group)] && !chosen[static_cast<std::size_t>(e)]) take(e);
        }
        for (int64_t e : picks) chosen[static_cast<std::size_t>(e)] = 0;
    }
    std::map<double, double> classes;
    for (double c : counts) {
        if (c <= 0) continue;
        classes[c] += 1;
        load.rows += c;
    }
    set_expert_classes(load, classes);
    return load;
}

// --- The power-law benchmark of AIConfigurator's earlier collector (MoeShape::power_law_global_fill) ---
//
// ai-dynamo/aiconfigurator d1f7bf26b (the commit that added the vLLM 0.14 A100 MoE file): collector/vllm/
// collect_moe.py `run_moe_torch` times vLLM's `fused_experts` over 10 fresh power_law_logits_v3 draws and reports
// their mean; collector/helper.py `_generate_power_law_distribution` samples every expert's load independently (so
// an expert's number is unrelated to its load), rounds (torch.round) and clamps to `tokens`, then sorts the experts
// once by load, descending (a stable CUDA sort: equal loads in expert order), gives every overflow pair to the last
// expert of that order still below the bound, and the rounding's shortfall one pair each to the experts from the
// end of a fresh such order (its excess taken from them, or from the busiest when they hold none). The experts at the
// end are the highest-numbered of the least loaded: at a small batch, where most experts round to no pair, the
// shortfall lands on idle experts at the top of the numbering, all on the last EP rank, which becomes the busiest and
// is swapped to rank 0, the rank timed (A100 `t=2 h=7168 i=2048 k=8/256 ep=8`: 941 us measured, 16 experts' weights;
// 201 us predicted with the shortfall on the popular experts). The model keeps the distribution's quantiles for the
// loads and places them at expert numbers by `kDraws` fixed pseudo-random permutations (the benchmark's draws;
// splitmix64, so every platform gets the same), runs the collector's adjustment on each, and averages the busiest
// ranks' loads (each draw's experts with weight 1 / kDraws).
constexpr int kGlobalFillDraws = 10;

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// `popularity`: the quantile loads, most popular first, not yet scaled to the pairs.
MoeLoad global_fill_power_law_load(const MoeShape& s, const std::vector<double>& popularity, int64_t local) {
    MoeLoad load;
    const auto n = static_cast<int64_t>(popularity.size());
    const auto bound = static_cast<int64_t>(std::max(1.0, std::floor(s.tokens)));
    const auto pairs = static_cast<int64_t>(std::llround(s.tokens * static_cast<double>(s.topk)));
    load.pairs = static_cast<double>(pairs);
    double sum = 0;
    for (double x : popularity) sum += x;
    std::vector<int64_t> placed(static_cast<std::size_t>(n)), counts(static_cast<std::size_t>(n)),
        order(static_cast<std::size_t>(n));
    std::map<double, double> classes;
    auto at = [](std::vector<int64_t>& v, int64_t i) -> int64_t& { return v[static_cast<std::size_t>(i)]; };
    auto sort_descending = [&] {
        for (int64_t e = 0; e < n; ++e) at(order, e) = e;
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t a, int64_t b) { return at(counts, a) > at(counts, b); });
    };
    uint64_t state = 0;
    for (int draw = 0; draw < kGlobalFillDraws; ++draw) {
        // Expert number placed[j] holds the j-th most popular load (Fisher-Yates).
        for (int64_t e = 0; e < n; ++e) at(placed, e) = e;
        for (int64_t e = n - 1; e > 0; --e) {
            std::swap(at(placed, e),
                      at(placed, static_cast<int64_t>(splitmix64(state) % static_cast<uint64_t>(e + 1))));
        }
        int64_t overflow = 0;
        for (int64_t j = 0; j < n; ++j) {
            auto c = static_cast<int64_t>(
                std::nearbyint(popularity[static_cast<std::size_t>(j)] * static_cast<double>(pairs) / sum));
            overflow += std::max<int64_t>(0, c - bound);
            c = std::min(c, bound);
            at(counts, at(placed, j)) = c;
        }
        sort_descending();
        for (int64_t i = n - 1; overflow > 0 && i >= 0; --i) {
            const int64_t give = std::min(overflow, bound - at(counts, at(order, i)));
            if (give <= 0) continue;
            at(counts, at(order, i)) += give;
            overflow -= give;
        }
        int64_t routed = 0;
        for (int64_t c : counts) routed += c;
        int64_t delta = pairs - routed;
        sort_descending();
        for (int64_t i = 0, added = 0; delta > 0 && added < delta && i < delta * n; ++i) {
            int64_t& c = at(counts, at(order, n - 1 - i % n));
            if (c < bound) {
                ++c;
                ++added;
            }
        }
        for (int64_t i = 0; delta < 0 && i < -delta; ++i) {
            int64_t& c = at(counts, at(order, n - 1 - i % n));
            if (c > 0) {
                --c;
            } else {
                --*std::max_element(counts.begin(), counts.end());  // the first of the busiest
            }
        }
        // The busiest rank (experts r x local to (r + 1) x local - 1; the first on a tie), swapped to rank 0.
        int64_t best = -1, best_rank = 0;
        for (int64_t r = 0; r * local < n; ++r) {
            int64_t rank_sum = 0;
            for (int64_t e = r * local; e < (r + 1) * local && e < n; ++e) rank_sum += at(counts, e);
            if (rank_sum > best) {
                best = rank_sum;
                best_rank = r;
            }
        }
        for (int64_t e = best_rank * local; e < (best_rank + 1) * local && e < n; ++e) {
            if (at(counts, e) > 0) classes[static_cast<double>(at(counts, e))] += 1.0 / kGlobalFillDraws;
        }
    }
    for (const auto& [rows, count] : classes) load.rows += count * rows;
    set_expert_classes(load, classes);
    return load;
}

// Every pair of the layer as the kernel benchmark feeds it (each rank holding every token).
MoeLoad moe_rank_load_of_all(const MoeShape& s) {
    MoeLoad load;
    if (s.tokens <= 0 || s.experts <= 0 || s.ep <= 0 || s.topk <= 0) return load;
    const double experts = static_cast<double>(s.experts), ep = static_cast<double>(s.ep);
    const double local = std::floor(experts / ep);
    if (local < 1) return load;
    const double pairs = s.tokens * static_cast<double>(s.topk);
    load.pairs = pairs;
    if (s.routing_alpha <= 0 && s.random_routing) {
        // The distinct experts of the busiest rank: E[max of ep Binomial(local, p)] = sum over k < local of
        // 1 - F(k)^ep (the ranks' counts taken as independent). At a small batch this is well above the balanced
        // pairs / ep (4 DeepSeek-V3 tokens on EP 8: 6.6 experts against 4), at a moderate one below `local` (32
        // tokens: 24 of 32), and with many tokens every local expert, as balanced routing has it.
        const double p = 1.0 - std::pow(1.0 - std::min(1.0, static_cast<double>(s.topk) / experts), s.tokens);
        const auto n = static_cast<int64_t>(local);
        double active = local;
        if (p > 0.0 && p < 1.0) {
            // The binomial probabilities by their ratio, in logarithms (no lgamma: it writes the global signgam,
            // a data race when models are built on several threads).
            double cdf = 0, sum = 0;
            const double lp = std::log(p), lq = std::log1p(-p);
            double log_pmf = local * lq;
            for (int64_t k = 0; k < n; ++k) {
                const double kd = static_cast<double>(k);
                cdf += std::exp(log_pmf);
                sum += 1.0 - std::pow(std::min(cdf, 1.0), ep);
                log_pmf += std::log((local - kd) / (kd + 1)) + lp - lq;
            }
            active = sum;
        }
        active = std::clamp(active, 1.0, std::max(1.0, std::min(local, pairs)));
        const double rows = std::max(active, pairs / ep);
        load.classes.push_back({active, rows / active});
        load.rows = rows;
        return load;
    }
    if (s.routing_alpha <= 0) return balanced_rank_load(s, local);
    const std::size_t n = static_cast<std::size_t>(experts);
    const bool many = pairs > experts;
    const double lo = many ? 1.0 : 0.01, hi = many ? std::max(s.tokens * 0.8, 1.0 + 1e-6) : 2.0;
    std::vector<double> x(n);
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
        // Descending: the most popular expert first.
        x[j] = power_law_quantile(1.0 - (static_cast<double>(j) + 0.5) / experts, s.routing_alpha, lo, hi);
        sum += x[j];
    }
    if (s.power_law_global_fill) return global_fill_power_law_load(s, x, static_cast<int64_t>(local));
    // Rounded to whole pairs (AIConfigurator collector/helper.py, _generate_power_law_distribution). The benchmark
    // then clamps every expert to `tokens` pairs (a token picks an expert at most once) and hands out both the
    // overflow and the rounding's shortfall one pair at a time, rank by rank in turn, each rank giving it to its
    // least loaded expert below the bound (_round_robin_adjust_per_rank with torch.argmin); an excess is taken back
    // the same way from each rank's most loaded expert (torch.argmax). So at a few tokens, where most experts round
    // to no pair, the shortfall goes to idle experts, one pair each: t=2, k=8/160 routes 16 experts, not 8 twice
    // (B200 `t=2 h=6144 i=2560 k=8/160 bfloat16 power_law_1.2` 220 us, as balanced routing's 16 experts take 221 us).
    // The measured rank receives its 1/ep share of both, water-filled.
    std::vector<double> tokens(n);
    double routed = 0;
    for (std::size_t j = 0; j < n; ++j) {
        tokens[j] = std::round(x[j] * pairs / sum);
        routed += tokens[j];
    }
    const double shortfall = pairs - routed;
    double overflow = 0;
    for (double& t : tokens) {
        overflow += std::max(0.0, t - s.tokens);
        t = std::min(t, s.tokens);
    }
    const std::size_t stride = static_cast<std::size_t>(ep);
    std::vector<double> rank;
    for (std::size_t j = 0; j < n; j += stride) rank.push_back(tokens[j]);
    std::sort(rank.begin(), rank.end());
    for (double extra = std::ceil((overflow + std::max(0.0, shortfall)) / ep); extra > 0;) {
        // Raise the lowest experts (the first `level` of the sorted rank) towards the next one or the bound.
        std::size_t level = 1;
        while (level < rank.size() && rank[level] <= rank[0]) ++level;
        const double next = level < rank.size() ? std::min(rank[level], s.tokens) : s.tokens;
        if (next <= rank[0]) break;  // every expert at the bound
        const double levels = static_cast<double>(level), whole = std::floor(extra / levels);
        if (whole < 1 && next - rank[0] >= 1) {
            // Fewer pairs left than experts at the lowest level: whole pairs, one each to as many experts (the
            // benchmark hands the overflow out one pair at a time), not a fraction of a pair to every one of them,
            // which would make idle experts active (t=1, k=2/8: 8 experts' weights read instead of 2).
            for (std::size_t j = 0; j < static_cast<std::size_t>(std::ceil(extra)); ++j) rank[j] += 1;
            break;
        }
        const double step = std::min(next - rank[0], whole >= 1 ? whole : extra / levels);
        for (std::size_t j = 0; j < level; ++j) rank[j] += step;
        extra -= step * static_cast<double>(level);
        if (step <= 0) break;
    }
    for (double excess = std::ceil(std::max(0.0, -shortfall) / ep); excess > 0; excess -= 1) {
        double& busiest = *std::max_element(rank.begin(), rank.end());
        if (busiest <= 0) break;
        busiest -= 1;
    }
    std::map<double, double> classes;
    for (double t : rank) {
        if (t <= 0) continue;
        classes[t] += 1;
        load.rows += t;
    }
    set_expert_classes(load, classes);
    return load;
}

}  // namespace

MoeLoad moe_rank_load(const MoeShape& s) {
    MoeLoad load = moe_rank_load_of_all(s);
    if (!s.dispatched || s.ep <= 1 || load.pairs <= 0) return load;
    // Dispatched (MoeShape::dispatched): a token reaches this rank unless all its top-k experts lie elsewhere,
    // which top-k distinct experts drawn from `experts` avoid the rank's `local` with probability
    // prod_j (experts - local - j) / (experts - j).
    const double experts = static_cast<double>(s.experts), local = std::floor(experts / static_cast<double>(s.ep));
    double miss = 1;
    for (int64_t j = 0; j < s.topk; ++j) {
        const double jd = static_cast<double>(j);
        miss *= std::max(0.0, experts - local - jd) / (experts - jd);
    }
    load.pairs = std::max(load.rows, load.pairs * (1 - miss));
    return load;
}

// vLLM's expert backend per architecture and format as the measured kernels show it (`kernel_source` of
// aic-<gpu>-families/moe_vllm.csv, vLLM 0.24; A100 vLLM 0.14 `vllm_fused_moe`): Ampere and Ada run the Triton
// `fused_moe` (TritonExperts) for every format Marlin does not take; Hopper for BF16 only (its FP8 formats run
// FlashInfer's CUTLASS MoE, MXFP4 the OpenAI Triton `matmul_ogs` or Marlin); Blackwell FlashInfer's TRT-LLM /
// CUTLASS MoE, which permute only the rank's own pairs.
bool moe_runs_triton(const gpu::GpuProfile& gpu, config::WeightFormat format) {
    if (moe_runs_marlin(gpu, format)) return false;
    switch (gpu.architecture) {
        case gpu::Architecture::ampere:
        case gpu::Architecture::ada:
            return format != config::WeightFormat::mxfp4 && format != config::WeightFormat::nvfp4;
        case gpu::Architecture::hopper:
            return format == config::WeightFormat::bf16;
        default:
            return false;
    }
}

// Block FP8 on Blackwell (FlashInfer's `trtllm_fp8_block_scale_moe`, vLLM's TrtLlmFp8Experts) is measured with
// the same fingerprint: under expert parallelism its time at large batches does not fall with the EP degree
// (B200 `h=3072 i=1024 k=8/256`, 16,384 tokens: 591 / 570 / 562 us at EP 64 / 128 / 256, per-tensor FP8 171 /
// 161 us) and grows with tokens x topk x (hidden + inter) as the all-pairs passes do. Which of its kernels passes
// over the other ranks' pairs was not found in the source: a reading of the measurements (docs/kernel-families.md).
bool moe_passes_all_pairs(const gpu::GpuProfile& gpu, config::WeightFormat format) {
    if (moe_runs_triton(gpu, format)) return true;
    return gpu.architecture == gpu::Architecture::blackwell && format == config::WeightFormat::fp8_block;
}

// Blackwell's fused MoE in vLLM 0.24 is FlashInfer's TRT-LLM-gen MoE for every format Marlin does not take
// (`kernel_source` ..._flashinfer_trtllm_... of the fastest B200 rows of aic-b200-families/moe_vllm.csv, all
// formats but INT4 weight-only); the CUTLASS fused MoE that vLLM can pick instead is measured slower there.
bool moe_runs_trtllm_gen(const gpu::GpuProfile& gpu, config::WeightFormat format) {
    return gpu.architecture == gpu::Architecture::blackwell && !moe_runs_marlin(gpu, format);
}

// The token tiles FlashInfer's TRT-LLM-gen MoE launchers offer (csrc/trtllm_fused_moe_kernel_launcher.cu,
// computeSelectedTileN: the next power of two of tokens x topk / local experts on the launcher's ladder and its
// neighbours, the autotuner picking among them): BF16, per-tensor and DeepSeek block FP8 and MxInt4 8-128
// (Bf16MoeLauncher, Fp8PerTensorLauncher, Fp8BlockScaleLauncher::mBaseSupportedTileNums); the FP4 launcher
// (FP4BlockScaleLauncher) 8-64 with BF16 activations (MXFP4 x BF16, gpt-oss) and 8-256 with FP8 / FP4 ones (NVFP4,
// MXFP4 x MXFP8). 0 where the experts do not run TRT-LLM-gen.
int moe_token_tile_max(const gpu::GpuProfile& gpu, config::WeightFormat format, bool fp8_activations) {
    if (!moe_runs_trtllm_gen(gpu, format)) return 0;
    if (format == config::WeightFormat::nvfp4) return 256;
    if (format == config::WeightFormat::mxfp4) return fp8_activations ? 256 : 64;
    return 128;
}

// vLLM's MXFP4 MoE method pads the weights it creates to the kernel's layout (Mxfp4MoEMethod.create_weights,
// vllm/model_executor/layers/quantization/mxfp4.py): for FlashInfer's TRT-LLM-gen MXFP4 x MXFP8 and MXFP4 x BF16
// backends (Blackwell) the intermediate shard and the hidden size to multiples of 256, for its CUTLASS ones to 128;
// SGLang's Mxfp4MoEMethod does the same for FlashInfer on SM100 (256 / 256), and TensorRT-LLM's TRT-LLM-gen MXFP4
// loader aligns its weights to 128 (its input hidden to 512 is not modelled: 4% on gpt-oss's 2,880). gpt-oss-120b's
// 2,880-wide experts at MoE TP 8 (360 per rank) run 512-wide and its hidden 3,072-wide. The B200 kernel file shows
// it: at MoE TP 16 and 32 the w4a8 and w4a16 MXFP4 rows take what TP 8 takes (docs/kernel-families.md, "MXFP4
// weights padded"). Hopper's Triton matmul_ogs path pads the shard to 64 in the same method; the H100 file does not
// show it, so it is not applied there. Marlin's own repacking is not this padding.
MoeWeightPadding moe_weight_padding(const gpu::GpuProfile& gpu, config::WeightFormat format, bool cutlass,
                                    bool marlin) {
    if (format != config::WeightFormat::mxfp4 || marlin || !moe_runs_trtllm_gen(gpu, format)) return {};
    return cutlass ? MoeWeightPadding{128, 128} : MoeWeightPadding{256, 256};
}

// The CUTLASS MoE on Hopper (TensorRT-LLM's CutlassFusedMoE, cpp/tensorrt_llm/kernels/cutlass_kernels/moe_gemm; the
// same source vendored by FlashInfer's cutlass_fused_moe): BF16, per-tensor FP8 and block FP8 experts run its SM90
// TMA warp-specialized grouped GEMM. Weight-only and MXFP4 formats keep their own kernels.
bool moe_runs_cutlass_sm90(const gpu::GpuProfile& gpu, config::WeightFormat format, bool cutlass) {
    if (!cutlass || gpu.architecture != gpu::Architecture::hopper) return false;
    return format == config::WeightFormat::bf16 || format == config::WeightFormat::fp8 ||
           format == config::WeightFormat::fp8_block;
}

// Its grouped GEMM computes the transposed problem, B^T A^T = (A B)^T (moe_gemm_kernels.h,
// TmaWarpSpecializedGroupedGemmInput: "Layout for A and B is transposed and then swapped"): an expert's weight rows
// sit on wgmma's M (128 per CTA) and its tokens on N, so a tile of few tokens is still a wgmma one, never Triton's
// mma.sync (warpgroup_mma_rows). The profiled grouped-GEMM tiles are CtaShape128x{16,32,64,128,256}x128B and
// 256x128x128B (cutlass_heuristic.cpp, get_candidate_tiles_sm90 with GROUPED_GEMM): token tiles 16 up to the
// largest of kMoeTileM (128; 256 tokens per tile would cost the same per FLOP in this model). It permutes the
// rank's pairs in a pass of its own (expandInputRowsKernel, expands_rows) and covers the rank's own pairs only.
void use_cutlass_sm90_tiles(GemmPrecision& precision) {
    precision.cutlass_sm90 = true;
    precision.tokens_on_mma_n = kMoeTileM[std::size(kMoeTileM) - 1];
    precision.mxfp4_weights = false;
    precision.expands_rows = true;
    precision.all_pairs = false;
}

// AIConfigurator's vLLM collector (collector/vllm/collect_moe.py, run_moe_torch) times the FusedMoE layer without
// vLLM's kernel warm-up, so FlashInfer's autotuner never profiles the CUTLASS MoE's tactics and every call runs
// the fallback (csrc/fused_moe/cutlass_backend/flashinfer_cutlass_fused_moe_binding.cu, setRunnerProfiles: the
// first of getTactics, "fallback tactic is set to be 0"). On SM90 that is the first TMA warp-specialized grouped
// config (moe_gemm_template_dispatch.h getTmaWarpSpecializedConfigs, the swap_ab copies appended after it;
// cutlass_heuristic.cpp get_candidate_tiles_sm90 with GROUPED_GEMM: CtaShape128x16x128B first), with swap_ab false:
// the activations are A (TmaWarpSpecializedGroupedGemmInput), 128 tokens on wgmma's M and 16 weight columns on N.
// DeepSeek block FP8 sets its own tile whatever the tactic (setRunnerProfiles, mUseDeepSeekFP8BlockScaling) and keeps
// use_cutlass_sm90_tiles. The served engines autotune at start-up (vLLM's kernel warm-up, TensorRT-LLM's): the step
// model's CUTLASS MoE (EngineProfile::cutlass_moe) does not take this path.
bool moe_runs_cutlass_fallback(const gpu::GpuProfile& gpu, config::WeightFormat format, bool cutlass) {
    return moe_runs_cutlass_sm90(gpu, format, cutlass) && format != config::WeightFormat::fp8_block;
}

void use_cutlass_fallback_tile(GemmPrecision& precision) {
    use_cutlass_sm90_tiles(precision);
    precision.fallback_tile = kHopperFallbackColumns;
}

bool moe_runs_marlin(const gpu::GpuProfile& gpu, config::WeightFormat format) {
    const KernelPrecision p = kernel_precision(format, gpu);
    if (p.dtype != GemmDtype::bf16 || p.weight_bytes <= 0 || p.weight_bytes >= 1) return false;
    // MXFP4 on FP4 tensor cores' GPUs (Blackwell): vLLM's default gpt-oss MoE there is FlashInfer's TRT-LLM
    // MXFP4 x BF16 kernel (tcgen05), which B200 measures up to 2x faster than Marlin at large batches. On Hopper
    // it is OpenAI's Triton `matmul_ogs` (vLLM's Mxfp4MoEMethod, get_mxfp4_backend: SM90 with triton_kernels;
    // triton_kernels/matmul_ogs.py), the weights widened to BF16 in the kernel and multiplied on wgmma: the
    // `vllm_gptossmxfp4moe_triton_oaitritonmxfp4expertsmonolithic` rows of aic-h100-families (gpt-oss-120b's
    // experts, 16,384 tokens: 5.8 ms, 560 TFLOP/s). Marlin runs there only where a checkpoint's method asks for it
    // (MoeShape::marlin).
    if (format == config::WeightFormat::mxfp4 && gpu.architecture == gpu::Architecture::hopper) return false;
    return !(format == config::WeightFormat::mxfp4 && gpu.has_fp4());
}

GemmPrecision moe_precision(const gpu::GpuProfile& gpu, config::WeightFormat format, bool fp8_activations) {
    GemmPrecision out;
    KernelPrecision p = kernel_precision(format, gpu);
    if (p.dtype == GemmDtype::fp8) {
        out = fp8_gemm(gpu);
    } else if (p.dtype == GemmDtype::fp4) {
        out = fp4_gemm(gpu);
    } else {
        out = bf16_gemm(gpu);
        if (p.weight_bytes > 0) out.b_bytes = p.weight_bytes;
        out.marlin = moe_runs_marlin(gpu, format);
    }
    out.all_pairs = moe_passes_all_pairs(gpu, format);
    out.tokens_on_mma_n = moe_token_tile_max(gpu, format, false);
    out.mxfp4_weights = format == config::WeightFormat::mxfp4 && moe_runs_trtllm_gen(gpu, format);
    // DeepSeek's block FP8: one scale per 128 weights along K (and per 128 activations, quantised on the fly).
    if (format == config::WeightFormat::fp8_block) out.scale_block_k = 128;
    if (fp8_activations && gpu.has_fp8() && out.peak_flops < gpu.peak_fp8_tflops * 1e12) {
        GemmPrecision w4a8 = fp8_gemm(gpu);
        w4a8.b_bytes = out.b_bytes;
        w4a8.all_pairs = out.all_pairs;
        // Not moe_mxfp4_gemm_efficiency (the MXFP4 x BF16 kernels' rate): W4A8 runs tcgen05's MXF8F6F4 MMA on the FP8
        // cores, and B200 measures it at per-tensor FP8's rate (16,384 tokens: 1.9-2.2 PFLOP/s, FP8 1.7, MXFP4 x BF16
        // 0.54; docs/kernel-families.md, "the per-pair floor").
        w4a8.mxfp4_weights = false;
        w4a8.tokens_on_mma_n = moe_token_tile_max(gpu, format, true);
        out = w4a8;
    }
    return out;
}

namespace {

double projection_us(const gpu::GpuProfile& gpu, const GemmPrecision& precision, const MoeLoad& load, double tokens,
                     int64_t k, int64_t n, bool down, bool gated, bool overhead, double weight_bytes_per_us) {
    if (tokens <= 0 || load.rows <= 0) return 0;
    const double nd = static_cast<double>(n);
    // vLLM's Triton fused_moe under expert parallelism (precision.all_pairs; fused_experts_impl and
    // fused_moe_kernel, vllm/model_executor/layers/fused_moe/fused_moe.py): moe_align_block_size sorts every pair
    // of the layer into blocks, the other ranks' experts mapped to -1, and the kernel's grid covers all of them;
    // a block of another rank's expert writes zeros over its rows of the GEMM's output (write_zeros_to_output),
    // and the activation (silu_and_mul over intermediate_cache1) and the top-k sum (moe_sum over
    // intermediate_cache3) run over every pair's row. Elsewhere the passes cover the rank's own rows.
    // vLLM's Marlin MoE (precision.marlin; _fused_marlin_moe, vllm/model_executor/layers/fused_moe/
    // fused_marlin_moe.py) under expert parallelism: its GEMMs skip the other ranks' blocks (moe_align_block_size
    // with ignore_invalid_experts), but the activation runs over the whole intermediate_cache1 (M x topk rows),
    // the down GEMM's output is zeroed over every pair's row first (`output.zero_()` when an expert_map is given)
    // and the top-k sum (torch.sum over moe_output.view(-1, topk, K)) reads every pair's row.
    const bool marlin_ep = precision.marlin_all_pairs && load.pairs > load.rows;
    const double passed = precision.all_pairs || marlin_ep ? std::max(load.rows, load.pairs) : load.rows;
    const double zeros = marlin_ep ? (down ? passed * 2.0 * nd : 0.0) : (passed - load.rows) * 2.0 * nd;
    // Up: the activation reads gate and up (n) and writes the intermediate (n / 2 gated); down: the weighted sum
    // of the top-k outputs reads every pair's row and writes one row per token (bf16).
    // FlashInfer's CUTLASS MoE permutes before the up GEMM in a kernel of its own (csrc/fused_moe/cutlass_backend/
    // cutlass_fused_moe_kernels.cuh, expandInputRowsKernel: one CTA per routed pair of the rank, the token's row read
    // and written in expert order, quantised on the way where the GEMM runs FP8 / NVFP4), and un-permutes after
    // the down GEMM (finalizeMoeRoutingKernel: the top-k weighted sum above). Neither is divided by MoE TP: every TP
    // rank passes over every pair's full hidden row; EP divides them.
    const double permute =
        precision.expands_rows && !down ? load.rows * static_cast<double>(k) * (2.0 + precision.a_bytes) : 0.0;
    const double finalized = precision.finalize_all_pairs ? std::max(passed, load.pairs) : passed;
    const double elementwise =
        permute + zeros +
        (down ? finalized * 2.0 * nd + tokens * 2.0 * nd : passed * (2.0 * nd + 2.0 * (gated ? nd / 2 : nd)));
    return (overhead ? gpu.moe_overhead_us : 0.0) + grouped_gemm_us(gpu, precision, load, k, n, weight_bytes_per_us) +
           elementwise / bandwidth_bytes_per_us(gpu);
}

}  // namespace

double fused_moe_projection_us(const gpu::GpuProfile& gpu, const GemmPrecision& precision, const MoeLoad& load,
                               double tokens, int64_t k, int64_t n, bool down, bool gated, bool overhead) {
    // The step's experts are cold: every other layer's weights pass through the L2 between two calls of a layer.
    return projection_us(gpu, precision, load, tokens, k, n, down, gated, overhead, bandwidth_bytes_per_us(gpu));
}

double fused_moe_us(const gpu::GpuProfile& gpu, const MoeShape& s, const MoeLoad& load) {
    if (s.tokens <= 0 || s.tp <= 0 || load.rows <= 0) return 0;
    GemmPrecision p = moe_precision(gpu, s.format, s.fp8_activations);
    if (s.marlin && p.b_bytes < 1 && p.a_bytes >= 2) {
        // The row ran vLLM's Marlin MoE (MoeShape::marlin), not the format's default kernel: Blackwell's MXFP4 x BF16
        // default is TRT-LLM-gen, whose token tiles and rate (moe_mxfp4_gemm_efficiency) are not Marlin's, which
        // keeps mma.sync's 16 rows on M (as moe_runs_marlin's formats do) and moe_gemm_efficiency; under EP its
        // elementwise passes cover every pair (GemmPrecision::marlin_all_pairs).
        p.marlin = true;
        p.marlin_all_pairs = true;
        p.tokens_on_mma_n = 0;
        p.mxfp4_weights = false;
    }
    if (s.cutlass && p.tokens_on_mma_n > 0) {
        // FlashInfer's CUTLASS MoE in place of TRT-LLM-gen's (MoeShape::cutlass): tokens on M, its permute pass.
        p.tokens_on_mma_n = 0;
        p.mxfp4_weights = false;
        p.expands_rows = true;
        // Untuned, as on Hopper (moe_runs_cutlass_fallback): the benchmark's call runs tactic 0, the first of
        // FlashInfer's SM100 grouped candidates (csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/
        // cutlass_heuristic.cpp, get_candidate_configs_sm100_dynamic_cluster_shape: CtaShape128x128x128B on one SM
        // for BF16 and FP8, CtaShape128x64x128B for FP4 on SM100), swap_ab off: 128 tokens on tcgen05's M, every
        // expert's rows padded to 128 whatever the batch.
        p.fallback_tile = p.a_bytes < 1 ? kBlackwellFp4FallbackColumns : kBlackwellFallbackColumns;
    }
    if (moe_runs_cutlass_fallback(gpu, s.format, s.cutlass)) {
        use_cutlass_fallback_tile(p);
    } else if (moe_runs_cutlass_sm90(gpu, s.format, s.cutlass)) {
        use_cutlass_sm90_tiles(p);
    }
    // FlashInfer's MoE on Blackwell (TRT-LLM-gen, monolithic or modular, and CUTLASS) costs under expert parallelism
    // what a pass reading every pair's down output row of the layer costs, the other ranks' pairs too
    // (GemmPrecision::finalize_all_pairs): B200's kernel files, at 16,384 balanced tokens, measure 0.2-0.4 ps per
    // (pair x hidden) that EP does not divide, on every format and both kernels (docs/kernel-families.md, "the
    // per-pair floor"). Which kernel pays it is not found: TRT-LLM-gen's finalize (trtllm_fused_moe_dev_kernel.cu,
    // finalizeKernelVecLoad) and CUTLASS's (finalizeMoeRoutingKernel) skip the other ranks' pairs; TRT-LLM-gen's
    // grouped GEMMs launch a grid sized from every pair (Routing::getMaxNumCtasInBatchDim(numTokens, topK, ...),
    // the CTAs past numNonExitingCtas exiting at once), which CUTLASS's do not. Kernel rows only: the step's experts
    // keep the rank's own pairs.
    if (!p.marlin && moe_runs_trtllm_gen(gpu, s.format)) p.finalize_all_pairs = true;
    const MoeWeightPadding pad = moe_weight_padding(gpu, s.format, s.cutlass, s.marlin);
    const int64_t inter = pad.padded_inter((s.inter + s.tp - 1) / s.tp);
    const int64_t hidden = pad.padded_hidden(s.hidden);
    const int64_t up = (s.gated ? 2 : 1) * inter;
    // A kernel benchmark calls the layer again and again with the same routing: the active experts' weights of
    // both GEMMs, where they fit the L2, are L2 hits (warm), as GDN's decode states are (l2_hit_bytes_per_us).
    const double footprint =
        load.active_experts() * static_cast<double>(hidden) * static_cast<double>(up + inter) * p.b_bytes;
    const double hit = l2_hit_bytes_per_us(gpu, footprint, Buffers::warm);
    const double stream = gpu.moe_weight_stream_efficiency > 0
                              ? gpu.streaming_bandwidth_gbs() * 1e3 * gpu.moe_weight_stream_efficiency
                              : bandwidth_bytes_per_us(gpu);
    const double weights = std::max(hit, stream);
    return projection_us(gpu, p, load, s.tokens, hidden, up, false, s.gated, true, weights) +
           projection_us(gpu, p, load, s.tokens, inter, hidden, true, s.gated, false, weights);
}

double fused_moe_us(const gpu::GpuProfile& gpu, const MoeShape& s) {
    return fused_moe_us(gpu, s, moe_rank_load(s));
}

int64_t sparse_mla_heads(const gpu::GpuProfile& gpu, int64_t heads) {
    const int64_t block = gpu.architecture == gpu::Architecture::blackwell ? 128 : 64;
    return (heads + block - 1) / block * block;
}

double sparse_prefill_gather_us(const gpu::GpuProfile& gpu, int64_t padded_heads, int64_t latent, double pairs) {
    if (pairs <= 0) return 0;
    const double block = gpu.architecture == gpu::Architecture::blackwell ? 128.0 : 64.0;
    const double gathered = pairs * static_cast<double>(latent) * 2.0 * static_cast<double>(padded_heads) / block;
    return gpu.attention_launch_us + gathered / bandwidth_bytes_per_us(gpu);
}

namespace {

// vLLM's FlashMLA sparse backend: below this many heads per rank an FP8 cache's prefill runs the FP8 decode kernel
// (mixed batch mode) instead of upconverting the cache for the BF16 prefill kernel.
constexpr int64_t kMinHeadsForBf16SparsePrefill = 32;

// The (query, key) pairs a sparse prefill of `n` tokens after `c` cached reads: query at position p reads min(p, k).
double sparse_pairs(double c, double n, double k) {
    auto pairs_up_to = [k](double pos) {  // sum over positions 1..pos of min(position, k)
        return pos <= k ? pos * (pos + 1) / 2 : k * (k + 1) / 2 + (pos - k) * k;
    };
    return pairs_up_to(c + n) - pairs_up_to(c);
}

// vLLM pads the MLA prefill's V to Q/K's head dim where the kernel takes one head dim for all three (FlashAttention
// 2: Ampere, Ada); FA3 on Hopper and FA4 take 192/128 as they are (MLACommonImpl._pad_v,
// vllm/v1/attention/backends/mla/common.py).
bool pads_v(const gpu::GpuProfile& gpu) {
    return gpu.attention_kernel == gpu::AttentionKernel::fa2;
}

// The copies around a V-padding prefill kernel (MLACommonImpl._flash_attn_varlen_diff_headdims and
// _forward_prefill, vllm/v1/attention/backends/mla/common.py): torch.nn.functional.pad writes every key's V per
// head at Q/K's width (reads v, writes nope + rope), and the output, sliced back to v (`output[..., :v]`), is no
// longer contiguous, so its `flatten` copies it (reads and writes v per query and head). bf16 throughout.
double padded_v_copies_bytes(const MlaShape& s, double keys, double queries) {
    const double heads = static_cast<double>(s.heads), v = static_cast<double>(s.v);
    return keys * heads * 2.0 * (v + static_cast<double>(s.nope + s.rope)) + queries * heads * 2.0 * (2.0 * v);
}

// The attention kernel proper: absorbed decode over the latent, or MHA prefill over up-projected K/V.
double mla_core_us(const gpu::GpuProfile& gpu, const MlaShape& s_in, const MlaBatch& b) {
    if (b.batch <= 0) return 0;
    MlaShape s = s_in;
    if (s.index_topk > 0) s.heads = sparse_mla_heads(gpu, s.heads);
    const double kv_element = s.fp8_kv ? 1.0 : 2.0;
    const double latent = static_cast<double>(s.kv_lora + s.rope) * kv_element;
    const double peak = gpu.peak_bf16_tflops * 1e12;
    const double batch = static_cast<double>(b.batch);
    if (b.decode) {
        // Absorbed: every head's query against the shared latent (kv_lora + rope), values kv_lora wide.
        // A request of n > 1 queries (a small prefill on the decode path) reads its cached keys plus, causally,
        // the new ones up to each query's own: n c + n (n + 1) / 2 pairs, c + (n + 1) / 2 keys per query.
        AttentionGeometry g{s.heads, 1, s.kv_lora + s.rope, s.kv_lora, latent, 2.0};
        const double n = static_cast<double>(std::max<int64_t>(b.new_tokens, 1));
        double keys = static_cast<double>(b.cached) + (n + 1) / 2;
        if (s.index_topk > 0) keys = std::min(keys, static_cast<double>(s.index_topk));
        return decode_attention_us(gpu, g, peak, DecodeWork{batch, batch * keys, n});
    }
    // Prefill: K and V up-projected per head (nope + rope, v), attention as MHA. DSA's sparse prefill kernel
    // (FlashMLA sparse) runs absorbed, as decode does: every head against the latent of its selected keys.
    // FlashAttention 2 (Ampere, Ada) takes one head dim for Q, K and V: vLLM pads V with zeros to the 192 of Q/K
    // (MLACommonImpl._pad_v and _flash_attn_varlen_diff_headdims, vllm/v1/attention/backends/mla/common.py: FA3 on
    // Hopper and FA4 take 192/128 as they are), so the kernel does the P.V products at 192.
    const bool absorbed = s.index_topk > 0;
    if (absorbed && s.fp8_kv && s_in.heads < kMinHeadsForBf16SparsePrefill) {
        // vLLM's FlashMLA sparse backend on an FP8 cache at few heads per rank (fewer than
        // MIN_HEADS_FOR_BF16_PREFILL = 32, vllm/v1/attention/backends/mla/flashmla_sparse.py, "mixed batch mode")
        // runs every prefill token through the FP8 sparse decode kernel (flash_mla_with_kvcache with indices), heads
        // padded to 64: each token a decode query that walks its whole top-k index list (the -1 slots of a short
        // context included), so the cost is per token, flat in the context (H100 h=1: 1.1 us per token at 16
        // tokens of context, 1.25 us at 32768). Blackwell's kernel stops at each query's valid keys: its rows cost
        // what the keys read cost (B200 h=8, 32768 tokens of 128: 8.9 ms, against 8.3 ms with a BF16 cache).
        // The Hopper FP8 kernel dequantizes every gathered key in the kernel: FlashMLA publishes 410 TFLOP/s for it
        // against 640 for the BF16 sparse prefill (H800; github.com/deepseek-ai/FlashMLA README), so its
        // efficiency is 0.64 of the prefill kernel's (0.9 x 0.64 = 0.58, H100's train half's best).
        AttentionGeometry dg{std::max<int64_t>(64, s_in.heads), 1, s.kv_lora + s.rope, s.kv_lora, latent, 2.0};
        const double queries = batch * static_cast<double>(b.new_tokens);
        double keys = queries * static_cast<double>(s.index_topk);
        if (gpu.architecture == gpu::Architecture::blackwell) {
            keys = batch * sparse_pairs(static_cast<double>(b.cached), static_cast<double>(b.new_tokens),
                                        static_cast<double>(s.index_topk));
        }
        return decode_attention_us(gpu, dg, peak, DecodeWork{queries, keys}) / gpu.dsa_fp8_decode_efficiency;
    }
    const int64_t d_qk = s.nope + s.rope;
    const int64_t d_v = pads_v(gpu) ? d_qk : s.v;
    AttentionGeometry g = absorbed ? AttentionGeometry{s.heads, 1, s.kv_lora + s.rope, s.kv_lora, latent, 2.0}
                                   : AttentionGeometry{s.heads, s.heads, d_qk, d_v, latent, 2.0};
    PrefillWork one;
    add_prefill_chunk(gpu, g, one, b.new_tokens, b.cached);
    PrefillWork work;
    work.add_copies(one, batch);
    double t = prefill_attention_us(gpu, g, peak, work);
    if (s.index_topk > 0) {
        // Sparse: each query reads at most index_topk keys: the dense causal time scaled by the pairs read.
        const double n = static_cast<double>(b.new_tokens), c = static_cast<double>(b.cached);
        const double dense = (c + n) * (c + n + 1) / 2 - c * (c + 1) / 2;
        const double sparse = sparse_pairs(c, n, static_cast<double>(s.index_topk));
        if (dense > 0) t *= sparse / dense / gpu.dsa_sparse_prefill_efficiency;
        t = std::max(t, sparse_prefill_gather_us(gpu, s.heads, s.kv_lora + s.rope, batch * sparse));
    }
    return t;
}

// The attention backend's per-head products around the kernel: decode absorbs W_UK into the query and W_UV out
// of the latent (batched per head, BF16 in vLLM); prefill up-projects the latent of every key to K and V (kv_b).
double mla_head_products_us(const gpu::GpuProfile& gpu, const GemmPrecision& p, const MlaShape& s, const MlaBatch& b) {
    const double tokens = static_cast<double>(b.batch * std::max<int64_t>(b.new_tokens, 1));
    if (b.decode || s.index_topk > 0) {
        const GemmPrecision bf16 = bf16_gemm(gpu);
        return gemm_us(gpu, bf16, tokens, s.nope, s.heads * s.kv_lora) +
               gemm_us(gpu, bf16, tokens, s.kv_lora, s.heads * s.v);
    }
    // Not absorbed: kv_b up-projects every key's latent, then the backend assembles K = cat(k_nope, k_pe) per head
    // for the attention kernel (vLLM MLACommonImpl._forward_prefill, vllm/v1/attention/backends/mla/common.py: a
    // copy that reads k_nope, broadcasts k_pe and writes K, bf16).
    const double keys = static_cast<double>(b.batch * (b.new_tokens + b.cached));
    double assembly = keys * (static_cast<double>(s.heads * (2 * s.nope + 2 * (s.nope + s.rope))) +
                              2.0 * static_cast<double>(s.rope));
    if (pads_v(gpu)) assembly += padded_v_copies_bytes(s, keys, static_cast<double>(b.batch * b.new_tokens));
    return gemm_us(gpu, p, keys, s.kv_lora, s.heads * (s.nope + s.v)) + assembly / bandwidth_bytes_per_us(gpu);
}

}  // namespace

namespace {

// vLLM's dense MLA backends (FlashAttention / FlashInfer / Triton MLA) split a batch at reorder_batch_threshold = 1
// (vllm/v1/attention/backends/mla/common.py, split_decodes_and_prefills): a request with one new token runs the
// absorbed decode path over its cached keys plus the new one, whatever the benchmark calls it (the context files'
// isl=1 rows: 256 one-token requests on 128 heads measured 382 us, timed 1,432 us as MHA prefill). The sparse
// backend (DSA) keeps its prefill path: its isl=1 rows take its 1.3 ms prefill setup.
// Backends that take several query tokens per request on that path (FlashAttention MLA: QueryLenSupport.VARLEN,
// reorder_batch_threshold 512, vllm/v1/attention/backends/mla/flashattn_mla.py; FlashMLA: UNIFORM, 128,
// flashmla.py; "process small prefills with decode pathway") send every request of up to
// `decode_path_max_tokens` new tokens there too: its queries against the latent, causal among themselves.
MlaBatch as_run(const MlaShape& s, MlaBatch b) {
    const int64_t max_tokens = std::max<int64_t>(s.decode_path_max_tokens, 1);
    if (!b.decode && b.new_tokens >= 1 && b.new_tokens <= max_tokens && s.index_topk == 0) b.decode = true;
    return b;
}

}  // namespace

double mla_attention_us(const gpu::GpuProfile& gpu, const MlaShape& s, const MlaBatch& asked) {
    const MlaBatch b = as_run(s, asked);
    if (b.batch <= 0) return 0;
    // What a benchmark of the backend's forward times: its per-head products, the kernel and the module's small
    // kernels (the q/k split and concatenation, rotary, cache write).
    const double backend =
        gpu.mla_backend_overhead_us + (s.flashmla && b.decode ? gpu.flashmla_decode_overhead_us : 0.0);
    // The forward is issued eagerly by the host: its kernels run while the host issues the rest, so they hide
    // under its host time (mla_backend_host_us) and the call takes the longer of the two (L40S: ~300 us flat at
    // every short input, then the kernels' growth with no step; docs/kernel-families.md, "MLA kernel files").
    const double kernels = mla_head_products_us(gpu, bf16_gemm(gpu), s, b) + mla_core_us(gpu, s, b);
    return backend + std::max(gpu.mla_backend_host_us, kernels);
}

namespace {

// The DSA module's quantizable projections: fused q_a / kv_a, q_b, o_proj, and the indexer's wq_b and wk.
constexpr double kDsaProjections = 5;

// DSA prefill: the measured module takes 1.2-1.3 ms at every short input (H100 and B200, 1 to 128 heads, 1 to
// 4096 tokens) and then grows with the kernels' work from there, with no step at the crossing (H100 h=1 BF16 cache:
// 1.33 ms flat up to 4096 tokens, then 0.27 us per token): the prefill path's host work (vLLM's indexer and
// FlashMLA sparse metadata: the prefill chunks split on the CPU from the sequence lengths, copied to the GPU, and
// DeepGEMM's scheduling metadata) is a floor the kernels hide behind, not a cost added to them.
// A quantized module (block-FP8, NVFP4) raises the floor by its projections' activation quantization ops, run
// eagerly before each of its quantized GEMMs (H100 floors: 1.27 ms BF16, 1.57 ms block-FP8; B200 1.18 / 1.46 ms).
// An NVFP4 projection costs the host about three times a block-FP8 one (B200 floor 2.1 ms: vLLM's ModelOpt NVFP4
// linear, modelopt.py, runs scaled_fp4_quant, which also lays out the swizzled block scales, then FlashInfer's
// mm_fp4 / CUTLASS FP4 GEMM through its Python dispatch): dsa_nvfp4_projection_host_us per projection. An FP8
// latent cache (fp8_ds_mla) raises the floor by dsa_fp8_cache_host_us whatever the heads (B200 +0.23 ms, H100
// +0.04 ms, train halves): flashmla_sparse.py builds its FP8 metadata on that path (the mixed batch's FlashMLA
// scheduler metadata below 32 heads, the prefill chunks' block tables and workspace offsets for the upconvert at
// 32+), none of which a BF16 cache needs. Which host op dominates was not profiled; the constants carry it.
double dsa_prefill_floor_us(const gpu::GpuProfile& gpu, const MlaShape& s, double kernels_us) {
    double floor = gpu.dsa_prefill_overhead_us;
    if (s.gemm == config::WeightFormat::nvfp4)
        floor += kDsaProjections * gpu.dsa_nvfp4_projection_host_us;
    else if (module_precision(gpu, s.gemm).a_bytes < 2)
        floor += kDsaProjections * gpu.dsa_quant_projection_host_us;
    if (s.fp8_kv) floor += gpu.dsa_fp8_cache_host_us;
    return std::max(floor, kernels_us);
}

}  // namespace

double mla_module_us(const gpu::GpuProfile& cold_gpu, const MlaShape& s, const MlaBatch& asked) {
    const MlaBatch b = as_run(s, asked);
    if (b.batch <= 0) return 0;
    const GemmPrecision p = module_precision(cold_gpu, s.gemm);
    // The benchmark replays the module under one CUDA graph on the same weights and latent cache: where the decode
    // module's projection weights and cache fit the L2 they stream from it (stream_hit_bytes_per_us), as the
    // benchmark's prefill conv does (L40S BF16 h=8 b=4: 99-137 us up to 8,192 cached keys, ~88 MB; 265 us at
    // 16,384, 126 MB).
    gpu::GpuProfile gpu = cold_gpu;
    if (b.decode && s.index_heads == 0) {
        const double hd = static_cast<double>(s.heads);
        const double weights =
            p.b_bytes * (static_cast<double>(s.hidden) * static_cast<double>(s.q_lora + s.kv_lora + s.rope) +
                         static_cast<double>(s.q_lora) * hd * static_cast<double>(s.nope + s.rope) +
                         hd * static_cast<double>(s.v) * static_cast<double>(s.hidden)) +
            2.0 * hd * static_cast<double>(s.kv_lora) * static_cast<double>(s.nope + s.v);
        const double cache = static_cast<double>(b.batch) * static_cast<double>(b.cached + 1) *
                             static_cast<double>(s.kv_lora + s.rope) * (s.fp8_kv ? 1.0 : 2.0);
        const double hit = stream_hit_bytes_per_us(cold_gpu, weights + cache, Buffers::warm);
        if (hit > 0) gpu.gpu_memory_bandwidth_gbs = hit / 1e3 / cold_gpu.memory_efficiency;
    }
    const double tokens = static_cast<double>(b.batch * std::max<int64_t>(b.new_tokens, 1));
    const int64_t d_qk = s.nope + s.rope;
    double t = gpu.mla_module_overhead_us;
    if (s.q_lora > 0) {
        t += gemm_us(gpu, p, tokens, s.hidden, s.q_lora + s.kv_lora + s.rope);  // fused q_a and kv_a
        t += gemm_us(gpu, p, tokens, s.q_lora, s.heads * d_qk);
    } else {
        t += gemm_us(gpu, p, tokens, s.hidden, s.heads * d_qk);
        t += gemm_us(gpu, p, tokens, s.hidden, s.kv_lora + s.rope);
    }
    t += mla_head_products_us(gpu, p, s, b);
    t += gemm_us(gpu, p, tokens, s.heads * s.v, s.hidden);
    if (s.index_heads > 0) {
        const int64_t q_in = s.q_lora > 0 ? s.q_lora : s.hidden;
        t += gemm_us(gpu, p, tokens, q_in, s.index_heads * s.index_dim);
        t += gemm_us(gpu, p, tokens, s.hidden, s.index_dim + s.index_heads);
        IndexerGeometry ig{s.index_heads, s.index_dim, static_cast<double>(s.index_dim) + 4.0};
        const double batch = static_cast<double>(b.batch);
        IndexerWork w;
        t += gpu.dsa_decode_overhead_us;
        if (b.decode) {
            w = {batch, batch * static_cast<double>(b.cached + 1), batch * static_cast<double>(b.cached + 1)};
        } else {
            const double n = static_cast<double>(b.new_tokens), c = static_cast<double>(b.cached);
            w = {batch * n, batch * (n * c + n * (n + 1) / 2), batch * (c + n)};
        }
        const double peak = (gpu.has_fp8() ? gpu.peak_fp8_tflops : gpu.peak_bf16_tflops) * 1e12;
        t += indexer_us(gpu, ig, peak, w);
        if (!b.decode) return dsa_prefill_floor_us(gpu, s, t + mla_core_us(gpu, s, b));
    }
    return t + mla_core_us(gpu, s, b);
}

namespace {

// CTAs of 128 threads (Triton's default 4 warps; the CUDA kernel's kNThreads) resident on one SM: its thread
// limit, 2048 from Ampere's A100 and Hopper on, 1536 on Ada (sm_89).
double resident_ctas_per_sm(const gpu::GpuProfile& gpu) {
    return gpu.architecture == gpu::Architecture::ada ? 12.0 : 16.0;
}

// The bandwidth fla's chunked GDN kernels stream memory at: `recurrent_memory_efficiency` of it (Ada: 0.66, its
// Triton kernels' loads, train half; vLLM's Triton conv streams at 590 GB/s of 864 on L40S too), else the
// architecture's.
double recurrent_bytes_per_us(const gpu::GpuProfile& gpu) {
    return gpu.recurrent_memory_efficiency > 0 ? gpu.streaming_bandwidth_gbs() * 1e3 * gpu.recurrent_memory_efficiency
                                               : bandwidth_bytes_per_us(gpu);
}

// The causal depthwise conv over `tokens` tokens of `sequences` sequences: bf16 in and out per token, the weights
// once, the conv state read and written per sequence; its programs (ConvKernel) in waves of the SMs' resident CTAs,
// `recurrent_launch_us` each. Token blocks: vLLM's _causal_conv1d_fwd_kernel, one program per BLOCK_M = 8 tokens
// of a sequence (vllm/v1/attention/backends/mamba_attn.py `_CONV1D_BLOCK_M`) and BLOCK_N = 256 channels. Channel
// CTAs: TensorRT-LLM's causal_conv1d_fwd_kernel, grid (batch, dim) (cpp/tensorrt_llm/kernels/causalConv1d/
// causalConv1d.cu): at short inputs a batch of many sequences is thousands of tiny CTAs (64 Nemotron-H sequences of
// one token, 20480 channels: 1.3 million CTAs, 1.47 ms on H100, where the bytes take 15 us).
double conv_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, double tokens, double sequences,
               ConvKernel kernel, Buffers buffers) {
    const double channels = static_cast<double>(2 * g.key_heads * g.key_dim + g.value_heads * g.value_dim);
    const double taps = static_cast<double>(g.conv_kernel);
    const double bytes = channels * (4.0 * tokens + 2.0 * taps + 4.0 * taps * sequences);
    const bool ctas = kernel == ConvKernel::channel_ctas;
    // TensorRT-LLM's conv runs in place (causalConv1dFwd: `out = x`, cpp/tensorrt_llm/thop/causalConv1dOp.cpp), so
    // what must stay in the L2 between calls is the input alone; vLLM's Triton conv writes a separate `out`
    // (causal_conv1d_fn, vllm/model_executor/layers/mamba/ops/causal_conv1d.py).
    const double footprint = ctas ? bytes - 2.0 * channels * tokens : bytes;
    const double stream = stream_hit_bytes_per_us(gpu, footprint, buffers);
    const double per_sequence = tokens / std::max(sequences, 1.0);
    const double programs =
        ctas ? sequences * channels : sequences * std::ceil(per_sequence / 8.0) * std::ceil(channels / 256.0);
    const double resident = static_cast<double>(std::max(gpu.sm_count, 1)) * resident_ctas_per_sm(gpu);
    const double waves = std::max(1.0, std::ceil(programs / resident));
    // The CUDA kernel's CTAs have a wave time of their own (`conv_cta_wave_us`), longer where seqlen % 8 != 0: its
    // loads are vectorised only for whole 8-token vectors (kIsVecLoad in causal_conv1d_fwd_launch,
    // cpp/tensorrt_llm/kernels/causalConv1d/causalConv1d.cu), else cub's transposing loads and stores.
    // vLLM's Triton programs walk their tokens (at most BLOCK_M = 8) one after another (`for idx_token in
    // range(segment_len)` in _causal_conv1d_fwd_kernel): `conv_token_latency_us` each, on top of the launch.
    double wave_us = gpu.recurrent_launch_us;
    if (!ctas) wave_us += gpu.conv_token_latency_us * std::min(std::ceil(per_sequence), 8.0);
    if (ctas && gpu.conv_cta_wave_us > 0) {
        const bool aligned = std::fmod(per_sequence, 8.0) == 0;
        wave_us = gpu.conv_cta_wave_us * (aligned ? 1.0 : gpu.conv_unaligned_wave_factor);
    }
    return waves * wave_us + bytes / (stream > 0 ? stream : bandwidth_bytes_per_us(gpu));
}

// The decode conv update: one thread per channel, the conv state read and written. A benchmark's warm buffers
// (the same inputs, outputs and conv states every call) are L2 hits where they fit the L2, as the GDN decode
// states are (scan_us).
double conv_update_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, double requests, Buffers buffers) {
    const double channels = static_cast<double>(2 * g.key_heads * g.key_dim + g.value_heads * g.value_dim);
    const double taps = static_cast<double>(g.conv_kernel);
    const double bytes = channels * (4.0 * requests + 2.0 * taps + 4.0 * taps * requests);
    const double hit = l2_hit_bytes_per_us(gpu, bytes, buffers);
    return gpu.recurrent_launch_us + bytes / (hit > 0 ? hit : bandwidth_bytes_per_us(gpu));
}

// Which chunked prefill kernel vLLM runs: FlashInfer's fused chunk_gated_delta_rule where it is built (compute
// capability 9.0 and 10.x: vLLM's ChunkGatedDeltaRule picks it by default there, gdn_linear_attn.py
// `fi_chunk_gated_delta_rule`), fla's Triton pipeline elsewhere (Ampere, Ada).
bool fused_chunk_prefill(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g) {
    return g.flashinfer_prefill &&
           (gpu.architecture == gpu::Architecture::hopper || gpu.architecture == gpu::Architecture::blackwell);
}

// The fused prefill kernel runs one program per (sequence, value head), which walks its sequence's chunks one after
// another (the state of chunk i feeds chunk i + 1), on one SM. The programs run in waves of the SMs: a batch of
// fewer (sequence, head) pairs than SMs leaves SMs idle, and its time is one program's, flat in the batch and the
// heads (H100: 1 to 128 pairs at 32768 tokens all take 1.50-1.71 ms; 192 and 256 pairs take twice that, 512 four
// times: aic-h100-families). One program: `gdn_prefill_program_us` (its state in and out, the pipeline's fill)
// plus its chunks' FLOPs (a short sequence still computes one whole chunk) at `gdn_chunk_efficiency` of one SM's
// share of the BF16 peak. Every wave takes the longest sequence's chunks: in a step of unequal chunks (`longest`,
// else the mean) it is what a wave waits for, and a step's time never drops when a chunk is added.
double fused_prefill_waves_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g,
                              const LinearAttentionWork& w, double longest) {
    const double sms = static_cast<double>(std::max(gpu.sm_count, 1));
    const double sequences = std::max(w.prefill_sequences, 1.0);
    const double heads = static_cast<double>(std::max<int64_t>(g.value_heads, 1));
    const double chunk = static_cast<double>(std::max<int64_t>(g.chunk, 1));
    const double length = longest > 0 ? longest : w.prefill_tokens / sequences;
    const double chunks = std::ceil(length / chunk);
    const double program_flops = linear_attention_flops(g, LinearAttentionWork{chunks * chunk, 1, 0}) / heads;
    const double sm_flops_per_us = gpu.peak_bf16_tflops * 1e6 / sms * gpu.gdn_chunk_efficiency;
    const double waves = std::ceil(sequences * heads / sms);
    return waves * (gpu.gdn_prefill_program_us + program_flops / sm_flops_per_us);
}

// fla's chunked GDN prefill (Triton; vLLM runs it where FlashInfer's fused kernel is not built: Ampere, Ada):
// chunk_gated_delta_rule_fwd (fla/ops/gated_delta_rule/chunk.py) runs chunk_local_cumsum, chunk_scaled_dot_kkt_fwd,
// solve_tril, recompute_w_u_fwd, chunk_gated_delta_rule_fwd_h and chunk_fwd_o, each writing what the next reads.
// Per token and value head (chunk BT): A = K K^T in fp32 (4 BT written, read), its inverse in bf16 (2 BT written,
// read); k read by four kernels and q by one, w written and read twice (14 dk bytes); v read, u written and read
// twice, v_new written and read, o written (12 dv); the chunk states h in bf16, written and read once per chunk
// (4 dk dv / BT). Per (sequence, value head): the fp32 state in and out (8 dk dv). Where what the kernels hand on
// (half the bytes: one kernel's writes, the next one's reads) fits the L2 it is read there; the rest streams at
// `recurrent_memory_efficiency` of memory (Triton's loads on Ada: 0.66, train half). The FLOPs at
// `gdn_chunk_efficiency` bound it where the bytes are L2 hits; `gdn_pipeline_us` is its launches' fixed time.
double fla_pipeline_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, const LinearAttentionWork& w) {
    const double hv = static_cast<double>(g.value_heads), bt = static_cast<double>(std::max<int64_t>(g.chunk, 1));
    const double dk = static_cast<double>(g.key_dim), dv = static_cast<double>(g.value_dim);
    const double per_token_head = 14 * dk + 12 * dv + 12 * bt + 4 * dk * dv / bt;
    const double bytes = w.prefill_tokens * hv * per_token_head + w.prefill_sequences * hv * 8 * dk * dv;
    const double dram = recurrent_bytes_per_us(gpu);
    const double l2 = std::max(l2_bytes_per_us(gpu), dram);
    const double l2_bytes = gpu.l2_cache_mb * 1024.0 * 1024.0;
    const double hit = bytes > 0 ? std::clamp(2 * l2_bytes / bytes, 0.0, 1.0) : 0;
    const double memory = dram > 0 ? bytes * (hit / l2 + (1 - hit) / dram) : 0;
    const double rate = gpu.peak_bf16_tflops * 1e6 * gpu.gdn_chunk_efficiency;  // FLOPs per us
    const double compute = rate > 0 ? linear_attention_flops(g, w) / rate : 0;
    return gpu.gdn_pipeline_us + std::max(compute, memory);
}

double scan_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, const LinearAttentionWork& w, bool decode,
               Buffers buffers, double longest = 0) {
    const double peak = gpu.peak_bf16_tflops * 1e12;
    const double compute = linear_attention_flops(g, w) / (peak * gpu.gdn_chunk_efficiency) * 1e6;
    const double bytes = linear_attention_bytes(g, w);
    double memory = bytes / bandwidth_bytes_per_us(gpu);
    if (decode) {
        // The fp32 states, read and written once per step: L2 hits when the batch's states fit it (warm buffers).
        const double state = w.decode_requests * static_cast<double>(g.value_heads * g.key_dim * g.value_dim) * 4.0;
        if (const double hit = l2_hit_bytes_per_us(gpu, state, buffers); hit > 0) {
            memory = (bytes - 2.0 * state) / bandwidth_bytes_per_us(gpu) + 2.0 * state / hit;
        }
    }
    if (!decode && fused_chunk_prefill(gpu, g)) {
        // One kernel that keeps its chunks' intermediates on chip: q, k, v in and o out once (bf16), the fp32
        // states in and out once per (sequence, head).
        const double hk = static_cast<double>(g.key_heads), hv = static_cast<double>(g.value_heads);
        const double dk = static_cast<double>(g.key_dim), dv = static_cast<double>(g.value_dim);
        const double io =
            w.prefill_tokens * (2 * hk * dk + 2 * hv * dv) * 2.0 + w.prefill_sequences * hv * dk * dv * 8.0;
        return gpu.recurrent_launch_us +
               std::max(fused_prefill_waves_us(gpu, g, w, longest), io / bandwidth_bytes_per_us(gpu));
    }
    // Gated DeltaNet where FlashInfer's fused kernel is not built: fla's Triton pipeline.
    if (!decode && g.flashinfer_prefill) return fla_pipeline_us(gpu, g, w);
    // Decode: one fused recurrent-update kernel. Prefill: the chunked pipeline's kernels (chunk cumsum, K K^T, the
    // triangular solve and WY representation, the chunk states, the output: fla's chunk_gated_delta_rule).
    const double launches = decode ? 1.0 : 6.0;
    return launches * gpu.recurrent_launch_us + std::max(compute, memory);
}

}  // namespace

double causal_conv_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, int64_t batch, int64_t seq_len,
                      bool decode, ConvKernel kernel) {
    if (batch <= 0 || seq_len <= 0) return 0;
    const double sequences = static_cast<double>(batch);
    if (decode) return conv_update_us(gpu, g, sequences, Buffers::warm);
    return conv_us(gpu, g, sequences * static_cast<double>(seq_len), sequences, kernel, Buffers::warm);
}

double recurrent_scan_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, int64_t batch, int64_t seq_len,
                         bool decode) {
    if (batch <= 0 || seq_len <= 0) return 0;
    const double sequences = static_cast<double>(batch);
    LinearAttentionWork w = decode ? LinearAttentionWork{0, 0, sequences}
                                   : LinearAttentionWork{sequences * static_cast<double>(seq_len), sequences, 0};
    return scan_us(gpu, g, w, decode, Buffers::warm);
}

double recurrent_core_prefill_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, double tokens,
                                 double sequences, double longest) {
    if (tokens <= 0) return 0;
    sequences = std::max(sequences, 1.0);
    return conv_us(gpu, g, tokens, sequences, ConvKernel::token_blocks, Buffers::cold) +
           scan_us(gpu, g, LinearAttentionWork{tokens, sequences, 0}, false, Buffers::cold, longest);
}

double recurrent_core_decode_us(const gpu::GpuProfile& gpu, const LinearAttentionGeometry& g, double requests) {
    if (requests <= 0) return 0;
    return conv_update_us(gpu, g, requests, Buffers::cold) +
           scan_us(gpu, g, LinearAttentionWork{0, 0, requests}, true, Buffers::cold);
}

namespace {

// The time of `bytes` leaving this GPU for the other group - 1 GPUs of its group, each peer getting an equal share:
// over NVLink at `nvlink_bytes_per_us` for the peers of its own domain and, when the group spans NVLink domains,
// through its NIC (network_bandwidth_gbs) for the others, both at once, so the slower path sets it. No latency.
double split_over_fabric_us(const gpu::GpuProfile& gpu, double bytes, int64_t group, double nvlink_bytes_per_us) {
    if (!gpu.spans_domains(group)) return bytes / nvlink_bytes_per_us;
    const double local = static_cast<double>(gpu.nvlink_domain_gpus - 1) / static_cast<double>(group - 1);
    const double over_nvlink = bytes * local / nvlink_bytes_per_us;
    const double over_network = bytes * (1 - local) / (gpu.network_bandwidth_gbs * 1e3);
    return std::max(over_nvlink, over_network);
}

}  // namespace

double deepep_us(const gpu::GpuProfile& gpu, const DeepEpShape& s) {
    if (s.gpus <= 1 || s.tokens <= 0) return 0;
    const double g = static_cast<double>(s.gpus), h = static_cast<double>(s.hidden);
    const double topk = static_cast<double>(s.topk);
    const double link = std::max(gpu.nvlink_bandwidth_gbs / 2, 1e-3) * 1e3;  // one direction, bytes per us
    // Across NVLink domains (deepseek-ai/DeepEP csrc/kernels/internode.cu, internode_ll.cu) what leaves the domain
    // goes through this GPU's NIC while the rest moves over NVLink, both at once, and dispatch and combine each
    // cross the fabric once. Inside one domain every peer is an NVLink peer and nothing changes.
    const bool spans = gpu.spans_domains(s.gpus);
    const double crossing = spans ? 2 * gpu.network_latency_us : 0;
    if (s.low_latency) {
        // One message per (token, expert): FP8 hidden state with a float scale per 128 out, bf16 back. Every
        // message goes straight to its expert's GPU (IBGDA writes; NVLink for peers in the domain), so the experts
        // spread over the GPUs set the shares, as an all-to-all's.
        const double remote = s.tokens * topk * ((h + h / 128 * 4) + 2 * h) * ((g - 1) / g);
        return gpu.deepep_ll_latency_us + crossing +
               split_over_fabric_us(gpu, remote, s.gpus, link * gpu.deepep_ll_efficiency);
    }
    // Normal: one bf16 copy of a token per destination GPU its experts live on, and as much back. Across domains
    // the kernels store and forward: a token crosses the fabric once per other domain that holds one of its
    // experts (to the GPU of its own index there, which forwards it over NVLink), not once per GPU.
    const double ranks = g * (1 - std::pow(1 - 1 / g, topk));
    const double nvlink_bytes = s.tokens * ranks * 2 * h * 2 * ((g - 1) / g);
    const double domains = spans ? g / static_cast<double>(gpu.nvlink_domain_gpus) : 1;
    const double other_domains = (domains - 1) * (1 - std::pow(1 - 1 / domains, topk));
    const double network_bytes = s.tokens * other_domains * 2 * h * 2;
    return gpu.deepep_normal_latency_us + crossing +
           std::max(nvlink_bytes / (link * gpu.deepep_normal_efficiency),
                    network_bytes / (std::max(gpu.network_bandwidth_gbs, 1e-3) * 1e3));
}

}  // namespace mfusim::roofline
