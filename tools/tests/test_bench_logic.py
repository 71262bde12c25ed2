"""The harness's timing and runner logic on the CPU, with a fake timer and a fake backend; the CLI dry run;
and importing the package without torch."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import types

import pytest

from mfusim_tools import flops, gpus, grid, plan_tables, planner, validate
from mfusim_tools.bench import cli, runner, timing
from mfusim_tools.grid import PlanItem


class FakeTimer:
    """Returns programmed device times and records what ran, in order."""

    def __init__(self, times):
        self.times = list(times)
        self.log = []

    def time(self, fn):
        fn()
        self.log.append("call")
        return self.times.pop(0) if len(self.times) > 1 else self.times[0]


def test_measure_discards_warmup_flushes_before_every_call_and_takes_the_median():
    timer = FakeTimer([500.0, 90.0, 80.0, 10.0, 12.0, 11.0, 30.0, 13.0])
    flushes = []

    def flush():
        flushes.append(len(timer.log))

    result = timing.measure(lambda: None, timer, timing.TimingPolicy(warmup=3, repeats=5), flush)
    assert result.warmup_us == (500.0, 90.0, 80.0)
    assert result.samples_us == (10.0, 12.0, 11.0, 30.0, 13.0)
    assert result.median_us == 12.0  # the warm-up's 500 us and the 30 us outlier do not move it
    assert flushes == list(range(8))  # a flush before each of the 8 calls, none inside a timed call


def test_long_kernels_get_fewer_repeats():
    policy = timing.TimingPolicy(warmup=1, repeats=10, min_repeats=3, max_item_s=1.0)
    assert timing.planned_repeats(policy, 1_000.0) == 10
    assert timing.planned_repeats(policy, 200_000.0) == 5
    assert timing.planned_repeats(policy, 5_000_000.0) == 3
    timer = FakeTimer([400_000.0])
    result = timing.measure(lambda: None, timer, policy)
    assert len(result.samples_us) == 3 and len(timer.log) == 4


def test_measure_rejects_nonsense_times():
    with pytest.raises(ValueError):
        timing.measure(lambda: None, FakeTimer([0.0]), timing.TimingPolicy(warmup=0, repeats=2))


class FakeBackend:
    """Pretends each kernel runs at a fixed fraction of the H100 bf16 peak; some shapes are unsupported."""

    def __init__(self, efficiency=0.5, unsupported=()):
        self.efficiency = efficiency
        self.unsupported = set(unsupported)
        self.flush = None
        self.released = 0
        self.timer = self

    def time(self, fn):
        return fn()

    def prepare(self, item):
        if item.id in self.unsupported:
            raise runner.Unsupported("shape not supported")
        peak = gpus.peak_tflops("h100", "bf16") * 1e12
        work = plan_tables.call_flops(item)
        calls = {name: (lambda n=name: work[n] / (peak * self.efficiency) * 1e6) for name in work}
        extra = {"tokens_per_expert": 1} if item.kind.startswith("grouped") else {}
        return runner.Case(calls, "fake kernel", "bf16", extra)

    def release(self, case):
        self.released += 1


def _small_plan():
    options = grid.GridOptions(models=("qwen3-30b-a3b",), tp_degrees=(8,))
    return [it for it in grid.build_plan(options) if it.tier == 0]


def _runner(tmp_path, backend, budget_s=float("inf"), clock=None):
    state = planner.RunState.open(tmp_path / "_bench/state.jsonl", {"gpu": "fake"})
    base = {"gpu": "NVIDIA H100 80GB HBM3", "gpu_profile": "h100", "library_versions": {"torch": "fake"},
            "date": "2025-01-01", "harness_version": "test", "source": "mfusim-bench"}
    kwargs = {"clock": clock} if clock else {}
    return runner.Runner(backend, state, gpus.get_profile("h100"), tmp_path, base,
                         timing.TimingPolicy(warmup=1, repeats=3), budget_s, **kwargs)


def test_runner_measures_writes_valid_tables_and_records_failures(tmp_path):
    items = _small_plan()
    assert {it.kind for it in items} == {"gemm", "prefill", "decode", "grouped_prefill", "grouped_decode"}
    failing = items[0].id
    backend = FakeBackend(efficiency=0.5, unsupported=[failing])
    run = _runner(tmp_path, backend)
    progress = planner.Progress(len(items), 1.0, out=io.StringIO())
    counts = run.run(items, lambda it: 0.001, progress)
    assert counts == {"measured": len(items) - 1, "failed": 1, "not_reached": 0}
    assert backend.released == len(items) - 1
    assert "error" in run.state.results[failing][1]
    problems = validate.validate_dir(tmp_path)
    assert not [p for p in problems if p.severity == "error"], problems
    for _item, result in run.state.results.values():
        for key in ("mfu", "up_mfu", "down_mfu"):
            if key in result:
                assert result[key] == pytest.approx(0.5)  # the fake backend runs at half the peak
    gemm_rows = (tmp_path / "gemm/h100/data.csv").read_text().splitlines()
    assert len(gemm_rows) - 1 == sum(1 for it in items if it.kind == "gemm") - 1  # the failed one is absent


def test_runner_stops_at_the_budget_and_resumes(tmp_path):
    items = _small_plan()[:10]
    ticks = iter(range(0, 10_000, 5))  # every look at the clock advances it by 5 s

    def fake_clock():
        return float(next(ticks))

    run = _runner(tmp_path, FakeBackend(), budget_s=22.0, clock=fake_clock)
    counts = run.run(items, lambda it: 1.0, planner.Progress(len(items), 10.0, out=io.StringIO()))
    assert counts["not_reached"] > 0 and counts["measured"] + counts["not_reached"] == len(items)
    again = planner.RunState.open(tmp_path / "_bench/state.jsonl", {"gpu": "fake"})
    fitted = planner.fit_budget(items, lambda it: 1.0, 100.0, again.done_ids)
    assert len(fitted.done) == counts["measured"] and len(fitted.selected) == counts["not_reached"]


def test_make_result_uses_the_peak_of_the_dtype_run():
    item = PlanItem("gemm", (("m", 4096), ("k", 4096), ("n", 4096)), 0)
    case = runner.Case({"": lambda: None}, "k", "fp8")
    result = runner.make_result(item, case, {"": 100.0}, gpus.get_profile("h100"))
    assert result["mfu"] == pytest.approx(flops.mfu(flops.gemm_flops(4096, 4096, 4096), 100.0, 1978.9))
    assert result["dtype"] == "fp8"


def test_cli_dry_run_needs_no_gpu_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["--out", str(out), "--dry-run", "--budget-min", "2", "--only", "gemm,decode"]) == 0
    text = capsys.readouterr().out
    assert "plan for h100" in text and "left out" in text and "prefill" not in text
    assert not out.exists()


def _fake_torch_backend(driver_name):
    """A stand-in for mfusim_tools.bench.torch_backend, the only module that imports torch."""

    class Backend(FakeBackend):
        def __init__(self, gemm_dtype="bf16", flush_l2=True):
            super().__init__(efficiency=0.4)

        @staticmethod
        def device_name():
            return driver_name

        def library_versions(self):
            return {"torch": "fake"}

    module = types.ModuleType("mfusim_tools.bench.torch_backend")
    module.TorchBackend = Backend
    return module


def test_cli_runs_resumes_and_refuses_another_gpu(tmp_path, monkeypatch, capsys):
    out = tmp_path / "bench_data"
    argv = ["--out", str(out), "--models", "qwen3-30b-a3b", "--tp", "8", "--budget-min", "1"]
    monkeypatch.setitem(sys.modules, "mfusim_tools.bench.torch_backend", _fake_torch_backend("NVIDIA H100 80GB HBM3"))
    assert cli.main(argv) == 0
    first = capsys.readouterr().err
    assert "profile h100" in first and "0 failed" in first
    assert (out / "_bench/plan.json").is_file() and (out / "_bench/state.jsonl").is_file()
    assert validate.validate_dir(out) == []  # every planned row present, MFUs consistent with the manifests
    assert json.loads((out / "mha/decode/h100/manifest.json").read_text())["library_versions"] == {"torch": "fake"}
    assert cli.main(argv) == 0
    assert "0 items to run" in capsys.readouterr().err  # resumed: everything was done
    monkeypatch.setitem(sys.modules, "mfusim_tools.bench.torch_backend", _fake_torch_backend("NVIDIA A100-SXM4-80GB"))
    assert cli.main(argv) == 1
    assert "belongs to another run" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "mfusim_tools.bench.torch_backend", _fake_torch_backend("NVIDIA GeForce GTX 1080"))
    assert cli.main(argv + ["--fresh"]) == 1
    assert "--gpu-profile" in capsys.readouterr().err


def test_cli_rejects_bad_arguments(tmp_path):
    for argv in (["--only", "gemm,softmax"], ["--models", "gpt-5"], ["--tp", "x"], ["--budget-min", "0"]):
        with pytest.raises(SystemExit):
            cli.parse_args(["--out", str(tmp_path)] + argv)


def test_importing_the_tools_does_not_import_torch():
    code = ("import sys, mfusim_tools, mfusim_tools.validate, mfusim_tools.importers.__main__, "
            "mfusim_tools.bench.cli, mfusim_tools.bench.runner; assert 'torch' not in sys.modules")
    tools = cli.__file__.rsplit("/mfusim_tools/", 1)[0]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tools)
