"""mfusim.plan: the deployment search of `mfusim plan` as rows (mfusim_plan), checked against the serving estimate
of each row's deployment and against the command's own --json where the CLI is built."""

import json
import os
import subprocess

import pytest

import mfusim


def small_plan(**kw):
    args = dict(gpus=["H100", "H200"], tp_list=[1, 2], max_concurrency=16, max_tpot_ms=10)
    args.update(kw)
    return mfusim.plan("llama-3.1-8b-instruct", 1024, 128, **args)


def test_rows_and_the_best_per_gpu():
    p = small_plan()
    assert len(p["rows"]) == 20  # two GPUs x two degrees x concurrency 1..16
    for g in p["gpus"]:
        mine = [r for r in p["rows"] if r["gpu"] == g["gpu"]]
        assert g["evaluated"] == len(mine) == 10
        meeting = [r for r in mine if r["meets_limits"]]
        assert g["meeting_limits"] == len(meeting)
        assert all((r["tpot_ms"] <= 10) == r["meets_limits"] for r in mine)
        assert g["best"] is not None and g["best"]["best"]
        assert g["best"]["output_tok_s_gpu"] == max(r["output_tok_s_gpu"] for r in meeting)
        assert sum(r["best"] for r in mine) == 1


def test_a_row_is_the_serving_estimate_of_its_deployment():
    row = small_plan()["rows"][13]
    with mfusim.Estimator("llama-3.1-8b-instruct", row["gpu"], tp=row["tp"]) as est:
        served = est.serve(1024, 128, row["concurrency"])
    assert (served.ttft_ms, served.tpot_ms) == (row["ttft_ms"], row["tpot_ms"])


def test_nothing_fits_is_counted_not_raised():
    p = mfusim.plan("llama-3.1-70b-instruct", 1024, 128, gpus=["H100"], tp_list=[1], max_concurrency=4)
    assert p["rows"] == [] and p["gpus"][0]["skipped_not_fitting"] == 1
    assert p["gpus"][0]["best"] is None and p["gpus"][0]["last_skip"]


def test_bad_requests_raise():
    with pytest.raises(mfusim.UnknownNameError):
        small_plan(gpus=["H100", "no-such-gpu"])
    with pytest.raises(mfusim.InvalidArgumentError, match="tp_list"):
        small_plan(tp_list=[0])
    with pytest.raises(mfusim.InvalidArgumentError, match="max_tpot_ms"):
        small_plan(max_tpot_ms=-1)
    with pytest.raises(mfusim.InvalidArgumentError, match="router"):
        small_plan(router="random")


@pytest.mark.skipif(not os.environ.get("MFUSIM_CLI"), reason="MFUSIM_CLI (the built mfusim command) not set")
def test_rows_are_the_commands_json():
    out = subprocess.run([os.environ["MFUSIM_CLI"], "plan", "--model", "llama-3.1-8b-instruct", "--gpus", "H100",
                          "--tp-list", "1,2", "--max-concurrency", "16", "--max-tpot-ms", "10", "--isl", "1024",
                          "--osl", "128", "--json", "--top", "100"], check=True, capture_output=True, text=True)
    cli = json.loads(out.stdout)["gpus"][0]
    p = small_plan(gpus=["H100"])
    assert cli["evaluated"] == len(p["rows"])
    assert cli["best"]["output_tok_s_gpu"] == p["gpus"][0]["best"]["output_tok_s_gpu"]
    assert [r["ttft_ms"] for r in cli["top"]] == [r["ttft_ms"] for r in sorted(
        (r for r in p["rows"] if r["meets_limits"]), key=lambda r: -r["output_tok_s_gpu"])]
