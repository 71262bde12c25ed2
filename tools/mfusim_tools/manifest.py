"""``manifest.json``: one per table folder (beside the csv files), saying how the tables were measured.

Required keys:
    gpu               name as the driver reports it, e.g. "NVIDIA H100 80GB HBM3"
    gpu_profile       our profile name, e.g. "h100" (see gpus.py)
    peak_tflops       the dense peak the MFU columns were computed against
    peak_dtype        "bf16" or "fp8": which peak that is
    kernel            the kernel(s) measured, e.g. "torch.matmul (cuBLAS)"
    library_versions  dict name -> version
    date              ISO-8601 date of the measurement or import
    harness_version   version of the tool that wrote the tables
    mfu_formula       one sentence: the FLOP count and the MFU definition
    source            "mfusim-bench", "aiconfigurator-import" or "vidur-import"
Other keys are allowed and kept (e.g. "notes", "kernel_by_file").
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import layout

MANIFEST_NAME = "manifest.json"
SOURCES = ("mfusim-bench", "aiconfigurator-import", "vidur-import")
PEAK_DTYPES = ("bf16", "fp8")
REQUIRED: dict[str, type | tuple[type, ...]] = {
    "gpu": str,
    "gpu_profile": str,
    "peak_tflops": (int, float),
    "peak_dtype": str,
    "kernel": str,
    "library_versions": dict,
    "date": str,
    "harness_version": str,
    "mfu_formula": str,
    "source": str,
}


def manifest_problems(data: Any) -> list[str]:
    """Everything wrong with a parsed manifest, as sentences; empty when it is valid."""
    if not isinstance(data, dict):
        return ["manifest is not a JSON object"]
    problems = []
    for key, expected in REQUIRED.items():
        if key not in data:
            problems.append(f"missing key {key!r}")
        elif not isinstance(data[key], expected) or isinstance(data[key], bool):
            problems.append(f"key {key!r} has the wrong type ({type(data[key]).__name__})")
    peak = data.get("peak_tflops")
    if isinstance(peak, (int, float)) and not isinstance(peak, bool) and not (math.isfinite(peak) and peak > 0):
        problems.append(f"peak_tflops must be a positive number, got {peak}")
    if isinstance(data.get("peak_dtype"), str) and data["peak_dtype"] not in PEAK_DTYPES:
        problems.append(f"peak_dtype {data['peak_dtype']!r} is not one of {', '.join(PEAK_DTYPES)}")
    if isinstance(data.get("source"), str) and data["source"] not in SOURCES:
        problems.append(f"source {data['source']!r} is not one of {', '.join(SOURCES)}")
    for key in ("gpu", "gpu_profile", "kernel", "mfu_formula", "date"):
        if isinstance(data.get(key), str) and not data[key].strip():
            problems.append(f"key {key!r} is empty")
    versions = data.get("library_versions")
    if isinstance(versions, dict) and not all(isinstance(v, str) for v in versions.values()):
        problems.append("library_versions values must be strings")
    return problems


def make_manifest(
    *,
    gpu: str,
    gpu_profile: str,
    peak_tflops: float,
    peak_dtype: str,
    kernel: str,
    library_versions: Mapping[str, str],
    date: str,
    harness_version: str,
    mfu_formula: str,
    source: str,
    **extra: Any,
) -> dict[str, Any]:
    """Build a manifest dict and check it; raises ValueError listing the problems."""
    data: dict[str, Any] = {
        "gpu": gpu,
        "gpu_profile": layout.gpu_dir_name(gpu_profile),
        "peak_tflops": peak_tflops,
        "peak_dtype": peak_dtype,
        "kernel": kernel,
        "library_versions": dict(library_versions),
        "date": date,
        "harness_version": harness_version,
        "mfu_formula": mfu_formula,
        "source": source,
        **extra,
    }
    problems = manifest_problems(data)
    if problems:
        raise ValueError("invalid manifest: " + "; ".join(problems))
    return data


def write_manifest(folder: str | Path, data: Mapping[str, Any]) -> Path:
    """Write ``folder/manifest.json`` (validated, keys in a stable order)."""
    problems = manifest_problems(dict(data))
    if problems:
        raise ValueError("invalid manifest: " + "; ".join(problems))
    path = Path(folder) / MANIFEST_NAME
    layout.atomic_write_text(path, json.dumps(dict(data), indent=2, sort_keys=True) + "\n")
    return path


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """Read and check ``folder/manifest.json``; raises FileNotFoundError or ValueError."""
    path = Path(folder) / MANIFEST_NAME
    data = json.loads(path.read_text())
    problems = manifest_problems(data)
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    return data
