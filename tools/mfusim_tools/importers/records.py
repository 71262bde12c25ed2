"""Reading source records (csv, txt or parquet) and converting their cells."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DTYPES = {
    "bfloat16": "bf16", "bf16": "bf16",
    "float16": "fp16", "fp16": "fp16", "half": "fp16",
    "fp8": "fp8", "float8_e4m3fn": "fp8", "fp8_e4m3": "fp8", "e4m3": "fp8",
}


class SourceError(ValueError):
    """A source file that cannot be read as records."""


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Rows of a .csv/.txt (comma-separated with a header) or .parquet file, as dicts keyed by column."""
    path = Path(path)
    if path.suffix == ".parquet":
        yield from _read_parquet(path)
        return
    with path.open(newline="") as handle:
        first = handle.readline()
        if first.startswith("version https://git-lfs"):
            raise SourceError(f"{path} is a Git LFS pointer, not the data; fetch the real file first")
        handle.seek(0)
        yield from csv.DictReader(handle, skipinitialspace=True)


def _read_parquet(path: Path) -> Iterator[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq  # type: ignore[import-not-found]
    except ImportError:
        pq = None
    if pq is not None:
        yield from pq.read_table(path).to_pylist()
        return
    try:
        import pandas as pd  # type: ignore[import-not-found]
    except ImportError:
        raise SourceError(f"{path}: reading parquet needs pyarrow or pandas (pip install pyarrow), "
                          "or convert it to csv") from None
    yield from pd.read_parquet(path).to_dict("records")


def find_source(folder: Path, names: tuple[str, ...]) -> Path | None:
    """The first of ``names`` that exists in ``folder``."""
    for name in names:
        if (folder / name).is_file():
            return folder / name
    return None


def as_int(value: Any) -> int:
    number = float(value)
    if not math.isfinite(number) or number != int(number):
        raise ValueError(f"not an integer: {value!r}")
    return int(number)


def as_float(value: Any) -> float:
    """A finite float; empty cells and NaN raise ValueError."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValueError("empty")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"not finite: {value!r}")
    return number


def as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ValueError(f"not a boolean: {value!r}")


def as_dtype(value: Any) -> str:
    """Our dtype name ("bf16", "fp16", "fp8") for a source's spelling; KeyError for unknown ones."""
    return DTYPES[str(value).strip().lower().removeprefix("torch.")]
