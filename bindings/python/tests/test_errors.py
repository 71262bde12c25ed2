"""One exception class per status, each raised by a real input where the Python API can reach that status."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import mfusim
import _capi
from conftest import COMPAT, ROOFLINE

CLASSES = {
    1: (mfusim.InvalidArgumentError, ValueError),
    2: (mfusim.FileError, OSError),
    3: (mfusim.ParseError, ValueError),
    4: (mfusim.ConfigError, ValueError),
    5: (mfusim.UnknownNameError, LookupError),
    6: (mfusim.UnsupportedError, mfusim.Error),
    7: (mfusim.CompatCrashError, mfusim.Error),
    8: (mfusim.StructSizeError, mfusim.Error),
    9: (mfusim.OutOfMemoryError, MemoryError),
    10: (mfusim.InternalError, RuntimeError),
    11: (mfusim.NotFoundError, LookupError),
}


@pytest.mark.parametrize("status", sorted(CLASSES))
def test_class_per_status(status):
    cls, builtin = CLASSES[status]
    e = mfusim._errors.from_status(status, "the message")
    assert type(e) is cls and isinstance(e, mfusim.Error) and isinstance(e, builtin)
    assert (e.status, e.message, str(e)) == (status, "the message", "the message")
    assert cls.status == status
    assert mfusim._mfusim.status_string(status) != "unknown"


def test_unknown_future_status_is_the_base_class():
    e = mfusim._errors.from_status(99, "new")
    assert type(e) is mfusim.Error and e.status == 99


def test_invalid_argument_names_the_request(est):
    with pytest.raises(mfusim.InvalidArgumentError, match="request 1") as info:
        est.step_time([(1, 10), (-1, 10)])
    assert info.value.status == 1
    with pytest.raises(ValueError):  # the built-in base works too
        est.step_time(mfusim.requests([1, 1], [10, -5]))


def test_bad_option_value():
    with pytest.raises(mfusim.InvalidArgumentError):
        mfusim.Estimator(tp=0, **ROOFLINE)
    with pytest.raises(mfusim.InvalidArgumentError, match="mode"):
        mfusim.Estimator(mode="fast", **{k: v for k, v in ROOFLINE.items()})


def test_file_error(tmp_path):
    with pytest.raises(mfusim.FileError, match="not a directory") as info:
        mfusim.Estimator(bench_data=tmp_path / "missing", **ROOFLINE)
    assert isinstance(info.value, OSError) and info.value.status == 2


def test_parse_error():
    with pytest.raises(mfusim.ParseError) as info:
        mfusim.Estimator(model='{"hidden_size": 4096,', gpu="H100")
    assert info.value.status == 3


def test_config_error(tmp_path):
    with pytest.raises(mfusim.ConfigError, match="hidden_size"):
        mfusim.Estimator(model='{"num_hidden_layers": 2}', gpu="H100")


def test_unknown_name():
    with pytest.raises(mfusim.UnknownNameError, match="gpt-17-ultra"):
        mfusim.Estimator(model="gpt-17-ultra", gpu="H100")
    with pytest.raises(mfusim.UnknownNameError):
        mfusim.Estimator(model="qwen3-8b", gpu="Z999")


def test_unsupported(compat):
    with pytest.raises(mfusim.UnsupportedError, match="H100"):
        mfusim.Estimator(model="qwen3-8b", gpu="H100", mode="infersim")
    with pytest.raises(mfusim.UnsupportedError):
        compat.serve(1024, 128, 16)  # serving estimates are roofline only


def test_compat_crash(compat):
    with pytest.raises(mfusim.CompatCrashError, match="ZeroDivisionError") as info:
        compat.estimate(input_len=0)
    assert info.value.status == 7


def test_not_found(compat, capi):
    report = compat.estimate(phases="decode")
    with pytest.raises(mfusim.NotFoundError):
        report["prefill.ttft_ms"]
    # The C API's own answer for the same lookup is the same status.
    c = _capi.CEstimator(capi, COMPAT["model"], COMPAT["gpu"], mode=1)
    sc = _capi.Scenario()
    capi.mfusim_scenario_init(ctypes.byref(sc), ctypes.sizeof(sc), None)
    sc.phases = 2
    rep = ctypes.c_void_p()
    assert capi.mfusim_estimate(c.handle, ctypes.byref(sc), ctypes.byref(rep), None) == 0
    out = ctypes.c_double()
    assert capi.mfusim_report_value(rep, b"prefill.ttft_ms", ctypes.byref(out), None) == 11
    capi.mfusim_report_free(rep)
    c.close()


def test_struct_size_error_from_the_library(capi):
    # The binding always passes its own sizeof; a wrong size is reachable only from C. The library's status
    # for it maps to StructSizeError.
    o = _capi.Options()
    err = _capi.Error()
    status = capi.mfusim_options_init(ctypes.byref(o), 12, ctypes.byref(err))
    e = mfusim._errors.from_status(status, err.message.decode())
    assert isinstance(e, mfusim.StructSizeError) and "no released layout" in e.message


def test_batch_errors_name_the_step(est):
    reqs = [(1, 100)] * 6
    with pytest.raises(mfusim.InvalidArgumentError):
        est.step_time_batch(reqs, [2, 2])  # falls short of the requests
    with pytest.raises(mfusim.InvalidArgumentError):
        est.step_time_batch(reqs, [4, 4])  # overruns them
    with pytest.raises(mfusim.InvalidArgumentError):
        est.step_time_batch(reqs, [8, -2])
    with pytest.raises(mfusim.InvalidArgumentError, match="step 1"):
        est.step_time_batch([(1, 100), (1, 100), (-1, 5)], [1, 2])
    out = np.full(2, -7.0)
    with pytest.raises(mfusim.InvalidArgumentError):
        est.step_time_batch([(1, 100), (-1, 100)], [1, 1], out=out)
    assert (out == -7.0).all()  # nothing written on failure
    with pytest.raises(ValueError, match="3 slots for 2 steps"):
        est.step_time_batch(reqs, [3, 3], out=np.empty(3))
    with pytest.raises(TypeError):
        est.step_time_batch(reqs, [3, 3], out=np.empty(2, dtype=np.float32))
    with pytest.raises(TypeError):
        est.step_time_batch(reqs, np.array([3, 3], dtype=np.int32))
