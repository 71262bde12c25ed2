"""The layout: paths, csv writing and reading, manifests, and TableSet writing a whole directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mfusim_tools import flops, gpus, layout, manifest
from mfusim_tools.tableset import TableSet


@pytest.mark.parametrize("relpath, kind, gpu, shape, tp", [
    ("gemm/h100/data.csv", "gemm", "h100", None, None),
    ("mha/prefill/h20/16-1-256.csv", "mha_prefill", "h20", (16, 1, 256), None),
    ("mha/decode/h100/28-4-128-tp2.csv", "mha_decode", "h100", (28, 4, 128), 2),
    ("mla/decode/h800/128-512-64.csv", "mla_decode", "h800", (128, 512, 64), None),
    ("mla/prefill/h800/128-128-64.csv", "mla_prefill", "h800", (128, 128, 64), None),
    ("grouped_gemm/prefill/h20/data.csv", "grouped_prefill", "h20", None, None),
    ("grouped_gemm/decode/h20/data.csv", "grouped_decode", "h20", None, None),
    ("gdn/decode/h20/4-16-128-32-128.csv", "gdn_decode", "h20", None, None),
])
def test_classify_and_relpath_round_trip(relpath, kind, gpu, shape, tp):
    ref = layout.classify(relpath)
    assert (ref.kind, ref.gpu, ref.shape, ref.tp) == (kind, gpu, shape, tp)
    if kind != "gdn_decode":
        assert ref.relpath() == Path(relpath)


@pytest.mark.parametrize("relpath", [
    "dsa/decode/h800/attn-128-576-2048.csv", "gemm/h100/other.csv", "mha/decode/h100/readme.csv",
    "mha/decode/h100/32-8.csv", "gemm/data.csv", "notes.csv",
])
def test_classify_rejects_files_outside_the_layout(relpath):
    assert layout.classify(relpath) is None


def test_per_gpu_heads_undo_the_blis_tp_suffix():
    assert layout.TableRef("mha_decode", "h100", (32, 8, 128)).per_gpu_heads() == (32, 8)
    assert layout.TableRef("mha_decode", "h100", (32, 8, 128), tp=4).per_gpu_heads() == (8, 2)
    assert layout.TableRef("mha_decode", "h100", (28, 4, 128), tp=8).per_gpu_heads() == (3, 1)  # KV replicated


def test_gpu_dir_names_are_lower_case():
    assert layout.gpu_dir_name("H100") == "h100"
    with pytest.raises(ValueError):
        layout.gpu_dir_name("H100 SXM")


def test_write_then_read_round_trip(tmp_path):
    rows = [
        {"dtype": "bf16", "kv_dtype": "bf16", "batch_size": 1, "kv_len": 1024, "latency_us": 20.0, "mfu": 2.5e-7},
        {"dtype": "bf16", "kv_dtype": "bf16", "batch_size": 16, "kv_len": 128, "latency_us": 12.3456, "mfu": 0.0123456},
    ]
    path = tmp_path / "mha/decode/h100/32-8-128.csv"
    assert layout.write_table(path, layout.MHA_DECODE, rows) == 2
    text = path.read_text()
    assert text.startswith("dtype,kv_dtype,batch_size,kv_len,latency_us,mfu\n") and text.endswith("\n")
    back = layout.read_table(path, layout.MHA_DECODE)
    assert [r["batch_size"] for r in back] == [1, 16]
    assert back[0]["mfu"] == pytest.approx(2.5e-7)  # tiny MFUs keep their digits instead of rounding to 0
    assert back[1]["latency_us"] == 12.3456  # latency to 7 significant digits
    assert back[1]["mfu"] == pytest.approx(0.0123456, rel=1e-6)


def test_read_table_reports_the_line(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("m,k,n,latency_us,mfu\n1,2,3,4.0,0.5\n1,2,x,4.0,0.5\n")
    with pytest.raises(ValueError, match=r"data.csv:3: n: cannot parse"):
        layout.read_table(path, layout.GEMM)
    path.write_text("m,k,latency_us,mfu\n")
    with pytest.raises(ValueError, match="header"):
        layout.read_table(path, layout.GEMM)


def test_sort_rows_follows_block_then_order():
    rows = [{"m": m, "k": k, "n": 8, "latency_us": 1.0, "mfu": 0.1} for m, k in ((64, 2), (1, 4), (16, 2), (1, 2))]
    assert [(r["k"], r["m"]) for r in layout.sort_rows(layout.GEMM, rows)] == [(2, 1), (2, 16), (2, 64), (4, 1)]


def _manifest(**changes):
    data = dict(gpu="NVIDIA H100 80GB HBM3", gpu_profile="h100", peak_tflops=989.4, peak_dtype="bf16",
                kernel="torch.matmul", library_versions={"torch": "2.5"}, date="2025-01-01",
                harness_version="test", mfu_formula=flops.MFU_FORMULAS["gemm"], source="mfusim-bench")
    data.update(changes)
    return data


def test_manifest_round_trip(tmp_path):
    written = manifest.write_manifest(tmp_path, manifest.make_manifest(**_manifest(), notes="kept"))
    assert written == tmp_path / "manifest.json"
    back = manifest.read_manifest(tmp_path)
    assert back == _manifest(notes="kept")


@pytest.mark.parametrize("changes, fragment", [
    ({"source": "somewhere"}, "source"),
    ({"peak_dtype": "fp16"}, "peak_dtype"),
    ({"peak_tflops": -1}, "positive"),
    ({"peak_tflops": "989"}, "wrong type"),
    ({"library_versions": {"torch": 2}}, "strings"),
    ({"kernel": " "}, "empty"),
])
def test_manifest_problems_are_named(changes, fragment):
    problems = manifest.manifest_problems(_manifest(**changes))
    assert len(problems) == 1 and fragment in problems[0]
    with pytest.raises(ValueError, match=fragment):
        manifest.make_manifest(**_manifest(**changes))


def test_manifest_missing_keys():
    data = _manifest()
    del data["mfu_formula"], data["date"]
    assert sorted(manifest.manifest_problems(data)) == ["missing key 'date'", "missing key 'mfu_formula'"]
    assert manifest.manifest_problems([1]) == ["manifest is not a JSON object"]


def _base():
    return {"gpu": "NVIDIA H100 80GB HBM3", "gpu_profile": "h100", "library_versions": {}, "date": "2025-01-01",
            "harness_version": "test", "source": "mfusim-bench"}


def test_tableset_writes_tables_and_one_manifest_per_folder(tmp_path):
    tables = TableSet()
    gemm = layout.TableRef("gemm", "h100")
    for m in (64, 16):
        tables.add(gemm, {"m": m, "k": 8, "n": 8, "latency_us": 1.0, "mfu": 0.1}, kernel="cublas", dtype="fp8")
    for shape, kernel in (((8, 1, 128), "fa3"), ((16, 2, 128), "fa3"), ((8, 1, 512), "fa4")):
        ref = layout.TableRef("mha_prefill", "h100", shape)
        tables.add(ref, {"dtype": "bf16", "seq_len": 128, "latency_us": 2.0, "mfu": 0.2}, kernel=kernel, dtype="bf16")
    written = tables.write(tmp_path, _base(), lambda dtype: gpus.peak_tflops("h100", dtype))
    assert len(written) == 4 + 2
    assert [r["m"] for r in layout.read_table(tmp_path / "gemm/h100/data.csv", layout.GEMM)] == [16, 64]
    gemm_manifest = json.loads((tmp_path / "gemm/h100/manifest.json").read_text())
    assert (gemm_manifest["peak_dtype"], gemm_manifest["peak_tflops"]) == ("fp8", 1978.9)
    prefill_manifest = manifest.read_manifest(tmp_path / "mha/prefill/h100")
    assert prefill_manifest["kernel"] == "fa3, fa4"
    assert prefill_manifest["kernel_by_file"] == {"8-1-512.csv": "fa4"}  # only the exception is listed
    assert prefill_manifest["mfu_formula"] == flops.MFU_FORMULAS["mha_prefill"]
    assert tables.row_counts() == {"gemm/h100/data.csv": 2, "mha/prefill/h100/16-2-128.csv": 1,
                                   "mha/prefill/h100/8-1-128.csv": 1, "mha/prefill/h100/8-1-512.csv": 1}


def test_tableset_refuses_two_peaks_in_one_folder_before_writing(tmp_path):
    tables = TableSet()
    gemm = layout.TableRef("gemm", "h100")
    tables.add(gemm, {"m": 1, "k": 8, "n": 8, "latency_us": 1.0, "mfu": 0.1}, kernel="a", dtype="bf16")
    tables.add(gemm, {"m": 2, "k": 8, "n": 8, "latency_us": 1.0, "mfu": 0.1}, kernel="b", dtype="fp8")
    with pytest.raises(ValueError, match="several dtypes"):
        tables.write(tmp_path, _base(), lambda dtype: 1.0)
    assert not any(tmp_path.iterdir())


def test_tableset_rejects_incomplete_rows():
    with pytest.raises(ValueError, match="lacks mfu"):
        TableSet().add(layout.TableRef("gemm", "h100"), {"m": 1, "k": 1, "n": 1, "latency_us": 1.0},
                       kernel="k", dtype="bf16")
