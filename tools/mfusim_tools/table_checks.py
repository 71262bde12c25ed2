"""Checks of one table file: header, parsing, ranges, duplicates, ordering, latency trend, MFU consistency.

``check_table`` returns Problems; it never raises on bad data. Line numbers are 1-based physical lines.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import flops, layout

DTYPE_NAMES = ("bf16", "fp16", "fp8")
LATENCY_DROP = 0.25  # latency falling by more than this fraction while the work grows is reported
MFU_ABS_TOL = 6e-4  # tables rounded to 3 decimals (InferSim) are within 5e-4
MFU_REL_TOL = 0.02


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    severity: str  # "error" or "warning"
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.message} [{self.kind}]"


@dataclass(frozen=True)
class Row:
    line: int
    values: dict[str, Any]


class _Reporter:
    def __init__(self, path: str):
        self.path = path
        self.problems: list[Problem] = []

    def error(self, line: int, kind: str, message: str) -> None:
        self.problems.append(Problem(self.path, line, "error", kind, message))

    def warning(self, line: int, kind: str, message: str) -> None:
        self.problems.append(Problem(self.path, line, "warning", kind, message))


def check_table(path: Path, ref: layout.TableRef, peak_tflops: float | None = None) -> tuple[list[Problem], list[Row]]:
    """Check the file at ``path`` as table ``ref``. With ``peak_tflops`` (from the folder's manifest) each row's
    MFU is recomputed from its latency. Returns the problems (by line) and the rows that parsed."""
    report = _Reporter(str(path))
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        report.error(0, "encoding", f"not UTF-8 text ({err.reason})")
        return report.problems, []
    rows = _parse(text, ref.spec, report)
    _check_values(rows, ref.spec, report)
    _check_duplicates_and_order(rows, ref.spec, report)
    _check_latency_trend(rows, ref.spec, report)
    if peak_tflops is not None:
        _check_mfu_consistency(rows, ref, peak_tflops, report)
    return sorted(report.problems, key=lambda p: p.line), rows


def _parse(text: str, spec: layout.TableSpec, report: _Reporter) -> list[Row]:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()  # the newline ending the last line
    if not lines:
        report.error(0, "empty-file", "file is empty")
        return []
    header = tuple(cell.strip() for cell in lines[0].split(","))
    columns = spec.columns
    first_data = 2
    if header == spec.columns:
        pass
    elif header[: len(spec.columns)] == spec.columns:
        report.warning(1, "extra-columns", f"columns after {spec.columns[-1]} are not part of the layout: "
                                           f"{','.join(header[len(spec.columns):])}")
        columns = header
    elif _parse_cells(lines[0].split(","), spec.columns, spec) is not None:
        report.error(1, "header-missing", f"first line is data, not the header {','.join(spec.columns)}; "
                                          "readers that skip the header lose this row")
        first_data = 1
    else:
        report.error(1, "header", f"header is {','.join(header)!r}, expected {','.join(spec.columns)!r}")
        return []
    rows = []
    for number in range(first_data, len(lines) + 1):
        line = lines[number - 1]
        if not line.strip():
            report.error(number, "blank-line", "blank line inside the table")
            continue
        cells = line.split(",")
        if len(cells) != len(columns):
            report.error(number, "field-count", f"{len(cells)} fields, expected {len(columns)}")
            continue
        values = _parse_cells(cells[: len(spec.columns)], spec.columns, spec, report, number)
        if values is not None:
            rows.append(Row(number, values))
    return rows


def _parse_cells(cells, columns, spec, report: _Reporter | None = None, number: int = 0) -> dict | None:
    if len(cells) != len(columns):
        return None
    values = {}
    for column, text in zip(columns, cells):
        try:
            value = layout.parse_value(spec, column, text)
        except ValueError as err:
            if report is not None:
                report.error(number, "parse", str(err))
            return None
        if isinstance(value, float) and not math.isfinite(value):
            if report is not None:
                report.error(number, "parse", f"{column} is {text.strip()}")
            return None
        values[column] = value
    return values


def _check_values(rows: list[Row], spec: layout.TableSpec, report: _Reporter) -> None:
    for row in rows:
        for column, value in row.values.items():
            if column in spec.mfu:
                if value < 0 or value > 1:
                    report.error(row.line, "mfu-range", f"{column} {value} outside (0, 1]")
                elif value == 0:
                    report.warning(row.line, "zero-mfu", f"{column} is 0 (rounded?); a lookup would divide by it")
            elif column in spec.latency:
                if value <= 0:
                    report.error(row.line, "latency-range", f"{column} {value} is not positive")
            elif column in spec.str_columns:
                if value not in DTYPE_NAMES:
                    report.warning(row.line, "dtype", f"{column} {value!r} is not one of {', '.join(DTYPE_NAMES)}")
            elif spec.is_int(column) and value <= 0 and column in spec.key:
                report.error(row.line, "size-range", f"{column} {value} is not positive")


def _check_duplicates_and_order(rows: list[Row], spec: layout.TableSpec, report: _Reporter) -> None:
    first_seen: dict[tuple, Row] = {}
    repeats: list[tuple[int, int, bool]] = []  # (line, first line, identical values)
    block_seen_at: dict[tuple, int] = {}
    previous: Row | None = None
    for row in rows:
        key = tuple(row.values[c] for c in spec.key)
        block = tuple(row.values[c] for c in spec.block)
        if key in first_seen:
            original = first_seen[key]
            repeats.append((row.line, original.line, original.values == row.values))
            continue  # a repeated row is reported once, not also as out of order
        first_seen[key] = row
        if previous is not None and block == tuple(previous.values[c] for c in spec.block):
            before = tuple(previous.values[c] for c in spec.order)
            now = tuple(row.values[c] for c in spec.order)
            if now <= before:
                report.error(row.line, "unsorted", f"{_fmt(spec.order, now)} after {_fmt(spec.order, before)} "
                                                   f"in block {_fmt(spec.block, block)}")
        elif block in block_seen_at:
            report.warning(row.line, "split-block", f"block {_fmt(spec.block, block)} continues here after other "
                                                    f"blocks (started at line {block_seen_at[block]})")
        block_seen_at.setdefault(block, row.line)
        previous = row
    for start, end, first, identical in _runs(repeats):
        if start == end:
            what, verb, originals = f"line {start}", "repeats", f"line {first}"
        else:
            what, verb, originals = f"lines {start}-{end}", "repeat", f"lines {first}-{first + end - start}"
        if identical:
            report.warning(start, "duplicate-row", f"{what} {verb} {originals} with identical values")
        else:
            report.error(start, "conflicting-duplicate", f"{what} {verb} the key of {originals} with other values")


def _runs(repeats: list[tuple[int, int, bool]]):
    """Merge consecutive repeated lines that copy consecutive original lines into (start, end, first, same)."""
    runs: list[list] = []
    for line, first, identical in repeats:
        if runs:
            start, end, run_first, run_identical = runs[-1]
            if line == end + 1 and first == run_first + (line - start) and identical == run_identical:
                runs[-1][1] = line
                continue
        runs.append([line, line, first, identical])
    return [tuple(r) for r in runs]


def _check_latency_trend(rows: list[Row], spec: layout.TableSpec, report: _Reporter) -> None:
    """Along the innermost axis of a block, more work should not take clearly less time."""
    outer = spec.block + spec.order[:-1]
    inner = spec.order[-1]
    for before, row in itertools.pairwise(rows):
        if any(before.values[c] != row.values[c] for c in outer) or row.values[inner] <= before.values[inner]:
            continue
        for column in spec.latency:
            old, new = before.values[column], row.values[column]
            if new > 0 and new < old * (1 - LATENCY_DROP):  # non-positive values are reported elsewhere
                report.warning(row.line, "latency-not-monotonic",
                               f"{column} {new:g} at {inner}={row.values[inner]} is below {old:g} at "
                               f"{inner}={before.values[inner]} (line {before.line})")


def _mfu_checks(ref: layout.TableRef) -> list[tuple[str, str, Callable[[Mapping[str, Any]], int]]]:
    """(mfu column, latency column, flops of a row) for each MFU column of the table."""
    kind, shape = ref.kind, ref.shape or (0, 0, 0)
    if kind == "gemm":
        return [("mfu", "latency_us", lambda r: flops.gemm_flops(r["m"], r["k"], r["n"]))]
    if kind in ("mha_prefill", "mha_decode"):
        hq, _ = ref.per_gpu_heads()
        d = shape[2]
        if kind == "mha_prefill":
            return [("mfu", "latency_us", lambda r: flops.prefill_attention_flops(r["seq_len"], hq, d))]
        return [("mfu", "latency_us", lambda r: flops.decode_attention_flops(r["batch_size"], r["kv_len"], hq, d))]
    if kind == "mla_prefill":
        h, nope, rope = shape
        return [("mfu", "latency_us", lambda r: flops.mla_prefill_flops(r["seq_len"], h, nope, rope))]
    if kind == "mla_decode":
        h, rank, rope = shape
        return [("mfu", "latency_us", lambda r: flops.mla_decode_flops(r["batch_size"], r["kv_len"], h, rank, rope))]
    if kind in ("grouped_prefill", "grouped_decode"):
        tokens = "seq_len_per_gpu" if kind == "grouped_prefill" else "batch_size_per_gpu"

        def args(r):
            return r[tokens], r["topk"], r["hidden_size"], r["intermediate_size"]

        return [("up_mfu", "up_proj_us", lambda r: flops.grouped_up_flops(*args(r))),
                ("down_mfu", "down_proj_us", lambda r: flops.grouped_down_flops(*args(r)))]
    return []


def _check_mfu_consistency(rows: list[Row], ref: layout.TableRef, peak: float, report: _Reporter) -> None:
    for mfu_column, latency_column, count in _mfu_checks(ref):
        for row in rows:
            latency, stated = row.values[latency_column], row.values[mfu_column]
            if latency <= 0:
                continue
            expected = flops.mfu(count(row.values), latency, peak)
            if abs(stated - expected) > max(MFU_ABS_TOL, MFU_REL_TOL * expected):
                report.error(row.line, "mfu-mismatch", f"{mfu_column} {stated:g} but the latency and the manifest's "
                                                       f"peak {peak:g} TFLOP/s give {expected:.4g}")


def _fmt(columns: tuple[str, ...], values: tuple) -> str:
    return ",".join(f"{c}={v}" for c, v in zip(columns, values)) or "(whole file)"
