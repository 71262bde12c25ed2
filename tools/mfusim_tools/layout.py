"""The bench_data layout: where each table lives, its columns, and how to name, write and read it.

    gemm/<gpu>/data.csv                                   m,k,n,latency_us,mfu
    mha/prefill/<gpu>/<hq>-<hkv>-<d>.csv                  dtype,seq_len,latency_us,mfu
    mha/decode/<gpu>/<hq>-<hkv>-<d>[-tp<N>].csv           dtype,kv_dtype,batch_size,kv_len,latency_us,mfu
    mla/prefill/<gpu>/<H>-<d_nope>-<d_rope>.csv           as mha/prefill
    mla/decode/<gpu>/<H>-<kv_lora_rank>-<d_rope>.csv      as mha/decode
    grouped_gemm/prefill/<gpu>/data.csv                   num_experts,...,seq_len_per_gpu,...,down_mfu
    grouped_gemm/decode/<gpu>/data.csv                    num_experts,...,batch_size_per_gpu,...,down_mfu
    gdn/{prefill,decode}/<gpu>/<...>.csv                  InferSim's linear-attention latency tables (read-only)

GPU folder names are lower-case. Without a ``-tp<N>`` suffix, hq/hkv in a file name are the heads one GPU runs
(after the TP split), as InferSim names them; our harness and importers write only this form. With a suffix
(BLIS), the name holds the model's heads and the kernel ran hq/N and max(1, hkv/N) heads per GPU.
Every table folder may hold a ``manifest.json`` (see ``manifest.py``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

GPU_DIR_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
ATTENTION_NAME_RE = re.compile(r"^(\d+)-(\d+)-(\d+)(?:-tp(\d+))?\.csv$")

_GROUPED_KEY = ("num_experts", "num_gpus", "num_local_experts", "topk", "hidden_size", "intermediate_size")
_GROUPED_TAIL = ("tokens_per_expert", "up_proj_us", "up_mfu", "down_proj_us", "down_mfu")


@dataclass(frozen=True)
class TableSpec:
    """Schema of one table kind.

    Rows are grouped into blocks (equal ``block`` columns); inside a contiguous block the ``order`` columns must
    increase strictly. ``block + order`` identifies a row. ``mfu``/``latency`` name the value columns.
    """

    kind: str
    columns: tuple[str, ...]
    str_columns: tuple[str, ...]
    float_columns: tuple[str, ...]
    block: tuple[str, ...]
    order: tuple[str, ...]
    mfu: tuple[str, ...]
    latency: tuple[str, ...]

    @property
    def key(self) -> tuple[str, ...]:
        return self.block + self.order

    def is_int(self, column: str) -> bool:
        return column not in self.str_columns and column not in self.float_columns


GEMM = TableSpec(
    "gemm", ("m", "k", "n", "latency_us", "mfu"), (), ("latency_us", "mfu"),
    block=("k", "n"), order=("m",), mfu=("mfu",), latency=("latency_us",),
)
PREFILL_COLUMNS = ("dtype", "seq_len", "latency_us", "mfu")
DECODE_COLUMNS = ("dtype", "kv_dtype", "batch_size", "kv_len", "latency_us", "mfu")
MHA_PREFILL = TableSpec(
    "mha_prefill", PREFILL_COLUMNS, ("dtype",), ("latency_us", "mfu"),
    block=("dtype",), order=("seq_len",), mfu=("mfu",), latency=("latency_us",),
)
MHA_DECODE = TableSpec(
    "mha_decode", DECODE_COLUMNS, ("dtype", "kv_dtype"), ("latency_us", "mfu"),
    block=("dtype", "kv_dtype"), order=("batch_size", "kv_len"), mfu=("mfu",), latency=("latency_us",),
)
MLA_PREFILL = TableSpec(
    "mla_prefill", PREFILL_COLUMNS, ("dtype",), ("latency_us", "mfu"),
    block=("dtype",), order=("seq_len",), mfu=("mfu",), latency=("latency_us",),
)
MLA_DECODE = TableSpec(
    "mla_decode", DECODE_COLUMNS, ("dtype", "kv_dtype"), ("latency_us", "mfu"),
    block=("dtype", "kv_dtype"), order=("batch_size", "kv_len"), mfu=("mfu",), latency=("latency_us",),
)
GROUPED_PREFILL = TableSpec(
    "grouped_prefill", _GROUPED_KEY + ("seq_len_per_gpu",) + _GROUPED_TAIL, (),
    ("up_proj_us", "up_mfu", "down_proj_us", "down_mfu"),
    block=_GROUPED_KEY, order=("seq_len_per_gpu",), mfu=("up_mfu", "down_mfu"), latency=("up_proj_us", "down_proj_us"),
)
GROUPED_DECODE = TableSpec(
    "grouped_decode", _GROUPED_KEY + ("batch_size_per_gpu",) + _GROUPED_TAIL, (),
    ("up_proj_us", "up_mfu", "down_proj_us", "down_mfu"),
    block=_GROUPED_KEY, order=("batch_size_per_gpu",), mfu=("up_mfu", "down_mfu"),
    latency=("up_proj_us", "down_proj_us"),
)
GDN_PREFILL = TableSpec(
    "gdn_prefill", ("seq_len", "conv", "kkt", "tril", "wu", "chunk_gdn", "chunk_o"), (),
    ("conv", "kkt", "tril", "wu", "chunk_gdn", "chunk_o"),
    block=(), order=("seq_len",), mfu=(), latency=("conv", "kkt", "tril", "wu", "chunk_gdn", "chunk_o"),
)
GDN_DECODE = TableSpec(
    "gdn_decode", ("batchsize", "conv", "gdn_update"), (), ("conv", "gdn_update"),
    block=(), order=("batchsize",), mfu=(), latency=("conv", "gdn_update"),
)

SPECS: dict[str, TableSpec] = {
    s.kind: s
    for s in (GEMM, MHA_PREFILL, MHA_DECODE, MLA_PREFILL, MLA_DECODE, GROUPED_PREFILL, GROUPED_DECODE,
              GDN_PREFILL, GDN_DECODE)
}

# Folder (relative to the bench_data root, without the gpu part) -> table kind.
_FOLDERS: dict[tuple[str, ...], str] = {
    ("gemm",): "gemm",
    ("mha", "prefill"): "mha_prefill",
    ("mha", "decode"): "mha_decode",
    ("mla", "prefill"): "mla_prefill",
    ("mla", "decode"): "mla_decode",
    ("grouped_gemm", "prefill"): "grouped_prefill",
    ("grouped_gemm", "decode"): "grouped_decode",
    ("gdn", "prefill"): "gdn_prefill",
    ("gdn", "decode"): "gdn_decode",
}
_FOLDER_OF_KIND = {kind: folder for folder, kind in _FOLDERS.items()}
_SINGLE_FILE_KINDS = ("gemm", "grouped_prefill", "grouped_decode")
_ATTENTION_KINDS = ("mha_prefill", "mha_decode", "mla_prefill", "mla_decode")


@dataclass(frozen=True)
class TableRef:
    """Where a table file sits in the layout. ``shape`` is (a, b, c) from ``<a>-<b>-<c>[-tpN].csv`` or None."""

    kind: str
    gpu: str
    shape: tuple[int, int, int] | None = None
    tp: int | None = None

    @property
    def spec(self) -> TableSpec:
        return SPECS[self.kind]

    def relpath(self) -> Path:
        folder = Path(*_FOLDER_OF_KIND[self.kind], self.gpu)
        if self.kind in _SINGLE_FILE_KINDS:
            return folder / "data.csv"
        if self.shape is None:
            raise ValueError(f"{self.kind} table needs a shape")
        return folder / attention_file_name(*self.shape, tp=self.tp)

    def per_gpu_heads(self) -> tuple[int, int]:
        """(hq, hkv) one GPU runs for an MHA table, undoing the BLIS ``-tpN`` naming where present."""
        if self.shape is None:
            raise ValueError(f"{self.kind} table has no heads")
        hq, hkv, _ = self.shape
        if self.tp is None:
            return hq, hkv
        return hq // self.tp, max(1, hkv // self.tp)


def gpu_dir_name(gpu: str) -> str:
    """The folder name of a GPU: its profile name, lower-case."""
    name = gpu.strip().lower()
    if not GPU_DIR_RE.match(name):
        raise ValueError(f"not a valid GPU folder name: {gpu!r}")
    return name


def attention_file_name(a: int, b: int, c: int, tp: int | None = None) -> str:
    suffix = f"-tp{tp}" if tp is not None else ""
    return f"{a}-{b}-{c}{suffix}.csv"


def folder_kind(parts: Sequence[str]) -> str | None:
    """Kind of the table folder ``parts`` (e.g. ("mha", "decode")), or None if not part of the layout."""
    return _FOLDERS.get(tuple(parts))


def classify(relpath: str | Path) -> TableRef | None:
    """TableRef for a csv path relative to the bench_data root, or None when it is not a layout table."""
    parts = Path(relpath).parts
    if len(parts) < 3:
        return None
    kind = folder_kind(parts[:-2])
    if kind is None:
        return None
    gpu, name = parts[-2], parts[-1]
    if kind in _SINGLE_FILE_KINDS:
        return TableRef(kind, gpu) if name == "data.csv" else None
    if kind in _ATTENTION_KINDS:
        match = ATTENTION_NAME_RE.match(name)
        if match is None:
            return None
        a, b, c, tp = match.groups()
        return TableRef(kind, gpu, (int(a), int(b), int(c)), int(tp) if tp else None)
    return TableRef(kind, gpu) if name.endswith(".csv") else None  # gdn: free-form shape names


# Precision is counted in significant digits, not decimals: an MFU of 2.30253e-08 (an NCCL-sized GEMM) is as precise
# as 0.823456. The C++ loader's rule is the same (src/tables/lookup_index.hpp, mfu_rounding_error): a row whose MFU,
# as printed, is uncertain by more than 5% (half a unit of its last significant digit over its value) is skipped.
MFU_SIGNIFICANT_DIGITS = 6
LATENCY_SIGNIFICANT_DIGITS = 7


def format_value(spec: TableSpec, column: str, value: object) -> str:
    """Text of one cell: ints as ints, MFU to 6 and latencies to 7 significant digits."""
    if column in spec.str_columns:
        return str(value)
    if column in spec.float_columns:
        number = float(value)  # type: ignore[arg-type]
        digits = MFU_SIGNIFICANT_DIGITS if column in spec.mfu else LATENCY_SIGNIFICANT_DIGITS
        return format(number, f".{digits}g")
    return str(int(value))  # type: ignore[call-overload]


def write_table(path: str | Path, spec: TableSpec, rows: Iterable[Mapping[str, object]]) -> int:
    """Write ``rows`` (dicts keyed by column) under a header line, LF endings; atomic. Returns the row count."""
    lines = [",".join(spec.columns)]
    for row in rows:
        lines.append(",".join(format_value(spec, c, row[c]) for c in spec.columns))
    atomic_write_text(Path(path), "\n".join(lines) + "\n")
    return len(lines) - 1


def parse_value(spec: TableSpec, column: str, text: str) -> object:
    """Parse one cell; raises ValueError with the column name on bad text."""
    text = text.strip()
    if column in spec.str_columns:
        if not text:
            raise ValueError(f"empty {column}")
        return text
    try:
        return float(text) if column in spec.float_columns else int(text)
    except ValueError:
        raise ValueError(f"{column}: cannot parse {text!r}") from None


def read_table(path: str | Path, spec: TableSpec) -> list[dict[str, object]]:
    """Read a table written in ``spec``'s schema; strict: raises ValueError naming path:line on any problem."""
    path = Path(path)
    lines = path.read_text().splitlines()
    if not lines or tuple(c.strip() for c in lines[0].split(",")) != spec.columns:
        raise ValueError(f"{path}:1: header is not {','.join(spec.columns)}")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split(",")
        if len(cells) != len(spec.columns):
            raise ValueError(f"{path}:{number}: expected {len(spec.columns)} fields, got {len(cells)}")
        try:
            rows.append({c: parse_value(spec, c, t) for c, t in zip(spec.columns, cells)})
        except ValueError as err:
            raise ValueError(f"{path}:{number}: {err}") from None
    return rows


def sort_rows(spec: TableSpec, rows: Iterable[Mapping[str, object]]) -> list[Mapping[str, object]]:
    """Rows in the layout's order: by block columns, then by the order columns ascending."""
    return sorted(rows, key=lambda r: tuple(r[c] for c in spec.key))  # type: ignore[misc]


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
