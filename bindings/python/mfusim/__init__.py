"""mfusim: how long does one step of an LLM serving engine take on this GPU?

Python binding of libmfusim (a C++20 library behind the stable C ABI ``mfusim.h``); the wheel carries the
library itself.

>>> import mfusim
>>> with mfusim.Estimator(model="llama-3.1-8b-instruct", gpu="H100") as est:
...     us = est.step_time([(512, 0), (1, 2048)])      # a 512-token prefill chunk and one decode

Requests are ``(new_tokens, context)`` pairs (optionally ``(new_tokens, context, flags)``), an ``(n, 2)`` int64
NumPy array, or a NumPy array of :data:`REQUEST_DTYPE` (``mfusim_request``'s layout: passed to C without a copy;
build one with :func:`requests`). Times are microseconds. Failures raise subclasses of :class:`Error`.
"""

from __future__ import annotations

import difflib
import os
from typing import TYPE_CHECKING, Any, Sequence, Union

import numpy as np

from . import _errors
from ._errors import (
    CompatCrashError,
    ConfigError,
    Error,
    FileError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutOfMemoryError,
    ParseError,
    StructSizeError,
    UnknownNameError,
    UnsupportedError,
)
from ._types import Calibration, DisaggResult, EngineTerms, OpDetail, Report, ServingResult, StepDetail
from . import _mfusim
from ._simulate import (
    SIMULATED_REQUEST_DTYPE,
    SIMULATED_STEP_DTYPE,
    TRACE_DTYPE,
    LatencySummary,
    SimulationResult,
    SimulationSummary,
    simulate,
)
from ._sweep import grid, sweep

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "Estimator",
    "REQUEST_DTYPE",
    "NO_OUTPUT",
    "requests",
    "models",
    "gpus",
    "version",
    "version_number",
    "StepDetail",
    "OpDetail",
    "Report",
    "ServingResult",
    "DisaggResult",
    "serve_disagg",
    "plan",
    "param_sweep",
    "EngineTerms",
    "calibrate_steps",
    "calibrate_kernels",
    "Calibration",
    "simulate",
    "grid",
    "sweep",
    "SimulationResult",
    "SimulationSummary",
    "LatencySummary",
    "TRACE_DTYPE",
    "SIMULATED_REQUEST_DTYPE",
    "SIMULATED_STEP_DTYPE",
    "Error",
    "InvalidArgumentError",
    "FileError",
    "ParseError",
    "ConfigError",
    "UnknownNameError",
    "UnsupportedError",
    "CompatCrashError",
    "StructSizeError",
    "OutOfMemoryError",
    "InternalError",
    "NotFoundError",
]

__version__ = "1.0.0"

REQUEST_DTYPE: np.dtype = np.dtype(
    [("new_tokens", "<i8"), ("context", "<i8"), ("flags", "<u4"), ("reserved", "<u4")]
)
"""NumPy dtype of ``mfusim_request`` (24 bytes): arrays of it are passed to C without a copy."""

NO_OUTPUT: int = _mfusim.NO_OUTPUT
"""Request flag: a prefill chunk that is not its prompt's last (it produces no token, so no LM head)."""


def _register_request_formats() -> None:
    # Every spelling of the dtype NumPy may hand out through the buffer protocol.
    spec = [("new_tokens", "i8"), ("context", "i8"), ("flags", "u4"), ("reserved", "u4")]
    dtypes = [REQUEST_DTYPE, np.dtype(spec), np.dtype(spec, align=True), REQUEST_DTYPE.newbyteorder("=")]
    formats = sorted({np.zeros(1, dtype=d).data.format for d in dtypes})
    assert all(d.itemsize == _mfusim.REQUEST_SIZE for d in dtypes)
    _mfusim._set_request_formats(formats)


_register_request_formats()

RequestsLike = Union[Sequence[Sequence[int]], "npt.NDArray[Any]"]
SizesLike = Union[Sequence[int], "npt.NDArray[np.int64]"]

_MODES = {"roofline": 0, "infersim": 1, "compat": 1}
_PHASES = {"both": 0, "prefill": 1, "prefill_only": 1, "decode": 2, "decode_only": 2}
_LIMITS = {0: "none", 1: "token_budget", 2: "max_seqs", 3: "kv_capacity"}


def requests(new_tokens: Any, context: Any, flags: Any = 0) -> "npt.NDArray[Any]":
    """A NumPy array of :data:`REQUEST_DTYPE` from columns (scalars broadcast), for zero-copy calls.

    >>> step = mfusim.requests(new_tokens=[512, 1, 1], context=[0, 900, 2048], flags=[mfusim.NO_OUTPUT, 0, 0])
    """
    nt, ctx, fl = np.broadcast_arrays(
        _int_column(new_tokens, "new_tokens", _INT64_MIN, _INT64_MAX),
        _int_column(context, "context", _INT64_MIN, _INT64_MAX),
        _int_column(flags, "flags", 0, _UINT32_MAX),
    )
    out = np.zeros(nt.shape[0] if nt.ndim else 1, dtype=REQUEST_DTYPE)
    out["new_tokens"] = nt.reshape(-1)
    out["context"] = ctx.reshape(-1)
    out["flags"] = fl.reshape(-1)
    return out


_INT64_MIN, _INT64_MAX, _UINT32_MAX = -(2**63), 2**63 - 1, 2**32 - 1


def _int_column(values: Any, name: str, lo: int, hi: int) -> "npt.NDArray[np.int64]":
    """``values`` as int64, every one an integer in [lo, hi]: NumPy's own cast would truncate 512.9 to 512, parse
    "12", turn NaN into INT64_MIN and wrap what does not fit, so each of those is refused naming the field
    (TypeError for what is not a number, ValueError for a number that is not such an integer)."""
    a = np.asarray(values)
    if a.dtype.kind == "O":  # Python ints past int64, mixed sequences: checked one by one
        items = [_int_item(v, name, lo, hi) for v in a.reshape(-1)]
        return np.array(items, dtype=np.int64).reshape(a.shape)
    if a.dtype.kind in "biu":
        if a.size and (a.min() < lo or a.max() > hi):
            bad = a.reshape(-1)[(a.reshape(-1) < lo) | (a.reshape(-1) > hi)][0]
            raise ValueError(f"{name}: {bad} is out of range [{lo}, {hi}]")
        return a.astype(np.int64)
    if a.dtype.kind == "f":
        flat = a.reshape(-1)
        for v in flat[~np.isfinite(flat) | (flat != np.floor(flat)) | (flat < lo) | (flat >= float(hi) + 1)][:1]:
            _int_item(float(v), name, lo, hi)  # raises, saying why
        return a.astype(np.int64)
    raise TypeError(f"{name}: expected integers, got an array of dtype {a.dtype}")


def _int_item(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"{name}: {value} is not an integer")
        if value != int(value):
            raise ValueError(f"{name}: {value} has a fraction (an integer is required)")
        value = int(value)
    elif isinstance(value, (int, np.integer)):
        value = int(value)
    else:
        raise TypeError(f"{name}: expected an integer, not {type(value).__name__} {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name}: {value} is out of range [{lo}, {hi}]")
    return value


def _int32(value: Any, name: str) -> Any:
    """An integer argument checked as :func:`requests` checks its columns (None passes: the library's default)."""
    return None if value is None else _int_item(value, name, -(2**31), 2**31 - 1)


def _int64(value: Any, name: str) -> Any:
    return None if value is None else _int_item(value, name, _INT64_MIN, _INT64_MAX)


def models() -> list[str]:
    """The built-in model catalogue: names accepted as ``Estimator(model=...)``."""
    return _mfusim.models()


def gpus() -> list[str]:
    """The built-in GPU profiles: names accepted as ``Estimator(gpu=...)`` (case-insensitive)."""
    return _mfusim.gpus()


def version() -> str:
    """The version of the libmfusim actually loaded, ``"MAJOR.MINOR.PATCH"``."""
    return _mfusim.version()


def version_number() -> int:
    """The loaded library's ``MAJOR*10000 + MINOR*100 + PATCH``."""
    return _mfusim.version_number()


def _opt_str(value: Union[str, "os.PathLike[str]", None]) -> str | None:
    return None if value is None else os.fspath(value)


class Estimator(_mfusim.Estimator):
    """One model on one GPU with its MFU tables, loaded once and immutable.

    Every query method is safe to call from many threads at once on one estimator (the C handle is immutable;
    no lock is taken). :meth:`step_time_batch`, :meth:`estimate` and :meth:`serve` release the GIL, so threads
    run them in parallel. Use it as a context manager, or call :meth:`close` (idempotent); a forgotten estimator
    is freed when garbage-collected.

    Args:
        model: a built-in name (:func:`models`), a path to a Hugging Face ``config.json``, or the JSON text.
        gpu: a built-in name (:func:`gpus`) or a path to a JSON profile (which may name a built-in ``"base"``).
        tp: tensor-parallel degree.
        bench_data: a bench_data directory of MFU tables (InferSim/BLIS layout); ``None``: the analytical
            efficiency model (roofline) or InferSim's defaults (infersim), and provenance says so.
        mode: ``"roofline"`` (the per-step model for simulators) or ``"infersim"`` (InferSim number for number).
        engine: roofline: the serving engine around the kernels, ``"vllm"`` (``None``: the default), ``"sglang"``,
            ``"trtllm"`` or ``"none"`` (kernels alone).
        quant: roofline: weight quantization overriding the checkpoint's (``"bf16"``, ``"fp8"``, ``"fp8_block"``,
            ``"nvfp4"``, ``"mxfp4"``, ``"int4_wo"``); ``None``: as the checkpoint states.
        ep: roofline: GPUs the routed experts are sharded over.
        attention_dp: roofline: attention data-parallel replicas inside the EP group.
        fp8_kv: FP8 KV cache.
        fp8_gemm: FP8 weights and FP8 peak for GEMMs.
        world_size, num_nodes, deepep, two_batch_overlap, sm_ratio: InferSim's options (infersim mode);
            ``None``: the library's defaults.
        calibration: roofline: a calibration file written by ``mfusim calibrate --steps`` (a path, or its JSON
            text): per-family efficiency multipliers and engine terms fitted to your own measurements
            (docs/calibration.md); ``None``: the built-in constants.
        speculative: roofline: speculative decoding's drafter (docs/speculative.md): ``"mtp"`` (the model's
            multi-token-prediction layers, ``num_nextn_predict_layers``), ``"eagle"`` (an EAGLE head, one layer of the
            model's shape), ``"ngram"`` (prompt lookup, no GPU work) or ``"draft_model"`` (a separate model,
            ``draft_model``); ``None``: no speculation.
        draft_model: with ``speculative="draft_model"``: the draft model (a catalogue name, a config.json path or
            its JSON text), run whole in every draft pass at the target's tensor parallelism.
        num_speculative_tokens: with ``speculative``: draft tokens per request and step, 0 to 16 (``mtp`` with 0:
            as many as the model has MTP layers).
        acceptance_rate: with ``speculative``: probability in [0, 1] that a draft token is accepted; a verify step
            then makes (1 - a^(k+1)) / (1 - a) tokens.
        mean_accepted_length: with ``speculative``: tokens a request advances per verify step, its own included
            (1 to k + 1), instead of ``acceptance_rate``.
        images_per_request: roofline: images each request brings, 0 to 64, encoded by the model's vision tower
            (its ``vision_config``) in the step of the request's first prefill chunk (docs/architectures.md,
            "Vision encoders"); the prompt lengths count their image tokens.
        image_size: with ``images_per_request``: pixels, ``N`` for N x N or ``(width, height)``, 1 to 16384 a side.
        audio_seconds_per_request: roofline: seconds of audio each request brings (one clip, 0 to 3600), encoded by
            the model's audio tower (its ``audio_config``) in the step of the request's first prefill chunk
            (docs/architectures.md, "Audio encoders"); the prompt lengths count its audio tokens.
        moe_routing: roofline: how MoE tokens spread over the experts, as the CLI's ``--moe-routing``:
            ``"random"`` (as served: each token's top-k at random, the busiest expert-parallel rank timed) or
            ``"power-law:ALPHA"`` (expert popularity as AIConfigurator's bounded power law x^-ALPHA, 0 < ALPHA <= 10).

    Raises:
        UnknownNameError: no built-in model or GPU of that name.
        FileError, ParseError, ConfigError: a file is missing, malformed, or describes something impossible.
        InvalidArgumentError: a bad option value.
    """

    def __init__(
        self,
        model: Union[str, "os.PathLike[str]"],
        gpu: Union[str, "os.PathLike[str]"],
        tp: int = 1,
        bench_data: Union[str, "os.PathLike[str]", None] = None,
        mode: str = "roofline",
        engine: str | None = None,
        quant: str | None = None,
        ep: int = 1,
        attention_dp: int = 1,
        fp8_kv: bool = False,
        *,
        fp8_gemm: bool = False,
        world_size: int | None = None,
        num_nodes: int | None = None,
        deepep: bool = False,
        two_batch_overlap: bool = False,
        sm_ratio: float | None = None,
        calibration: Union[str, "os.PathLike[str]", None] = None,
        speculative: str | None = None,
        num_speculative_tokens: int = 0,
        acceptance_rate: float = 0.0,
        mean_accepted_length: float = 0.0,
        images_per_request: int = 0,
        image_size: int | tuple[int, int] = 1024,
        audio_seconds_per_request: float = 0.0,
        moe_routing: str = "random",
        draft_model: Union[str, "os.PathLike[str]", None] = None,
    ) -> None:
        try:
            mode_number = _MODES[mode]
        except KeyError:
            raise InvalidArgumentError(
                f"mode must be 'roofline' or 'infersim', not {mode!r}"
            ) from None
        if isinstance(image_size, tuple) and len(image_size) == 2:
            width, height = image_size
        elif isinstance(image_size, tuple):
            raise InvalidArgumentError(f"image_size must be N or (width, height), not {image_size!r}")
        else:
            width = height = image_size
        if moe_routing == "random":
            routing_alpha = 0.0
        elif isinstance(moe_routing, str) and moe_routing.startswith("power-law:"):
            try:
                routing_alpha = float(moe_routing[len("power-law:"):])
            except ValueError:
                raise InvalidArgumentError(
                    f"moe_routing: power-law:ALPHA needs a number, not {moe_routing!r}"
                ) from None
            if not 0 < routing_alpha <= 10:  # NaN fails this too; the library checks again
                raise InvalidArgumentError(f"moe_routing: ALPHA must be in (0, 10], not {moe_routing!r}")
        else:
            raise InvalidArgumentError(f"moe_routing must be 'random' or 'power-law:ALPHA', not {moe_routing!r}")
        images = _int64(images_per_request, "images_per_request")
        if not images:
            width = height = 0  # no images: the sizes are not read
        super().__init__(
            os.fspath(model), os.fspath(gpu), _opt_str(bench_data), mode_number, _int32(tp, "tp"), engine, quant,
            _int32(ep, "ep"), _int32(attention_dp, "attention_dp"), bool(fp8_kv), bool(fp8_gemm),
            _int32(world_size, "world_size"), _int32(num_nodes, "num_nodes"), bool(deepep),
            bool(two_batch_overlap), sm_ratio, _opt_str(calibration), speculative,
            _int32(num_speculative_tokens, "num_speculative_tokens"), float(acceptance_rate),
            float(mean_accepted_length), images, _int64(width, "image_size"), _int64(height, "image_size"),
            audio_seconds_per_request, routing_alpha, _opt_str(draft_model),
        )
        self._description = f"model={os.fspath(model)!r}, gpu={os.fspath(gpu)!r}, tp={tp}, mode={mode!r}"

    def __repr__(self) -> str:
        state = ", closed" if self.closed else ""
        return f"mfusim.Estimator({self._description}{state})"

    def __enter__(self) -> "Estimator":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def load_warnings(self) -> list[str]:
        """Messages from loading that did not stop it (fallbacks taken, table problems tolerated), one per item."""
        text = self._load_warnings()
        return [line for line in text.splitlines() if line]

    def engine_terms(self) -> EngineTerms:
        """The serving engine profile this estimator uses (roofline mode; infersim mode raises
        :class:`UnsupportedError`): its per-step terms, already inside every step time, and the terms outside the
        steps (admission, input and output token processing) that a simulator accounts for itself."""
        return EngineTerms(**self._engine_terms())

    def step_detail(self, requests: RequestsLike) -> StepDetail:
        """The step time with its breakdown by operation and each efficiency's provenance.

        ``total_us`` equals :meth:`step_time` for the same requests. Slower than step_time (it fills ~4.6 KB
        and builds Python objects): use it to understand a step, not on a simulator's hot path.
        """
        total_us, bound, ops = self._step_detail(requests)
        return StepDetail(total_us, bound, tuple(OpDetail(*op) for op in ops))

    def estimate(
        self,
        input_len: int | None = None,
        output_len: int | None = None,
        *,
        max_prefill_tokens: int | None = None,
        decode_batch: int | None = None,
        target_tgs: float | None = None,
        target_tpot_ms: float | None = None,
        phases: str = "both",
    ) -> Report:
        """InferSim's scenario question: TTFT and TPOT for prompts of ``input_len`` and ``output_len`` tokens.

        ``None`` keeps the library's default (input 4096, output 2048, 4096 prefill tokens per step, decode batch
        from ``ceil(target_tgs * target_tpot_ms / 1000)`` with 2560 tok/GPU/s and 50 ms). ``phases``: ``"both"``,
        ``"prefill"`` or ``"decode"``. The GIL is released while the library computes.
        """
        try:
            phase_number = _PHASES[phases]
        except KeyError:
            raise InvalidArgumentError(
                f"phases must be 'both', 'prefill' or 'decode', not {phases!r}"
            ) from None
        values, warnings, soft_errors = self._estimate(
            _int64(input_len, "input_len"), _int64(output_len, "output_len"),
            _int64(max_prefill_tokens, "max_prefill_tokens"), _int64(decode_batch, "decode_batch"), target_tgs,
            target_tpot_ms, phase_number
        )
        return Report(dict(values), _split(warnings), _split(soft_errors))

    def serve(
        self,
        input_len: int,
        output_len: int,
        concurrency: int,
        max_batched_tokens: int = 0,
        max_seqs: int = 0,
        gpu_memory_utilization: float = 0,
        requests_per_client: float = 0,
    ) -> ServingResult:
        """Steady-state TTFT, TPOT and throughput when ``concurrency`` clients each keep one request of
        ``input_len`` prompt and ``output_len`` generated tokens in flight (roofline mode; infersim mode raises
        :class:`UnsupportedError`). 0 for ``max_batched_tokens``, ``max_seqs`` or ``gpu_memory_utilization``
        means the engine's default. ``requests_per_client``: 0 (default) for steady-state means; k >= 1 for the
        means a benchmark of k requests per client measures, which starts with every client arriving at once (a
        tool run with num_prompts = k x concurrency), so 1/k of the requests see that first wave
        (docs/serving.md). The GIL is released while the library computes.
        """
        d = self._serve(_int64(input_len, "input_len"), _int64(output_len, "output_len"),
                        _int64(concurrency, "concurrency"), _int64(max_batched_tokens, "max_batched_tokens"),
                        _int64(max_seqs, "max_seqs"), gpu_memory_utilization, requests_per_client)
        d["limited_by"] = _LIMITS.get(d["limited_by"], f"unknown({d['limited_by']})")
        return ServingResult(**d)


def serve_disagg(
    prefill: Estimator,
    decode: Estimator,
    input_len: int,
    output_len: int,
    concurrency: int,
    prefill_workers: int = 1,
    decode_workers: int = 1,
    prefill_batch: int = 0,
    decode_batch: int = 0,
    max_batched_tokens: int = 0,
    gpu_memory_utilization: float = 0,
) -> DisaggResult:
    """Disaggregated serving (docs/disagg.md; ``mfusim_disagg_estimate``): ``prefill_workers`` workers each as
    ``prefill`` is built (its ``tp``, ``ep``, ``attention_dp``) compute the prompts, ``decode_workers`` workers as
    ``decode`` generate the tokens, and each request's KV cache moves from one to the other, while ``concurrency``
    clients each keep one request in flight. Both estimators in roofline mode on one GPU (else
    :class:`UnsupportedError` / :class:`ConfigError`). 0 for ``prefill_batch`` (prompts per prefill batch of a
    replica), ``decode_batch`` (requests per decode replica), ``max_batched_tokens`` or ``gpu_memory_utilization``
    means the engine's default. The GIL is released while the library computes.
    """
    d = prefill._disagg(decode, _int64(input_len, "input_len"), _int64(output_len, "output_len"),
                        _int64(concurrency, "concurrency"), _int64(prefill_workers, "prefill_workers"),
                        _int64(decode_workers, "decode_workers"), _int64(prefill_batch, "prefill_batch"),
                        _int64(decode_batch, "decode_batch"), _int64(max_batched_tokens, "max_batched_tokens"),
                        gpu_memory_utilization)
    return DisaggResult(**d)


def plan(
    model: Union[str, "os.PathLike[str]"],
    input_len: int,
    output_len: int,
    gpus: Sequence[str] = ("H100", "H200", "B200"),
    *,
    max_ttft_ms: float | None = None,
    max_tpot_ms: float | None = None,
    tp_list: Sequence[int] = (1, 2, 4, 8),
    max_concurrency: int = 512,
    gpu_budget: int = 0,
    engine: str | None = None,
    quant: str | None = None,
    bench_data: Union[str, "os.PathLike[str]", None] = None,
    fp8_kv: bool = False,
    fp8_gemm: bool = False,
    max_batched_tokens: int = 0,
    max_seqs: int = 0,
    gpu_memory_utilization: float = 0,
    requests_per_client: float = 0,
    simulate: bool = False,
    disagg: bool = False,
    decode_batches: Sequence[int] | None = None,
    router: str = "round-robin",
) -> dict[str, Any]:
    """The deployment search of ``mfusim plan`` as data (``mfusim_plan``; the library function the command calls).

    Per GPU of ``gpus``: tensor parallelism from ``tp_list``, expert parallelism for MoE models (1 or the TP
    degree) and concurrency (powers of two up to ``max_concurrency``), each answered by the serving estimate
    (:meth:`Estimator.serve`; the simulated benchmark with ``simulate``); with ``disagg`` also disaggregated
    deployments (prefill and decode pools within ``gpu_budget`` GPUs, 16 when 0; docs/disagg.md, section 6;
    ``decode_batches`` the requests per decode replica tried, ``router`` the simulated router). A deployment meets
    the limits when its mean TTFT and TPOT are within ``max_ttft_ms`` and ``max_tpot_ms`` (``None``: no limit).

    Returns a dict: ``rows``, one dict per deployment evaluated (``gpu``, ``mode``, ``tp``, ``ep``, ``gpus``,
    ``concurrency``, the pools' ``prefill_*``/``decode_*`` fields, ``ttft_ms``, ``tpot_ms``, ``output_tok_s_gpu``,
    ``output_tok_s_user``, ``meets_limits``, ``best``), in ``mfusim plan --json``'s order; ``gpus``, one dict per
    GPU (``evaluated``, ``meeting_limits``, ``best``: its best row or ``None``, ``skipped_not_fitting``,
    ``skipped_invalid``, ``last_skip``); ``warnings``, the estimators' load warnings. Deployments that do not fit
    are counted, not raised. The GIL is released while the library searches.

    Raises:
        UnknownNameError: an unknown model or GPU.
        InvalidArgumentError: a value out of range (the message names the field).
        UnsupportedError: ``disagg`` in infersim mode.
    """
    if router not in ("round-robin", "least-loaded"):
        raise InvalidArgumentError(f"router must be 'round-robin' or 'least-loaded', not {router!r}")
    if isinstance(gpus, str):
        gpus = [gpus]
    rows, per_gpu, warnings = _mfusim._plan(
        os.fspath(model), engine, quant, _opt_str(bench_data), bool(fp8_kv), bool(fp8_gemm),
        [os.fspath(g) for g in gpus], [_int64(t, "tp_list") for t in tp_list], _int64(input_len, "input_len"),
        _int64(output_len, "output_len"), _int64(max_batched_tokens, "max_batched_tokens"),
        _int64(max_seqs, "max_seqs"), float(gpu_memory_utilization), float(requests_per_client),
        0.0 if max_ttft_ms is None else float(max_ttft_ms), 0.0 if max_tpot_ms is None else float(max_tpot_ms),
        _int64(max_concurrency, "max_concurrency"), _int64(gpu_budget, "gpu_budget"), bool(simulate),
        bool(disagg), [] if decode_batches is None else [_int64(b, "decode_batches") for b in decode_batches],
        router == "least-loaded",
    )
    for g in per_gpu:
        index = g.pop("best_row")
        g["best"] = rows[index] if index >= 0 else None
    return {"rows": rows, "gpus": per_gpu, "warnings": [w for w in warnings.splitlines() if w]}


_STEP_PARAMS = ("decode_batch", "context", "chunk")


def _sweep_param(name: str, field: str) -> tuple[str, int]:
    key = name.replace("-", "_")
    if key not in _mfusim.SWEEP_PARAMS:
        close = difflib.get_close_matches(key, list(_mfusim.SWEEP_PARAMS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InvalidArgumentError(
            f"{field}: {name!r} is no sweep parameter{hint}; one of {', '.join(_mfusim.SWEEP_PARAMS)}")
    return key, _mfusim.SWEEP_PARAMS[key]


def param_sweep(
    model: Union[str, "os.PathLike[str]", None],
    gpu: Union[str, "os.PathLike[str]", None],
    vary: str,
    values: Sequence[Any],
    *,
    series: str | None = None,
    series_values: Sequence[Any] = (),
    serving: bool | None = None,
    simulate: bool = False,
    tp: int = 1,
    mode: str = "roofline",
    engine: str | None = None,
    quant: str | None = None,
    bench_data: Union[str, "os.PathLike[str]", None] = None,
    fp8_kv: bool = False,
    fp8_gemm: bool = False,
    input_len: int | None = None,
    output_len: int | None = None,
    concurrency: int | None = None,
    max_batched_tokens: int = 0,
    max_seqs: int = 0,
    gpu_memory_utilization: float = 0,
    requests_per_client: float = 0,
    decode_batch: int | None = None,
    context: int | None = None,
    chunk: int | None = None,
) -> dict[str, Any]:
    """The sweep of ``mfusim sweep`` as data (``mfusim_sweep``; the library function the command calls): one
    parameter ``vary`` over ``values`` (and optionally a second, ``series`` over ``series_values``), at every point
    either the time of one step or the serving metrics.

    Parameters (``mfusim_sweep_param``): the step's ``decode_batch`` (``decode-batch``), ``context``, ``chunk``;
    the workload's ``concurrency``, ``isl``, ``osl``; ``tp``, ``gpu`` and ``model`` with either (a varied GPU or
    model replaces ``gpu`` or ``model``, which may then be ``None``). ``serving``: ``None`` times one step when
    ``vary`` or ``series`` is a step parameter and sweeps the serving metrics otherwise, as the command does. The step every point
    starts from is ``decode_batch`` decodes at ``context`` cached tokens each plus one prefill chunk of ``chunk``
    tokens; the workload is ``input_len``, ``output_len``, ``concurrency`` and the engine limits (``None`` and 0:
    the library's defaults, as :meth:`Estimator.serve`).

    Returns a dict: ``rows``, one dict per point, series-major (every value of ``vary`` for the first series
    value, then the next): ``vary`` and ``series`` (the point's values; ``series`` ``None`` without one),
    ``vary_index``, ``series_index``, ``ok`` (``False``: the library refused the point, ``error`` says why, the
    metrics 0), ``step_ms`` (step sweeps), ``ttft_ms``, ``tpot_ms``, ``output_tok_s_gpu``, ``e2e_ms``,
    ``request_throughput_req_s`` (serving sweeps), ``detail`` (what bounded the step or limited the running
    requests); ``warnings``, the estimators' load warnings. The GIL is released while the library sweeps.

    Raises:
        InvalidArgumentError: an unknown parameter, a value out of its bound, or step and serving parameters mixed
            (the message names the field).
        UnsupportedError: a serving sweep in infersim mode.
    """
    try:
        mode_number = _MODES[mode]
    except KeyError:
        raise InvalidArgumentError(f"mode must be 'roofline' or 'infersim', not {mode!r}") from None
    vary_name, vary_number = _sweep_param(vary, "vary")
    series_name, series_number = (None, _mfusim.SWEEP_NONE) if series is None else _sweep_param(series, "series")
    if isinstance(values, (str, bytes)) or isinstance(series_values, (str, bytes)):
        raise InvalidArgumentError("values and series_values are sequences of values, not one string")
    xs = [os.fspath(v) if isinstance(v, os.PathLike) else str(v) for v in values]
    ss = [os.fspath(v) if isinstance(v, os.PathLike) else str(v) for v in series_values]
    if serving is None:
        serving = vary_name not in _STEP_PARAMS and series_name not in _STEP_PARAMS
    rows, warnings = _mfusim._param_sweep(
        _opt_str(model), _opt_str(gpu), _int32(tp, "tp"), mode_number, engine, quant, _opt_str(bench_data),
        bool(fp8_kv), bool(fp8_gemm), bool(serving), bool(simulate), vary_number, xs, series_number, ss,
        _int64(input_len, "input_len"), _int64(output_len, "output_len"), _int64(concurrency, "concurrency"),
        _int64(max_batched_tokens, "max_batched_tokens"), _int64(max_seqs, "max_seqs"),
        float(gpu_memory_utilization), float(requests_per_client), _int64(decode_batch, "decode_batch"),
        _int64(context, "context"), _int64(chunk, "chunk"),
    )
    for row in rows:
        row["vary"] = values[row["vary_index"]]
        row["series"] = series_values[row["series_index"]] if series is not None else None
    return {"rows": rows, "warnings": [w for w in warnings.splitlines() if w]}


def calibrate_steps(
    steps_path: Union[str, "os.PathLike[str]"],
    model: Union[str, "os.PathLike[str]", None] = None,
    gpu: Union[str, "os.PathLike[str]", None] = None,
    tp: int | None = None,
    engine: str | None = None,
    bench_data: Union[str, "os.PathLike[str]", None] = None,
    folds: int = 0,
) -> Calibration:
    """Fits a calibration to measured engine steps, as ``mfusim calibrate --steps`` does (docs/calibration.md).

    The result is returned whether or not it beats the built-in constants: check :attr:`Calibration.improved`
    before using :attr:`Calibration.document` (``Estimator(..., calibration=cal.document)``). Reads the file and
    fits (seconds, the GIL released).

    Args:
        steps_path: a JSONL file of measured steps: a header line ``{"model": ..., "gpu": ...}`` (optionally
            ``"engine"``, ``"tp"``), then one line per step, ``{"requests": [{"new_tokens": n, "context": c},
            ...], "measured_us": t, "group": "g0"}``.
        model, gpu: as for :class:`Estimator`; ``None``: the file's header names them.
        tp: tensor-parallel degree, which wins over the header's (as ``mfusim calibrate --tp`` does; 1 against a
            header naming another tp raises :class:`InvalidArgumentError`); ``None``: the header's (else 1).
        engine: the serving engine the steps were measured on; ``None``: the header's (else the default).
        bench_data: a bench_data directory of MFU tables, as for :class:`Estimator`.
        folds: cross-validation folds, >= 2 (0: 5).

    Raises:
        FileError: the steps file cannot be read (the message names it).
        ParseError, ConfigError: the file is malformed, or too few steps to fit.
        UnknownNameError: no built-in model or GPU of that name.
        InvalidArgumentError: a bad option value (``folds`` of 1, say).
    """
    document, report, improved = _mfusim._calibrate_steps(
        os.fspath(steps_path), _opt_str(model), _opt_str(gpu), 0 if tp is None else _int32(tp, "tp"), engine,
        _opt_str(bench_data), _int32(folds, "folds"),
    )
    return Calibration(document, report, improved)


def calibrate_kernels(
    kernels_dir: Union[str, "os.PathLike[str]"],
    gpu: Union[str, "os.PathLike[str]"],
    bench_data: Union[str, "os.PathLike[str]", None] = None,
) -> Calibration:
    """Fits the GPU profile's own constants to measured kernels, as ``mfusim calibrate --kernels`` does.

    Args:
        kernels_dir: an AIConfigurator-format directory of kernel measurements (``gemm_bf16.csv``, ...).
        gpu: the GPU they were measured on (a built-in name or a JSON profile); the calibration applies to it only.
        bench_data: optional MFU tables, as for :class:`Estimator`.

    Raises:
        FileError: the directory cannot be read (the message names it).
        ParseError, ConfigError: malformed or unusable measurements.
        UnknownNameError: no built-in GPU of that name.
    """
    document, report, improved = _mfusim._calibrate_kernels(
        os.fspath(kernels_dir), os.fspath(gpu), _opt_str(bench_data)
    )
    return Calibration(document, report, improved)


def _split(joined: str) -> tuple[str, ...]:
    return tuple(s for s in joined.split(" | ") if s) if joined else ()


