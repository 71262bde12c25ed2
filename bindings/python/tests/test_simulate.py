"""mfusim.simulate: the engine simulator through mfusim_simulate (docs/simulate.md)."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import mfusim

SMALL = dict(num_prompts=24, warmup=2, max_concurrency=4, input_len=256, input_distribution="uniform",
             input_spread=64, output_len=16, seed=7)


def test_run_summary_and_arrays(est):
    r = mfusim.simulate(est, **SMALL, slo_ttft_ms=1e9)
    s = r.summary
    assert s.completed == r.completed == 22
    assert s.total_output_tokens == 22 * 16
    assert r.request_goodput == r.request_throughput > 0
    assert 0 < s.ttft_ms.min <= s.ttft_ms.median <= s.ttft_ms.p99 <= s.ttft_ms.max
    assert s.itl_ms.mean > 0 and s.e2el_ms.mean > s.ttft_ms.mean
    assert r.ttft_ms.shape == (24,) and r.ttft_ms.dtype == np.float64
    assert r.input_len.dtype == np.int64 and ((r.input_len >= 192) & (r.input_len <= 320)).all()
    assert (r.output_len == 16).all()
    assert list(r.warmup[:3]) == [True, True, False]
    assert np.all(np.isfinite(r.requests["e2el_ms"])) and np.all(r.e2el_ms >= r.ttft_ms)
    # The statistics are those of the arrays (population std, NumPy's percentiles), warm-up excluded.
    measured = r.ttft_ms[~r.warmup]
    assert s.ttft_ms.mean == pytest.approx(measured.mean())
    assert s.ttft_ms.std == pytest.approx(measured.std())
    assert s.ttft_ms.p90 == pytest.approx(np.percentile(measured, 90))
    assert r.percentile("ttft", 50) == s.ttft_ms.median
    assert r.percentile("itl_ms", 99) == s.itl_ms.p99
    assert r.percentile("e2el", 37.5) == pytest.approx(np.percentile(r.e2el_ms[~r.warmup], 37.5))
    assert r.timeline is None
    assert math.isfinite(s.to_dict()["queue_ms_p95"])
    assert "SimulationResult" in repr(r)


def test_arrays_are_zero_copy_and_read_only(est):
    r = mfusim.simulate(est, **SMALL)
    assert r.requests.dtype == mfusim.SIMULATED_REQUEST_DTYPE and r.requests.itemsize == 80
    assert not r.requests.flags.writeable
    with pytest.raises(ValueError):
        r.ttft_ms[0] = 1.0
    view = r.ttft_ms
    del r  # the array keeps the native result alive
    assert np.all(view > 0)


def test_determinism(est):
    a = mfusim.simulate(est, **SMALL)
    b = mfusim.simulate(est, **SMALL)
    assert a.requests.tobytes() == b.requests.tobytes()
    c = mfusim.simulate(est, **{**SMALL, "seed": 8})
    assert a.requests.tobytes() != c.requests.tobytes()


def test_rate_and_timeline(est):
    r = mfusim.simulate(est, num_prompts=16, request_rate=50.0, burstiness=0.5, input_len=128, output_len=8,
                        timeline=True, scheduler="sglang", max_batched_tokens=2048)
    assert r.timeline is not None and len(r.timeline) == r.steps
    assert r.timeline.dtype == mfusim.SIMULATED_STEP_DTYPE
    assert (r.timeline["duration_ms"] > 0).all() and (np.diff(r.timeline["start_ms"]) >= 0).all()
    assert r.send_ms[-1] > 0  # a finite rate spreads the sends


def test_ramp_up_spreads_closed_loop_clients(est):
    together = mfusim.simulate(est, **SMALL)
    ramped = mfusim.simulate(est, **SMALL, ramp_up_s=0.3)
    assert (together.send_ms[:4] == 0).all()
    assert ramped.send_ms[0] == 0 and 200 < ramped.send_ms[3] < 300  # client i starts at i x 0.3 s / 4
    with pytest.raises(mfusim.InvalidArgumentError, match="ramp_up_s"):
        mfusim.simulate(est, **SMALL, ramp_up_s=-1)


def test_trace_forms(est):
    tuples = [(0.0, 128, 8), (0.01, 256, 4, 1, 64), (0.02, 256, 4, 1, 64)]
    a = mfusim.simulate(est, trace=tuples)
    array = np.array([(0.0, 128, 8, -1, 0), (0.01, 256, 4, 1, 64), (0.02, 256, 4, 1, 64)], dtype=mfusim.TRACE_DTYPE)
    b = mfusim.simulate(est, trace=array)
    assert a.requests.tobytes() == b.requests.tobytes()
    assert list(a.input_len) == [128, 256, 256] and list(a.output_len) == [8, 4, 4]
    with pytest.raises(mfusim.InvalidArgumentError, match=r"trace\[2\].arrival_s"):
        mfusim.simulate(est, trace=[(0.0, 128, 8), (0.5, 128, 8), (0.1, 128, 8)])
    with pytest.raises(mfusim.InvalidArgumentError, match=r"trace\[0\]"):
        mfusim.simulate(est, trace=[(0.0, 128)])


def test_errors_name_the_field(est, compat):
    with pytest.raises(mfusim.InvalidArgumentError, match="num_prompts"):
        mfusim.simulate(est, num_prompts=0)
    with pytest.raises(mfusim.InvalidArgumentError, match="burstiness"):
        mfusim.simulate(est, num_prompts=4, burstiness=0)
    with pytest.raises(mfusim.InvalidArgumentError, match="slo_tpot_ms"):
        mfusim.simulate(est, num_prompts=4, slo_tpot_ms=float("nan"))
    with pytest.raises(mfusim.InvalidArgumentError, match="input_distribution"):
        mfusim.simulate(est, num_prompts=4, input_distribution="zipf")
    with pytest.raises(mfusim.InvalidArgumentError, match="scheduler"):
        mfusim.simulate(est, num_prompts=4, scheduler="fifo")
    r = mfusim.simulate(est, num_prompts=4, input_len=64, output_len=4)
    with pytest.raises(mfusim.InvalidArgumentError, match="metric"):
        r.percentile("latency", 50)
    with pytest.raises(mfusim.InvalidArgumentError, match="between 0 and 100"):
        r.percentile("ttft", 150)
    with pytest.raises(mfusim.UnsupportedError):
        mfusim.simulate(compat, num_prompts=4)


def test_runs_in_parallel_threads(est):
    results: list[bytes] = []

    def run() -> None:
        results.append(mfusim.simulate(est, **SMALL).requests.tobytes())

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and len(set(results)) == 1
