"""FLOP counts of the benchmarked kernels and the MFU definition.

Conventions (also written into every manifest's ``mfu_formula``):
* a multiply-add counts as 2 FLOPs;
* causal prefill attention counts only the causal half of the score matrix (S*S/2 query-key pairs per head),
  as InferSim's kernel benchmarks do;
* decode attention counts every cached key (one query token per sequence);
* MFU = FLOPs / (latency_s * peak FLOP/s), with the dense peak of the dtype the kernel ran.
"""

from __future__ import annotations


def gemm_flops(m: int, k: int, n: int) -> int:
    """C[m x n] = A[m x k] . B[k x n]: 2*m*k*n."""
    return 2 * m * k * n


def prefill_attention_flops(seq_len: int, num_heads: int, head_dim: int, batch: int = 1) -> int:
    """Causal MHA/GQA prefill: QK^T and PV over the causal half, 4*S*S*hq*d/2 = 2*S^2*hq*d per sequence."""
    return 2 * batch * seq_len * seq_len * num_heads * head_dim


def decode_attention_flops(batch: int, kv_len: int, num_heads: int, head_dim: int) -> int:
    """One query token per sequence against kv_len keys: QK^T and PV, 4*batch*kv_len*hq*d."""
    return 4 * batch * kv_len * num_heads * head_dim


def mla_prefill_flops(
    seq_len: int, num_heads: int, qk_nope_dim: int, rope_dim: int, v_dim: int | None = None, batch: int = 1
) -> int:
    """Causal MLA prefill (non-absorbed): S^2/2 pairs x 2*(d_qk + d_v) per head, d_qk = nope + rope.

    ``v_dim`` defaults to ``qk_nope_dim`` (DeepSeek-V2/V3); the table name ``<H>-<d_nope>-<d_rope>`` holds no d_v.
    """
    v = qk_nope_dim if v_dim is None else v_dim
    return batch * seq_len * seq_len * num_heads * (qk_nope_dim + rope_dim + v)


def mla_decode_flops(batch: int, kv_len: int, num_heads: int, kv_lora_rank: int, rope_dim: int) -> int:
    """Absorbed MLA decode: scores over (r_kv + d_rope) dims, output over r_kv: 2*B*K*H*(2*r_kv + d_rope)."""
    return 2 * batch * kv_len * num_heads * (2 * kv_lora_rank + rope_dim)


def grouped_up_flops(tokens: int, topk: int, hidden: int, intermediate: int) -> int:
    """MoE gate+up projection of ``tokens`` tokens routed to ``topk`` experts each: 2*tokens*topk*h*2*I."""
    return 2 * tokens * topk * hidden * 2 * intermediate


def grouped_down_flops(tokens: int, topk: int, hidden: int, intermediate: int) -> int:
    """MoE down projection: 2*tokens*topk*I*h."""
    return 2 * tokens * topk * intermediate * hidden


def mfu(flops: float, latency_us: float, peak_tflops: float) -> float:
    """Achieved FLOP/s over peak FLOP/s: flops / (latency_s * peak_flops)."""
    if latency_us <= 0:
        raise ValueError(f"latency must be positive, got {latency_us} us")
    if peak_tflops <= 0:
        raise ValueError(f"peak must be positive, got {peak_tflops} TFLOP/s")
    return flops / (latency_us * 1e-6 * peak_tflops * 1e12)


# One sentence per table family, written into the manifest's ``mfu_formula``.
MFU_FORMULAS: dict[str, str] = {
    "gemm": "mfu = 2*m*k*n / (latency_us*1e-6 * peak_tflops*1e12), C[m,n] = A[m,k].B[k,n].",
    "mha_prefill": (
        "mfu = 2*seq_len^2*hq*d / (latency_us*1e-6 * peak_tflops*1e12) per sequence: causal prefill, "
        "QK^T and PV counted over the causal half (4*S*S*hq*d/2); hq is the per-GPU query heads of the file name."
    ),
    "mha_decode": (
        "mfu = 4*batch_size*kv_len*hq*d / (latency_us*1e-6 * peak_tflops*1e12): one query token per sequence "
        "against kv_len cached keys; hq is the per-GPU query heads."
    ),
    "mla_prefill": (
        "mfu = seq_len^2*H*(d_nope + d_rope + d_v) / (latency_us*1e-6 * peak_tflops*1e12): causal half of "
        "non-absorbed MLA prefill with d_v = d_nope; file name <H>-<d_nope>-<d_rope>."
    ),
    "mla_decode": (
        "mfu = 2*batch_size*kv_len*H*(2*kv_lora_rank + d_rope) / (latency_us*1e-6 * peak_tflops*1e12): absorbed "
        "MLA decode; file name <H>-<kv_lora_rank>-<d_rope>."
    ),
    "grouped_gemm": (
        "up_mfu = 2*T*topk*hidden*2*intermediate / (up_proj_us*1e-6 * peak), down_mfu = 2*T*topk*intermediate*hidden"
        " / (down_proj_us*1e-6 * peak), T = tokens per GPU (batch_size_per_gpu or seq_len_per_gpu), "
        "intermediate per GPU after TP, peak = peak_tflops*1e12."
    ),
}
