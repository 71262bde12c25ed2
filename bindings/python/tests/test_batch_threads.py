"""The batch call, threads sharing one estimator, and the GIL being released (a smoke test)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import mfusim
from conftest import ROOFLINE, as_array, mixed_step


def test_batch_equals_single_calls(est, compat, mixed):
    steps = [[(1, 2048)], mixed, [], [(512, 0), (1, 100)]]
    flat = [r for s in steps for r in s]
    sizes = [len(s) for s in steps]
    for e in (est, compat):
        got = e.step_time_batch(flat, sizes)
        assert list(got) == [e.step_time(s) for s in steps]
        assert np.array_equal(e.step_time_batch(as_array(flat), np.array(sizes, dtype=np.int64)), got)
        assert np.array_equal(e.step_time_batch(as_array(flat), np.array(sizes)[::1]), got)
    assert est.step_time_batch([], [0, 0])[0] == est.step_time([])
    assert compat.step_time_batch([], [0]).tolist() == [0.0]
    assert est.step_time_batch([], []).shape == (0,)


def test_out_is_reused(est):
    out = np.zeros(1000)
    reqs = np.tile(as_array([(1, 2048)]), 1000)
    assert est.step_time_batch(reqs, np.ones(1000, dtype=np.int64), out=out) is out
    assert (out == est.step_time([(1, 2048)])).all()


def test_threads_share_one_estimator(est, mixed):
    steps = [mixed_step(n) for n in (1, 7, 64, 256)]
    want = [est.step_time(s) for s in steps]
    arrays = [as_array(s) for s in steps]
    flat = np.concatenate(arrays)
    sizes = np.array([len(s) for s in steps], dtype=np.int64)

    def work(k: int) -> bool:
        ok = True
        for i in range(200):
            j = (i + k) % len(steps)
            ok &= est.step_time(arrays[j]) == want[j]
            ok &= est.step_time(steps[j]) == want[j]
            if i % 20 == 0:
                ok &= est.step_time_batch(flat, sizes).tolist() == want
                ok &= est.step_detail(steps[j]).total_us == want[j]
        return ok

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(16)))


def test_close_while_a_batch_runs_elsewhere():
    e = mfusim.Estimator(**ROOFLINE)
    reqs = np.tile(as_array(mixed_step(256)), 400)
    sizes = np.full(400, 256, dtype=np.int64)
    want = e.step_time_batch(reqs, sizes)
    results: list = []
    first = threading.Event()

    def run():
        # Calls back to back (the GIL released inside each) until the estimator is closed under it.
        while len(results) < 100_000:
            try:
                results.append(np.array_equal(e.step_time_batch(reqs, sizes), want))
            except mfusim.InvalidArgumentError:
                results.append("closed")
                return
            first.set()

    t = threading.Thread(target=run)
    t.start()
    first.wait()
    e.close()  # most likely while the thread is inside C: its pinned handle is freed when that call returns
    t.join()
    assert results[-1] == "closed"
    assert all(r is True for r in results[:-1])


def test_batch_releases_the_gil(est):
    # One long batch call on a thread: if it held the GIL, the main thread could not run a single bytecode
    # until it returned. Counting main-thread iterations while it runs tells.
    # A million 1-request steps (~70 ns each in C: the call takes ~0.1 s; 40 MB of arrays).
    n_steps = 1_000_000
    reqs = np.tile(as_array([(1, 2048)]), n_steps)
    sizes = np.ones(n_steps, dtype=np.int64)
    inside = threading.Event()
    done = threading.Event()
    timing = {}

    def worker():
        inside.set()
        t0 = time.perf_counter()
        est.step_time_batch(reqs, sizes)
        timing["call"] = time.perf_counter() - t0
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    inside.wait()
    spins = 0
    while not done.is_set():
        spins += 1
    t.join()
    assert timing["call"] > 0.01, "the batch was too quick to tell"
    assert spins > 1000, f"main thread ran {spins} iterations during a {timing['call'] * 1e3:.1f} ms call"
