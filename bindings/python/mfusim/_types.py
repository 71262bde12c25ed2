"""Plain result types: frozen dataclasses that convert to dicts (and so to pandas rows)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from ._errors import NotFoundError

__all__ = ["OpDetail", "StepDetail", "Report", "ServingResult", "EngineTerms", "Calibration"]


@dataclass(frozen=True, slots=True)
class OpDetail:
    """One operation of a step's breakdown (``mfusim_op_detail``): all layers, per GPU."""

    name: str
    """Operation name as the CLI's JSON spells it: ``qkv_proj``, ``attn_prefill``, ``attn_decode``, ..."""
    time_us: float
    """This operation's share of the step, microseconds."""
    flops: float
    """FLOPs per GPU for the whole step (0 where not modelled)."""
    bytes: float
    """Bytes moved per GPU for the whole step (0 where not modelled)."""
    efficiency: float
    """The MFU applied (0 if none)."""
    bound: str
    """What dominated: ``none``, ``compute``, ``memory``, ``communication`` or ``fixed``."""
    source: str
    """Where the efficiency came from: ``none``, ``table_exact``, ``table_interpolated``, ``table_nearest``,
    ``analytical`` or ``default`` (the library's names)."""
    table: str
    """The table that supplied the efficiency, relative to bench_data; ``""`` if none."""
    distance: float
    """For ``table_nearest``: the distance to the measured shape (units per source table)."""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict (one pandas row)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class StepDetail:
    """A step's time with its breakdown by operation (``mfusim_step_result``)."""

    total_us: float
    """Equals what :meth:`Estimator.step_time` answers for the same requests (one evaluator)."""
    bound: str
    """The bound of the operation that took the most time."""
    ops: tuple[OpDetail, ...]
    """The library's ``n_ops`` valid operations, indexed by operation number (``mfusim_op``)."""

    def op(self, name: str) -> OpDetail:
        """The operation of that name; KeyError if the library has none."""
        for o in self.ops:
            if o.name == name:
                return o
        raise KeyError(name)

    def to_rows(self) -> list[dict[str, Any]]:
        """One dict per operation (``pandas.DataFrame(detail.to_rows())``)."""
        return [o.to_dict() for o in self.ops]

    def to_dict(self) -> dict[str, Any]:
        """``total_us``, ``bound`` and each operation's time as ``<name>_us``: one flat pandas row per step."""
        row: dict[str, Any] = {"total_us": self.total_us, "bound": self.bound}
        for o in self.ops:
            row[f"{o.name}_us"] = o.time_us
        return row


@dataclass(frozen=True, slots=True)
class Report:
    """The answer to a scenario (``mfusim_report``): named quantities plus warnings and soft errors.

    Names are InferSim's oracle column names, e.g. ``prefill.ttft_ms``, ``decode.tpot_ms``,
    ``decode.attn_core_mfu``. ``report["decode.tpot_ms"]`` raises :class:`mfusim.NotFoundError` for a quantity
    the report does not have (a phase that did not run), as the C API's ``mfusim_report_value`` does.
    """

    values: Mapping[str, float]
    """The quantities in the library's fixed order."""
    warnings: tuple[str, ...]
    """Warnings (sorted, de-duplicated, as InferSim prints them)."""
    soft_errors: tuple[str, ...]
    """Soft errors in emission order."""

    def __getitem__(self, name: str) -> float:
        try:
            return self.values[name]
        except KeyError:
            raise NotFoundError(f"report has no quantity named '{name}'") from None

    def __contains__(self, name: object) -> bool:
        return name in self.values

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def get(self, name: str, default: float | None = None) -> float | None:
        """The quantity, or ``default`` if the report does not have it."""
        return self.values.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        """Every quantity by name, plus ``warnings`` and ``soft_errors`` joined by ``" | "``: one pandas row."""
        row: dict[str, Any] = dict(self.values)
        row["warnings"] = " | ".join(self.warnings)
        row["soft_errors"] = " | ".join(self.soft_errors)
        return row


@dataclass(frozen=True, slots=True)
class ServingResult:
    """A steady-state serving estimate (``mfusim_serving_result``); docs/serving.md derives it."""

    ttft_ms: float
    """Mean time to first token, waiting for admission included."""
    tpot_ms: float
    """Mean time per output token after the first."""
    e2e_ms: float
    """Mean request latency: ttft + (output_len - 1) * tpot."""
    output_throughput_tok_s_gpu: float
    """Generated tokens per second per GPU of the deployment."""
    request_throughput_req_s: float
    """Finished requests per second, whole deployment."""
    decode_step_ms: float
    """A step of the steady decode batch alone."""
    mixed_step_ms: float
    """A step of the decode batch plus the prefill chunks it carries."""
    mixed_step_fraction: float
    """Share of steps that carry prefill chunks."""
    decode_batch: float
    """Mean requests decoding in a step (per attention replica)."""
    prefill_tokens_per_mixed_step: float
    """Prompt tokens a mixed step carries."""
    prefill_steps_per_request: float
    """Steps a prompt's chunks span."""
    queue_ms: float
    """Share of ttft spent waiting for admission."""
    running_requests: float
    """Mean requests admitted at once (per attention replica)."""
    kv_capacity_tokens: float
    """KV-cache tokens per attention replica."""
    limited_by: str
    """What held the running requests below the concurrency: ``none``, ``token_budget``, ``max_seqs`` or
    ``kv_capacity``."""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a flat dict: ``pandas.DataFrame([r.to_dict() for r in results])``."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class DisaggResult:
    """A disaggregated serving estimate (``mfusim_disagg_result``); docs/disagg.md derives it."""

    ttft_ms: float
    """Mean time to first token: admission, prefill queue, prefill, transfer and decode-slot wait added."""
    tpot_ms: float
    """Mean time per output token after the first: the decode pool's step at its mean batch."""
    e2e_ms: float
    """Mean request latency: ttft + (output_len - 1) * tpot."""
    output_throughput_tok_s_gpu: float
    """Generated tokens per second per GPU, both pools' GPUs counted."""
    request_throughput_req_s: float
    """Finished requests per second, whole deployment."""
    admission_ms: float
    """The engine's admission, tokenisation and first token out."""
    prefill_queue_ms: float
    """Waiting for a prefill worker."""
    prefill_ms: float
    """One prompt's prefill on an idle worker."""
    transfer_ms: float
    """The KV cache from the prefill to the decode worker."""
    decode_wait_ms: float
    """Waiting for a decode slot."""
    prefill_batch_ms: float
    """One prefill batch of prompts_per_batch prompts."""
    prompts_per_batch: float
    """Prompts per prefill batch of an attention replica."""
    prefill_utilization: float
    """Busy share of the prefill pool."""
    decode_step_ms: float
    """The decode step at decode_batch."""
    decode_batch: float
    """Mean requests decoding per attention replica of a decode worker."""
    decode_slots: float
    """The most requests a decode replica holds (batch, max_seqs, KV cache)."""
    kv_transfer_bytes: float
    """One request's KV over the busiest GPU link."""
    transfer_over_network: bool
    """True: RDMA between nodes; False: NVLink inside one domain."""
    prefill_gpus: int
    """GPUs of one prefill worker."""
    decode_gpus: int
    """GPUs of one decode worker."""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a flat dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class EngineTerms:
    """The serving engine profile an estimator uses (``mfusim_engine_terms``; roofline mode; docs/engine.md).

    The step-path terms (``step_us`` to ``tp_sync_us``) are already inside every step time; the others are for
    callers that account for the engine's time outside the steps (a simulator's queueing and output processing).
    """

    name: str
    """``vllm``, ``sglang``, ``trtllm``, ``none``, or a profile's own name."""
    step_us: float
    """Per step (inside step times)."""
    request_us: float
    """Per scheduled request per step (inside step times)."""
    layer_us: float
    """Per layer per step (inside step times)."""
    eager_layer_us: float
    """Per layer in a step outside full CUDA graphs (inside step times)."""
    tp_sync_us: float
    """Per step with more than one GPU (inside step times)."""
    admission_us: float
    """Per request before its first step: HTTP, queueing into the engine."""
    input_token_us: float
    """Per prompt token before its first step: tokenisation, input processing."""
    output_token_us: float
    """Per generated token, off the GPU's path: detokenisation, streaming."""
    cuda_graph_max_batch: int
    """Largest batch captured in a CUDA graph."""
    max_batched_tokens: int
    """The engine's default scheduler token budget per step."""
    max_seqs: int
    """The engine's default most requests running at once."""
    gpu_memory_utilization: float
    """The engine's default share of GPU memory (weights + KV)."""
    mixed_batches: bool
    """True: steps carry prefill chunks with decodes; False: prefill batches go first."""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a flat dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class Calibration:
    """A fitted calibration (``mfusim_calibration``), from :func:`mfusim.calibrate_steps` or
    :func:`mfusim.calibrate_kernels` (docs/calibration.md)."""

    document: str
    """The calibration file's JSON text: write it to a file, or pass it as ``Estimator(calibration=...)``."""
    report: str
    """The fit's report for a human: coefficients and errors before, in training and held out."""
    improved: bool
    """True when the fit beats the defaults on data it did not see (what ``mfusim calibrate -o`` requires before
    writing the file)."""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a flat dict."""
        return dataclasses.asdict(self)
