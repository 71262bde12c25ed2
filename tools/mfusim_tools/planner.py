"""Fitting a plan to a time budget, remembering finished items (resume), and reporting progress with an ETA."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .grid import PlanItem


@dataclass
class FittedPlan:
    """``selected`` fit in the budget (plan order); ``skipped`` did not; ``done`` were finished before."""

    selected: list[PlanItem]
    skipped: list[PlanItem]
    done: list[PlanItem]
    estimated_s: float

    def summary(self) -> str:
        return (f"{len(self.selected)} items to run (~{format_duration(self.estimated_s)}), "
                f"{len(self.done)} already done, {len(self.skipped)} left out by the budget")


def fit_budget(
    items: Iterable[PlanItem],
    estimate: Callable[[PlanItem], float],
    budget_s: float,
    done_ids: Iterable[str] = (),
) -> FittedPlan:
    """Take items by tier (in plan order within a tier) while their estimated time fits; an item too long for
    what is left is skipped and smaller later ones may still fit. Items in ``done_ids`` are not re-run."""
    done_set = set(done_ids)
    selected, skipped, done = [], [], []
    used = 0.0
    for item in sorted(items, key=lambda it: it.tier):  # stable: plan order within a tier
        if item.id in done_set:
            done.append(item)
            continue
        cost = estimate(item)
        if used + cost <= budget_s:
            selected.append(item)
            used += cost
        else:
            skipped.append(item)
    return FittedPlan(selected, skipped, done, used)


class RunState:
    """Finished items of a run, kept in a JSON-lines file so an interrupted run resumes where it stopped.

    Line 1: {"header": {...}} (the GPU and harness that produced the results); then one line per finished item:
    {"item": PlanItem.to_dict(), "result": {...}}. A partly written last line (crash) is ignored.
    """

    def __init__(self, path: str | Path, header: dict[str, Any]):
        self.path = Path(path)
        self.header = dict(header)
        self.results: dict[str, tuple[PlanItem, dict[str, Any]]] = {}

    @classmethod
    def open(cls, path: str | Path, header: dict[str, Any], *, fresh: bool = False) -> RunState:
        """Load ``path`` if it exists (and ``fresh`` is false), else start it. Raises ValueError when the
        existing file was written for another header (e.g. another GPU): resuming would mix measurements."""
        state = cls(path, header)
        if state.path.exists() and not fresh:
            state._load()
        else:
            state.path.parent.mkdir(parents=True, exist_ok=True)
            state.path.write_text(json.dumps({"header": state.header}) + "\n")
        return state

    def _load(self) -> None:
        lines = self.path.read_text().splitlines()
        if not lines:
            raise ValueError(f"{self.path}: empty state file")
        saved = json.loads(lines[0]).get("header", {})
        mismatched = {k for k in self.header if k in saved and saved[k] != self.header[k]}
        if mismatched:
            detail = ", ".join(f"{k}: {saved[k]!r} != {self.header[k]!r}" for k in sorted(mismatched))
            raise ValueError(f"{self.path} belongs to another run ({detail}); use a fresh start or another --out")
        for line in lines[1:]:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # interrupted while writing the last line
            item = PlanItem.from_dict(record["item"])
            self.results[item.id] = (item, record["result"])

    @property
    def done_ids(self) -> set[str]:
        return set(self.results)

    def record(self, item: PlanItem, result: dict[str, Any]) -> None:
        """Remember ``item`` as finished with ``result``; written and flushed before returning."""
        self.results[item.id] = (item, result)
        with self.path.open("a") as handle:
            handle.write(json.dumps({"item": item.to_dict(), "result": result}) + "\n")
            handle.flush()


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


@dataclass
class Progress:
    """Prints "[done/total] pct | elapsed | ETA | item" lines. The ETA scales the remaining estimated time by
    how fast the finished items went compared with their estimates."""

    total: int
    estimated_s: float
    clock: Callable[[], float] = time.monotonic
    out: TextIO | None = field(default=None)
    done: int = 0
    done_estimated_s: float = 0.0
    started: float | None = None

    def start(self) -> None:
        self.started = self.clock()

    def eta_seconds(self) -> float:
        remaining = max(0.0, self.estimated_s - self.done_estimated_s)
        if self.started is None or self.done_estimated_s <= 0:
            return remaining
        elapsed = self.clock() - self.started
        return remaining * elapsed / self.done_estimated_s

    def update(self, label: str, estimated_s: float) -> str:
        if self.started is None:
            self.start()
        self.done += 1
        self.done_estimated_s += estimated_s
        elapsed = self.clock() - (self.started or 0.0)
        pct = 100.0 * self.done / self.total if self.total else 100.0
        line = (f"[{self.done}/{self.total}] {pct:5.1f}% | elapsed {format_duration(elapsed)} | "
                f"ETA {format_duration(self.eta_seconds())} | {label}")
        print(line, file=self.out or sys.stderr, flush=True)
        return line
