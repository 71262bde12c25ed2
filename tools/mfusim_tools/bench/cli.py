"""CLI of the harness: python -m mfusim_tools.bench --out DIR [--budget-min 25] [--only gemm,prefill,decode,grouped]

Builds the plan (grid.py), fits it to the budget by tier (planner.py), resumes from DIR/_bench/state.jsonl,
then times every selected item on the GPU and writes the tables with their manifests. ``--dry-run`` stops after
printing the plan and needs no GPU and no torch.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections import Counter
from pathlib import Path

from .. import __version__, estimate, gpus, layout
from ..grid import GridOptions, PlanItem, build_plan
from ..models import MODELS, TP_DEGREES
from ..planner import FittedPlan, Progress, RunState, fit_budget, format_duration
from .timing import TimingPolicy

STATE_DIR = "_bench"
START_UP_S = 30.0  # torch import, CUDA context and library loading, taken off the budget
KINDS = ("gemm", "prefill", "decode", "grouped")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m mfusim_tools.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="bench_data directory to write (and resume)")
    parser.add_argument("--budget-min", type=float, default=25.0, help="time budget in minutes (default 25)")
    parser.add_argument("--only", default=",".join(KINDS), help=f"comma-separated kinds among {','.join(KINDS)}")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated models of the grid")
    parser.add_argument("--tp", default=",".join(map(str, TP_DEGREES)), help="comma-separated TP degrees")
    parser.add_argument("--gpu-profile", default=None,
                        help=f"GPU profile ({', '.join(sorted(gpus.PROFILES))}); default: from the driver's name "
                             "(h100 for --dry-run)")
    parser.add_argument("--gemm-dtype", choices=("bf16", "fp8"), default="bf16",
                        help="dtype of the GEMM table (one table folder holds one dtype and its peak)")
    parser.add_argument("--warmup", type=int, default=TimingPolicy.warmup)
    parser.add_argument("--repeats", type=int, default=TimingPolicy.repeats)
    parser.add_argument("--no-flush", action="store_true", help="do not flush L2 between timed calls")
    parser.add_argument("--fresh", action="store_true", help="ignore finished items of an earlier run in --out")
    parser.add_argument("--dry-run", action="store_true", help="print the fitted plan and exit (no GPU needed)")
    args = parser.parse_args(argv)
    args.only = _split(args.only, parser, "--only", KINDS)
    args.models = _split(args.models, parser, "--models", tuple(MODELS))
    try:
        args.tp = tuple(int(t) for t in args.tp.split(",") if t)
    except ValueError:
        parser.error("--tp takes comma-separated integers")
    if args.budget_min <= 0 or args.warmup < 0 or args.repeats < 1:
        parser.error("--budget-min and --repeats must be positive, --warmup non-negative")
    return args


def _split(text: str, parser: argparse.ArgumentParser, flag: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    values = tuple(v.strip() for v in text.split(",") if v.strip())
    unknown = [v for v in values if v not in allowed]
    if unknown or not values:
        parser.error(f"{flag}: unknown {', '.join(unknown) or 'empty list'}; choose among {', '.join(allowed)}")
    return values


def describe(plan: FittedPlan) -> list[str]:
    """Lines summarising a fitted plan by kind."""
    lines = [plan.summary()]
    for label, items in (("run", plan.selected), ("left out", plan.skipped)):
        by_kind = Counter(item.kind for item in items)
        if by_kind:
            lines.append(f"  {label}: " + ", ".join(f"{kind} {n}" for kind, n in sorted(by_kind.items())))
    return lines


def write_plan(out: Path, gpu_dir: str, items: list[PlanItem]) -> Path:
    """``_bench/plan.json``: what this run set out to measure, for ``validate --plan`` coverage checks."""
    path = out / STATE_DIR / "plan.json"
    text = json.dumps({"gpu": gpu_dir, "items": [item.to_dict() for item in items]}, indent=1) + "\n"
    layout.atomic_write_text(path, text)
    return path


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    items = build_plan(GridOptions(models=args.models, tp_degrees=args.tp, kinds=args.only))
    policy = TimingPolicy(warmup=args.warmup, repeats=args.repeats)
    timing = estimate.TimingConfig(args.warmup, args.repeats, not args.no_flush)
    budget_s = max(0.0, args.budget_min * 60.0 - START_UP_S)

    if args.dry_run:
        gpu = gpus.get_profile(args.gpu_profile or "h100")
        plan = fit_budget(items, lambda it: estimate.item_seconds(it, gpu, timing), budget_s)
        print(f"plan for {gpu.name}, budget {args.budget_min:g} min:")
        print("\n".join(describe(plan)))
        return 0

    try:
        from .torch_backend import TorchBackend  # the only import of torch
    except ImportError as err:
        print(f"error: the benchmark needs torch with CUDA ({err})", file=sys.stderr)
        return 1
    try:
        backend = TorchBackend(gemm_dtype=args.gemm_dtype, flush_l2=not args.no_flush)
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    driver_name = backend.device_name()
    profile = args.gpu_profile or gpus.profile_for_driver_name(driver_name)
    if profile is None:
        print(f"error: no GPU profile for {driver_name!r}; pass --gpu-profile", file=sys.stderr)
        return 1
    gpu = gpus.get_profile(profile)
    header = {"gpu": driver_name, "gpu_profile": gpu.name, "gemm_dtype": args.gemm_dtype}
    try:
        state = RunState.open(args.out / STATE_DIR / "state.jsonl", header, fresh=args.fresh)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1

    def item_estimate(item: PlanItem) -> float:
        return estimate.item_seconds(item, gpu, timing)

    plan = fit_budget(items, item_estimate, budget_s, state.done_ids)
    write_plan(args.out, gpu.name, plan.done + plan.selected)
    print(f"{driver_name} -> profile {gpu.name}; budget {args.budget_min:g} min", file=sys.stderr)
    print("\n".join(describe(plan)), file=sys.stderr)

    from .runner import Runner

    base_manifest = {
        "gpu": driver_name,
        "gpu_profile": gpu.name,
        "library_versions": backend.library_versions(),
        "date": datetime.date.today().isoformat(),
        "harness_version": f"mfusim_tools {__version__}",
        "source": "mfusim-bench",
        "notes": (f"CUDA-event timing, {policy.warmup} warm-up calls, median of up to {policy.repeats} "
                  f"repeats{'' if args.no_flush else ', L2 flushed by a 256 MiB write before each call'}."),
    }
    runner = Runner(backend, state, gpu, args.out, base_manifest, policy, budget_s)
    progress = Progress(len(plan.selected), plan.estimated_s)
    counts = runner.run(plan.selected, item_estimate, progress)
    print(f"done: {counts['measured']} measured, {counts['failed']} failed, {counts['not_reached']} not reached "
          f"(budget); {len(plan.skipped)} left out by the budget; elapsed "
          f"{format_duration(progress.clock() - (progress.started or 0.0))}", file=sys.stderr)
    if counts["not_reached"] or plan.skipped:
        print("run again with the same --out (and a budget) to continue", file=sys.stderr)
    return 0
