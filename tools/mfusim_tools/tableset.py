"""Collect rows for many tables, then write them in the layout with one manifest per table folder.

Used by the benchmark harness and the importers alike: both know rows, the kernel that produced each row and
the dtype it ran in; the TableSet sorts rows into the layout's order, writes the csv files and derives each
folder's manifest (kernel names, the peak of that dtype, the MFU formula of that table family).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import flops, gpus, layout, manifest

_FORMULA_OF_KIND = {
    "gemm": "gemm",
    "mha_prefill": "mha_prefill",
    "mha_decode": "mha_decode",
    "mla_prefill": "mla_prefill",
    "mla_decode": "mla_decode",
    "grouped_prefill": "grouped_gemm",
    "grouped_decode": "grouped_gemm",
}


@dataclass
class _Folder:
    kind: str
    kernels_by_file: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    peak_dtypes: set[str] = field(default_factory=set)


class TableSet:
    def __init__(self) -> None:
        self.tables: dict[layout.TableRef, list[Mapping[str, Any]]] = defaultdict(list)
        self._folders: dict[Path, _Folder] = {}

    def add(self, ref: layout.TableRef, row: Mapping[str, Any], *, kernel: str, dtype: str) -> None:
        """Add one row to table ``ref``; ``dtype`` is what the kernel ran in (its peak is the MFU's)."""
        missing = [c for c in ref.spec.columns if c not in row]
        if missing:
            raise ValueError(f"{ref.relpath()}: row lacks {', '.join(missing)}")
        self.tables[ref].append(row)
        relpath = ref.relpath()
        folder = self._folders.setdefault(relpath.parent, _Folder(ref.kind))
        folder.kernels_by_file[relpath.name].add(kernel)
        folder.peak_dtypes.add(gpus.peak_dtype_for(dtype))

    def row_counts(self) -> dict[str, int]:
        counts = {str(ref.relpath()): len(rows) for ref, rows in self.tables.items()}
        return dict(sorted(counts.items()))

    def write(
        self,
        root: str | Path,
        base_manifest: Mapping[str, Any],
        peak_for: Callable[[str], float],
    ) -> list[Path]:
        """Write every table under ``root`` and a manifest per folder. ``base_manifest`` holds the keys common
        to all folders (gpu, gpu_profile, library_versions, date, harness_version, source, ...);
        ``peak_for(peak_dtype)`` gives the peak in TFLOP/s. Returns the paths written."""
        root = Path(root)
        manifests = {relfolder: self._manifest(relfolder, folder, base_manifest, peak_for)
                     for relfolder, folder in self._folders.items()}  # any dtype conflict raises before writing
        written = []
        for ref, rows in self.tables.items():
            path = root / ref.relpath()
            layout.write_table(path, ref.spec, layout.sort_rows(ref.spec, rows))
            written.append(path)
        for relfolder, data in manifests.items():
            written.append(manifest.write_manifest(root / relfolder, data))
        return written

    @staticmethod
    def _manifest(relfolder: Path, folder: _Folder, base_manifest: Mapping[str, Any],
                  peak_for: Callable[[str], float]) -> dict[str, Any]:
        if len(folder.peak_dtypes) != 1:
            raise ValueError(f"{relfolder}: rows measured in several dtypes {sorted(folder.peak_dtypes)}; "
                             "one table folder takes one peak")
        peak_dtype = next(iter(folder.peak_dtypes))
        by_file = {name: ", ".join(sorted(k)) for name, k in sorted(folder.kernels_by_file.items())}
        usual = Counter(by_file.values()).most_common(1)[0][0]
        extra: dict[str, Any] = {}
        exceptions = {name: kernel for name, kernel in by_file.items() if kernel != usual}
        if exceptions:
            extra["kernel_by_file"] = exceptions  # files whose kernel differs from the folder's usual one
        return manifest.make_manifest(
            **{**dict(base_manifest), **extra},
            kernel=", ".join(sorted(set().union(*folder.kernels_by_file.values()))),
            peak_dtype=peak_dtype,
            peak_tflops=peak_for(peak_dtype),
            mfu_formula=flops.MFU_FORMULAS[_FORMULA_OF_KIND[folder.kind]],
        )
