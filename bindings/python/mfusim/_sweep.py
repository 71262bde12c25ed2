"""Sweeps over a grid of deployments and workloads, in one process or spread over many.

A sweep is a list of points, each a dict of :class:`Estimator` options (``model``, ``gpu``, ``tp``, ...) and the
options of what is asked of it (``serve``'s ``input_len``, ``output_len``, ``concurrency``, ...; or
:func:`simulate`'s). :func:`grid` builds the cartesian product of axes; :func:`sweep` evaluates every point and
returns one row (a flat dict) per point, in the points' order. With ``workers`` > 1 the points are split into
chunks evaluated by separate processes (``concurrent.futures``), or by Ray tasks (``backend="ray"``, where Ray is
installed; it never is required). Each point's answer depends on the point alone (the library is deterministic),
so every backend returns the serial sweep's rows exactly: tests/test_sweep.py checks it.
"""

from __future__ import annotations

import inspect
import itertools
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, Mapping, Sequence

from ._errors import Error, InvalidArgumentError

__all__ = ["grid", "sweep"]

_ESTIMATOR_KEYS: frozenset[str] | None = None


def _estimator_keys() -> frozenset[str]:
    global _ESTIMATOR_KEYS
    if _ESTIMATOR_KEYS is None:
        from . import Estimator

        _ESTIMATOR_KEYS = frozenset(inspect.signature(Estimator.__init__).parameters) - {"self"}
    return _ESTIMATOR_KEYS


def grid(**axes: Sequence[Any]) -> list[dict[str, Any]]:
    """The cartesian product of ``axes``, the first axis varying slowest: ``grid(gpu=["H100", "H200"],
    concurrency=[1, 8])`` gives 4 points. A scalar is an axis of one value."""
    names = list(axes)
    values = [v if isinstance(v, (list, tuple, range)) else [v] for v in axes.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def _evaluate_chunk(points: Sequence[Mapping[str, Any]], what: str) -> list[dict[str, Any]]:
    """The rows of ``points``, each Estimator built once per chunk for its distinct options."""
    from . import Estimator, simulate

    keys = _estimator_keys()
    estimators: dict[tuple[tuple[str, Any], ...], Any] = {}
    rows = []
    try:
        for point in points:
            options = tuple(sorted((k, v) for k, v in point.items() if k in keys))
            asked = {k: v for k, v in point.items() if k not in keys}
            row = dict(point)
            try:
                if options not in estimators:
                    estimators[options] = Estimator(**dict(options))
                est = estimators[options]
                result = est.serve(**asked) if what == "serve" else simulate(est, **asked).summary
                row.update(result.to_dict())
                row["error"] = ""
            except Error as e:  # a point the library refuses keeps its row, with the reason (as `mfusim sweep`)
                row["error"] = f"{type(e).__name__}: {e}"
            rows.append(row)
    finally:
        for est in estimators.values():
            est.close()
    return rows


def _chunks(points: list[dict[str, Any]], count: int) -> list[list[int]]:
    """Point indexes in ``count`` chunks, the points of one Estimator kept together where the sizes allow (so each
    worker builds few Estimators), the chunks of near-equal size."""
    keys = _estimator_keys()
    order = sorted(range(len(points)),
                   key=lambda i: repr(sorted((k, v) for k, v in points[i].items() if k in keys)))
    size = -(-len(points) // max(count, 1))
    return [order[i:i + size] for i in range(0, len(order), size)]


def sweep(
    points: Iterable[Mapping[str, Any]],
    *,
    what: str = "serve",
    workers: int | None = 1,
    backend: str = "process",
    chunks_per_worker: int = 4,
) -> list[dict[str, Any]]:
    """Evaluates every point; one flat dict per point, in order: the point's keys, the result's fields
    (:class:`ServingResult` for ``what="serve"``, :class:`SimulationSummary`'s ``to_dict()`` for
    ``what="simulate"``) and ``error`` ("" or the refusal, e.g. weights that do not fit; the row keeps no result).

    ``workers``: 1 evaluates here; N > 1 spreads the points over N worker processes (``backend="process"``) or N
    Ray tasks at a time (``backend="ray"``: Ray must be installed; the tasks go to the cluster ``ray.init()``
    connects to, a local one when none is running); ``None``: one per CPU. The points are split into
    ``workers * chunks_per_worker`` chunks, each evaluated by one task. An option that is neither an Estimator's nor
    the evaluation's raises in the first chunk that meets it (InvalidArgumentError, TypeError as a call would).
    """
    if what not in ("serve", "simulate"):
        raise InvalidArgumentError(f"what must be 'serve' or 'simulate', not {what!r}")
    if backend not in ("process", "ray"):
        raise InvalidArgumentError(f"backend must be 'process' or 'ray', not {backend!r}")
    points = [dict(p) for p in points]
    n = (os.cpu_count() or 1) if workers is None else int(workers)
    if n < 1:
        raise InvalidArgumentError(f"workers must be at least 1, not {workers}")
    if chunks_per_worker < 1:
        raise InvalidArgumentError(f"chunks_per_worker must be at least 1, not {chunks_per_worker}")
    if (n == 1 and backend == "process") or len(points) <= 1:
        return _evaluate_chunk(points, what)
    chunks = _chunks(points, n * chunks_per_worker)
    parts = [[points[i] for i in chunk] for chunk in chunks]
    if backend == "ray":
        results = _run_ray(parts, what, n)
    else:
        # Spawned, not forked: a fork copies the caller's other threads' locks held (a sanitizer's or the
        # caller's own threads), and a child that needs one waits forever; a spawned worker starts clean.
        with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn")) as pool:
            results = list(pool.map(_evaluate_chunk, parts, itertools.repeat(what)))
    rows: list[dict[str, Any]] = [{}] * len(points)
    for chunk, part in zip(chunks, results):
        for i, row in zip(chunk, part):
            rows[i] = row
    return rows


def _run_ray(parts: list[list[dict[str, Any]]], what: str, workers: int) -> list[list[dict[str, Any]]]:
    try:
        import ray  # optional: only this backend needs it
    except ImportError:
        ray = None
    if not hasattr(ray, "remote"):  # none, or a namespace package (a folder named ray, e.g. Ray's own /tmp/ray)
        raise ImportError("backend='ray' needs Ray ('pip install ray'); backend='process' needs nothing")
    if not ray.is_initialized():
        ray.init()
    task: Callable[..., Any] = ray.remote(num_cpus=1)(_evaluate_chunk)
    # At most `workers` chunks in flight: the cluster may be shared.
    pending: dict[Any, int] = {}
    results: list[list[dict[str, Any]]] = [[] for _ in parts]
    next_part = 0
    while next_part < len(parts) or pending:
        while next_part < len(parts) and len(pending) < workers:
            pending[task.remote(parts[next_part], what)] = next_part
            next_part += 1
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            results[pending.pop(ref)] = ray.get(ref)
    return results
