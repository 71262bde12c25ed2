"""Import an AIConfigurator per-GPU performance database (github ai-dynamo/aiconfigurator, systems/data/<gpu>/
<framework>/<version>/) into gemm, mha/prefill and mha/decode tables.

Source files, looked up in SRC by these names (parquet needs pyarrow or pandas):
    gemm_perf.{parquet,txt,csv} | gemm_bf16.csv
        op_name,kernel_source,gemm_dtype,m,n,k,latency       y[m,n] = x[m,k] . W[n,k]^T, latency in ms
    context_attention_perf.{...} | context_attention_bf16.csv
        op_name,kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,beam_width,attn_dtype,
        kv_cache_dtype,step,window_size,latency              causal prefill of batch_size sequences of isl tokens
    generation_attention_perf.{...} | generation_attention_bf16.csv
        same columns                                         one token for each of batch_size sequences with
                                                             step tokens of history (step+1 keys attended)
num_heads / num_key_value_heads are per GPU, so tables are named <hq>-<hkv>-<d>.csv without a TP suffix.

Choices:
* GEMM: AIConfigurator's (m, n, k) is our (m, k, n) with C[m,n] = A[m,k].B[k,n]; only bf16/fp16 rows are taken
  (one gemm folder holds one peak; fp8 GEMMs belong in a separate import).
* Prefill: for each (shape, isl) the row with the **smallest batch_size** is taken (batch 1 wherever the database
  has it, which for H100 is everywhere); when that smallest batch is b > 1, latency_us is the per-sequence share
  latency/b, so the row still describes one sequence of isl tokens. Rows with a cached prefix (step > 0),
  sliding windows or beams are skipped: the table has no axis for them.
* Decode: kv_len = step + 1. Rows with isl != 1, sliding windows or beams are skipped.
* MFU is against the dense peak of the dtype the kernel ran (bf16: 989.4 TFLOP/s on H100 SXM).
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import flops, layout
from . import common, records

SOURCES = {
    "gemm": ("gemm_perf.parquet", "gemm_perf.txt", "gemm_perf.csv", "gemm_bf16.csv", "gemm.csv"),
    "context": ("context_attention_perf.parquet", "context_attention_perf.txt", "context_attention_perf.csv",
                "context_attention_bf16.csv", "context_attention.csv"),
    "generation": ("generation_attention_perf.parquet", "generation_attention_perf.txt",
                   "generation_attention_perf.csv", "generation_attention_bf16.csv", "generation_attention.csv"),
}
SIXTEEN_BIT = ("bf16", "fp16")
NOTES = ("Imported from an AIConfigurator perf database: latency ms -> us; prefill rows are batch-size-1 "
         "(or per-sequence shares of the smallest batch); decode kv_len = step + 1.")


def import_aiconfigurator(
    src: str | Path,
    out: str | Path,
    gpu_profile: str = "h100",
    gpu_name: str | None = None,
    library_versions: Mapping[str, str] | None = None,
) -> common.ImportReport:
    """Convert the database in ``src`` into tables under ``out``; returns what was read, used and written."""
    src, out = Path(src), Path(out)
    gpu = layout.gpu_dir_name(gpu_profile)
    collector = common.RowCollector(gpu)
    report = common.ImportReport()
    found = {kind: records.find_source(src, names) for kind, names in SOURCES.items()}
    if not any(found.values()):
        raise records.SourceError(f"{src}: none of {', '.join(n for names in SOURCES.values() for n in names)}")
    if found["gemm"]:
        report.sources.append(_import_gemm(found["gemm"], collector))
    if found["context"]:
        report.sources.append(_import_context(found["context"], collector))
    if found["generation"]:
        report.sources.append(_import_generation(found["generation"], collector))
    versions = dict(library_versions) if library_versions is not None else _versions_from_path(src)
    manifest = common.base_manifest(gpu, gpu_name, "aiconfigurator-import", versions, NOTES)
    return common.finish(collector, out, manifest, report)


def _versions_from_path(src: Path) -> dict[str, str]:
    """AIConfigurator keeps data under .../<framework>/<version>/; record that when the path shows it."""
    parts = src.resolve().parts
    for framework, version in itertools.pairwise(parts):
        if framework in ("vllm", "sglang", "trtllm") and re.match(r"^\d+\.\d+", version):
            return {framework: version}
    return {}


def _import_gemm(path: Path, collector: common.RowCollector) -> common.SourceStats:
    stats = common.SourceStats(str(path))
    for rec in records.read_records(path):
        stats.read += 1
        try:
            dtype = records.as_dtype(rec["gemm_dtype"])
            m, n, k = (records.as_int(rec[c]) for c in ("m", "n", "k"))
            latency_us = records.as_float(rec["latency"]) * 1000.0
        except (KeyError, ValueError):
            stats.skip("unreadable row (missing column, unknown dtype or bad value)")
            continue
        if dtype not in SIXTEEN_BIT:
            stats.skip(f"gemm dtype {dtype} (only bf16/fp16 imported)")
            continue
        if latency_us <= 0 or min(m, n, k) <= 0:
            stats.skip("non-positive latency or size")
            continue
        ref = layout.TableRef("gemm", collector.gpu)
        collector.add(ref, {"m": m, "k": k, "n": n}, latency_us, flops.gemm_flops(m, k, n),
                      str(rec.get("kernel_source", "gemm")), dtype)
        stats.used += 1
    return stats


def _attention_row(rec: Mapping[str, Any]) -> dict[str, Any]:
    """Typed fields of a context/generation attention record; raises KeyError/ValueError."""
    row: dict[str, Any] = {c: records.as_int(rec[c]) for c in ("batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim",
                                                "step")}
    row["beam_width"] = records.as_int(rec.get("beam_width", 1))
    row["window_size"] = records.as_int(rec.get("window_size", 0))
    row["dtype"] = records.as_dtype(rec["attn_dtype"])
    row["kv_dtype"] = records.as_dtype(rec.get("kv_cache_dtype", rec["attn_dtype"]))
    row["latency_us"] = records.as_float(rec["latency"]) * 1000.0
    row["kernel"] = str(rec.get("kernel_source", "attention"))
    return row


def _read_attention(path: Path, stats: common.SourceStats):
    for rec in records.read_records(path):
        stats.read += 1
        try:
            row = _attention_row(rec)
        except (KeyError, ValueError):
            stats.skip("unreadable row (missing column, unknown dtype or bad value)")
            continue
        if row["dtype"] not in SIXTEEN_BIT:
            stats.skip(f"attention dtype {row['dtype']}")
        elif row["beam_width"] != 1 or row["window_size"] != 0:
            stats.skip("beam search or sliding window")
        elif row["latency_us"] <= 0:
            stats.skip("non-positive latency")
        else:
            yield row


def _import_context(path: Path, collector: common.RowCollector) -> common.SourceStats:
    stats = common.SourceStats(str(path))
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for row in _read_attention(path, stats):
        if row["step"] != 0:
            stats.skip("cached prefix (step > 0)")
            continue
        groups[(row["num_heads"], row["num_key_value_heads"], row["head_dim"], row["dtype"], row["isl"])].append(row)
    for (hq, hkv, d, dtype, isl), rows in groups.items():
        batch = min(r["batch_size"] for r in rows)
        ref = layout.TableRef("mha_prefill", collector.gpu, (hq, hkv, d))
        for row in rows:
            if row["batch_size"] != batch:
                stats.skip("batch_size above the smallest of its shape and isl")
                continue
            collector.add(ref, {"dtype": dtype, "seq_len": isl}, row["latency_us"] / batch,
                          flops.prefill_attention_flops(isl, hq, d), row["kernel"], dtype)
            stats.used += 1
    return stats


def _import_generation(path: Path, collector: common.RowCollector) -> common.SourceStats:
    stats = common.SourceStats(str(path))
    for row in _read_attention(path, stats):
        if row["isl"] != 1:
            stats.skip("more than one new token per sequence")
            continue
        hq, hkv, d = row["num_heads"], row["num_key_value_heads"], row["head_dim"]
        batch, kv_len = row["batch_size"], row["step"] + 1
        ref = layout.TableRef("mha_decode", collector.gpu, (hq, hkv, d))
        key = {"dtype": row["dtype"], "kv_dtype": row["kv_dtype"], "batch_size": batch, "kv_len": kv_len}
        collector.add(ref, key, row["latency_us"], flops.decode_attention_flops(batch, kv_len, hq, d),
                      row["kernel"], row["dtype"])
        stats.used += 1
    return stats
