"""mfusim.grid and mfusim.sweep: every backend gives the serial sweep's rows exactly, refused points keep their
row, bad arguments are refused by name (docs/python.md, "Sweeps over many processes")."""

from __future__ import annotations

import sys

import pytest

import mfusim
from _fake_ray import FakeRay

# Two models x two GPUs x two TP degrees x four concurrencies: 32 points, 8 distinct Estimators, and refusals
# (Llama 3.1 70B's 131 GiB of bf16 weights fit neither one H100 nor one H200).
POINTS = mfusim.grid(model=["llama-3.1-8b-instruct", "llama-3.1-70b-instruct"], gpu=["H100", "H200"], tp=[1, 2],
                     concurrency=[1, 8, 64, 256], input_len=1024, output_len=128)


@pytest.fixture(scope="module")
def serial():
    return mfusim.sweep(POINTS)


def test_grid_is_the_product_first_axis_slowest():
    assert len(POINTS) == 32
    assert POINTS[0] == dict(model="llama-3.1-8b-instruct", gpu="H100", tp=1, concurrency=1, input_len=1024,
                             output_len=128)
    assert [p["concurrency"] for p in POINTS[:4]] == [1, 8, 64, 256]
    assert {p["model"] for p in POINTS[16:]} == {"llama-3.1-70b-instruct"}


def test_serial_rows_are_serve_answers(serial):
    assert [{k: r[k] for k in POINTS[0]} for r in serial] == POINTS
    with mfusim.Estimator(model="llama-3.1-8b-instruct", gpu="H200", tp=2) as est:
        direct = est.serve(1024, 128, 64).to_dict()
    row = serial[POINTS.index(dict(model="llama-3.1-8b-instruct", gpu="H200", tp=2, concurrency=64,
                                   input_len=1024, output_len=128))]
    assert row["error"] == "" and {k: row[k] for k in direct} == direct


def test_refused_points_keep_their_row(serial):
    refused = [r for r in serial if r["error"]]
    assert len(refused) == 8, "70B at TP 1, on either GPU, at each concurrency"
    assert all(r["model"] == "llama-3.1-70b-instruct" and r["tp"] == 1 for r in refused)
    assert all(r["error"].startswith("ConfigError: the weights take") for r in refused)
    assert all("ttft_ms" not in r for r in refused)


@pytest.mark.parametrize("workers", [2, 3])
def test_processes_give_the_serial_rows(serial, workers):
    assert mfusim.sweep(POINTS, workers=workers) == serial


def test_simulate_over_processes_gives_the_serial_rows():
    points = mfusim.grid(model="llama-3.1-8b-instruct", gpu=["H100", "H200"], request_rate=[4.0, 16.0],
                         num_prompts=50, input_len=512, output_len=64, seed=[0, 1])
    serial = mfusim.sweep(points, what="simulate")
    assert all(r["error"] == "" and r["completed"] == 50 for r in serial)
    assert mfusim.sweep(points, what="simulate", workers=2, chunks_per_worker=1) == serial


def test_ray_backend_gives_the_serial_rows(serial, monkeypatch):
    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    assert mfusim.sweep(POINTS, workers=3, backend="ray") == serial
    assert fake.initialized and fake.most_in_flight == 3


def test_real_ray_local_mode(serial):
    ray = pytest.importorskip("ray")  # optional: never a dependency of the package
    if not hasattr(ray, "remote"):
        pytest.skip("'ray' here is a folder, not Ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False)
    try:
        assert mfusim.sweep(POINTS, workers=2, backend="ray") == serial
    finally:
        if started:
            ray.shutdown()


def test_ray_backend_without_ray_says_how(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ImportError, match="pip install ray"):
        mfusim.sweep(POINTS[:4], workers=2, backend="ray")


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(mfusim.InvalidArgumentError, match="what must be"):
        mfusim.sweep(POINTS, what="estimate")
    with pytest.raises(mfusim.InvalidArgumentError, match="backend must be"):
        mfusim.sweep(POINTS, backend="spark")
    with pytest.raises(mfusim.InvalidArgumentError, match="workers must be"):
        mfusim.sweep(POINTS, workers=0)
    with pytest.raises(TypeError, match="concurency"):
        mfusim.sweep([dict(model="qwen3-8b", gpu="H100", input_len=8, output_len=8, concurency=1)])
    assert mfusim.sweep([]) == []
