"""Import Vidur profiling CSVs (github microsoft/vidur, data/profiling/compute/<gpu>/<org>/<model>/) into gemm,
mha/prefill and mha/decode tables. Every ``mlp.csv`` and ``attention.csv`` under SRC is read.

Columns, as written by vidur/profiling/{mlp,attention}/main.py (times are medians in **milliseconds**, flattened
from the timer stats as ``time_stats.<op>.median``):
    mlp.csv        n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,
                   num_tensor_parallel_workers,time_stats.<op>.{min,max,mean,median,std}
    attention.csv  n_embd,n_q_head,n_kv_head,block_size,num_tensor_parallel_workers,max_model_len,batch_size,
                   prefill_chunk_size,kv_cache_size,is_prefill,attention_backend,
                   time_stats.attn_prefill.median, time_stats.attn_decode.median, ...
GEMM shapes of mlp.csv's linear ops (vidur/profiling/mlp/mlp_impl.py; head_dim = n_embd / n_head, tp =
num_tensor_parallel_workers, m = num_tokens):
    attn_pre_proj   k = n_embd,                n = (n_head + 2*n_kv_head)*head_dim / tp
    attn_post_proj  k = n_head*head_dim / tp,  n = n_embd
    mlp_up_proj     k = n_embd,                n = (2 if use_gated_mlp else 1)*n_expanded_embd / tp
    mlp_down_proj   k = n_expanded_embd / tp,  n = n_embd
Attention: per-GPU heads n_q_head/tp and n_kv_head/tp, head_dim = n_embd / n_q_head. Prefill rows with a cached
prefix (kv_cache_size > 0) are skipped (the prefill table has no prefix axis); decode kv_len = kv_cache_size + 1.
Vidur profiles in fp16; fp16 and bf16 share the tensor-core peak and the byte size, so rows are labelled bf16
(as lookups expect) and the manifest says so. Empty or zero times (Vidur writes missing ops as 0.0) are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import flops, layout
from . import common, records

DTYPE = "fp16"  # what Vidur's profilers run (model.to(torch.float16), attention dtype float16)
LABEL = "bf16"  # how rows are labelled in the dtype/kv_dtype columns
GEMM_KERNEL = "torch linear (vidur mlp profiler)"
NOTES = ("Imported from Vidur profiling CSVs: times ms -> us, duplicates merged by median; kernels ran in fp16, "
         "rows labelled bf16 (same peak and bytes); decode kv_len = kv_cache_size + 1.")


def import_vidur(
    src: str | Path,
    out: str | Path,
    gpu_profile: str,
    gpu_name: str | None = None,
    library_versions: Mapping[str, str] | None = None,
) -> common.ImportReport:
    src, out = Path(src), Path(out)
    gpu = layout.gpu_dir_name(gpu_profile)
    collector = common.RowCollector(gpu)
    report = common.ImportReport()
    mlp_files = sorted(src.rglob("mlp.csv"))
    attention_files = sorted(src.rglob("attention.csv"))
    if not mlp_files and not attention_files:
        raise records.SourceError(f"{src}: no mlp.csv or attention.csv found")
    report.sources += [_import_mlp(path, collector) for path in mlp_files]
    report.sources += [_import_attention(path, collector) for path in attention_files]
    manifest = common.base_manifest(gpu, gpu_name, "vidur-import", dict(library_versions or {}), NOTES)
    return common.finish(collector, out, manifest, report)


def gemm_shapes(rec: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """(k, n) per GEMM op of an mlp.csv record, per GPU."""
    heads, kv_heads, h, inter, tp = (records.as_int(rec[c]) for c in (
        "n_head", "n_kv_head", "n_embd", "n_expanded_embd", "num_tensor_parallel_workers"))
    head_dim = h // heads
    up = (2 if records.as_bool(rec.get("use_gated_mlp", True)) else 1) * inter
    return {
        "attn_pre_proj": (h, (heads + 2 * kv_heads) * head_dim // tp),
        "attn_post_proj": (heads * head_dim // tp, h),
        "mlp_up_proj": (h, up // tp),
        "mlp_down_proj": (inter // tp, h),
    }


def _median_us(rec: Mapping[str, Any], op: str) -> float | None:
    try:
        value = records.as_float(rec.get(f"time_stats.{op}.median"))
    except (TypeError, ValueError):
        return None
    return value * 1000.0 if value > 0 else None


def _import_mlp(path: Path, collector: common.RowCollector) -> common.SourceStats:
    stats = common.SourceStats(str(path))
    ref = layout.TableRef("gemm", collector.gpu)
    for rec in records.read_records(path):
        stats.read += 1
        try:
            m = records.as_int(rec["num_tokens"])
            shapes = gemm_shapes(rec)
        except (KeyError, ValueError):
            stats.skip("unreadable row (missing column or bad value)")
            continue
        used = False
        for op, (k, n) in shapes.items():
            latency = _median_us(rec, op)
            if latency is None:
                stats.skip(f"{op}: no time")
                continue
            collector.add(ref, {"m": m, "k": k, "n": n}, latency, flops.gemm_flops(m, k, n), GEMM_KERNEL, DTYPE)
            used = True
        if used:
            stats.used += 1
    return stats


def _import_attention(path: Path, collector: common.RowCollector) -> common.SourceStats:
    stats = common.SourceStats(str(path))
    for rec in records.read_records(path):
        stats.read += 1
        try:
            heads, kv_heads, h, tp, batch, chunk, cached = (records.as_int(rec[c]) for c in (
                "n_q_head", "n_kv_head", "n_embd", "num_tensor_parallel_workers", "batch_size",
                "prefill_chunk_size", "kv_cache_size"))
            is_prefill = records.as_bool(rec["is_prefill"])
        except (KeyError, ValueError):
            stats.skip("unreadable row (missing column or bad value)")
            continue
        hq, hkv, d = heads // tp, max(1, kv_heads // tp), h // heads
        kernel = str(rec.get("attention_backend", "attention")).removeprefix("AttentionBackend.").lower()
        if is_prefill:
            latency = _median_us(rec, "attn_prefill")
            if cached > 0:
                stats.skip("prefill with a cached prefix")
            elif latency is None or batch < 1:
                stats.skip("attn_prefill: no time")
            else:
                ref = layout.TableRef("mha_prefill", collector.gpu, (hq, hkv, d))
                collector.add(ref, {"dtype": LABEL, "seq_len": chunk}, latency / batch,
                              flops.prefill_attention_flops(chunk, hq, d), f"vidur {kernel}", DTYPE)
                stats.used += 1
        else:
            latency = _median_us(rec, "attn_decode")
            if latency is None:
                stats.skip("attn_decode: no time")
            else:
                ref = layout.TableRef("mha_decode", collector.gpu, (hq, hkv, d))
                key = {"dtype": LABEL, "kv_dtype": LABEL, "batch_size": batch, "kv_len": cached + 1}
                collector.add(ref, key, latency, flops.decode_attention_flops(batch, cached + 1, hq, d),
                              f"vidur {kernel}", DTYPE)
                stats.used += 1
    return stats
