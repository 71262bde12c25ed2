"""The harness on a real GPU: a small plan end to end. Skipped with "no CUDA GPU" without torch and CUDA."""

from __future__ import annotations

import pytest

from mfusim_tools import layout, manifest, validate


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


requires_gpu = pytest.mark.skipif(not _cuda_available(), reason="no CUDA GPU")


@requires_gpu
def test_small_benchmark_run_writes_valid_tables(tmp_path):
    from mfusim_tools.bench import cli

    out = tmp_path / "bench_data"
    argv = ["--out", str(out), "--budget-min", "2", "--models", "llama-3.1-8b", "--tp", "8", "--repeats", "5"]
    assert cli.main(argv) == 0
    problems = validate.validate_dir(out)
    assert not [p for p in problems if p.severity == "error"], problems[:10]
    gpu = manifest.read_manifest(out / "gemm" / next((out / "gemm").iterdir()).name)
    assert gpu["source"] == "mfusim-bench" and "torch" in gpu["library_versions"]
    gemm = layout.read_table(next((out / "gemm").iterdir()) / "data.csv", layout.GEMM)
    biggest = max(gemm, key=lambda r: r["m"] * r["k"] * r["n"])
    assert 0.2 < biggest["mfu"] <= 1.0  # a large bf16 GEMM runs near the peak
    decode_files = list((out / "mha" / "decode").glob("*/*.csv"))
    assert decode_files and all(layout.classify(p.relative_to(out)).tp is None for p in decode_files)
    # a second run resumes: nothing is left to measure
    assert cli.main(argv) == 0


@requires_gpu
def test_timer_and_flush_on_gpu():
    import torch

    from mfusim_tools.bench import timing
    from mfusim_tools.bench.torch_backend import CudaEventTimer, L2Flusher

    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    result = timing.measure(lambda: a @ a, CudaEventTimer(), timing.TimingPolicy(warmup=2, repeats=5), L2Flusher())
    assert 1.0 < result.median_us < 100_000.0
