"""Running a fitted plan on a backend: time each item, compute its MFU, remember it, write the tables.

The backend (``torch_backend.TorchBackend`` on a GPU, a fake in tests) turns a PlanItem into a ``Case``: the
callables to time, the kernel's name and dtype. Everything here is plain Python.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .. import flops, gpus, plan_tables
from ..grid import PlanItem
from ..planner import Progress, RunState
from ..tableset import TableSet
from .timing import TimingPolicy, measure

WRITE_EVERY_S = 30.0  # rewrite the tables at least this often, so an interrupted run leaves usable files


class Unsupported(Exception):
    """The backend cannot run this item (shape unsupported by the kernel, out of memory, ...)."""


@dataclass
class Case:
    calls: dict[str, Callable[[], object]]  # "" for a single kernel; "up"/"down" for grouped GEMM
    kernel: str
    dtype: str  # dtype the kernel runs in: its peak is the MFU's denominator
    extra: dict[str, Any] = field(default_factory=dict)  # result columns the case knows, e.g. tokens_per_expert
    nbytes: int = 0  # device memory the case holds


class Backend(Protocol):
    timer: Any  # has time(fn) -> microseconds (timing.Timer)
    flush: Any  # a callable that flushes the L2 cache, or None

    def prepare(self, item: PlanItem) -> Case: ...

    def release(self, case: Case) -> None: ...


def make_result(item: PlanItem, case: Case, latencies_us: Mapping[str, float], gpu: gpus.GpuSpec) -> dict[str, Any]:
    """The state record of a measured item: latencies, MFUs against the peak of ``case.dtype``, kernel."""
    peak = gpus.peak_tflops(gpu, case.dtype)
    counts = plan_tables.call_flops(item)
    result: dict[str, Any] = {"kernel": case.kernel, "dtype": case.dtype, **case.extra}
    if set(counts) == {""}:
        result["latency_us"] = latencies_us[""]
        result["mfu"] = flops.mfu(counts[""], latencies_us[""], peak)
    else:
        for name, count in counts.items():
            result[f"{name}_proj_us"] = latencies_us[name]
            result[f"{name}_mfu"] = flops.mfu(count, latencies_us[name], peak)
    return result


def build_tables(state: RunState, gpu_dir: str) -> TableSet:
    """Tables of every successful result in ``state`` (failed items, recorded with "error", are left out)."""
    tables = TableSet()
    for item, result in state.results.values():
        if "error" in result:
            continue
        tables.add(plan_tables.table_ref(item, gpu_dir), plan_tables.table_row(item, result),
                   kernel=result["kernel"], dtype=result["dtype"])
    return tables


@dataclass
class Runner:
    backend: Backend
    state: RunState
    gpu: gpus.GpuSpec
    out: Path
    base_manifest: dict[str, Any]
    policy: TimingPolicy = field(default_factory=TimingPolicy)
    budget_s: float = math.inf
    clock: Callable[[], float] = time.monotonic

    def run(self, items: list[PlanItem], estimate: Callable[[PlanItem], float], progress: Progress) -> dict[str, int]:
        """Measure ``items`` in order until done or the wall-clock budget is spent; returns counts of
        measured, failed and not-reached items. Tables are rewritten periodically and at the end."""
        started = last_write = self.clock()
        counts = {"measured": 0, "failed": 0, "not_reached": 0}
        progress.start()
        for index, item in enumerate(items):
            if self.clock() - started > self.budget_s:
                counts["not_reached"] = len(items) - index
                break
            result = self._measure(item)
            self.state.record(item, result)
            counts["failed" if "error" in result else "measured"] += 1
            progress.update(item.id + (f"  FAILED: {result['error']}" if "error" in result else ""), estimate(item))
            if self.clock() - last_write > WRITE_EVERY_S:
                self.write_tables()
                last_write = self.clock()
        self.write_tables()
        return counts

    def _measure(self, item: PlanItem) -> dict[str, Any]:
        try:
            case = self.backend.prepare(item)
        except Unsupported as err:
            return {"error": str(err) or type(err).__name__}
        try:
            latencies = {name: measure(fn, self.backend.timer, self.policy, self.backend.flush).median_us
                         for name, fn in case.calls.items()}
            return make_result(item, case, latencies, self.gpu)
        except (Unsupported, RuntimeError, ValueError) as err:
            return {"error": f"{type(err).__name__}: {err}"}
        finally:
            self.backend.release(case)

    def write_tables(self) -> list[Path]:
        tables = build_tables(self.state, self.base_manifest["gpu_profile"])
        return tables.write(self.out, self.base_manifest, lambda dtype: gpus.peak_tflops(self.gpu, dtype))
