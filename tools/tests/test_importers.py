"""Importers: AIConfigurator on the shared H100 database and on small synthetic files; Vidur on fixtures."""

from __future__ import annotations

import csv
import json
import os
import statistics
import subprocess

import pytest

from mfusim_tools import flops, layout, manifest, validate
from mfusim_tools.importers import __main__ as importer_cli
from mfusim_tools.importers import records
from mfusim_tools.importers.aiconfigurator import import_aiconfigurator
from mfusim_tools.importers.vidur import import_vidur

H100_BF16 = 989.4


@pytest.fixture(scope="module")
def aic(ref, tmp_path_factory):
    src = ref("measured/aic-h100")
    out = tmp_path_factory.mktemp("aic") / "bench_data"
    report = import_aiconfigurator(src, out, "h100", library_versions={"vllm": "0.24.0"})
    return src, out, report


def _source_rows(path):
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_aic_row_counts_match_the_source(aic):
    src, out, report = aic
    gemm_src = _source_rows(src / "gemm_bf16.csv")
    context_src = _source_rows(src / "context_attention_bf16.csv")
    generation_src = _source_rows(src / "generation_attention_bf16.csv")
    gemm_rows = layout.read_table(out / "gemm/h100/data.csv", layout.GEMM)
    assert len(gemm_rows) == len({(r["m"], r["n"], r["k"]) for r in gemm_src})
    decode_total = sum(len(layout.read_table(p, layout.MHA_DECODE)) for p in (out / "mha/decode/h100").glob("*.csv"))
    assert decode_total == len(generation_src)
    prefill_files = sorted((out / "mha/prefill/h100").glob("*.csv"))
    assert len(prefill_files) == len({(r["num_heads"], r["num_key_value_heads"], r["head_dim"]) for r in context_src})
    prefill_total = sum(len(layout.read_table(p, layout.MHA_PREFILL)) for p in prefill_files)
    assert prefill_total == len({(r["num_heads"], r["num_key_value_heads"], r["head_dim"], r["isl"])
                                 for r in context_src})
    by_source = {s.path.rsplit("/", 1)[-1]: s for s in report.sources}
    assert by_source["gemm_bf16.csv"].read == by_source["gemm_bf16.csv"].used == len(gemm_src)
    context = by_source["context_attention_bf16.csv"]
    assert context.used == prefill_total and context.used + sum(context.skipped.values()) == len(context_src)


def test_aic_tables_load_in_the_library_without_precision_notes(aic, tmp_path):
    """End to end: what the importer writes (MFU to layout.MFU_SIGNIFICANT_DIGITS significant digits, down to
    2.3e-08), the C++ loader takes as precise (its rule counts significant digits too): loading the imported tables
    into an estimator notes no row skipped as imprecise."""
    cli = os.environ.get("MFUSIM_CLI")
    if not cli:
        pytest.skip("MFUSIM_CLI (the mfusim binary) unset; CTest sets it")
    _, out, _ = aic
    tiny = [r["mfu"] for r in layout.read_table(out / "gemm/h100/data.csv", layout.GEMM) if r["mfu"] < 1e-3]
    assert tiny, "the H100 database has small GEMMs whose MFU is below 1e-3: the case this test is about"

    def step_warnings(bench_data):
        step = json.dumps({"requests": [{"new_tokens": 512, "context": 0}, {"new_tokens": 1, "context": 900}]})
        result = subprocess.run([cli, "step", "--model", "qwen3-8b", "--gpu", "H100", "--bench-data", str(bench_data)],
                                input=step, capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
        return result.stdout + result.stderr

    # The control: the same command does report a table printed to three decimals, as InferSim prints them.
    control = tmp_path / "control"
    (control / "gemm/h100").mkdir(parents=True)
    (control / "gemm/h100/data.csv").write_text("m,k,n,latency_us,mfu\n1,4096,4096,10.0,0.003\n64,4096,4096,11.0,0.2\n")
    assert "uncertain by more than 5%" in step_warnings(control)
    assert "uncertain by more than 5%" not in step_warnings(out)


def test_aic_mfu_values(aic):
    src, out, report = aic
    gemm = {(r["m"], r["k"], r["n"]): r for r in layout.read_table(out / "gemm/h100/data.csv", layout.GEMM)}
    big = gemm[(8192, 8192, 8192)]
    assert 0.3 < big["mfu"] <= 1.0
    source = next(r for r in _source_rows(src / "gemm_bf16.csv") if (r["m"], r["n"], r["k"]) == ("8192",) * 3)
    latency_us = float(source["latency"]) * 1000.0  # the database is in milliseconds
    assert big["latency_us"] == pytest.approx(latency_us, rel=1e-6)
    assert big["mfu"] == pytest.approx(2 * 8192**3 / (latency_us * 1e-6 * H100_BF16 * 1e12), rel=1e-5)
    # a large causal prefill reaches a good fraction of the peak; a decode row is memory-bound
    prefill = layout.read_table(out / "mha/prefill/h100/32-8-128.csv", layout.MHA_PREFILL)
    assert [r["seq_len"] for r in prefill] == sorted(r["seq_len"] for r in prefill)
    assert 0.3 < prefill[-1]["mfu"] <= 1.0
    low, high = report.mfu_ranges["mha_decode"]
    assert 0 < low < high < 0.5
    assert all(0 < lo <= hi <= 1.0 for lo, hi in report.mfu_ranges.values())


def test_aic_decode_uses_step_plus_one_keys(aic):
    src, out, _ = aic
    rows = [r for r in _source_rows(src / "generation_attention_bf16.csv")
            if (r["num_heads"], r["num_key_value_heads"], r["head_dim"]) == ("32", "8", "128")]
    table = {(r["batch_size"], r["kv_len"]): r
             for r in layout.read_table(out / "mha/decode/h100/32-8-128.csv", layout.MHA_DECODE)}
    assert len(table) == len(rows)
    sample = rows[len(rows) // 2]
    row = table[(int(sample["batch_size"]), int(sample["step"]) + 1)]
    expected = flops.decode_attention_flops(row["batch_size"], row["kv_len"], 32, 128)
    assert row["mfu"] == pytest.approx(flops.mfu(expected, float(sample["latency"]) * 1000.0, H100_BF16), rel=1e-5)
    assert {r["kv_len"] for r in table.values()} <= {2**i for i in range(1, 18)}


def test_aic_output_validates_with_manifests(aic):
    _, out, report = aic
    problems = validate.validate_dir(out)
    assert not [p for p in problems if p.severity == "error"], problems[:5]
    assert {p.kind for p in problems} <= {"latency-not-monotonic"}
    for folder in ("gemm/h100", "mha/prefill/h100", "mha/decode/h100"):
        data = manifest.read_manifest(out / folder)
        assert (data["source"], data["peak_dtype"], data["peak_tflops"]) == ("aiconfigurator-import", "bf16", 989.4)
        assert data["library_versions"] == {"vllm": "0.24.0"}
    assert "vllm_flash_attn_fa4" in manifest.read_manifest(out / "mha/prefill/h100")["kernel_by_file"].values()
    assert any("mha_decode: 105 tables" in line for line in report.lines())


AIC_COLUMNS = ("op_name,kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,beam_width,attn_dtype,"
               "kv_cache_dtype,step,window_size,latency")


def _write(path, header, rows):
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def test_aic_choices_on_synthetic_files(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    _write(src / "gemm_perf.txt", "op_name,kernel_source,gemm_dtype,m,n,k,latency", [
        "gemm,cublas,bfloat16,64,256,128,0.010",
        "gemm,cublas,bfloat16,64,256,128,0.030",  # a repeat: the median of 10 and 30 us is kept
        "gemm,cublas,bfloat16,64,256,128,0.020",
        "gemm,deepgemm,fp8,64,256,128,0.005",  # another dtype: not mixed into the bf16 table
        "gemm,cublas,bfloat16,x,256,128,0.005",  # unreadable
    ])
    _write(src / "context_attention_perf.txt", AIC_COLUMNS, [
        "context_attention,fa3,2,1024,16,2,128,1,bfloat16,bfloat16,0,0,0.100",  # batch 2 only: halved per sequence
        "context_attention,fa3,4,1024,16,2,128,1,bfloat16,bfloat16,0,0,0.180",  # larger batch: skipped
        "context_attention,fa3,1,2048,16,2,128,1,bfloat16,bfloat16,0,0,0.150",
        "context_attention,fa3,1,2048,16,2,128,1,bfloat16,bfloat16,512,0,0.150",  # cached prefix: skipped
        "context_attention,fa3,1,2048,16,2,128,1,bfloat16,bfloat16,0,4096,0.150",  # sliding window: skipped
    ])
    _write(src / "generation_attention_perf.txt", AIC_COLUMNS, [
        "generation_attention,fa3,8,1,16,2,128,1,bfloat16,bfloat16,1023,0,0.020",
        "generation_attention,fa3,8,1,16,2,128,1,bfloat16,fp8,1023,0,0.015",
        "generation_attention,fa3,8,4,16,2,128,1,bfloat16,bfloat16,1023,0,0.020",  # 4 new tokens: skipped
    ])
    out = tmp_path / "out"
    report = import_aiconfigurator(src, out, "h100", library_versions={})
    gemm = layout.read_table(out / "gemm/h100/data.csv", layout.GEMM)
    assert [(r["m"], r["k"], r["n"], r["latency_us"]) for r in gemm] == [(64, 128, 256, 20.0)]
    prefill = layout.read_table(out / "mha/prefill/h100/16-2-128.csv", layout.MHA_PREFILL)
    assert [(r["seq_len"], r["latency_us"]) for r in prefill] == [(1024, 50.0), (2048, 150.0)]
    assert prefill[0]["mfu"] == pytest.approx(flops.mfu(flops.prefill_attention_flops(1024, 16, 128), 50.0, 989.4))
    decode = layout.read_table(out / "mha/decode/h100/16-2-128.csv", layout.MHA_DECODE)
    assert [(r["kv_dtype"], r["kv_len"]) for r in decode] == [("bf16", 1024), ("fp8", 1024)]
    skipped = {s.path.rsplit("/", 1)[-1]: s.skipped for s in report.sources}
    assert sum(skipped["gemm_perf.txt"].values()) == 2
    assert sum(skipped["context_attention_perf.txt"].values()) == 3
    assert sum(skipped["generation_attention_perf.txt"].values()) == 1
    assert not [p for p in validate.validate_dir(out) if p.severity == "error"]


def test_aic_missing_or_unreadable_sources(tmp_path):
    with pytest.raises(records.SourceError, match="none of"):
        import_aiconfigurator(tmp_path, tmp_path / "out")
    (tmp_path / "gemm_perf.txt").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\n")
    with pytest.raises(records.SourceError, match="LFS pointer"):
        import_aiconfigurator(tmp_path, tmp_path / "out")


def test_parquet_needs_pyarrow_or_pandas(tmp_path):
    try:
        import pyarrow  # noqa: F401
        pytest.skip("pyarrow is installed: parquet is readable")
    except ImportError:
        pass
    try:
        import pandas  # noqa: F401
        pytest.skip("pandas is installed: parquet may be readable")
    except ImportError:
        pass
    (tmp_path / "gemm_perf.parquet").write_bytes(b"PAR1")
    with pytest.raises(records.SourceError, match="pyarrow"):
        import_aiconfigurator(tmp_path, tmp_path / "out")


def test_cell_conversions():
    assert records.as_int("128") == 128 and records.as_int(128.0) == 128
    assert records.as_dtype("torch.bfloat16") == "bf16" and records.as_dtype("float8_e4m3fn") == "fp8"
    assert records.as_bool("True") and not records.as_bool("false")
    for bad, convert in (("1.5", records.as_int), ("", records.as_float), ("nan", records.as_float),
                         ("maybe", records.as_bool)):
        with pytest.raises(ValueError):
            convert(bad)


@pytest.fixture
def vidur_out(fixtures, tmp_path):
    out = tmp_path / "bench_data"
    return import_vidur(fixtures / "vidur", out, "h100"), out


def test_vidur_gemm_shapes_times_and_duplicates(vidur_out):
    report, out = vidur_out
    gemm = {(r["m"], r["k"], r["n"]): r for r in layout.read_table(out / "gemm/h100/data.csv", layout.GEMM)}
    # Llama-2-7B (h 4096, 32 heads of 128, inter 11008, gated): tp1 and tp2 projections
    assert gemm[(128, 4096, 12288)]["latency_us"] == pytest.approx(statistics.median([80.0, 82.0]))  # qkv, tp1
    assert (128, 4096, 22016) in gemm and (128, 11008, 4096) in gemm  # gate_up and down, tp1
    assert {(256, 4096, 6144), (256, 2048, 4096), (256, 4096, 11008), (256, 5504, 4096)} <= set(gemm)  # tp2
    assert (512, 4096, 12288) not in gemm  # its time is 0.0, Vidur's mark for "not measured"
    row = gemm[(512, 4096, 22016)]
    assert row["mfu"] == pytest.approx(flops.mfu(flops.gemm_flops(512, 4096, 22016), 450.0, 989.4), rel=1e-5)
    skipped = {s.path.rsplit("/", 1)[-1]: s.skipped for s in report.sources}
    assert skipped["mlp.csv"]["attn_pre_proj: no time"] == 1
    assert sum(skipped["mlp.csv"].values()) == 2


def test_vidur_attention(vidur_out):
    _, out = vidur_out
    prefill = layout.read_table(out / "mha/prefill/h100/32-32-128.csv", layout.MHA_PREFILL)
    assert [(r["seq_len"], r["latency_us"]) for r in prefill] == [(1024, 250.0), (2048, 700.0)]  # prefix row skipped
    decode = layout.read_table(out / "mha/decode/h100/32-32-128.csv", layout.MHA_DECODE)
    assert [(r["batch_size"], r["kv_len"]) for r in decode] == [(8, 1024), (8, 2048)]  # kv_cache_size + 1
    assert layout.read_table(out / "mha/decode/h100/16-16-128.csv", layout.MHA_DECODE)[0]["latency_us"] == 30.0
    data = manifest.read_manifest(out / "mha/decode/h100")
    assert data["source"] == "vidur-import" and "fp16" in data["notes"]
    assert validate.validate_dir(out) == []


def test_importer_cli(fixtures, tmp_path, capsys):
    out = tmp_path / "out"
    assert importer_cli.main(["vidur", str(fixtures / "vidur"), "--out", str(out), "--gpu", "h100",
                              "--library-version", "sarathi=0.1"]) == 0
    text = capsys.readouterr().out
    assert "gemm: 1 tables, 11 rows" in text and "0 errors, 0 warnings" in text
    assert json.loads((out / "gemm/h100/manifest.json").read_text())["library_versions"] == {"sarathi": "0.1"}
    with pytest.raises(SystemExit):
        importer_cli.main(["vidur", str(fixtures / "vidur"), "--out", str(out)])  # --gpu is required
    assert importer_cli.main(["aiconfigurator", str(tmp_path / "empty"), "--out", str(out)]) == 1
