"""mfusim.param_sweep: the points of `mfusim sweep` (mfusim_sweep), each the estimate of its own step or workload,
and the command's own --json where the CLI is built."""

import json
import os
import subprocess

import pytest

import mfusim

MODEL = "llama-3.1-8b-instruct"


def test_serving_points_are_monotone_in_concurrency_and_the_serving_estimate():
    levels = [1, 2, 4, 8, 16, 32]
    s = mfusim.param_sweep(MODEL, "H100", "concurrency", levels, input_len=1024, output_len=128)
    rows = s["rows"]
    assert [r["vary"] for r in rows] == levels and all(r["ok"] and r["error"] == "" for r in rows)
    for a, b in zip(rows, rows[1:]):
        # More requests in flight share each step: every token comes slower, the GPU makes more of them.
        assert b["tpot_ms"] >= a["tpot_ms"] and b["output_tok_s_gpu"] > a["output_tok_s_gpu"], (a, b)
    with mfusim.Estimator(MODEL, "H100") as est:
        served = est.serve(1024, 128, 8)
    assert (rows[3]["ttft_ms"], rows[3]["tpot_ms"]) == (served.ttft_ms, served.tpot_ms)
    assert rows[3]["detail"] == served.limited_by


def test_step_points_are_step_times_series_major():
    s = mfusim.param_sweep(MODEL, "H100", "decode-batch", [1, 16, 128], series="tp", series_values=[1, 2],
                           context=4096)
    rows = s["rows"]
    assert [(r["vary"], r["series"]) for r in rows] == [(b, t) for t in (1, 2) for b in (1, 16, 128)]
    assert all(r["ok"] and r["step_ms"] > 0 and r["detail"] and r["ttft_ms"] == 0 for r in rows)
    for series in (rows[:3], rows[3:]):
        assert [r["step_ms"] for r in series] == sorted(r["step_ms"] for r in series)
    with mfusim.Estimator(MODEL, "H100", tp=2) as est:
        us = est.step_time([(1, 4096)] * 16)
    assert rows[4]["step_ms"] == us / 1000


def test_a_refused_point_keeps_its_row():
    # 70B in 16-bit weights fills more than one H100 (80 GB), not four.
    s = mfusim.param_sweep("llama-3.1-70b-instruct", "H100", "tp", [1, 4], input_len=1024, output_len=128)
    refused, served = s["rows"]
    assert not refused["ok"] and refused["error"] and refused["tpot_ms"] == 0 and refused["detail"] == ""
    assert served["ok"] and served["tpot_ms"] > 0 and served["error"] == ""
    s = mfusim.param_sweep(MODEL, None, "gpu", ["H100", "no-such-gpu"], input_len=1024, output_len=128)
    served, unknown = s["rows"]
    assert served["ok"] and served["tpot_ms"] > 0
    assert not unknown["ok"] and "no-such-gpu" in unknown["error"] and unknown["tpot_ms"] == 0


def test_bad_sweeps_name_the_field():
    with pytest.raises(mfusim.InvalidArgumentError, match="concurency.*did you mean 'concurrency'"):
        mfusim.param_sweep(MODEL, "H100", "concurency", [1])
    with pytest.raises(mfusim.InvalidArgumentError, match="concurrency"):
        mfusim.param_sweep(MODEL, "H100", "concurrency", [1], serving=False)
    with pytest.raises(mfusim.InvalidArgumentError, match="decode-batch"):
        mfusim.param_sweep(MODEL, "H100", "decode_batch", [-1])
    with pytest.raises(mfusim.InvalidArgumentError, match="vary_values"):
        mfusim.param_sweep(MODEL, "H100", "decode_batch", [])
    with pytest.raises(mfusim.InvalidArgumentError, match="series"):
        mfusim.param_sweep(MODEL, "H100", "tp", [1], series="tp", series_values=[2])


@pytest.mark.skipif(not os.environ.get("MFUSIM_CLI"), reason="MFUSIM_CLI (the built mfusim command) not set")
def test_points_are_the_commands_json():
    out = subprocess.run([os.environ["MFUSIM_CLI"], "sweep", "--model", MODEL, "--gpu", "H100", "--vary",
                          "concurrency=1,8,64", "--isl", "1024", "--osl", "128", "--json", "-"],
                         check=True, capture_output=True, text=True)
    cli = json.loads(out.stdout)
    mine = mfusim.param_sweep(MODEL, "H100", "concurrency", [1, 8, 64], input_len=1024, output_len=128)["rows"]
    assert [p["concurrency"] for p in cli["points"]] == [r["vary"] for r in mine]
    for key in ("ttft_ms", "tpot_ms", "output_tok_s_gpu", "e2e_ms", "request_throughput_req_s"):
        assert [p[key] for p in cli["points"]] == [r[key] for r in mine], key
