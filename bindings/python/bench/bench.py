#!/usr/bin/env python3
"""Per-call cost of libmfusim from Python, side by side with C and ctypes, in one run.

Same estimator (llama-3.1-8b-instruct on H100, roofline, no tables) and steps (the shared fixtures of
bindings/README.md) as bindings/bench_c and bindings/bench_all.sh, measured the same way: 3 timed runs of a fixed
iteration count per case, median of the 3 (9 runs without --quick), the C program and the Python cases taking
turns for several rounds so that a busy neighbour disturbs them alike; the table gives the median over rounds.

Columns:
  C                 bindings/bench_c (mfusim_bench_c --quick), the baseline
  mfusim array      est.step_time(a) with a a NumPy array of mfusim.REQUEST_DTYPE (zero copy)
  mfusim (n,2)      est.step_time(a) with an (n, 2) int64 array (converted per call; it has no flags column)
  mfusim list       est.step_time([(new_tokens, context, flags), ...]) (converted per call)
  ctypes            lib.mfusim_step_time(handle, a.ctypes.data, n, byref(out), None), argtypes set, pointer
                    precomputed: the cheapest plain ctypes call of the same C function on the same library

Batch cases (per step): one step_time_batch call over 1000 copies of the 1-request step or 64 copies of the
256-request step, into a reused `out` array (and, for "mfusim list", a freshly allocated result).

Usage: python bench.py [--bench-c PATH] [--rounds N] [--quick]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import mfusim

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import _capi  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def mixed(n: int) -> list[tuple[int, int, int]]:
    return [(512, 1024 * i, mfusim.NO_OUTPUT if i % 2 == 0 else 0) if i < 4 else (1, 256 + (i * 97) % 8192, 0)
            for i in range(n)]


def to_array(step) -> np.ndarray:
    a = np.zeros(len(step), dtype=mfusim.REQUEST_DTYPE)
    a["new_tokens"] = [r[0] for r in step]
    a["context"] = [r[1] for r in step]
    a["flags"] = [r[2] for r in step]
    return a


def timed(fn, iters: int, runs: int, per: int = 1) -> float:
    """Median over `runs` of ns per call (divided by `per`: steps per call for batch cases)."""
    for _ in range(iters // 10 + 1):
        fn()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            fn()
        samples.append((time.perf_counter_ns() - t0) / iters / per)
    return statistics.median(samples)


def python_round(runs: int, scale: int) -> dict[tuple[str, str], float]:
    est = mfusim.Estimator(model="llama-3.1-8b-instruct", gpu="H100")
    lib = _capi.load()
    c_est = _capi.CEstimator(lib, "llama-3.1-8b-instruct", "H100")
    one = [(1, 2048, 0)]
    m256 = mixed(256)
    res: dict[tuple[str, str], float] = {}

    step_time = lib.mfusim_step_time
    batch = lib.mfusim_step_time_batch
    out_c = ctypes.c_double()
    out_ref = ctypes.byref(out_c)
    handle = c_est.handle

    for case, step, iters in (("single_1", one, 20000), ("single_256", m256, 2000)):
        arr = to_array(step)
        pairs = np.ascontiguousarray(np.stack([arr["new_tokens"], arr["context"]], axis=1))
        assert est.step_time(arr) == est.step_time(step) == c_est.step_time(arr)
        n, ptr = len(arr), arr.ctypes.data
        f = est.step_time
        res[("py_array", case)] = timed(lambda: f(arr), iters * scale, runs)
        res[("py_pairs", case)] = timed(lambda: f(pairs), iters * scale, runs)
        res[("py_list", case)] = timed(lambda: f(step), iters * scale, runs)
        res[("ctypes", case)] = timed(lambda: step_time(handle, ptr, n, out_ref, None), iters * scale, runs)

    for case, step, n_steps, iters in (("batch_1x1000_per_step", one, 1000, 20),
                                       ("batch_256x64_per_step", m256, 64, 30)):
        arr = np.tile(to_array(step), n_steps)
        pairs = np.ascontiguousarray(np.stack([arr["new_tokens"], arr["context"]], axis=1))
        flat = step * n_steps
        sizes = np.full(n_steps, len(step), dtype=np.int64)
        out = np.empty(n_steps)
        f = est.step_time_batch
        res[("py_array", case)] = timed(lambda: f(arr, sizes, out), iters * scale, runs, n_steps)
        res[("py_pairs", case)] = timed(lambda: f(pairs, sizes, out), iters * scale, runs, n_steps)
        res[("py_list", case)] = timed(lambda: f(flat, sizes), iters * scale, runs, n_steps)
        a_ptr, s_ptr, o_ptr, n = arr.ctypes.data, sizes.ctypes.data, out.ctypes.data, len(arr)
        res[("ctypes", case)] = timed(lambda: batch(handle, a_ptr, n, s_ptr, n_steps, o_ptr, None),
                                      iters * scale, runs, n_steps)
    c_est.close()
    est.close()
    return res


def c_round(bench_c: Path) -> dict[tuple[str, str], float]:
    text = subprocess.run([str(bench_c), "--quick"], check=True, capture_output=True, text=True).stdout
    res = {}
    for line in text.splitlines():
        lang, case, ns = line.split()
        res[("c", case)] = float(ns)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench-c", type=Path, default=ROOT / "build" / "bindings" / "mfusim_bench_c")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="1 round, 3 runs per case")
    args = ap.parse_args()
    rounds = 1 if args.quick else args.rounds
    runs, scale = (3, 1)
    have_c = args.bench_c.is_file()
    if not have_c:
        print(f"(no C benchmark at {args.bench_c}: build target mfusim_bench_c; C column left empty)", file=sys.stderr)

    all_rounds: dict[tuple[str, str], list[float]] = {}
    for r in range(rounds):
        print(f"== round {r + 1} of {rounds}", file=sys.stderr)
        parts = [python_round(runs, scale)]
        if have_c:
            parts.append(c_round(args.bench_c))
        for part in parts:
            for k, v in part.items():
                all_rounds.setdefault(k, []).append(v)
    cols = [("c", "C"), ("py_array", "mfusim array"), ("py_pairs", "mfusim (n,2)"), ("py_list", "mfusim list"),
            ("ctypes", "ctypes")]
    cases = ["single_1", "single_256", "batch_1x1000_per_step", "batch_256x64_per_step"]
    machine = f"{os.uname().machine}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    print(f"\nPython {sys.version.split()[0]}, numpy {np.__version__}, mfusim {mfusim.version()}; {machine}")
    for title, stat in ((f"median over {rounds} round(s)", statistics.median),
                        ("best round (min): the least disturbed estimate on a shared machine", min)):
        med = {k: stat(v) for k, v in all_rounds.items()}
        print(f"\nns per call (per step for batch_*), {title}")
        print(f"{'case':<24}" + "".join(f"{h:>14}" for _, h in cols) + f"{'array - C':>12}{'ctypes - C':>12}")
        for case in cases:
            row = f"{case:<24}"
            for key, _ in cols:
                v = med.get((key, case))
                row += f"{v:>14.1f}" if v is not None else f"{'-':>14}"
            c = med.get(("c", case))
            for key in ("py_array", "ctypes"):
                v = med.get((key, case))
                row += f"{v - c:>+12.1f}" if (v is not None and c is not None) else f"{'-':>12}"
            print(row)
    print("\nTargets (DESIGN.md section 8): Python adds under 1000 ns per call and under 30 ns per step in the batch "
          "call.")


if __name__ == "__main__":
    main()
