# Type stubs of the compiled layer (src/mfusim_ext.cpp), hand-written: its functions take NumPy arrays or
# sequences through the buffer protocol, which a generated stub could only type as `object`.
from typing import Any, Sequence, Union

import numpy as np
import numpy.typing as npt

RequestsLike = Union[Sequence[Sequence[int]], npt.NDArray[Any]]
SizesLike = Union[Sequence[int], npt.NDArray[np.int64]]

HEADER_VERSION: str
REQUEST_SIZE: int
NO_OUTPUT: int
OP_CAPACITY: int
SIMULATED_REQUEST_SIZE: int
SIMULATED_STEP_SIZE: int
TRACE_REQUEST_SIZE: int

def version() -> str: ...
def version_number() -> int: ...
def models() -> list[str]: ...
def gpus() -> list[str]: ...
def status_string(status: int) -> str: ...
def op_name(op: int) -> str: ...
def _set_request_formats(formats: Sequence[str]) -> None: ...
def _request_pointer(requests: RequestsLike) -> tuple[int, int, bool]: ...
def _calibrate_steps(
    steps_path: str,
    model: str | None,
    gpu: str | None,
    tp: int,
    engine: str | None,
    bench_data: str | None,
    folds: int,
) -> tuple[str, str, bool]:
    """mfusim_calibrate_steps: (document, report, improved); see mfusim.calibrate_steps."""
def _calibrate_kernels(kernels_dir: str, gpu: str, bench_data: str | None) -> tuple[str, str, bool]:
    """mfusim_calibrate_kernels: (document, report, improved); see mfusim.calibrate_kernels."""
def _plan(
    model: str,
    engine: str | None,
    quant: str | None,
    bench_data: str | None,
    fp8_kv: bool,
    fp8_gemm: bool,
    gpus: Sequence[str],
    tp_list: Sequence[int],
    input_len: int,
    output_len: int,
    max_batched_tokens: int,
    max_seqs: int,
    gpu_memory_utilization: float,
    requests_per_client: float,
    max_ttft_ms: float,
    max_tpot_ms: float,
    max_concurrency: int,
    gpu_budget: int,
    simulate: bool,
    disagg: bool,
    decode_batches: Sequence[int],
    least_loaded: bool,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """mfusim_plan: (rows, per-GPU summaries, warnings); see mfusim.plan."""
def _param_sweep(
    model: str | None,
    gpu: str | None,
    tp: int,
    mode: int,
    engine: str | None,
    quant: str | None,
    bench_data: str | None,
    fp8_kv: bool,
    fp8_gemm: bool,
    serving: bool,
    simulate: bool,
    vary: int,
    vary_values: Sequence[str],
    series: int,
    series_values: Sequence[str],
    input_len: int | None,
    output_len: int | None,
    concurrency: int | None,
    max_batched_tokens: int,
    max_seqs: int,
    gpu_memory_utilization: float,
    requests_per_client: float,
    decode_batch: int | None,
    context: int | None,
    chunk: int | None,
) -> tuple[list[dict[str, Any]], str]:
    """mfusim_sweep: (rows, warnings); see mfusim.param_sweep."""

SWEEP_PARAMS: dict[str, int]
SWEEP_NONE: int

class SimulationResult:
    """The native simulation result; see mfusim.SimulationResult."""
    def _summary(self) -> dict[str, Any]: ...
    def _requests_bytes(self) -> npt.NDArray[np.uint8] | None: ...
    def _timeline_bytes(self) -> npt.NDArray[np.uint8] | None: ...
    def _percentile(self, metric: int, p: float) -> float: ...

class Estimator:
    def __init__(
        self,
        model: str,
        gpu: str,
        bench_data: str | None = None,
        mode: int = 0,
        tp: int = 1,
        engine: str | None = None,
        quant: str | None = None,
        ep: int = 1,
        attention_dp: int = 1,
        fp8_kv: bool = False,
        fp8_gemm: bool = False,
        world_size: int | None = None,
        num_nodes: int | None = None,
        deepep: bool = False,
        two_batch_overlap: bool = False,
        sm_ratio: float | None = None,
        calibration: str | None = None,
        speculative: str | None = None,
        num_speculative_tokens: int = 0,
        acceptance_rate: float = 0.0,
        mean_accepted_length: float = 0.0,
        images_per_request: int = 0,
        image_width: int = 0,
        image_height: int = 0,
        audio_seconds_per_request: float = 0.0,
        moe_routing_alpha: float = 0.0,
        draft_model: str | None = None,
    ) -> None: ...
    def step_time(self, requests: RequestsLike) -> float:
        """Time of one engine step in microseconds (see mfusim.Estimator)."""
    def step_time_batch(
        self, requests: RequestsLike, sizes: SizesLike, out: npt.NDArray[np.float64] | None = None
    ) -> npt.NDArray[np.float64]:
        """Times of many steps in one call, the GIL released: step i is the next sizes[i] requests."""
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def _step_detail(
        self, requests: RequestsLike
    ) -> tuple[float, str, list[tuple[str, float, float, float, float, str, str, str, float]]]: ...
    def _estimate(
        self,
        input_len: int | None,
        output_len: int | None,
        max_prefill_tokens: int | None,
        decode_batch: int | None,
        target_tgs: float | None,
        target_tpot_ms: float | None,
        phases: int,
    ) -> tuple[list[tuple[str, float]], str, str]: ...
    def _serve(
        self,
        input_len: int,
        output_len: int,
        concurrency: int,
        max_batched_tokens: int,
        max_seqs: int,
        gpu_memory_utilization: float,
        requests_per_client: float,
    ) -> dict[str, Any]: ...
    def _disagg(
        self,
        decode: Estimator,
        input_len: int,
        output_len: int,
        concurrency: int,
        prefill_workers: int,
        decode_workers: int,
        prefill_batch: int,
        decode_batch: int,
        max_batched_tokens: int,
        gpu_memory_utilization: float,
    ) -> dict[str, Any]: ...
    def _simulate(self, params: dict[str, Any], trace_address: int, trace_count: int) -> SimulationResult: ...
    def _engine_terms(self) -> dict[str, Any]: ...
    def _load_warnings(self) -> str: ...
