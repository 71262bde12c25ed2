"""Timing logic of the harness, independent of torch: warm-up, L2 flush between calls, repeats, median.

A ``Timer`` runs a callable and returns how long it took on the device, in microseconds (the torch backend
brackets it with CUDA events; tests use a fake). The flush runs outside the timed region.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class Timer(Protocol):
    def time(self, fn: Callable[[], object]) -> float:
        """Run ``fn`` once and return its device time in microseconds."""


@dataclass(frozen=True)
class Measurement:
    median_us: float
    samples_us: tuple[float, ...]
    warmup_us: tuple[float, ...]


@dataclass(frozen=True)
class TimingPolicy:
    warmup: int = 3
    repeats: int = 10
    min_repeats: int = 3
    max_item_s: float = 2.0  # long kernels get fewer repeats (never below min_repeats) to stay near this


def planned_repeats(policy: TimingPolicy, call_us: float) -> int:
    """How many timed repeats fit ``policy.max_item_s`` for a kernel taking ``call_us`` per call."""
    if call_us <= 0:
        return policy.repeats
    fit = int(policy.max_item_s * 1e6 // call_us)
    return max(policy.min_repeats, min(policy.repeats, fit))


def measure(
    run: Callable[[], object],
    timer: Timer,
    policy: TimingPolicy = TimingPolicy(),
    flush: Callable[[], object] | None = None,
) -> Measurement:
    """Warm up, then time ``run`` repeatedly (flushing L2 before each call when ``flush`` is given) and return
    the median. The number of repeats shrinks for long kernels, judged by the last warm-up call."""
    warm = []
    for _ in range(policy.warmup):
        if flush is not None:
            flush()
        warm.append(timer.time(run))
    repeats = planned_repeats(policy, warm[-1] if warm else 0.0)
    samples = []
    for _ in range(repeats):
        if flush is not None:
            flush()
        samples.append(timer.time(run))
    if not samples:
        raise ValueError("no timed repeats")
    if min(samples) <= 0:
        raise ValueError(f"timer returned a non-positive time: {min(samples)} us")
    return Measurement(statistics.median(samples), tuple(samples), tuple(warm))
