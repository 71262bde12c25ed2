"""The run plan: which kernel shapes to benchmark, derived from the models in ``models.py`` at TP 1/2/4/8.

Each ``PlanItem`` is one measurement (one row of one table). Items carry a priority tier so a time budget
keeps a coarse grid of everything before it refines any axis:
    tier 0  core points (a sparse sub-grid of every table)
    tier 1  the other powers of two
    tier 2  the in-between points (1.5 x a power of two)
Within a tier, kinds are interleaved in proportion to their counts, so a budget that ends inside a tier leaves
every kind about equally advanced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from . import models as catalog

POW2_M = tuple(2**i for i in range(16))  # 1 .. 32768
MID_M = tuple(3 * 2**i for i in range(3, 14))  # 24 .. 24576
CORE_M = frozenset({1, 16, 128, 1024, 8192, 32768})

POW2_SEQ = tuple(2**i for i in range(7, 16))  # 128 .. 32768
MID_SEQ = (1536, 3072, 6144, 12288, 24576)
CORE_SEQ = frozenset({1024, 4096, 16384})

DECODE_BATCH = tuple(2**i for i in range(10))  # 1 .. 512
DECODE_KV = tuple(2**i for i in range(7, 18))  # 128 .. 131072
CORE_BATCH = frozenset({1, 16, 128})
CORE_KV = frozenset({1024, 8192, 65536})

GROUPED_SEQ = tuple(2**i for i in range(7, 15))  # 128 .. 16384 tokens per GPU
GROUPED_BATCH = tuple(2**i for i in range(10))  # 1 .. 512 tokens per GPU
CORE_GROUPED = frozenset({1, 16, 128, 1024, 4096, 16384})

KIND_RANK = {"gemm": 0, "decode": 1, "prefill": 2, "grouped_decode": 3, "grouped_prefill": 4}


@dataclass(frozen=True)
class PlanItem:
    """One measurement. ``params`` is an ordered tuple of (name, value); ``id`` is unique and stable."""

    kind: str
    params: tuple[tuple[str, int | str], ...]
    tier: int
    sources: tuple[str, ...] = field(default=(), compare=False)

    @property
    def id(self) -> str:
        return self.kind + ":" + ",".join(f"{k}={v}" for k, v in self.params)

    def __getitem__(self, name: str) -> int | str:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(name)

    def sizes(self) -> dict[str, int]:
        """The integer parameters (every one but kv_dtype)."""
        return {key: value for key, value in self.params if isinstance(value, int)}

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "kind": self.kind, "params": dict(self.params), "tier": self.tier,
                "sources": list(self.sources)}

    @staticmethod
    def from_dict(data: dict) -> PlanItem:
        return PlanItem(data["kind"], tuple(data["params"].items()), int(data["tier"]), tuple(data.get("sources", ())))


@dataclass(frozen=True)
class GridOptions:
    models: tuple[str, ...] = tuple(catalog.MODELS)
    tp_degrees: tuple[int, ...] = catalog.TP_DEGREES
    kinds: tuple[str, ...] = ("gemm", "prefill", "decode", "grouped")
    max_decode_tokens: int = 1 << 22  # batch_size * kv_len cap (as InferSim's grid)
    max_decode_kv_gib: float = 24.0  # cap on the K+V cache one decode item allocates
    kv_bytes: int = 2  # bf16 KV cache


def _tier(*axes: tuple[int, frozenset[int], Iterable[int]]) -> int:
    """0 if every value is a core point, 2 if any is an in-between point, else 1."""
    if any(v in mids for v, _, mids in axes):
        return 2
    return 0 if all(v in core for v, core, _ in axes) else 1


def gemm_items(split: catalog.Split) -> list[PlanItem]:
    items = []
    for proj, (k, n) in split.gemms().items():
        for m in POW2_M + MID_M:
            tier = _tier((m, CORE_M, MID_M))
            items.append(PlanItem("gemm", (("m", m), ("k", k), ("n", n)), tier,
                                  (f"{split.model}/tp{split.tp}/{proj}",)))
    return items


def prefill_items(split: catalog.Split) -> list[PlanItem]:
    shape = (("hq", split.heads), ("hkv", split.kv_heads), ("d", split.head_dim))
    return [
        PlanItem("prefill", shape + (("seq_len", s),), _tier((s, CORE_SEQ, MID_SEQ)),
                 (f"{split.model}/tp{split.tp}",))
        for s in POW2_SEQ + MID_SEQ
    ]


def decode_items(split: catalog.Split, options: GridOptions) -> list[PlanItem]:
    shape = (("hq", split.heads), ("hkv", split.kv_heads), ("d", split.head_dim), ("kv_dtype", "bf16"))
    per_token = 2 * split.kv_heads * split.head_dim * options.kv_bytes  # K and V
    items = []
    for b in DECODE_BATCH:
        for kv in DECODE_KV:
            if b * kv > options.max_decode_tokens or b * kv * per_token > options.max_decode_kv_gib * 2**30:
                continue
            tier = _tier((b, CORE_BATCH, ()), (kv, CORE_KV, ()))
            items.append(PlanItem("decode", shape + (("batch_size", b), ("kv_len", kv)), tier,
                                  (f"{split.model}/tp{split.tp}",)))
    return items


def grouped_keys(model: str, tp_degrees: Iterable[int]) -> list[tuple[str, tuple[tuple[str, int], ...]]]:
    """(mode, key) of each grouped-GEMM table block of a MoE model: EP (experts split) and TP (I split)."""
    m = catalog.MODELS[model]
    experts, topk, h, inter = (int(m[k]) for k in ("experts", "topk", "h", "inter"))
    keys: list[tuple[str, tuple[tuple[str, int], ...]]] = []
    for ws in tp_degrees:
        modes = []
        if experts % ws == 0:
            modes.append(("ep", experts // ws, inter))
        if ws > 1 and inter % ws == 0:
            modes.append(("tp", experts, inter // ws))
        for mode, local, inter_t in modes:
            keys.append((f"{mode}{ws}", (("num_experts", experts), ("num_gpus", ws), ("num_local_experts", local),
                                         ("topk", topk), ("hidden_size", h), ("intermediate_size", inter_t))))
    return keys


def grouped_items(model: str, options: GridOptions) -> list[PlanItem]:
    items = []
    for mode, key in grouped_keys(model, options.tp_degrees):
        for phase, axis, values in (("grouped_prefill", "seq_len_per_gpu", GROUPED_SEQ),
                                    ("grouped_decode", "batch_size_per_gpu", GROUPED_BATCH)):
            for t in values:
                items.append(PlanItem(phase, key + ((axis, t),), 0 if t in CORE_GROUPED else 1,
                                      (f"{model}/{mode}",)))
    return items


def build_plan(options: GridOptions = GridOptions()) -> list[PlanItem]:
    """Every item of the grid, deduplicated (sources merged): by tier, kinds interleaved within a tier."""
    unknown = set(options.kinds) - {"gemm", "prefill", "decode", "grouped"}
    if unknown:
        raise ValueError(f"unknown kinds: {', '.join(sorted(unknown))}")
    generated: list[PlanItem] = []
    for model in options.models:
        for tp in options.tp_degrees:
            split = catalog.split(model, tp)
            if split is None:
                continue
            if "gemm" in options.kinds:
                generated += gemm_items(split)
            if "prefill" in options.kinds:
                generated += prefill_items(split)
            if "decode" in options.kinds:
                generated += decode_items(split, options)
        if "grouped" in options.kinds and catalog.is_moe(model):
            generated += grouped_items(model, options)
    merged: dict[str, PlanItem] = {}
    for item in generated:
        seen = merged.get(item.id)
        if seen is None:
            merged[item.id] = item
        else:
            sources = seen.sources + tuple(s for s in item.sources if s not in seen.sources)
            merged[item.id] = PlanItem(seen.kind, seen.params, min(seen.tier, item.tier), sources)
    return _interleave(list(merged.values()))


def _interleave(items: list[PlanItem]) -> list[PlanItem]:
    """Sort by tier; inside a tier, the i-th of n items of a kind goes at fraction i/n of the tier."""
    counts = Counter((it.tier, it.kind) for it in items)
    seen: Counter = Counter()
    keys = {}
    for it in items:
        group = (it.tier, it.kind)
        keys[it.id] = (it.tier, seen[group] / counts[group], KIND_RANK[it.kind])
        seen[group] += 1
    return sorted(items, key=lambda it: keys[it.id])
