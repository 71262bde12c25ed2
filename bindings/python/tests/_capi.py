"""A plain ctypes mirror of the parts of include/mfusim.h the tests and the benchmark call directly.

It loads the libmfusim.so.1 that the installed wheel carries (the very library the extension uses), so comparing
the two compares the binding, not two builds. Not a public API: the point is to be the obvious, hand-written
"ctypes way" the extension is measured against.
"""

from __future__ import annotations

import ctypes as C
from pathlib import Path

import mfusim


class Options(C.Structure):
    _fields_ = [
        ("struct_size", C.c_size_t),
        ("model", C.c_char_p),
        ("gpu", C.c_char_p),
        ("bench_data_dir", C.c_char_p),
        ("mode", C.c_int32),
        ("tensor_parallel", C.c_int32),
        ("world_size", C.c_int32),
        ("num_nodes", C.c_int32),
        ("fp8_gemm", C.c_int32),
        ("fp8_kv", C.c_int32),
        ("deepep", C.c_int32),
        ("two_batch_overlap", C.c_int32),
        ("sm_ratio", C.c_double),
        ("engine", C.c_char_p),
        ("quant", C.c_char_p),
        ("expert_parallel", C.c_int32),
        ("attention_data_parallel", C.c_int32),
    ]


class Error(C.Structure):
    _fields_ = [("status", C.c_int32), ("message", C.c_char * 1024)]


class Request(C.Structure):
    _fields_ = [("new_tokens", C.c_int64), ("context", C.c_int64), ("flags", C.c_uint32), ("reserved", C.c_uint32)]


class OpDetail(C.Structure):
    _fields_ = [
        ("time_us", C.c_double),
        ("flops", C.c_double),
        ("bytes", C.c_double),
        ("efficiency", C.c_double),
        ("distance", C.c_double),
        ("bound", C.c_int32),
        ("source", C.c_int32),
        ("table", C.c_char * 96),
    ]


class StepResult(C.Structure):
    _fields_ = [
        ("struct_size", C.c_size_t),
        ("total_us", C.c_double),
        ("bound", C.c_int32),
        ("n_ops", C.c_int32),
        ("ops", OpDetail * 32),
    ]


class Scenario(C.Structure):
    _fields_ = [
        ("struct_size", C.c_size_t),
        ("input_len", C.c_int64),
        ("output_len", C.c_int64),
        ("max_prefill_tokens", C.c_int64),
        ("decode_batch", C.c_int64),
        ("target_tgs", C.c_double),
        ("target_tpot_ms", C.c_double),
        ("phases", C.c_int32),
    ]


class Serving(C.Structure):
    _fields_ = [
        ("struct_size", C.c_size_t),
        ("input_len", C.c_int64),
        ("output_len", C.c_int64),
        ("concurrency", C.c_int64),
        ("max_batched_tokens", C.c_int64),
        ("max_seqs", C.c_int64),
        ("gpu_memory_utilization", C.c_double),
        ("requests_per_client", C.c_double),
    ]


SERVING_RESULT_FIELDS = [
    "ttft_ms", "tpot_ms", "e2e_ms", "output_throughput_tok_s_gpu", "request_throughput_req_s", "decode_step_ms",
    "mixed_step_ms", "mixed_step_fraction", "decode_batch", "prefill_tokens_per_mixed_step",
    "prefill_steps_per_request", "queue_ms", "running_requests", "kv_capacity_tokens",
]


class ServingResult(C.Structure):
    _fields_ = [("struct_size", C.c_size_t)] + [(f, C.c_double) for f in SERVING_RESULT_FIELDS] + [
        ("limited_by", C.c_int32)
    ]


ENGINE_TERMS_FIELDS = [
    ("name", C.c_char * 32), ("step_us", C.c_double), ("request_us", C.c_double), ("layer_us", C.c_double),
    ("eager_layer_us", C.c_double), ("tp_sync_us", C.c_double), ("admission_us", C.c_double),
    ("input_token_us", C.c_double), ("output_token_us", C.c_double), ("cuda_graph_max_batch", C.c_int64),
    ("max_batched_tokens", C.c_int64), ("max_seqs", C.c_int64), ("gpu_memory_utilization", C.c_double),
    ("mixed_batches", C.c_int32),
]


class EngineTerms(C.Structure):
    _fields_ = [("struct_size", C.c_size_t)] + ENGINE_TERMS_FIELDS


P = C.POINTER
_E = C.c_void_p  # mfusim_estimator*


def library_path() -> Path:
    return Path(mfusim.__file__).parent / "libmfusim.so.1"


def load() -> C.CDLL:
    lib = C.CDLL(str(library_path()))
    sig = {
        "mfusim_options_init": (C.c_int32, [P(Options), C.c_size_t, P(Error)]),
        "mfusim_estimator_create": (C.c_int32, [P(Options), P(_E), P(Error)]),
        "mfusim_estimator_free": (None, [_E]),
        "mfusim_step_time": (C.c_int32, [_E, C.c_void_p, C.c_size_t, P(C.c_double), P(Error)]),
        "mfusim_step_time_batch": (
            C.c_int32, [_E, C.c_void_p, C.c_size_t, C.c_void_p, C.c_size_t, C.c_void_p, P(Error)]),
        "mfusim_step_result_init": (C.c_int32, [P(StepResult), C.c_size_t, P(Error)]),
        "mfusim_step_detail": (C.c_int32, [_E, C.c_void_p, C.c_size_t, P(StepResult), P(Error)]),
        "mfusim_scenario_init": (C.c_int32, [P(Scenario), C.c_size_t, P(Error)]),
        "mfusim_estimate": (C.c_int32, [_E, P(Scenario), P(C.c_void_p), P(Error)]),
        "mfusim_report_free": (None, [C.c_void_p]),
        "mfusim_report_count": (C.c_size_t, [C.c_void_p]),
        "mfusim_report_name": (C.c_char_p, [C.c_void_p, C.c_size_t]),
        "mfusim_report_value_at": (C.c_double, [C.c_void_p, C.c_size_t]),
        "mfusim_report_value": (C.c_int32, [C.c_void_p, C.c_char_p, P(C.c_double), P(Error)]),
        "mfusim_serving_init": (C.c_int32, [P(Serving), C.c_size_t, P(Error)]),
        "mfusim_serving_result_init": (C.c_int32, [P(ServingResult), C.c_size_t, P(Error)]),
        "mfusim_serving_estimate": (C.c_int32, [_E, P(Serving), P(ServingResult), P(Error)]),
        "mfusim_version_string": (C.c_char_p, []),
        "mfusim_engine_terms_init": (C.c_int32, [P(EngineTerms), C.c_size_t, P(Error)]),
        "mfusim_estimator_engine_terms": (C.c_int32, [_E, P(EngineTerms), P(Error)]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


class CEstimator:
    """The C API driven by hand through ctypes: what a user without the extension would write."""

    def __init__(self, lib: C.CDLL, model: str, gpu: str, mode: int = 0, tp: int = 1) -> None:
        self.lib = lib
        o = Options()
        err = Error()
        assert lib.mfusim_options_init(C.byref(o), C.sizeof(o), C.byref(err)) == 0, err.message
        o.model, o.gpu, o.mode, o.tensor_parallel = model.encode(), gpu.encode(), mode, tp
        self.handle = _E()
        status = lib.mfusim_estimator_create(C.byref(o), C.byref(self.handle), C.byref(err))
        if status != 0:
            raise mfusim._errors.from_status(status, err.message.decode())

    def close(self) -> None:
        self.lib.mfusim_estimator_free(self.handle)
        self.handle = _E()

    def _check(self, status: int, err: Error) -> None:
        if status != 0:
            raise mfusim._errors.from_status(status, err.message.decode())

    def step_time(self, array) -> float:
        """array: a REQUEST_DTYPE NumPy array."""
        out = C.c_double()
        err = Error()
        self._check(self.lib.mfusim_step_time(self.handle, array.ctypes.data, len(array), C.byref(out),
                                              C.byref(err)), err)
        return out.value

    def step_time_batch(self, array, sizes, out) -> None:
        err = Error()
        self._check(self.lib.mfusim_step_time_batch(self.handle, array.ctypes.data, len(array), sizes.ctypes.data,
                                                    len(sizes), out.ctypes.data, C.byref(err)), err)

    def step_detail(self, array) -> StepResult:
        r = StepResult()
        err = Error()
        self._check(self.lib.mfusim_step_result_init(C.byref(r), C.sizeof(r), C.byref(err)), err)
        self._check(self.lib.mfusim_step_detail(self.handle, array.ctypes.data, len(array), C.byref(r),
                                                C.byref(err)), err)
        return r

    def estimate(self, **fields) -> dict[str, float]:
        sc = Scenario()
        err = Error()
        self._check(self.lib.mfusim_scenario_init(C.byref(sc), C.sizeof(sc), C.byref(err)), err)
        for k, v in fields.items():
            setattr(sc, k, v)
        report = C.c_void_p()
        self._check(self.lib.mfusim_estimate(self.handle, C.byref(sc), C.byref(report), C.byref(err)), err)
        try:
            n = self.lib.mfusim_report_count(report)
            return {self.lib.mfusim_report_name(report, i).decode(): self.lib.mfusim_report_value_at(report, i)
                    for i in range(n)}
        finally:
            self.lib.mfusim_report_free(report)

    def serve(self, **fields) -> dict[str, float]:
        w = Serving()
        r = ServingResult()
        err = Error()
        self._check(self.lib.mfusim_serving_init(C.byref(w), C.sizeof(w), C.byref(err)), err)
        self._check(self.lib.mfusim_serving_result_init(C.byref(r), C.sizeof(r), C.byref(err)), err)
        for k, v in fields.items():
            setattr(w, k, v)
        self._check(self.lib.mfusim_serving_estimate(self.handle, C.byref(w), C.byref(r), C.byref(err)), err)
        return {f: getattr(r, f) for f in SERVING_RESULT_FIELDS + ["limited_by"]}

    def engine_terms(self) -> dict[str, object]:
        t = EngineTerms()
        err = Error()
        self._check(self.lib.mfusim_engine_terms_init(C.byref(t), C.sizeof(t), C.byref(err)), err)
        self._check(self.lib.mfusim_estimator_engine_terms(self.handle, C.byref(t), C.byref(err)), err)
        out = {f: getattr(t, f) for f, _ in ENGINE_TERMS_FIELDS}
        out["name"] = t.name.decode()
        out["mixed_batches"] = bool(t.mixed_batches)
        return out
