"""The validator: each problem kind on the fixture directories, plan coverage, the CLI, and the shared
reference tables (whose real quirks it must report)."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest

from mfusim_tools import grid, validate


@pytest.fixture(scope="module")
def bad_problems(fixtures):
    return validate.validate_dir(fixtures / "bad_bench_data")


@pytest.fixture(scope="module")
def bad(fixtures, bad_problems):
    """(path relative to the fixture, line, kind) -> problem."""
    root = str(fixtures / "bad_bench_data") + "/"
    return {(p.path.removeprefix(root), p.line, p.kind): p for p in bad_problems}


@pytest.mark.parametrize("path, line, kind, severity", [
    ("gemm/h100/data.csv", 4, "duplicate-row", "warning"),
    ("gemm/h100/data.csv", 5, "conflicting-duplicate", "error"),
    ("gemm/h100/data.csv", 6, "unsorted", "error"),
    ("gemm/h100/data.csv", 7, "mfu-mismatch", "error"),
    ("gemm/h100/data.csv", 9, "latency-not-monotonic", "warning"),
    ("gemm/h100/data.csv", 10, "split-block", "warning"),
    ("mha/prefill/h100/32-8-128.csv", 2, "size-range", "error"),
    ("mha/prefill/h100/32-8-128.csv", 3, "zero-mfu", "warning"),
    ("mha/prefill/h100/32-8-128.csv", 4, "latency-range", "error"),
    ("mha/prefill/h100/32-8-128.csv", 5, "mfu-range", "error"),
    ("mha/prefill/h100/32-8-128.csv", 6, "parse", "error"),
    ("mha/prefill/h100/32-8-128.csv", 7, "field-count", "error"),
    ("mha/prefill/h100/32-8-128.csv", 8, "blank-line", "error"),
    ("mha/prefill/h100/32-8-128.csv", 9, "dtype", "warning"),
    ("mha/prefill/h100/64-8-128.csv", 1, "header", "error"),
    ("mha/prefill/h100/manifest.json", 0, "manifest-missing", "warning"),
    ("mha/decode/h100/8-1-128.csv", 1, "header-missing", "error"),
    ("mha/decode/h100/16-2-128.csv", 0, "encoding", "error"),
    ("mha/decode/h100/64-8-128.csv", 0, "empty-file", "error"),
    ("mha/decode/h100/readme.csv", 0, "unknown-table", "warning"),
    ("mha/decode/h100/manifest.json", 0, "manifest-invalid", "error"),
    ("mla/decode/H100", 0, "gpu-folder", "error"),
    ("grouped_gemm/decode/h100/data.csv", 1, "extra-columns", "warning"),
    ("grouped_gemm/decode/h100/manifest.json", 0, "manifest-gpu", "warning"),
    ("grouped_gemm/decode/h100/manifest.json", 0, "manifest-peak", "warning"),
    ("dsa/decode/h100/logits-64-128.csv", 0, "unknown-table", "warning"),
])
def test_each_problem_kind_is_detected_where_it_is(bad, path, line, kind, severity):
    assert (path, line, kind) in bad, sorted(bad)
    assert bad[(path, line, kind)].severity == severity


def test_the_bad_fixture_has_nothing_unexpected(bad, bad_problems):
    kinds = Counter(p.kind for p in bad_problems)
    assert kinds["manifest-invalid"] == 9  # 8 missing keys and a bad source
    # the headerless file's first line is kept as data, the grouped table's extra column is ignored,
    # and its MFUs agree with the manifest's (unusual) peak: no other problems there
    assert not [k for k in bad if k[0] in ("mha/decode/h100/8-1-128.csv", "grouped_gemm/decode/h100/data.csv")
                and k[2] not in ("header-missing", "extra-columns")]
    assert len(bad_problems) == len(bad) + 8 == 35


def test_the_good_fixture_is_clean(fixtures):
    assert validate.validate_dir(fixtures / "good_bench_data") == []


def test_plan_coverage(fixtures, tmp_path):
    root = tmp_path / "bench_data"
    shutil.copytree(fixtures / "good_bench_data", root)
    plan = [
        grid.PlanItem("gemm", (("m", 16), ("k", 4096), ("n", 4096)), 0),  # present
        grid.PlanItem("gemm", (("m", 32), ("k", 4096), ("n", 4096)), 0),  # absent
        grid.PlanItem("gemm", (("m", 64), ("k", 1024), ("n", 1024)), 0),  # absent
        grid.PlanItem("prefill", (("hq", 32), ("hkv", 8), ("d", 128), ("seq_len", 4096)), 0),  # present
        grid.PlanItem("decode", (("hq", 8), ("hkv", 1), ("d", 128), ("kv_dtype", "bf16"), ("batch_size", 1),
                                 ("kv_len", 1024)), 0),  # whole table absent
    ]
    problems = validate.validate_dir(root, plan)
    assert [(p.kind, p.path.removeprefix(str(root) + "/")) for p in problems] == [
        ("missing-rows", "gemm/h100/data.csv"), ("missing-table", "mha/decode/h100/8-1-128.csv")]
    assert "2 of 3 planned rows absent" in problems[0].message
    # the harness's plan file is picked up without being asked for
    (root / "_bench").mkdir()
    (root / "_bench/plan.json").write_text(json.dumps({"gpu": "h100", "items": [i.to_dict() for i in plan]}))
    assert [p.kind for p in validate.validate_dir(root)] == ["missing-rows", "missing-table"]


def test_missing_directory_and_empty_directory(tmp_path):
    assert [p.kind for p in validate.validate_dir(tmp_path / "nope")] == ["not-a-directory"]
    assert [p.kind for p in validate.validate_dir(tmp_path)] == ["no-tables"]


def test_cli_exit_codes_and_output(fixtures, capsys):
    assert validate.main([str(fixtures / "good_bench_data")]) == 0
    assert validate.main([str(fixtures / "bad_bench_data")]) == 1
    captured = capsys.readouterr()
    line = next(x for x in captured.out.splitlines() if "header-missing" in x)
    assert line.endswith("8-1-128.csv:1: error: first line is data, not the header "
                         "dtype,kv_dtype,batch_size,kv_len,latency_us,mfu; readers that skip the header lose this "
                         "row [header-missing]")
    assert "23 errors, 12 warnings" in captured.err
    assert validate.main([str(fixtures / "bad_bench_data"), "--errors-only"]) == 1
    assert "warning" not in capsys.readouterr().out


def test_strict_turns_warnings_into_failure(fixtures, tmp_path):
    root = tmp_path / "bench_data"
    shutil.copytree(fixtures / "good_bench_data", root)
    (root / "gemm/h100/manifest.json").unlink()
    assert validate.main([str(root)]) == 0
    assert validate.main([str(root), "--strict"]) == 1


def test_infersim_reference_tables(ref):
    root = ref("infersim/bench_data")
    problems = validate.validate_dir(root)
    errors = [p for p in problems if p.severity == "error"]
    assert [(p.kind, p.path.removeprefix(str(root) + "/"), p.line) for p in errors] == [
        ("header-missing", "mha/decode/h20/64-2-128.csv", 1)]
    kinds = Counter(p.kind for p in problems)
    zero = sorted(p.path.removeprefix(str(root) + "/") for p in problems if p.kind == "zero-mfu")
    assert zero == ["mha/decode/h800/16-2-128.csv", "mha/decode/h800/32-2-128.csv", "mha/decode/h800/32-8-128.csv"]
    assert kinds["manifest-missing"] == 12  # every table folder with MFU columns; gdn tables have none
    assert kinds["unknown-table"] == 4  # dsa/**, which InferSim never reads
    duplicates = [p for p in problems if p.kind == "duplicate-row"]
    assert len(duplicates) == 1 and duplicates[0].path.endswith("gemm/h20/data.csv")
    assert set(kinds) <= {"header-missing", "zero-mfu", "manifest-missing", "unknown-table", "duplicate-row",
                          "latency-not-monotonic"}


def test_blis_reference_tables(ref):
    root = ref("blis-h100/bench_data")
    problems = validate.validate_dir(root)
    assert not [p for p in problems if p.severity == "error"]
    kinds = Counter(p.kind for p in problems)
    assert kinds["manifest-missing"] == 3
    assert kinds["zero-mfu"] >= 10  # decode MFUs of ~0.0004 rounded to 3 decimals
    assert set(kinds) == {"manifest-missing", "zero-mfu", "latency-not-monotonic"}
    # the first decode row of most files is slower than the next, larger one (an unwarmed first measurement)
    assert all(p.line in (3, 4, 5) for p in problems if p.kind == "latency-not-monotonic")
