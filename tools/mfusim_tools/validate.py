"""Validate a bench_data directory: tables, manifests, and coverage of a run plan.

    python -m mfusim_tools.validate DIR [DIR ...] [--plan default|PATH] [--strict] [--errors-only]

Prints one line per problem, "path:line: severity: message [kind]" (line 0 = the file as a whole), then a
summary by kind on stderr. Exits 1 if any error was found (with --strict: any problem), else 0.
Legacy tables without a manifest (InferSim, BLIS) are accepted with a warning; with a manifest, every MFU
is recomputed from its latency and the manifest's peak.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

from . import gpus, grid, layout, manifest, plan_tables
from .table_checks import Problem, Row, check_table

PLAN_FILE = Path("_bench") / "plan.json"
PEAK_REL_TOL = 0.01


def validate_dir(
    root: str | Path, plan: list[grid.PlanItem] | None = None, plan_gpus: Iterable[str] = ()
) -> list[Problem]:
    """All problems of the bench_data directory ``root``. ``plan``: items expected in the tables of each GPU
    folder in ``plan_gpus`` (default: every GPU folder found); a ``_bench/plan.json`` is used when no plan is
    given."""
    root = Path(root)
    if not root.is_dir():
        return [Problem(str(root), 0, "error", "not-a-directory", "no such directory")]
    problems: list[Problem] = []
    tables: dict[Path, list[tuple[Path, layout.TableRef]]] = defaultdict(list)
    for path in sorted(root.rglob("*.csv")):
        relpath = path.relative_to(root)
        if any(part.startswith((".", "_")) for part in relpath.parts):
            continue
        ref = layout.classify(relpath)
        if ref is None:
            problems.append(Problem(str(path), 0, "warning", "unknown-table",
                                    "not a table of the bench_data layout; not checked"))
            continue
        tables[relpath.parent].append((path, ref))
    if not tables:
        problems.append(Problem(str(root), 0, "warning", "no-tables", "no tables of the bench_data layout found"))
    rows_by_table: dict[Path, list[Row]] = {}
    for relfolder, files in sorted(tables.items()):
        folder = root / relfolder
        problems += _check_gpu_folder(folder, files[0][1].gpu)
        folder_manifest = None
        if files[0][1].spec.mfu or (folder / manifest.MANIFEST_NAME).exists():  # gdn tables hold no MFU
            folder_manifest, manifest_problems = _check_manifest(folder, files[0][1].gpu)
            problems += manifest_problems
        peak = folder_manifest.get("peak_tflops") if folder_manifest else None
        for path, ref in files:
            found, rows = check_table(path, ref, peak)
            problems += found
            rows_by_table[path.relative_to(root)] = rows
    if plan is None and (root / PLAN_FILE).is_file():
        plan, plan_gpus = load_plan(root / PLAN_FILE)
    if plan is not None:
        gpu_names = sorted(plan_gpus) or sorted({ref.gpu for files in tables.values() for _, ref in files})
        problems += _check_plan_coverage(root, plan, gpu_names, rows_by_table)
    return problems


def _check_gpu_folder(folder: Path, gpu: str) -> list[Problem]:
    if layout.GPU_DIR_RE.match(gpu):
        return []
    return [Problem(str(folder), 0, "error", "gpu-folder", f"GPU folder name {gpu!r} must be lower-case "
                                                           "letters, digits, '.', '_' or '-'")]


def _check_manifest(folder: Path, gpu: str) -> tuple[dict | None, list[Problem]]:
    path = folder / manifest.MANIFEST_NAME
    where = str(path)
    if not path.is_file():
        return None, [Problem(where, 0, "warning", "manifest-missing",
                              "no manifest.json: the peak behind the MFU columns is unknown (legacy table?)")]
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        return None, [Problem(where, getattr(err, "lineno", 0), "error", "manifest-invalid", f"not JSON: {err}")]
    problems = [Problem(where, 0, "error", "manifest-invalid", text) for text in manifest.manifest_problems(data)]
    if problems:
        return None, problems
    profile = data["gpu_profile"]
    if profile != gpu:
        problems.append(Problem(where, 0, "warning", "manifest-gpu",
                                f"gpu_profile {profile!r} but the folder is {gpu!r}"))
    if profile in gpus.PROFILES:
        try:
            known = gpus.peak_tflops(profile, data["peak_dtype"])
        except ValueError as err:
            problems.append(Problem(where, 0, "error", "manifest-peak", str(err)))
        else:
            if abs(data["peak_tflops"] - known) > PEAK_REL_TOL * known:
                problems.append(Problem(where, 0, "warning", "manifest-peak", f"peak_tflops {data['peak_tflops']} "
                                        f"differs from the {profile} {data['peak_dtype']} peak {known}"))
    else:
        problems.append(Problem(where, 0, "warning", "manifest-gpu", f"gpu_profile {profile!r} is not a known profile"))
    return data, problems


def _check_plan_coverage(
    root: Path, plan: list[grid.PlanItem], gpu_names: list[str], rows_by_table: dict[Path, list[Row]]
) -> list[Problem]:
    """One warning per planned table that is absent or lacks planned rows."""
    problems = []
    for gpu in gpu_names:
        expected: dict[Path, list[tuple]] = defaultdict(list)
        specs: dict[Path, layout.TableSpec] = {}
        for item in plan:
            ref = plan_tables.table_ref(item, gpu)
            expected[ref.relpath()].append(plan_tables.row_key(item))
            specs[ref.relpath()] = ref.spec
        for relpath, keys in sorted(expected.items()):
            path = str(root / relpath)
            if relpath not in rows_by_table:
                problems.append(Problem(path, 0, "warning", "missing-table",
                                        f"planned table absent ({len(keys)} rows planned)"))
                continue
            spec = specs[relpath]
            present = {tuple(r.values[c] for c in spec.key) for r in rows_by_table[relpath]}
            missing = [k for k in keys if k not in present]
            if missing:
                example = ",".join(f"{c}={v}" for c, v in zip(spec.key, missing[0]))
                problems.append(Problem(path, 0, "warning", "missing-rows",
                                        f"{len(missing)} of {len(keys)} planned rows absent (e.g. {example})"))
    return problems


def load_plan(path: str | Path) -> tuple[list[grid.PlanItem], list[str]]:
    """Read a plan file written by the harness: {"gpu": folder name, "items": [PlanItem dicts]}."""
    data = json.loads(Path(path).read_text())
    gpu = data.get("gpu")
    return [grid.PlanItem.from_dict(d) for d in data["items"]], ([gpu] if gpu else [])


def summarize(problems: list[Problem]) -> str:
    errors = [p for p in problems if p.severity == "error"]
    warnings = [p for p in problems if p.severity == "warning"]
    kinds = Counter(p.kind for p in problems)
    detail = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    return f"{len(errors)} errors, {len(warnings)} warnings" + (f" ({detail})" if detail else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mfusim_tools.validate", description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="bench_data directory")
    parser.add_argument("--plan", metavar="default|PATH",
                        help="check coverage of a plan: 'default' (the built-in grid) or a plan.json file")
    parser.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    parser.add_argument("--errors-only", action="store_true", help="print errors only (the summary counts all)")
    args = parser.parse_args(argv)

    plan: list[grid.PlanItem] | None = None
    plan_gpus: list[str] = []
    if args.plan == "default":
        plan = grid.build_plan()
    elif args.plan:
        plan, plan_gpus = load_plan(args.plan)
    failed = False
    for directory in args.dirs:
        problems = validate_dir(directory, plan, plan_gpus)
        for problem in problems:
            if not args.errors_only or problem.severity == "error":
                print(problem)
        print(f"{directory}: {summarize(problems)}", file=sys.stderr)
        failed |= any(p.severity == "error" or args.strict for p in problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
