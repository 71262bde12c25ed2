"""Hostile input at the binding's edge (issue #23): values NumPy or C would silently change are refused naming the
argument, and text from the library is always decodable."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mfusim


@pytest.mark.parametrize(
    "column, value, error, fragment",
    [
        ("new_tokens", 512.9, ValueError, "new_tokens: 512.9 has a fraction"),
        ("new_tokens", [1, 512.5], ValueError, "new_tokens: 512.5 has a fraction"),
        ("new_tokens", "12", TypeError, "new_tokens: expected integers"),
        ("new_tokens", [1, "12"], TypeError, "new_tokens: expected"),
        ("context", float("nan"), ValueError, "context: nan is not an integer"),
        ("context", [float("inf")], ValueError, "context: inf is not an integer"),
        ("context", 2.0**63, ValueError, "context: 9223372036854775808 is out of range"),
        ("context", 2**63, ValueError, "context: 9223372036854775808 is out of range"),
        ("context", np.array([2**63], dtype=np.uint64), ValueError, "context: 9223372036854775808 is out of range"),
        ("flags", -1, ValueError, "flags: -1 is out of range"),
        ("flags", 2**32, ValueError, "flags: 4294967296 is out of range"),
        ("flags", 1.5, ValueError, "flags: 1.5 has a fraction"),
        ("flags", 1j, TypeError, "flags: expected integers"),
    ],
)
def test_requests_refuses_what_is_not_an_integer(column, value, error, fragment):
    args = {"new_tokens": 1, "context": 0, "flags": 0, column: value}
    with pytest.raises(error, match=fragment.replace("(", r"\(")):
        mfusim.requests(**args)


def test_requests_keeps_whole_numbers():
    r = mfusim.requests([512.0, 1], np.array([0, 2**40]), [mfusim.NO_OUTPUT, True])
    assert r["new_tokens"].tolist() == [512, 1]
    assert r["context"].tolist() == [0, 2**40]
    assert r["flags"].tolist() == [mfusim.NO_OUTPUT, 1]
    assert mfusim.requests(-(2**63), 2**63 - 1)["context"].tolist() == [2**63 - 1]


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: mfusim.Estimator("qwen3-8b\0junk", "H100"), "model"),
        (lambda: mfusim.Estimator("qwen3-8b", "H100\0"), "gpu"),
        (lambda: mfusim.Estimator("qwen3-8b", "H100", engine="vllm\0x"), "engine"),
        (lambda: mfusim.Estimator("qwen3-8b", "H100", bench_data="/tmp\0/x"), "bench_data"),
        (lambda: mfusim.Estimator("qwen3-8b", "H100", calibration="{}\0"), "calibration"),
        (lambda: mfusim.Estimator("qwen3-8b", "H100", quant="fp8\0"), "quant"),
        (lambda: mfusim.calibrate_steps("steps.jsonl\0.txt"), "steps_path"),
        (lambda: mfusim.calibrate_kernels("kernels\0", "A100"), "kernels_dir"),
    ],
)
def test_strings_with_a_nul_are_refused(call, name):
    with pytest.raises(mfusim.InvalidArgumentError, match=f"^{name}: embedded NUL character"):
        call()


def test_engine_name_cut_inside_a_character_decodes():
    # 30 ASCII bytes and a 3-byte euro sign do not fit the 32-byte name field (31 and the NUL): the cut used to
    # fall inside the euro sign, and nanobind::str() raised on it.
    engine = json.dumps({"base": "vllm", "name": "a" * 30 + "\u20ac"})
    with mfusim.Estimator("qwen3-8b", "H100", engine=engine) as est:
        assert est.engine_terms().name == "a" * 30


def test_messages_with_bytes_that_are_not_utf8_decode(tmp_path):
    # A config in Latin-1: the parser's message quotes the byte it stopped at (\xe9), which used to make the
    # message itself a "nanobind::str(): conversion error". Shown with U+FFFD instead.
    config = tmp_path / "config.json"
    config.write_bytes(b'{"model_type": "caf\xe9"}')
    with pytest.raises(mfusim.ParseError) as info:
        mfusim.Estimator(config, "H100")
    assert "config.json" in str(info.value) and "\ufffd" in str(info.value)


def test_calibrate_steps_explicit_tp_is_not_overridden(tmp_path):
    steps = tmp_path / "steps.jsonl"
    steps.write_text(
        '{"model": "qwen3-8b", "gpu": "H100", "tp": 2}\n'
        '{"requests": [{"new_tokens": 1, "context": 10}], "measured_us": 5000}\n'
    )
    # tp=1 was silently replaced by the header's 2.
    with pytest.raises(mfusim.InvalidArgumentError, match="header says tp 2"):
        mfusim.calibrate_steps(steps, tp=1)
    assert json.loads(mfusim.calibrate_steps(steps).document)["fitted_on"]["tp"] == 2
    assert json.loads(mfusim.calibrate_steps(steps, tp=4).document)["fitted_on"]["tp"] == 4


def test_integer_arguments_name_themselves(est):
    with pytest.raises(ValueError, match="input_len: 512.9 has a fraction"):
        est.serve(512.9, 10, 4)
    with pytest.raises(ValueError, match="input_len: nan is not an integer"):
        est.estimate(input_len=float("nan"))
    with pytest.raises(TypeError, match="concurrency: expected an integer, not str"):
        est.serve(512, 10, "4")
    with pytest.raises(ValueError, match="output_len: 1180591620717411303424 is out of range"):
        est.serve(512, 2**70, 4)
    with pytest.raises(ValueError, match="tp: 2.5 has a fraction"):
        mfusim.Estimator("qwen3-8b", "H100", tp=2.5)
    with pytest.raises(ValueError, match="folds: 4294967296 is out of range"):
        mfusim.calibrate_steps("steps.jsonl", folds=2**32)
    assert est.serve(512.0, 10, 4).ttft_ms > 0  # a whole number is an integer
