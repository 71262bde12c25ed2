"""Roofline estimate of how long benchmarking one plan item takes, so a run can be fitted to a time budget.

kernel_s = max(flops / (peak * COMPUTE_EFF), bytes / (bandwidth * MEMORY_EFF)) + LAUNCH_S
item_s   = SETUP_S + (warmup + repeats) * (kernel_s + flush_s + SYNC_S)
The constants are deliberately pessimistic: an over-estimate leaves budget unused, an under-estimate overruns.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import gpus, plan_tables
from .grid import PlanItem

COMPUTE_EFF = 0.5  # fraction of the dense peak a kernel is assumed to reach
MEMORY_EFF = 0.6  # fraction of HBM bandwidth
LAUNCH_S = 10e-6  # launch + event overhead per call
SYNC_S = 30e-6  # host synchronisation per timed repeat
SETUP_S = 0.05  # tensor allocation, initialisation and Python overhead per item
FLUSH_BYTES = 256 * 2**20  # the L2 flush buffer written between repeats
BYTES = 2  # bf16 activations, weights and KV cache


@dataclass(frozen=True)
class TimingConfig:
    warmup: int = 3
    repeats: int = 10
    flush_l2: bool = True


def item_flops(item: PlanItem) -> int:
    """FLOPs of one call of the item's kernel (for grouped GEMM: up + down)."""
    return sum(plan_tables.call_flops(item).values())


def active_experts(tokens: int, topk: int, local_experts: int) -> int:
    """Experts that receive a token on one GPU under balanced routing (tokens*topk routed slots)."""
    return max(1, min(local_experts, tokens * topk))


def item_bytes(item: PlanItem) -> int:
    """Bytes one call moves through HBM at least (operands read once, results written once)."""
    p = item.sizes()
    if item.kind == "gemm":
        return BYTES * (p["m"] * p["k"] + p["k"] * p["n"] + p["m"] * p["n"])
    if item.kind == "prefill":
        return BYTES * p["seq_len"] * p["d"] * (2 * p["hq"] + 2 * p["hkv"])
    if item.kind == "decode":
        return BYTES * p["d"] * (2 * p["batch_size"] * p["kv_len"] * p["hkv"] + 2 * p["batch_size"] * p["hq"])
    if item.kind in ("grouped_prefill", "grouped_decode"):
        tokens = plan_tables.tokens(item)
        h, inter = p["hidden_size"], p["intermediate_size"]
        experts = active_experts(tokens, p["topk"], p["num_local_experts"])
        weights = experts * 3 * h * inter
        activations = tokens * p["topk"] * (2 * h + 3 * inter)
        return BYTES * (weights + activations)
    raise ValueError(f"unknown item kind {item.kind!r}")


def kernel_seconds(item: PlanItem, gpu: gpus.GpuSpec) -> float:
    compute = item_flops(item) / (gpu.bf16_tflops * 1e12 * COMPUTE_EFF)
    memory = item_bytes(item) / (gpu.hbm_tbps * 1e12 * MEMORY_EFF)
    return max(compute, memory) + LAUNCH_S


def item_seconds(item: PlanItem, gpu: gpus.GpuSpec, timing: TimingConfig = TimingConfig()) -> float:
    """Estimated wall time to benchmark ``item`` (set-up, warm-up and timed repeats, L2 flushes)."""
    flush = FLUSH_BYTES / (gpu.hbm_tbps * 1e12 * MEMORY_EFF) + LAUNCH_S if timing.flush_l2 else 0.0
    kernels = 2 if item.kind.startswith("grouped") else 1  # up and down are timed separately
    calls = (timing.warmup + timing.repeats) * kernels
    return SETUP_S + calls * (kernel_seconds(item, gpu) / kernels + flush + SYNC_S)
