"""Identical numbers to the C API: the same C functions called through ctypes on the libmfusim the wheel carries."""

from __future__ import annotations

import numpy as np
import pytest

import mfusim
import _capi
from conftest import as_array, mixed_step


@pytest.fixture(scope="module")
def c_roofline(capi):
    e = _capi.CEstimator(capi, "llama-3.1-8b-instruct", "H100")
    yield e
    e.close()


@pytest.fixture(scope="module")
def c_compat(capi):
    e = _capi.CEstimator(capi, "qwen3-8b", "H20", mode=1)
    yield e
    e.close()


def test_the_wheel_carries_the_library_the_extension_loads(capi):
    path = _capi.library_path()
    assert path.is_file()
    assert capi.mfusim_version_string().decode() == mfusim.version()
    maps = open("/proc/self/maps").read()
    loaded = {line.split()[-1] for line in maps.splitlines() if "libmfusim" in line}
    assert loaded == {str(path.resolve())}, loaded


STEPS = {
    "decode_1": [(1, 2048)],
    "mixed_256": mixed_step(256),
    "prefill_chunks": [(2048, 0), (512, 4096, 1), (64, 100)],
    "long_decodes": [(1, 131072)] * 17,
    "empty": [],
}


@pytest.mark.parametrize("name", sorted(STEPS))
def test_step_time_bit_identical(est, compat, c_roofline, c_compat, name):
    array = as_array(STEPS[name])
    assert est.step_time(STEPS[name]) == c_roofline.step_time(array)
    assert est.step_time(array) == c_roofline.step_time(array)
    assert compat.step_time(array) == c_compat.step_time(array)


def test_batch_bit_identical(est, c_roofline):
    steps = [STEPS[n] for n in sorted(STEPS)] * 3
    flat = as_array([r for s in steps for r in s])
    sizes = np.array([len(s) for s in steps], dtype=np.int64)
    want = np.empty(len(steps))
    c_roofline.step_time_batch(flat, sizes, want)
    got = est.step_time_batch(flat, sizes)
    assert got.dtype == np.float64 and got.shape == (len(steps),)
    assert np.array_equal(got, want)
    assert np.array_equal(est.step_time_batch([r for s in steps for r in s], [len(s) for s in steps]), want)


def test_step_detail_identical(est, compat, c_roofline, c_compat, mixed_array):
    for py, c in ((est, c_roofline), (compat, c_compat)):
        d = py.step_detail(mixed_array)
        r = c.step_detail(mixed_array)
        assert d.total_us == r.total_us
        assert len(d.ops) == r.n_ops
        for i, op in enumerate(d.ops):
            cop = r.ops[i]
            assert op.name == mfusim._mfusim.op_name(i)
            assert (op.time_us, op.flops, op.bytes, op.efficiency, op.distance) == (
                cop.time_us, cop.flops, cop.bytes, cop.efficiency, cop.distance)
            assert op.table == cop.table.decode()


def test_estimate_identical(compat, est, c_compat, c_roofline):
    assert dict(compat.estimate(input_len=2048, output_len=512).values) == c_compat.estimate(
        input_len=2048, output_len=512)
    assert dict(est.estimate(input_len=1024, output_len=256, decode_batch=32).values) == c_roofline.estimate(
        input_len=1024, output_len=256, decode_batch=32)


def test_serve_identical(est, c_roofline):
    for c, k in ((1, 0), (16, 0), (256, 0), (16, 4)):
        got = est.serve(1024, 128, c, max_seqs=128, requests_per_client=k).to_dict()
        want = c_roofline.serve(input_len=1024, output_len=128, concurrency=c, max_seqs=128, requests_per_client=k)
        limit = got.pop("limited_by")
        assert {"none": 0, "token_budget": 1, "max_seqs": 2, "kv_capacity": 3}[limit] == want.pop("limited_by")
        assert got == want


def test_engine_terms_identical(est, capi):
    for engine in ("vllm", "sglang", "trtllm", "none"):
        e = mfusim.Estimator(engine=engine, model="llama-3.1-8b-instruct", gpu="H100")
        c = _capi.CEstimator(capi, "llama-3.1-8b-instruct", "H100")
        if engine == "vllm":
            assert e.engine_terms().to_dict() == c.engine_terms()
        assert e.engine_terms().name == engine
        e.close()
        c.close()
