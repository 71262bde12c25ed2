#!/usr/bin/env python3
"""Throughput of mfusim.sweep: one process against N worker processes (and Ray tasks, where Ray is installed), on
the same grid of simulated deployments; checks that every backend returned the serial rows.

The grid: Llama 3.1 8B and Qwen3 8B on H100, H200 and B200 at TP 1 and 2, vLLM bench's random workload (1024 in,
128 out) at 8 request rates and 4 seeds, 300 prompts each: 384 simulations of a few ms each. Each configuration is
timed --repeat times (the median is reported): a shared machine's neighbours disturb single runs.

Usage: python sweep_bench.py [--workers 1,2,4] [--ray] [--repeat 3] [--prompts 300]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import mfusim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default=f"1,{os.cpu_count() or 1}")
    parser.add_argument("--ray", action="store_true", help="also time backend='ray' (needs Ray)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--prompts", type=int, default=300)
    args = parser.parse_args()
    points = mfusim.grid(model=["llama-3.1-8b-instruct", "qwen3-8b"], gpu=["H100", "H200", "B200"], tp=[1, 2],
                         request_rate=[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0], seed=[0, 1, 2, 3],
                         num_prompts=args.prompts, input_len=1024, output_len=128)
    print(f"{len(points)} simulated deployments, {os.cpu_count()} CPUs")
    serial = None
    cases = [(int(w), "process") for w in args.workers.split(",")]
    if args.ray:
        import ray

        ray.init(num_cpus=max(w for w, _ in cases), include_dashboard=False, log_to_driver=False)
        cases += [(w, "ray") for w, _ in cases if w > 1]
    base = None
    for workers, backend in cases:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            rows = mfusim.sweep(points, what="simulate", workers=workers, backend=backend)
            times.append(time.perf_counter() - start)
            serial = serial or rows
            assert rows == serial, "a backend changed the answers"
        t = statistics.median(times)
        base = base or t
        print(f"{backend:8s} workers={workers:3d}  {t:7.2f} s  {len(points) / t:8.1f} points/s  "
              f"speed-up {base / t:4.2f}x  (identical rows)")


if __name__ == "__main__":
    main()
