"""Fits an architecture's roofline constants on the train half of measured kernels (`mfusim compare --split train`).

The model itself lives in C++; this drives it. For each family, coordinate descent over a small grid of each of the
family's constants (a JSON profile overriding the built-in GPU), minimising median |error| + |bias| of that family on
the train half. The result is printed as JSON; the constants are then rounded by hand into src/gpu/architecture.cpp
with a sentence of provenance each, and `mfusim compare --split test` reports the held-out half.

    python -m mfusim_tools.fit_arch --mfusim build/mfusim --gpu A100 --aic ../shared/reference/measured/aic-a100
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

# The constants each measured family depends on (and nothing else does), with the values tried for each.
FAMILY_CONSTANTS: dict[str, dict[str, Sequence[float]]] = {
    "gemm": {
        "memory_efficiency": [0.6, 0.63, 0.66, 0.7, 0.73, 0.76, 0.8, 0.83, 0.87, 0.9],
        "gemm_max_efficiency": [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.93],
        "kernel_launch_us": [2, 2.5, 3, 3.5, 4, 5, 6],
        "gemm_overlap_exponent": [1.5, 2, 2.5, 3, 4, 6],
    },
    "generation_attention": {
        "decode_cta_overhead_us": [0.5, 1, 1.5, 2, 3, 3.5, 4, 5],
        "attention_launch_us": [4, 5, 6, 7, 8.5, 9, 10, 12],
        # FA2 only (0: no per-CTA limit, the other kernels' model)
        "decode_cta_bandwidth_gbs": [0, 16, 20, 24, 28, 32, 36, 40],
    },
    "context_attention": {
        "attention_max_efficiency": [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.667, 0.75],
        "attention_tile_overhead_blocks": [0, 0.5, 1, 2, 3, 4, 6],
        "attention_softmax_head_dim": [32, 64, 96, 128],
    },
    "nccl_all_reduce": {
        "allreduce_latency_us": [4, 5, 6, 7, 8, 8.5, 9],
        "allreduce_hop_latency_us": [0.5, 0.75, 1, 1.25, 1.5],
        "nvlink_efficiency": [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8],
        # LL next to Simple (a profile with 0 keeps one protocol unless a value here fits better)
        "allreduce_ll_efficiency": [0.1, 0.125, 0.15, 0.2, 0.25],
        "allreduce_simple_latency_us": [10, 20, 25, 30, 35, 40],
        "nvls_efficiency": [0.4, 0.45, 0.5, 0.56, 0.6, 0.7],
    },
    "custom_all_reduce": {
        "custom_allreduce_latency_us": [3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7],
        "custom_allreduce_peer_us": [0, 0.05, 0.1, 0.2, 0.3],
        "custom_allreduce_efficiency": [0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    },
}


def objective(stats: Mapping[str, float]) -> float:
    """What the fit minimises for one family: median |error| plus |bias| (a one-sided model is penalised twice)."""
    return float(stats["median_abs"]) + abs(float(stats["median_signed"]))


def family_stats(report: Mapping, family: str) -> Mapping[str, float] | None:
    """The `all` statistics of one family in a `mfusim compare --json` report (None when absent or empty)."""
    for f in report.get("families", []):
        if f["family"] == family and f["all"]["count"] > 0:
            return f["all"]
    return None


def coordinate_descent(
    start: Mapping[str, float],
    grid: Mapping[str, Sequence[float]],
    evaluate: Callable[[Mapping[str, float]], float],
    rounds: int = 3,
) -> tuple[dict[str, float], float]:
    """Minimises evaluate(constants) one constant at a time over its grid, `rounds` passes or until no change.

    Deterministic: ties keep the earlier (current) value, so the result depends only on the grid and the data.
    """
    best = dict(start)
    best_score = evaluate(best)
    for _ in range(rounds):
        changed = False
        for name, values in grid.items():
            for v in values:
                if v == best.get(name):
                    continue
                trial = {**best, name: v}
                score = evaluate(trial)
                if score < best_score - 1e-12:
                    best, best_score, changed = trial, score, True
        if not changed:
            break
    return best, best_score


def run_compare(mfusim: str, aic: str, base: str, constants: Mapping[str, float], split: str = "train") -> dict:
    """`mfusim compare --json` on a JSON profile: the built-in `base` with `constants` overridden."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"base": base, **constants}, f)
        path = f.name
    try:
        out = subprocess.run(
            [mfusim, "compare", "--aic", aic, "--gpu", path, "--split", split, "--json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        Path(path).unlink()
    return json.loads(out)


def fit(mfusim: str, aic: str, base: str, start: Mapping[str, float]) -> dict[str, dict]:
    """Per family present in `aic`: its fitted constants, train objective and train statistics."""
    result: dict[str, dict] = {}
    present = {f["family"] for f in run_compare(mfusim, aic, base, start)["families"] if f["all"]["count"] > 0}
    for family, grid in FAMILY_CONSTANTS.items():
        if family not in present:
            continue

        def evaluate(c: Mapping[str, float], family: str = family) -> float:
            stats = family_stats(run_compare(mfusim, aic, base, c), family)
            return objective(stats) if stats else float("inf")

        fam_start = {k: v for k, v in start.items() if k in grid}
        best, score = coordinate_descent(fam_start, grid, evaluate)
        stats = family_stats(run_compare(mfusim, aic, base, {**start, **best}), family)
        result[family] = {"constants": best, "objective": score, "train": stats}
    return result


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mfusim", required=True, help="the mfusim CLI binary")
    p.add_argument("--aic", required=True, help="a measured directory (aic-<gpu> or aic-<gpu>-custom-allreduce)")
    p.add_argument("--gpu", required=True, help="the built-in GPU the measurements come from (the base profile)")
    p.add_argument("--start", default="{}", help="JSON object of starting constants (default: the built-in's)")
    args = p.parse_args(argv)
    print(json.dumps(fit(args.mfusim, args.aic, args.gpu, json.loads(args.start)), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
