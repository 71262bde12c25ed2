"""The engine simulator (``mfusim_simulate``): a serving benchmark replayed step by step (docs/simulate.md)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, Union

import numpy as np

from . import _mfusim
from ._errors import InvalidArgumentError

if TYPE_CHECKING:
    import numpy.typing as npt

    from . import Estimator

__all__ = [
    "simulate",
    "SimulationResult",
    "SimulationSummary",
    "LatencySummary",
    "TRACE_DTYPE",
    "SIMULATED_REQUEST_DTYPE",
    "SIMULATED_STEP_DTYPE",
]

TRACE_DTYPE: np.dtype = np.dtype(
    [("arrival_s", "<f8"), ("input_len", "<i8"), ("output_len", "<i8"), ("prefix_id", "<i8"), ("prefix_len", "<i8")]
)
"""NumPy dtype of ``mfusim_trace_request`` (40 bytes): a trace of this dtype is passed to C without a copy."""

SIMULATED_REQUEST_DTYPE: np.dtype = np.dtype(
    [
        ("send_ms", "<f8"),
        ("ttft_ms", "<f8"),
        ("tpot_ms", "<f8"),
        ("e2el_ms", "<f8"),
        ("queue_ms", "<f8"),
        ("input_len", "<i8"),
        ("output_len", "<i8"),
        ("preemptions", "<i8"),
        ("prefix_hit_tokens", "<i8"),
        ("warmup", "<i4"),
        ("reserved", "<i4"),
    ]
)
"""NumPy dtype of ``mfusim_simulated_request`` (80 bytes): :attr:`SimulationResult.requests`."""

SIMULATED_STEP_DTYPE: np.dtype = np.dtype(
    [
        ("start_ms", "<f8"),
        ("duration_ms", "<f8"),
        ("running", "<i4"),
        ("waiting", "<i4"),
        ("prefill_tokens", "<i4"),
        ("decode_tokens", "<i4"),
        ("kv_used", "<f8"),
    ]
)
"""NumPy dtype of ``mfusim_simulated_step`` (40 bytes): :attr:`SimulationResult.timeline`."""

assert TRACE_DTYPE.itemsize == _mfusim.TRACE_REQUEST_SIZE
assert SIMULATED_REQUEST_DTYPE.itemsize == _mfusim.SIMULATED_REQUEST_SIZE
assert SIMULATED_STEP_DTYPE.itemsize == _mfusim.SIMULATED_STEP_SIZE

_DISTRIBUTIONS = {"fixed": 0, "uniform": 1, "normal": 2, "lognormal": 3}
_SCHEDULERS = {
    None: 0,
    "engine": 0,
    "vllm-v1": 1,
    "vllm": 1,
    "sglang": 2,
    "trtllm": 3,
    "trtllm-max-utilization": 4,
}
_METRICS = {"ttft": 0, "tpot": 1, "itl": 2, "e2el": 3, "queue": 4}

TraceLike = Union[Sequence[Sequence[float]], "npt.NDArray[Any]"]


@dataclass(frozen=True, slots=True)
class LatencySummary:
    """A distribution over the measured requests (``mfusim_latency_summary``), in ms, as vLLM bench reports it."""

    mean: float
    median: float
    std: float
    p90: float
    p95: float
    p99: float
    min: float
    max: float


@dataclass(frozen=True, slots=True)
class SimulationSummary:
    """The statistics of a simulated benchmark (``mfusim_simulation_summary``), over the non-warm-up requests."""

    completed: int
    total_input_tokens: int
    total_output_tokens: int
    duration_s: float
    """First measured send to last measured completion."""
    request_throughput: float
    request_goodput: float
    """Requests per second meeting every SLO given."""
    output_throughput: float
    total_token_throughput: float
    steps: int
    preemptions: int
    prefix_hit_tokens: int
    mean_batch_tokens: float
    mean_running: float
    ttft_ms: LatencySummary
    tpot_ms: LatencySummary
    itl_ms: LatencySummary
    e2el_ms: LatencySummary
    queue_ms: LatencySummary

    def to_dict(self) -> dict[str, Any]:
        """Flat: ``ttft_ms_mean``, ``ttft_ms_p99``, ... beside the scalar fields (one pandas row per run)."""
        row: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, LatencySummary):
                for k, v in dataclasses.asdict(value).items():
                    row[f"{f.name}_{k}"] = v
            else:
                row[f.name] = value
        return row


class SimulationResult:
    """A finished simulation (an owned ``mfusim_simulation_result``; immutable, safe to share across threads).

    ``summary`` holds the statistics; the scalar ones are also attributes of the result (``request_throughput``,
    ...). Per-request NumPy arrays (read-only views of the library's memory, no copy), in send order, warm-up
    requests included (``warmup`` says which): ``send_ms``, ``ttft_ms``, ``tpot_ms``, ``e2el_ms``, ``queue_ms``,
    ``input_len``, ``output_len``, ``preemptions``, ``prefix_hit_tokens``; ``requests`` is the whole structured
    array (:data:`SIMULATED_REQUEST_DTYPE`). ``timeline``: one row per engine step (:data:`SIMULATED_STEP_DTYPE`)
    when the run recorded it, else ``None``.
    """

    def __init__(self, native: Any) -> None:
        self._native = native
        s = native._summary()
        latencies = {k: LatencySummary(**s.pop(k)) for k in ("ttft_ms", "tpot_ms", "itl_ms", "e2el_ms", "queue_ms")}
        self.summary = SimulationSummary(**s, **latencies)
        raw = native._requests_bytes()
        self.requests: npt.NDArray[Any] = (
            np.zeros(0, dtype=SIMULATED_REQUEST_DTYPE) if raw is None else raw.view(SIMULATED_REQUEST_DTYPE)
        )
        steps = native._timeline_bytes()
        self.timeline: npt.NDArray[Any] | None = None if steps is None else steps.view(SIMULATED_STEP_DTYPE)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"mfusim.SimulationResult(completed={s.completed}, duration_s={s.duration_s:.3f}, "
            f"ttft_ms.mean={s.ttft_ms.mean:.3f}, tpot_ms.mean={s.tpot_ms.mean:.3f})"
        )

    # Scalar statistics.
    @property
    def completed(self) -> int:
        return self.summary.completed

    @property
    def duration_s(self) -> float:
        return self.summary.duration_s

    @property
    def request_throughput(self) -> float:
        return self.summary.request_throughput

    @property
    def request_goodput(self) -> float:
        return self.summary.request_goodput

    @property
    def output_throughput(self) -> float:
        return self.summary.output_throughput

    @property
    def total_token_throughput(self) -> float:
        return self.summary.total_token_throughput

    @property
    def steps(self) -> int:
        return self.summary.steps

    # Per-request arrays.
    @property
    def send_ms(self) -> "npt.NDArray[np.float64]":
        return self.requests["send_ms"]

    @property
    def ttft_ms(self) -> "npt.NDArray[np.float64]":
        return self.requests["ttft_ms"]

    @property
    def tpot_ms(self) -> "npt.NDArray[np.float64]":
        return self.requests["tpot_ms"]

    @property
    def e2el_ms(self) -> "npt.NDArray[np.float64]":
        return self.requests["e2el_ms"]

    @property
    def queue_ms(self) -> "npt.NDArray[np.float64]":
        return self.requests["queue_ms"]

    @property
    def input_len(self) -> "npt.NDArray[np.int64]":
        return self.requests["input_len"]

    @property
    def output_len(self) -> "npt.NDArray[np.int64]":
        return self.requests["output_len"]

    @property
    def preemptions(self) -> "npt.NDArray[np.int64]":
        return self.requests["preemptions"]

    @property
    def prefix_hit_tokens(self) -> "npt.NDArray[np.int64]":
        return self.requests["prefix_hit_tokens"]

    @property
    def warmup(self) -> "npt.NDArray[np.bool_]":
        result: npt.NDArray[np.bool_] = self.requests["warmup"] != 0
        return result

    def percentile(self, metric: str, p: float) -> float:
        """The ``p``-th percentile (0..100, NumPy's linear interpolation) of ``"ttft"``, ``"tpot"``, ``"itl"``
        (per token), ``"e2el"`` or ``"queue"`` in ms, over the measured requests; 0 when there is no value."""
        key = metric[:-3] if metric.endswith("_ms") else metric
        if key not in _METRICS:
            raise InvalidArgumentError(f"metric must be one of {', '.join(_METRICS)}, not {metric!r}")
        value: float = self._native._percentile(_METRICS[key], p)
        return value


def _trace_array(trace: TraceLike) -> "npt.NDArray[Any]":
    if isinstance(trace, np.ndarray) and trace.dtype.names is not None:
        if trace.dtype != TRACE_DTYPE:
            missing = [n for n in ("arrival_s", "input_len", "output_len") if n not in trace.dtype.names]
            if missing:
                raise InvalidArgumentError(f"trace: a structured array needs fields {', '.join(missing)}")
            out = np.zeros(len(trace), dtype=TRACE_DTYPE)
            out["prefix_id"] = -1
            for name in trace.dtype.names:
                if name in TRACE_DTYPE.names:  # type: ignore[operator]
                    out[name] = trace[name]
            return out
        return np.ascontiguousarray(trace)
    rows = []
    for i, t in enumerate(trace):
        row = tuple(t)
        if len(row) == 3:
            row = (*row, -1, 0)
        if len(row) != 5:
            raise InvalidArgumentError(
                f"trace[{i}]: expected (arrival_s, input_len, output_len[, prefix_id, prefix_len]), got {t!r}"
            )
        rows.append(row)
    return np.array(rows, dtype=TRACE_DTYPE)


def _choice(table: dict[Any, int], value: Any, what: str) -> int:
    try:
        return table[value]
    except (KeyError, TypeError):
        names = ", ".join(repr(k) for k in table if k is not None)
        raise InvalidArgumentError(f"{what} must be one of {names}, not {value!r}") from None


def simulate(
    estimator: "Estimator",
    *,
    num_prompts: int = 1000,
    warmup: int = 0,
    request_rate: float = math.inf,
    burstiness: float = 1.0,
    constant_rate: bool = False,
    max_concurrency: int = 0,
    input_len: float = 1024,
    input_distribution: str = "fixed",
    input_spread: float = 0,
    output_len: float = 128,
    output_distribution: str = "fixed",
    output_spread: float = 0,
    num_prefix_prompts: int = 0,
    prefix_len: int = 0,
    seed: int = 0,
    scheduler: str | None = None,
    max_batched_tokens: int = 0,
    max_seqs: int = 0,
    block_tokens: int = 0,
    long_prefill_token_threshold: int = 0,
    gpu_memory_utilization: float = 0,
    chunked_prefill: bool = True,
    prefix_caching: bool = True,
    slo_ttft_ms: float = 0,
    slo_tpot_ms: float = 0,
    slo_e2el_ms: float = 0,
    trace: TraceLike | None = None,
    timeline: bool = False,
    ramp_up_s: float = 0,
) -> SimulationResult:
    """Simulates a serving benchmark against the estimator's deployment, step by step, with its own step times
    (roofline mode; infersim mode raises :class:`UnsupportedError`). Deterministic: the same arguments give the
    same result. The GIL is released while it runs.

    Workload (named as vLLM's ``bench serve``): ``num_prompts`` requests (the first ``warmup`` left out of the
    statistics) sent at ``request_rate`` per second (``inf``: all at once) with gamma gaps of shape ``burstiness``
    (1: Poisson) or at exact intervals (``constant_rate``), at most ``max_concurrency`` in flight (0: no limit).
    Prompt and output lengths: ``*_len`` is the mean, ``*_distribution`` one of ``"fixed"``, ``"uniform"``
    (mean +- spread), ``"normal"`` or ``"lognormal"`` (standard deviation spread). ``num_prefix_prompts`` shared
    prefixes of ``prefix_len`` tokens. ``seed`` drives every draw. ``trace``: the requests themselves instead, as
    a NumPy array of :data:`TRACE_DTYPE` (passed without a copy) or a sequence of ``(arrival_s, input_len,
    output_len[, prefix_id, prefix_len])``.

    Scheduler: ``None`` keeps the engine's (``"vllm-v1"``, ``"sglang"``, ``"trtllm"``,
    ``"trtllm-max-utilization"``); 0 for the numeric limits
    keeps the engine's defaults. SLOs (ms, 0: none) decide goodput. ``timeline``: keep one row per step.
    ``ramp_up_s``: closed-loop clients (infinite rate, ``max_concurrency``) start evenly over this many seconds
    instead of together.

    Raises:
        InvalidArgumentError: a value out of range (the message names the field).
        ConfigError: the weights leave no KV cache. UnsupportedError: a request never fits the cache.
    """
    params: dict[str, Any] = {
        "num_prompts": num_prompts,
        "warmup": warmup,
        "request_rate": float(request_rate),
        "burstiness": float(burstiness),
        "constant_rate": 1 if constant_rate else 0,
        "max_concurrency": max_concurrency,
        "input_len": float(input_len),
        "input_distribution": _choice(_DISTRIBUTIONS, input_distribution, "input_distribution"),
        "input_spread": float(input_spread),
        "output_len": float(output_len),
        "output_distribution": _choice(_DISTRIBUTIONS, output_distribution, "output_distribution"),
        "output_spread": float(output_spread),
        "num_prefix_prompts": num_prefix_prompts,
        "prefix_len": prefix_len,
        "seed": seed,
        "scheduler": _choice(_SCHEDULERS, scheduler, "scheduler"),
        "max_batched_tokens": max_batched_tokens,
        "max_seqs": max_seqs,
        "block_tokens": block_tokens,
        "long_prefill_token_threshold": long_prefill_token_threshold,
        "gpu_memory_utilization": float(gpu_memory_utilization),
        "disable_chunked_prefill": 0 if chunked_prefill else 1,
        "disable_prefix_caching": 0 if prefix_caching else 1,
        "slo_ttft_ms": float(slo_ttft_ms),
        "slo_tpot_ms": float(slo_tpot_ms),
        "slo_e2el_ms": float(slo_e2el_ms),
        "record_timeline": 1 if timeline else 0,
        "ramp_up_s": float(ramp_up_s),
    }
    if seed < 0 or seed >= 2**64:
        raise InvalidArgumentError(f"seed must be between 0 and 2^64 - 1, got {seed}")
    address, count = 0, 0
    array = None
    if trace is not None:
        array = _trace_array(trace)
        count = len(array)
        if count == 0:
            raise InvalidArgumentError("trace is empty: pass None to generate the requests")
        address = array.ctypes.data
    native = estimator._simulate(params, address, count)
    del array  # kept alive until the call returned
    return SimulationResult(native)
