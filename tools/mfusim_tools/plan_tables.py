"""Where each plan item's measurement lands: its table, its row key, and the row written from a result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import flops, layout
from .grid import PlanItem

_KIND_TO_TABLE = {
    "gemm": "gemm",
    "prefill": "mha_prefill",
    "decode": "mha_decode",
    "grouped_prefill": "grouped_prefill",
    "grouped_decode": "grouped_decode",
}
ATTENTION_DTYPE = "bf16"  # q/k/v dtype of the attention benchmarks


def table_ref(item: PlanItem, gpu: str) -> layout.TableRef:
    kind = _KIND_TO_TABLE[item.kind]
    if kind in ("mha_prefill", "mha_decode"):
        return layout.TableRef(kind, gpu, (int(item["hq"]), int(item["hkv"]), int(item["d"])))
    return layout.TableRef(kind, gpu)


def key_values(item: PlanItem) -> dict[str, Any]:
    """The key columns of the item's row (values the plan fixes before anything is measured)."""
    p = dict(item.params)
    if item.kind == "gemm":
        return {"m": p["m"], "k": p["k"], "n": p["n"]}
    if item.kind == "prefill":
        return {"dtype": ATTENTION_DTYPE, "seq_len": p["seq_len"]}
    if item.kind == "decode":
        return {"dtype": ATTENTION_DTYPE, "kv_dtype": p["kv_dtype"], "batch_size": p["batch_size"],
                "kv_len": p["kv_len"]}
    spec = table_ref(item, "x").spec
    return {c: p[c] for c in spec.key}


def row_key(item: PlanItem) -> tuple:
    """``key_values`` in the table spec's key order, comparable with rows read from a csv file."""
    values = key_values(item)
    return tuple(values[c] for c in table_ref(item, "x").spec.key)


def table_row(item: PlanItem, result: Mapping[str, Any]) -> dict[str, Any]:
    """The csv row of a finished item: its key columns plus the measured columns of ``result``."""
    row = key_values(item)
    spec = table_ref(item, "x").spec
    for column in spec.columns:
        if column not in row:
            row[column] = result[column]
    return row


def tokens(item: PlanItem) -> int:
    """Tokens per GPU of a grouped-GEMM item."""
    return int(item["seq_len_per_gpu"] if item.kind == "grouped_prefill" else item["batch_size_per_gpu"])


def call_flops(item: PlanItem) -> dict[str, int]:
    """FLOPs of each timed call of an item: {"": n} for one kernel, {"up": n, "down": n} for grouped GEMM."""
    p = item.sizes()
    if item.kind == "gemm":
        return {"": flops.gemm_flops(p["m"], p["k"], p["n"])}
    if item.kind == "prefill":
        return {"": flops.prefill_attention_flops(p["seq_len"], p["hq"], p["d"])}
    if item.kind == "decode":
        return {"": flops.decode_attention_flops(p["batch_size"], p["kv_len"], p["hq"], p["d"])}
    if item.kind in ("grouped_prefill", "grouped_decode"):
        args = (tokens(item), p["topk"], p["hidden_size"], p["intermediate_size"])
        return {"up": flops.grouped_up_flops(*args), "down": flops.grouped_down_flops(*args)}
    raise ValueError(f"unknown item kind {item.kind!r}")
