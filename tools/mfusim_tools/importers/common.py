"""What every importer shares: collecting latencies per table row, computing MFU, writing, reporting."""

from __future__ import annotations

import datetime
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__, flops, gpus, layout
from ..tableset import TableSet


@dataclass
class SourceStats:
    """Rows read from one source file, how many became table rows, and why the others did not."""

    path: str
    read: int = 0
    used: int = 0
    skipped: Counter = field(default_factory=Counter)

    def skip(self, reason: str) -> None:
        self.skipped[reason] += 1


@dataclass
class ImportReport:
    sources: list[SourceStats] = field(default_factory=list)
    row_counts: dict[str, int] = field(default_factory=dict)  # table path -> rows written
    mfu_ranges: dict[str, tuple[float, float]] = field(default_factory=dict)  # table kind -> (min, max)
    written: list[Path] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)  # table kind -> rows dropped for an MFU above 1

    def lines(self) -> list[str]:
        out = []
        for s in self.sources:
            skipped = ", ".join(f"{reason}: {n}" for reason, n in s.skipped.most_common()) or "none"
            out.append(f"{s.path}: {s.read} rows read, {s.used} used; skipped: {skipped}")
        by_kind: Counter = Counter()
        files: Counter = Counter()
        for table, count in self.row_counts.items():
            kind = layout.classify(table).kind  # type: ignore[union-attr]  # written by us: always a table
            by_kind[kind] += count
            files[kind] += 1
        for kind in sorted(by_kind):
            low, high = self.mfu_ranges[kind]
            dropped = f", {self.dropped[kind]} dropped (mfu > 1)" if self.dropped[kind] else ""
            out.append(f"{kind}: {files[kind]} tables, {by_kind[kind]} rows, mfu {low:.3g} .. {high:.3g}{dropped}")
        return out


class RowCollector:
    """Latency samples per (table, row key); duplicates are merged into their median at the end."""

    def __init__(self, gpu: str):
        self.gpu = gpu
        self._samples: dict[tuple[layout.TableRef, tuple], list[float]] = defaultdict(list)
        self._meta: dict[tuple[layout.TableRef, tuple], tuple[dict[str, Any], int, str, str]] = {}

    def add(self, ref: layout.TableRef, key: Mapping[str, Any], latency_us: float, flop_count: int,
            kernel: str, dtype: str) -> None:
        """One measurement of the row ``key`` (all key columns of ``ref``'s spec) of table ``ref``."""
        ident = (ref, tuple(key[c] for c in ref.spec.key))
        self._samples[ident].append(latency_us)
        self._meta.setdefault(ident, (dict(key), flop_count, kernel, dtype))

    def build(self, peak_for_dtype) -> tuple[TableSet, dict[str, tuple[float, float]], Counter]:
        """Rows with the median latency of their samples and its MFU. Returns the TableSet, (min, max) MFU per
        table kind, and per table kind the count of rows dropped because their MFU exceeds 1 (implausible)."""
        tables = TableSet()
        ranges: dict[str, tuple[float, float]] = {}
        dropped: Counter = Counter()
        for ident, samples in self._samples.items():
            ref = ident[0]
            key, flop_count, kernel, dtype = self._meta[ident]
            latency = statistics.median(samples)
            value = flops.mfu(flop_count, latency, peak_for_dtype(dtype))
            if value > 1.0:
                dropped[ref.kind] += 1
                continue
            tables.add(ref, {**key, "latency_us": latency, "mfu": value}, kernel=kernel, dtype=dtype)
            low, high = ranges.get(ref.kind, (value, value))
            ranges[ref.kind] = (min(low, value), max(high, value))
        return tables, ranges, dropped


def base_manifest(gpu_profile: str, gpu_name: str | None, source: str, library_versions: Mapping[str, str],
                  notes: str) -> dict[str, Any]:
    """Manifest keys shared by all folders of one import (kernel, peak and formula are added per folder)."""
    spec = gpus.get_profile(gpu_profile)
    return {
        "gpu": gpu_name or spec.driver_name,
        "gpu_profile": spec.name,
        "library_versions": dict(library_versions),
        "date": datetime.date.today().isoformat(),
        "harness_version": f"mfusim_tools {__version__}",
        "source": source,
        "notes": notes,
    }


def finish(collector: RowCollector, out: Path, manifest_base: Mapping[str, Any], report: ImportReport) -> ImportReport:
    """Build the rows, write tables and manifests under ``out``, and complete ``report``."""
    profile = manifest_base["gpu_profile"]

    def peak(dtype: str) -> float:
        return gpus.peak_tflops(profile, dtype)

    tables, report.mfu_ranges, report.dropped = collector.build(peak)
    report.written = tables.write(out, manifest_base, peak)
    report.row_counts = tables.row_counts()
    return report
