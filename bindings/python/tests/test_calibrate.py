"""Fitting calibrations (mfusim.calibrate_steps / calibrate_kernels), as tests/c/c_api_test.c test_calibrate does:
steps timed by a "true" model whose GEMMs run 1.5x slower are fitted back, and the document applied through
Estimator(calibration=...) reproduces them; bad input raises the binding's exception naming the file."""

from __future__ import annotations

import json

import pytest

import mfusim

TRUTH = '{"mfusim_calibration": 1, "efficiency": {"gemm": 1.5}}'


def write_trace(path, truth: mfusim.Estimator) -> None:
    lines = [json.dumps({"model": "qwen3-8b", "gpu": "H100"})]
    for i in range(64):
        step = [(1 + (i % 4) * 170, 256 * (i % 8)), (1, 500 + 37 * i)]
        lines.append(json.dumps({
            "requests": [{"new_tokens": n, "context": c} for n, c in step],
            "measured_us": truth.step_time(step),
            "group": f"g{i % 4}",
        }))
    path.write_text("\n".join(lines) + "\n")


def test_calibrate_steps_fits_back_the_truth(tmp_path):
    steps = tmp_path / "steps.jsonl"
    with mfusim.Estimator("qwen3-8b", "H100", calibration=TRUTH) as truth:
        write_trace(steps, truth)
        cal = mfusim.calibrate_steps(steps)  # model and gpu from the file's header
        assert isinstance(cal, mfusim.Calibration)
        assert cal.improved is True
        assert '"mfusim_calibration"' in cal.document
        assert "held out" in cal.report
        assert set(cal.to_dict()) == {"document", "report", "improved"}
        probe = [(300, 1000), (1, 4000), (1, 90)]
        with mfusim.Estimator("qwen3-8b", "H100", calibration=cal.document) as fitted:
            assert fitted.step_time(probe) == pytest.approx(truth.step_time(probe), rel=0.03)


def test_calibrate_steps_errors(tmp_path):
    missing = tmp_path / "nonexistent" / "steps.jsonl"
    with pytest.raises(mfusim.FileError, match="nonexistent/steps.jsonl") as info:
        mfusim.calibrate_steps(missing)
    assert info.value.status == 2 and isinstance(info.value, OSError)
    steps = tmp_path / "steps.jsonl"
    steps.write_text('{"model": "qwen3-8b", "gpu": "H100"}\n')
    with pytest.raises(mfusim.InvalidArgumentError, match="folds"):
        mfusim.calibrate_steps(steps, folds=1)


def test_calibrate_kernels_missing_dir(tmp_path):
    with pytest.raises(mfusim.Error, match="no_kernels_here"):
        mfusim.calibrate_kernels(tmp_path / "no_kernels_here", gpu="A100")
