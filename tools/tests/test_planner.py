"""Budget fitting, resumable run state, progress/ETA, and the time estimator."""

from __future__ import annotations

import io
import json

import pytest

from mfusim_tools import estimate, gpus, grid, planner
from mfusim_tools.grid import PlanItem


def _item(n: int, tier: int = 1, kind: str = "gemm") -> PlanItem:
    return PlanItem(kind, (("m", n), ("k", 64), ("n", 64)), tier)


def test_fit_budget_takes_priorities_first_and_stays_within_budget():
    items = [_item(i, tier=i % 3) for i in range(30)]
    cost = {it.id: 1.0 + it["m"] % 4 for it in items}
    fitted = planner.fit_budget(items, lambda it: cost[it.id], budget_s=20.0)
    assert fitted.estimated_s == sum(cost[it.id] for it in fitted.selected) <= 20.0
    assert len(fitted.selected) + len(fitted.skipped) == 30
    assert [it.tier for it in fitted.selected] == sorted(it.tier for it in fitted.selected)
    # nothing of tier 2 is taken while a tier-0 item that would have fitted is left out
    worst_selected = max(it.tier for it in fitted.selected)
    assert all(it.tier >= worst_selected or cost[it.id] > 20.0 - fitted.estimated_s for it in fitted.skipped)


def test_fit_budget_skips_a_long_item_and_keeps_filling():
    items = [_item(1, 0), _item(2, 0), _item(3, 1)]
    cost = {items[0].id: 5.0, items[1].id: 50.0, items[2].id: 3.0}
    fitted = planner.fit_budget(items, lambda it: cost[it.id], budget_s=10.0)
    assert [it["m"] for it in fitted.selected] == [1, 3]
    assert [it["m"] for it in fitted.skipped] == [2]


def test_fit_budget_does_not_rerun_done_items():
    items = [_item(i, 0) for i in range(5)]
    fitted = planner.fit_budget(items, lambda it: 1.0, budget_s=2.0, done_ids=[items[0].id, items[3].id])
    assert [it["m"] for it in fitted.done] == [0, 3]
    assert [it["m"] for it in fitted.selected] == [1, 2]
    assert [it["m"] for it in fitted.skipped] == [4]
    assert "2 items to run" in fitted.summary() and "2 already done" in fitted.summary()


def test_run_state_resumes(tmp_path):
    path = tmp_path / "_bench" / "state.jsonl"
    header = {"gpu": "NVIDIA H100 80GB HBM3", "gemm_dtype": "bf16"}
    state = planner.RunState.open(path, header)
    state.record(_item(1), {"latency_us": 1.0, "mfu": 0.5, "kernel": "k", "dtype": "bf16"})
    state.record(_item(2), {"error": "out of memory"})
    with path.open("a") as handle:
        handle.write('{"item": {"kind": "gemm", "par')  # a crash while writing the last line
    again = planner.RunState.open(path, header)
    assert again.done_ids == {_item(1).id, _item(2).id}
    assert again.results[_item(1).id][1]["mfu"] == 0.5
    assert planner.RunState.open(path, header, fresh=True).done_ids == set()
    assert json.loads(path.read_text().splitlines()[0]) == {"header": header}


def test_run_state_refuses_another_gpu(tmp_path):
    path = tmp_path / "state.jsonl"
    planner.RunState.open(path, {"gpu": "NVIDIA H100 80GB HBM3"})
    with pytest.raises(ValueError, match="another run"):
        planner.RunState.open(path, {"gpu": "NVIDIA A100-SXM4-80GB"})


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_progress_eta_scales_with_observed_speed():
    clock, out = FakeClock(), io.StringIO()
    progress = planner.Progress(total=4, estimated_s=40.0, clock=clock, out=out)
    assert progress.eta_seconds() == 40.0  # before anything ran: the estimate
    progress.start()
    clock.now += 20.0  # the first item took twice its estimate of 10 s
    line = progress.update("gemm:m=1", 10.0)
    assert progress.eta_seconds() == pytest.approx(60.0)  # 30 s estimated left, running at half speed
    assert line.startswith("[1/4]") and "25.0%" in line and "ETA 0:01:00" in line and "gemm:m=1" in line
    assert out.getvalue().strip() == line


def test_format_duration():
    assert planner.format_duration(3725.4) == "1:02:05"
    assert planner.format_duration(-3) == "0:00:00"


def test_estimate_grows_with_work_and_counts_repeats():
    h100 = gpus.get_profile("h100")
    small, big = _item(16), PlanItem("gemm", (("m", 16384), ("k", 8192), ("n", 8192)), 0)
    assert estimate.item_seconds(big, h100) > estimate.item_seconds(small, h100) > estimate.SETUP_S
    few = estimate.TimingConfig(warmup=1, repeats=2, flush_l2=False)
    assert estimate.item_seconds(big, h100, few) < estimate.item_seconds(big, h100)
    # a decode item is memory-bound: its kernel time follows KV bytes / bandwidth
    decode = PlanItem("decode", (("hq", 32), ("hkv", 8), ("d", 128), ("kv_dtype", "bf16"), ("batch_size", 64),
                                 ("kv_len", 65536)), 1)
    kv_bytes = 2 * 2 * 64 * 65536 * 8 * 128
    assert estimate.kernel_seconds(decode, h100) == pytest.approx(
        kv_bytes / (h100.hbm_tbps * 1e12 * estimate.MEMORY_EFF), rel=0.01)
    assert estimate.kernel_seconds(decode, gpus.get_profile("a100")) > estimate.kernel_seconds(decode, h100)


def test_default_plan_fits_the_default_budget_on_h100_and_a_short_budget_keeps_core_points():
    h100 = gpus.get_profile("h100")
    plan = grid.build_plan()
    fitted = planner.fit_budget(plan, lambda it: estimate.item_seconds(it, h100), 25 * 60 - 30)
    assert not fitted.skipped
    short = planner.fit_budget(plan, lambda it: estimate.item_seconds(it, h100), 60)
    assert short.skipped and short.selected
    assert {it.tier for it in short.selected} == {0}
    assert {it.kind for it in short.selected} >= {"gemm", "decode"}
