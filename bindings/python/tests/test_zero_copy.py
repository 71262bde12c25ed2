"""A NumPy array of REQUEST_DTYPE reaches C as it is: the pointer C gets is the array's own memory."""

from __future__ import annotations

import numpy as np

import mfusim
from mfusim import _mfusim


def test_structured_array_is_not_copied(mixed_array):
    address, n, copied = _mfusim._request_pointer(mixed_array)
    assert (address, n, copied) == (mixed_array.ctypes.data, len(mixed_array), False)


def test_every_spelling_of_the_dtype_is_zero_copy():
    spec = [("new_tokens", "i8"), ("context", "i8"), ("flags", "u4"), ("reserved", "u4")]
    for dtype in (mfusim.REQUEST_DTYPE, np.dtype(spec), np.dtype(spec, align=True)):
        a = np.zeros(10, dtype=dtype)
        assert _mfusim._request_pointer(a) == (a.ctypes.data, 10, False)
    b = mfusim.requests([1, 1], [10, 20])
    assert _mfusim._request_pointer(b) == (b.ctypes.data, 2, False)
    view = b[1:]  # a contiguous view into another array's memory
    assert _mfusim._request_pointer(view) == (b.ctypes.data + 24, 1, False)


def test_converted_inputs_say_so(mixed_array, mixed):
    assert _mfusim._request_pointer(mixed_array[::2])[2] is True  # strided
    assert _mfusim._request_pointer(np.zeros((4, 2), dtype=np.int64))[2] is True
    assert _mfusim._request_pointer(mixed)[1:] == (256, True)


def test_the_call_reads_the_live_array(est):
    a = mfusim.requests([1] * 8, [1024] * 8)
    before = est.step_time(a)
    a["context"] = 65536  # in place: the next call sees it, no stale copy
    assert est.step_time(a) > before
    out = np.empty(2)
    assert est.step_time_batch(a, np.array([4, 4]), out=out) is out


def test_other_buffer_objects_are_read_through_the_buffer_protocol(est, mixed_array):
    view = memoryview(mixed_array)
    assert _mfusim._request_pointer(view) == (mixed_array.ctypes.data, len(mixed_array), False)
    assert est.step_time(view) == est.step_time(mixed_array)
    assert est.step_time_batch(view, memoryview(np.array([100, 156])), out=memoryview(np.empty(2))) is not None


def test_misaligned_memory_is_copied_not_read_in_place(est, mixed_array):
    raw = np.zeros(len(mixed_array) * 24 + 1, dtype=np.uint8)
    raw[1:] = mixed_array.view(np.uint8)
    misaligned = raw[1:].view(mfusim.REQUEST_DTYPE)
    assert misaligned.ctypes.data % 8 == 1
    address, n, copied = _mfusim._request_pointer(misaligned)
    assert n == len(mixed_array) and copied
    assert est.step_time(misaligned) == est.step_time(mixed_array)
