"""The GPU side of the harness (imports torch): CUDA-event timer, L2 flush, and the benchmarked kernels.

Kernels, best available first:
    gemm      bf16: torch.matmul (cuBLAS); fp8: torch._scaled_mm (cuBLASLt), per-tensor scales
    prefill   flash_attn_interface (FlashAttention-3) > flash_attn (FlashAttention-2) > torch SDPA, causal
    decode    flashinfer BatchDecodeWithPagedKVCacheWrapper (page size 16) > torch SDPA over a dense KV cache
              (the query heads of one KV head are passed as query rows, so GQA needs no KV copy)
    grouped   torch.bmm over the experts that receive tokens, balanced routing (tokens*topk slots spread evenly)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from ..estimate import active_experts
from ..grid import PlanItem
from ..plan_tables import tokens as item_tokens
from .runner import Case, Unsupported

FLUSH_BYTES = 256 * 2**20
WORKSPACE_BYTES = 128 * 2**20
PAGE_SIZE = 16
EMPTY_CACHE_ABOVE = 2**30  # return cached blocks to the driver after items that allocated more than this


def _optional(module: str):
    try:
        return importlib.import_module(module)
    except Exception:  # noqa: BLE001 -- not installed, or installed but broken for this GPU or torch
        return None


def _first_working(builders: list[Callable[[], Case]]) -> Case:
    """The case of the first builder whose kernel runs (one untimed call); out-of-memory is not retried."""
    error: Exception | None = None
    for build in builders:
        try:
            case = build()
            for fn in case.calls.values():
                fn()
            torch.cuda.synchronize()
            return case
        except torch.cuda.OutOfMemoryError:
            raise
        except (RuntimeError, ValueError, TypeError, AttributeError, NotImplementedError) as err:
            error = err  # this implementation cannot run the shape here: try the next one
    assert error is not None
    raise error


class CudaEventTimer:
    """Device time of one call, bracketed by CUDA events."""

    def __init__(self) -> None:
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def time(self, fn: Callable[[], object]) -> float:
        self.start.record()
        fn()
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end) * 1000.0  # ms -> us


class L2Flusher:
    """Writes a buffer larger than any L2 so each timed call starts with cold caches."""

    def __init__(self, nbytes: int = FLUSH_BYTES) -> None:
        self.buffer = torch.empty(nbytes // 4, dtype=torch.int32, device="cuda")

    def __call__(self) -> None:
        self.buffer.zero_()


class TorchBackend:
    def __init__(self, gemm_dtype: str = "bf16", flush_l2: bool = True) -> None:
        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA GPU")
        if gemm_dtype not in ("bf16", "fp8"):
            raise ValueError(f"gemm dtype must be bf16 or fp8, got {gemm_dtype!r}")
        if gemm_dtype == "fp8" and not hasattr(torch, "_scaled_mm"):
            raise RuntimeError(f"torch {torch.__version__} has no _scaled_mm: fp8 GEMM unsupported")
        self.gemm_dtype = gemm_dtype
        self.timer = CudaEventTimer()
        self.flush = L2Flusher() if flush_l2 else None
        self.fa3 = _optional("flash_attn_interface")
        self.fa2 = _optional("flash_attn")
        self.flashinfer = _optional("flashinfer")
        self._workspace: torch.Tensor | None = None

    # -- device facts -------------------------------------------------------------------------------------------
    @staticmethod
    def device_name() -> str:
        return torch.cuda.get_device_name()

    def library_versions(self) -> dict[str, str]:
        versions = {"torch": torch.__version__, "cuda": str(torch.version.cuda)}
        cudnn = torch.backends.cudnn.version()
        if cudnn:
            versions["cudnn"] = str(cudnn)
        for name, module in (("flash_attn", self.fa2), ("flashinfer", self.flashinfer)):
            if module is not None:
                versions[name] = str(getattr(module, "__version__", "unknown"))
        if self.fa3 is not None:
            versions["flash_attn_interface"] = str(getattr(self.fa3, "__version__", "present"))
        major, minor = torch.cuda.get_device_capability()
        versions["compute_capability"] = f"{major}.{minor}"
        return versions

    # -- cases ----------------------------------------------------------------------------------------------------
    def prepare(self, item: PlanItem) -> Case:
        """The case of ``item`` with the best implementation that runs it (each candidate is called once,
        untimed, so unsupported shapes fail here and not in the middle of timing)."""
        candidates = {"gemm": self._gemm, "prefill": self._prefill, "decode": self._decode,
                      "grouped_prefill": self._grouped, "grouped_decode": self._grouped}[item.kind](item)
        try:
            return _first_working(candidates)
        except torch.cuda.OutOfMemoryError as err:
            torch.cuda.empty_cache()
            raise Unsupported(f"out of memory: {str(err).splitlines()[0]}") from None
        except (RuntimeError, ValueError, TypeError, AttributeError, NotImplementedError) as err:
            message = str(err).splitlines()[0] if str(err) else ""
            raise Unsupported(f"{type(err).__name__}: {message}") from None

    def release(self, case: Case) -> None:
        case.calls.clear()
        if case.nbytes > EMPTY_CACHE_ABOVE:
            torch.cuda.empty_cache()

    @staticmethod
    def _randn(*shape: int, dtype=torch.bfloat16) -> torch.Tensor:
        return torch.randn(*shape, dtype=dtype, device="cuda")

    def _gemm(self, item: PlanItem) -> list[Callable[[], Case]]:
        return [lambda: self._gemm_case(*(int(item[c]) for c in ("m", "k", "n")))]

    def _gemm_case(self, m: int, k: int, n: int) -> Case:
        nbytes = 2 * (m * k + n * k + m * n)
        if self.gemm_dtype == "fp8":
            return self._gemm_fp8_case(m, k, n, nbytes)
        x = self._randn(m, k)
        wt = self._randn(n, k).t()  # a linear layer's weight W[n, k]: y = x . W^T
        y = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
        return Case({"": lambda: torch.matmul(x, wt, out=y)}, "torch.matmul (cuBLAS)", "bf16", nbytes=nbytes)

    def _gemm_fp8_case(self, m: int, k: int, n: int, nbytes: int) -> Case:
        x8 = self._randn(m, k).to(torch.float8_e4m3fn)
        w8t = self._randn(n, k).to(torch.float8_e4m3fn).t()  # column-major (k, n), as _scaled_mm wants
        scale = torch.ones((), dtype=torch.float32, device="cuda")

        def call():
            return torch._scaled_mm(x8, w8t, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)

        return Case({"": call}, "torch._scaled_mm (cuBLASLt fp8)", "fp8", nbytes=nbytes)

    def _prefill(self, item: PlanItem) -> list[Callable[[], Case]]:
        hq, hkv, d, s = (int(item[c]) for c in ("hq", "hkv", "d", "seq_len"))
        nbytes = 2 * s * d * (2 * hq + 2 * hkv)

        def flash(module, name):
            def build() -> Case:
                q, k, v = self._randn(1, s, hq, d), self._randn(1, s, hkv, d), self._randn(1, s, hkv, d)
                return Case({"": lambda: module.flash_attn_func(q, k, v, causal=True)}, name, "bf16", nbytes=nbytes)
            return build

        def sdpa() -> Case:
            q = self._randn(1, hq, s, d)
            k, v = self._randn(1, hkv, s, d), self._randn(1, hkv, s, d)
            if hq != hkv:  # expand KV heads once, outside the timed call (works on every torch version)
                k, v = k.repeat_interleave(hq // hkv, dim=1), v.repeat_interleave(hq // hkv, dim=1)
            return Case({"": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)},
                        "torch SDPA (is_causal)", "bf16", nbytes=nbytes)

        builders = []
        if self.fa3 is not None:
            builders.append(flash(self.fa3, "flash_attn_interface.flash_attn_func (FlashAttention-3)"))
        if self.fa2 is not None:
            builders.append(flash(self.fa2, "flash_attn.flash_attn_func (FlashAttention-2)"))
        return builders + [sdpa]

    def _decode(self, item: PlanItem) -> list[Callable[[], Case]]:
        hq, hkv, d, b, kv = (int(item[c]) for c in ("hq", "hkv", "d", "batch_size", "kv_len"))
        if item["kv_dtype"] != "bf16":
            raise Unsupported(f"kv_dtype {item['kv_dtype']} not benchmarked")
        nbytes = 2 * b * kv * hkv * d * 2
        builders = []
        if self.flashinfer is not None:
            builders.append(lambda: self._decode_flashinfer(hq, hkv, d, b, kv, nbytes))

        def sdpa() -> Case:
            group = hq // hkv
            q = self._randn(b, hkv, group, d)  # the group's query heads as query rows of their KV head
            k, v = self._randn(b, hkv, kv, d), self._randn(b, hkv, kv, d)
            return Case({"": lambda: F.scaled_dot_product_attention(q, k, v)},
                        "torch SDPA (dense KV cache, GQA groups as query rows)", "bf16", nbytes=nbytes)

        return builders + [sdpa]

    def _decode_flashinfer(self, hq: int, hkv: int, d: int, b: int, kv: int, nbytes: int) -> Case:
        fi = self.flashinfer
        if self._workspace is None:
            self._workspace = torch.empty(WORKSPACE_BYTES, dtype=torch.uint8, device="cuda")
        pages = math.ceil(kv / PAGE_SIZE)
        cache = self._randn(b * pages, 2, PAGE_SIZE, hkv, d)  # NHD layout
        indptr = torch.arange(b + 1, dtype=torch.int32, device="cuda") * pages
        indices = torch.arange(b * pages, dtype=torch.int32, device="cuda")
        last = torch.full((b,), kv - (pages - 1) * PAGE_SIZE, dtype=torch.int32, device="cuda")
        wrapper = fi.BatchDecodeWithPagedKVCacheWrapper(self._workspace, "NHD", use_tensor_cores=hq // hkv >= 4)
        q = self._randn(b, hq, d)
        if hasattr(wrapper, "plan"):
            wrapper.plan(indptr, indices, last, hq, hkv, d, PAGE_SIZE, pos_encoding_mode="NONE",
                         q_data_type=torch.bfloat16, kv_data_type=torch.bfloat16)
            run = wrapper.run
        else:  # flashinfer < 0.2
            wrapper.begin_forward(indptr, indices, last, hq, hkv, d, PAGE_SIZE, pos_encoding_mode="NONE",
                                  data_type=torch.bfloat16)
            run = wrapper.forward

        def call():
            return run(q, cache)

        version = getattr(fi, "__version__", "")
        return Case({"": call}, f"flashinfer {version} BatchDecodeWithPagedKVCacheWrapper".replace("  ", " "),
                    "bf16", nbytes=nbytes)

    def _grouped(self, item: PlanItem) -> list[Callable[[], Case]]:
        return [lambda: self._grouped_case(item)]

    def _grouped_case(self, item: PlanItem) -> Case:
        topk, h, inter, local = (int(item[c]) for c in ("topk", "hidden_size", "intermediate_size",
                                                        "num_local_experts"))
        routed = item_tokens(item) * topk
        experts = active_experts(item_tokens(item), topk, local)
        per_expert = math.ceil(routed / experts)
        x = self._randn(experts, per_expert, h)
        w_up = self._randn(experts, h, 2 * inter)
        mid = self._randn(experts, per_expert, inter)
        w_down = self._randn(experts, inter, h)
        nbytes = 2 * experts * (per_expert * (h + inter) + 3 * h * inter)
        return Case({"up": lambda: torch.bmm(x, w_up), "down": lambda: torch.bmm(mid, w_down)},
                    "torch.bmm (balanced routing, active experts only)", "bf16",
                    {"tokens_per_expert": per_expert}, nbytes)
