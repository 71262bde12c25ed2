"""FLOP counts, the MFU definition and GPU peaks: hand-computed values and the shared reference tables."""

from __future__ import annotations

import pytest

from mfusim_tools import flops, gpus, layout


def test_gemm_flops_is_two_mkn():
    assert flops.gemm_flops(3, 4, 5) == 120
    assert flops.gemm_flops(4096, 4096, 4096) == 137_438_953_472


def test_prefill_counts_the_causal_half():
    # 4*S*S*hq*d/2 with S=1024, hq=32, d=128
    assert flops.prefill_attention_flops(1024, 32, 128) == 8_589_934_592
    assert flops.prefill_attention_flops(1024, 32, 128, batch=3) == 3 * 8_589_934_592
    # doubling S quadruples the work
    assert flops.prefill_attention_flops(2048, 32, 128) == 4 * flops.prefill_attention_flops(1024, 32, 128)


def test_decode_flops():
    assert flops.decode_attention_flops(2, 1000, 8, 64) == 4_096_000  # 4*2*1000*8*64


def test_grouped_gemm_flops():
    assert flops.grouped_up_flops(16, 8, 2048, 768) == 805_306_368  # 2*16*8*2048*2*768
    assert flops.grouped_down_flops(16, 8, 2048, 768) == 402_653_184  # 2*16*8*768*2048


def test_mla_flops():
    assert flops.mla_decode_flops(1, 1024, 128, 512, 64) == 285_212_672  # 2*1024*128*(2*512+64)
    assert flops.mla_prefill_flops(1024, 128, 128, 64) == 42_949_672_960  # 1024^2*128*(128+64+128)
    assert flops.mla_prefill_flops(1024, 128, 128, 64, v_dim=64) == 1024**2 * 128 * 256


def test_mfu_definition():
    assert flops.mfu(989.4e6, 1.0, 989.4) == pytest.approx(1.0)  # one microsecond at the full peak
    assert flops.mfu(137_438_953_472, 200.0, 989.4) == pytest.approx(0.694557, rel=1e-5)
    with pytest.raises(ValueError):
        flops.mfu(1.0, 0.0, 989.4)
    with pytest.raises(ValueError):
        flops.mfu(1.0, 1.0, 0.0)


def test_every_table_family_has_a_formula_sentence():
    for family in ("gemm", "mha_prefill", "mha_decode", "mla_prefill", "mla_decode", "grouped_gemm"):
        sentence = flops.MFU_FORMULAS[family]
        assert "mfu" in sentence and "_us" in sentence and "peak" in sentence
    assert "causal half" in flops.MFU_FORMULAS["mha_prefill"]


@pytest.mark.parametrize("name, profile", [
    ("NVIDIA H100 80GB HBM3", "h100"),
    ("NVIDIA H100 PCIe", "h100-pcie"),
    ("NVIDIA H100 NVL", "h100-nvl"),
    ("NVIDIA H200", "h200"),
    ("NVIDIA H20", "h20"),
    ("NVIDIA H800", "h800"),
    ("NVIDIA A100-SXM4-80GB", "a100"),
    ("NVIDIA A100 80GB PCIe", "a100"),
    ("NVIDIA B200", "b200"),
    ("NVIDIA L40S", "l40s"),
    ("NVIDIA L40", None),
    ("NVIDIA GeForce RTX 4090", None),
])
def test_driver_names_map_to_profiles(name, profile):
    assert gpus.profile_for_driver_name(name) == profile


def test_peaks_per_dtype():
    assert gpus.peak_tflops("h100", "bf16") == 989.4
    assert gpus.peak_tflops("h100", "fp8") == 1978.9
    assert gpus.peak_tflops("h200", "bf16") == gpus.peak_tflops("h100", "bf16")
    assert gpus.peak_tflops("H20", "fp16") == 148.0  # fp16 shares the bf16 peak; names are case-insensitive
    assert (gpus.peak_tflops("b200", "bf16"), gpus.peak_tflops("b200", "fp8")) == (2250.0, 4500.0)
    assert (gpus.peak_tflops("l40s", "bf16"), gpus.peak_tflops("l40s", "fp8")) == (362.0, 733.0)
    with pytest.raises(ValueError, match="no FP8"):
        gpus.peak_tflops("a100", "fp8")
    with pytest.raises(ValueError):
        gpus.peak_tflops("h100", "int8")
    with pytest.raises(KeyError, match="known profiles"):
        gpus.get_profile("v100")


def test_every_profile_name_is_a_valid_gpu_folder_and_maps_back():
    for name, spec in gpus.PROFILES.items():
        assert layout.gpu_dir_name(name) == name
        assert spec.fp8_tflops is None or spec.fp8_tflops > spec.bf16_tflops
        assert gpus.profile_for_driver_name(spec.driver_name) == name


def _recomputed(rows, count, peak):
    return [(r["mfu"], flops.mfu(count(r), r["latency_us"], peak)) for r in rows if r["mfu"] >= 0.05]


def test_formulas_reproduce_the_infersim_and_blis_tables(ref):
    """The shipped tables' MFU columns follow our formulas with the peaks their scripts used
    (attention: bf16; GEMM: fp8), to their 3-decimal rounding."""
    checks = [
        ("infersim/bench_data/mha/prefill/h20/16-1-256.csv", layout.MHA_PREFILL, 148.0,
         lambda r: flops.prefill_attention_flops(r["seq_len"], 16, 256)),
        ("infersim/bench_data/mla/prefill/h800/128-128-64.csv", layout.MLA_PREFILL, 989.0,
         lambda r: flops.mla_prefill_flops(r["seq_len"], 128, 128, 64)),
        ("infersim/bench_data/mla/decode/h800/128-512-64.csv", layout.MLA_DECODE, 989.0,
         lambda r: flops.mla_decode_flops(r["batch_size"], r["kv_len"], 128, 512, 64)),
        ("infersim/bench_data/gemm/h800/data.csv", layout.GEMM, 1979.0,
         lambda r: flops.gemm_flops(r["m"], r["k"], r["n"])),
        ("blis-h100/bench_data/mha/prefill/h100/56-8-128.csv", layout.MHA_PREFILL, 989.4,
         lambda r: flops.prefill_attention_flops(r["seq_len"], 56, 128)),
        ("blis-h100/bench_data/gemm/h100/data.csv", layout.GEMM, 1978.9,
         lambda r: flops.gemm_flops(r["m"], r["k"], r["n"])),
    ]
    for relative, spec, peak, count in checks:
        pairs = _recomputed(layout.read_table(ref(relative), spec), count, peak)
        assert pairs, relative
        for stated, ours in pairs:
            assert abs(stated - ours) <= max(6e-4, 0.02 * ours), (relative, stated, ours)


def test_blis_tp_suffix_names_the_model_heads(ref):
    """In BLIS's -tpN decode files the kernel ran hq/N heads: only that reading gives one consistent peak."""
    root = ref("blis-h100/bench_data")
    path = root / "mha/decode/h100/64-8-128-tp4.csv"
    table = layout.classify(path.relative_to(root))
    assert table.per_gpu_heads() == (16, 2)
    rows = [r for r in layout.read_table(path, layout.MHA_DECODE) if r["mfu"] >= 0.003]

    def implied_peak(hq):
        values = sorted(flops.decode_attention_flops(r["batch_size"], r["kv_len"], hq, 128)
                        / (r["latency_us"] * 1e-6) / r["mfu"] / 1e12 for r in rows)
        return values[len(values) // 2]

    assert implied_peak(16) == pytest.approx(989.4, rel=0.05)
    assert implied_peak(64) == pytest.approx(4 * 989.4, rel=0.05)
