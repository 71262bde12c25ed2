"""Shapes of common models (facts from their Hugging Face config.json files) and their per-GPU split under TP.

Keys: h = hidden_size, heads = num_attention_heads, kv_heads = num_key_value_heads, head_dim, inter =
intermediate_size of the dense FFN (for MoE models: moe_intermediate_size of one expert), experts / topk for
MoE models. ``hf_dir`` names the folder under shared/reference/model_configs the facts were read from.
"""

from __future__ import annotations

from dataclasses import dataclass

MODELS: dict[str, dict[str, int | str]] = {
    "llama-3.1-8b": dict(h=4096, heads=32, kv_heads=8, head_dim=128, inter=14336, hf_dir="llama-3.1-8b-instruct"),
    "llama-3.1-70b": dict(h=8192, heads=64, kv_heads=8, head_dim=128, inter=28672, hf_dir="llama-3.1-70b-instruct"),
    "qwen2.5-7b": dict(h=3584, heads=28, kv_heads=4, head_dim=128, inter=18944, hf_dir="qwen2.5-7b-instruct"),
    "qwen3-14b": dict(h=5120, heads=40, kv_heads=8, head_dim=128, inter=17408, hf_dir="qwen3-14b"),
    "qwen3-30b-a3b": dict(
        h=2048, heads=32, kv_heads=4, head_dim=128, inter=768, experts=128, topk=8, hf_dir="qwen3-30b-a3b"
    ),
    "mixtral-8x7b": dict(
        h=4096, heads=32, kv_heads=8, head_dim=128, inter=14336, experts=8, topk=2, hf_dir="mixtral-8x7b-v0.1"
    ),
    "mistral-nemo": dict(h=5120, heads=32, kv_heads=8, head_dim=128, inter=14336, hf_dir="mistral-nemo-instruct-2407"),
    "yi-34b": dict(h=7168, heads=56, kv_heads=8, head_dim=128, inter=20480, hf_dir="yi-34b"),
    "codellama-34b": dict(h=8192, heads=64, kv_heads=8, head_dim=128, inter=22016, hf_dir="codellama-34b-instruct-hf"),
    "llama-2-7b": dict(h=4096, heads=32, kv_heads=32, head_dim=128, inter=11008, hf_dir="llama-2-7b-hf"),
}

TP_DEGREES = (1, 2, 4, 8)


@dataclass(frozen=True)
class Split:
    """What one GPU runs of a model at tensor-parallel degree ``tp``."""

    model: str
    tp: int
    heads: int  # query heads per GPU
    kv_heads: int  # KV heads per GPU (replicated when tp > kv_heads, as vLLM does)
    head_dim: int
    h: int
    inter: int  # FFN (or per-expert) intermediate size per GPU

    def gemms(self) -> dict[str, tuple[int, int]]:
        """(k, n) of each projection: qkv, o, gate_up (gate and up fused), down."""
        d = self.head_dim
        return {
            "qkv": (self.h, (self.heads + 2 * self.kv_heads) * d),
            "o": (self.heads * d, self.h),
            "gate_up": (self.h, 2 * self.inter),
            "down": (self.inter, self.h),
        }


def split(model: str, tp: int) -> Split | None:
    """The per-GPU split of ``model`` at ``tp``, or None when the model cannot run at that degree.

    Query heads and the intermediate size must divide by tp; KV heads must divide by tp, or tp by them
    (then each GPU keeps one replicated KV head).
    """
    m = MODELS[model]
    heads, kv, inter = int(m["heads"]), int(m["kv_heads"]), int(m["inter"])
    if heads % tp or inter % tp:
        return None
    if kv % tp == 0:
        kv_per_gpu = kv // tp
    elif tp % kv == 0:
        kv_per_gpu = 1
    else:
        return None
    return Split(model, tp, heads // tp, kv_per_gpu, int(m["head_dim"]), int(m["h"]), inter // tp)


def is_moe(model: str) -> bool:
    return "experts" in MODELS[model]
