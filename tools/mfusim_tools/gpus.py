"""GPU profiles: dense tensor-core peaks per dtype, memory bandwidth, and driver-name matching.

Peaks are *dense* (no 2:4 sparsity) figures from the vendors' datasheets, in TFLOP/s. FP16 and BF16 share one
peak on every GPU listed, so ``peak_tflops(profile, "fp16")`` returns the BF16 figure. MFU is always computed
against the peak of the dtype the kernel actually ran (see ``flops.mfu``); no benchmark carries its own constant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class GpuSpec:
    """One GPU profile. ``fp8_tflops`` is None where the GPU has no FP8 tensor cores."""

    name: str
    bf16_tflops: float
    fp8_tflops: float | None
    hbm_tbps: float  # HBM bandwidth, TB/s (1e12 bytes/s)
    memory_gib: float
    driver_name: str  # a typical name as the driver reports it (used when an import cannot know it)
    note: str


PROFILES: dict[str, GpuSpec] = {
    spec.name: spec
    for spec in (
        GpuSpec("a100", 312.0, None, 2.039, 80, "NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB datasheet; no FP8"),
        GpuSpec("h100", 989.4, 1978.9, 3.35, 80, "NVIDIA H100 80GB HBM3", "H100 SXM5 datasheet (dense)"),
        GpuSpec("h100-pcie", 756.0, 1513.0, 2.0, 80, "NVIDIA H100 PCIe", "H100 PCIe datasheet (dense)"),
        GpuSpec("h100-nvl", 835.5, 1670.5, 3.9, 94, "NVIDIA H100 NVL", "H100 NVL datasheet (dense)"),
        GpuSpec("h200", 989.4, 1978.9, 4.8, 141, "NVIDIA H200", "H200 SXM datasheet: same tensor cores as H100 SXM"),
        GpuSpec("h20", 148.0, 296.0, 4.0, 96, "NVIDIA H20", "H20 datasheet (dense)"),
        GpuSpec("h800", 989.0, 1979.0, 3.35, 80, "NVIDIA H800", "H800 SXM datasheet (dense)"),
        GpuSpec("b200", 2250.0, 4500.0, 8.0, 180, "NVIDIA B200", "B200 datasheet (dense)"),
        GpuSpec("gb200", 2500.0, 5000.0, 8.0, 186, "NVIDIA GB200", "GB200 per-GPU datasheet figures (dense)"),
        GpuSpec("l40s", 362.0, 733.0, 0.864, 48, "NVIDIA L40S", "L40S datasheet (dense)"),
    )
}

# Ordered: the first pattern that matches the lower-cased driver name wins, so variants precede the base part.
_DRIVER_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"\bgh200\b", ""),  # Grace Hopper: not profiled here; pass --gpu-profile explicitly
    (r"\bgb200\b", "gb200"),
    (r"\bb200\b", "b200"),
    (r"\bh200\b.*\bnvl\b", ""),  # H200 NVL runs at lower clocks: no profile yet
    (r"\bh200\b", "h200"),
    (r"\bh100\b.*\bpcie\b", "h100-pcie"),
    (r"\bh100\b.*\bnvl\b", "h100-nvl"),
    (r"\bh100\b", "h100"),
    (r"\bh800\b.*\bpcie\b", ""),
    (r"\bh800\b", "h800"),
    (r"\bh20\b", "h20"),
    (r"\ba100\b", "a100"),
    (r"\bl40s\b", "l40s"),
)

DTYPES = ("bf16", "fp16", "fp8")


def profile_for_driver_name(driver_name: str) -> str | None:
    """Map a name as the driver reports it (e.g. "NVIDIA H100 80GB HBM3") to a profile name, or None."""
    lowered = driver_name.lower().replace("-", " ")
    for pattern, profile in _DRIVER_PATTERNS:
        if re.search(pattern, lowered):
            return profile or None
    return None


def get_profile(name: str) -> GpuSpec:
    """Return the profile called ``name`` (case-insensitive); raise KeyError listing known names otherwise."""
    try:
        return PROFILES[name.lower()]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise KeyError(f"unknown GPU profile {name!r}; known profiles: {known}") from None


def peak_tflops(profile: str | GpuSpec, dtype: str) -> float:
    """Dense tensor-core peak of ``profile`` for ``dtype`` ("bf16", "fp16" or "fp8"), in TFLOP/s."""
    spec = profile if isinstance(profile, GpuSpec) else get_profile(profile)
    if dtype in ("bf16", "fp16"):
        return spec.bf16_tflops
    if dtype == "fp8":
        if spec.fp8_tflops is None:
            raise ValueError(f"GPU profile {spec.name!r} has no FP8 tensor cores")
        return spec.fp8_tflops
    raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")


def peak_dtype_for(dtype: str) -> str:
    """The manifest's ``peak_dtype`` for a kernel dtype: fp16 kernels are measured against the bf16 peak."""
    if dtype in ("bf16", "fp16"):
        return "bf16"
    if dtype == "fp8":
        return "fp8"
    raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
