"""The run plan: model facts, per-GPU splits, coverage of every projection at every TP, no duplicates."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from mfusim_tools import grid, models, plan_tables


@pytest.fixture(scope="module")
def plan():
    return grid.build_plan()


def test_model_facts_match_their_hf_configs(ref):
    for name, facts in models.MODELS.items():
        config = json.loads((ref("model_configs") / str(facts["hf_dir"]) / "config.json").read_text())
        heads = config["num_attention_heads"]
        assert facts["h"] == config["hidden_size"], name
        assert facts["heads"] == heads, name
        assert facts["kv_heads"] == config["num_key_value_heads"], name
        assert facts["head_dim"] == (config.get("head_dim") or config["hidden_size"] // heads), name
        if models.is_moe(name):
            assert facts["inter"] == config.get("moe_intermediate_size", config["intermediate_size"]), name
            assert facts["experts"] == config.get("num_experts", config.get("num_local_experts")), name
            assert facts["topk"] == config["num_experts_per_tok"], name
        else:
            assert facts["inter"] == config["intermediate_size"], name


def test_splits():
    s = models.split("llama-3.1-70b", 8)
    assert (s.heads, s.kv_heads, s.inter) == (8, 1, 3584)
    assert s.gemms() == {"qkv": (8192, 1280), "o": (1024, 8192), "gate_up": (8192, 7168), "down": (3584, 8192)}
    assert models.split("qwen2.5-7b", 8) is None  # 28 heads do not split 8 ways
    assert (models.split("qwen2.5-7b", 4).heads, models.split("qwen2.5-7b", 4).kv_heads) == (7, 1)
    assert models.split("qwen3-30b-a3b", 8).kv_heads == 1  # 4 KV heads replicated across 8 GPUs
    assert models.split("llama-2-7b", 2).gemms()["qkv"] == (4096, 6144)  # MHA: 3 x 16 heads x 128


def test_every_projection_of_every_model_at_every_tp_is_planned(plan):
    gemm_points = {(item["m"], item["k"], item["n"]) for item in plan if item.kind == "gemm"}
    checked = 0
    for name in models.MODELS:
        for tp in models.TP_DEGREES:
            split = models.split(name, tp)
            if split is None:
                continue
            for projection, (k, n) in split.gemms().items():
                missing = [m for m in grid.POW2_M + grid.MID_M if (m, k, n) not in gemm_points]
                assert not missing, f"{name} tp{tp} {projection} lacks m={missing}"
                checked += 1
    assert checked == 4 * 39  # 10 models x 4 TPs, less qwen2.5-7b at tp8


def test_attention_shapes_of_every_split_are_planned(plan):
    prefill = {(i["hq"], i["hkv"], i["d"]) for i in plan if i.kind == "prefill"}
    decode = {(i["hq"], i["hkv"], i["d"]) for i in plan if i.kind == "decode"}
    for name in models.MODELS:
        for tp in models.TP_DEGREES:
            split = models.split(name, tp)
            if split is not None:
                assert (split.heads, split.kv_heads, split.head_dim) in prefill & decode, (name, tp)


def test_no_duplicate_items_and_sources_are_merged(plan):
    ids = [item.id for item in plan]
    assert len(ids) == len(set(ids))
    # llama-3.1-8b and mixtral share attention shapes; the merged item names both
    item = next(i for i in plan if i.id == "prefill:hq=32,hkv=8,d=128,seq_len=1024")
    assert {"llama-3.1-8b/tp1", "mixtral-8x7b/tp1"} <= set(item.sources)


def test_grids_have_the_documented_axes(plan):
    m_values = {i["m"] for i in plan if i.kind == "gemm"}
    assert {1, 2, 4, 32768, 24, 24576} <= m_values and max(m_values) == 32768
    seqs = {i["seq_len"] for i in plan if i.kind == "prefill"}
    assert min(seqs) == 128 and max(seqs) == 32768
    decode = [i for i in plan if i.kind == "decode"]
    assert {i["batch_size"] for i in decode} == set(grid.DECODE_BATCH)
    assert {i["kv_len"] for i in decode} == set(grid.DECODE_KV)
    options = grid.GridOptions()
    for item in decode:
        assert item["batch_size"] * item["kv_len"] <= options.max_decode_tokens
        assert 4 * item["batch_size"] * item["kv_len"] * item["hkv"] * item["d"] <= options.max_decode_kv_gib * 2**30


def test_grouped_keys_cover_ep_and_tp_modes(plan):
    keys = {(i["num_experts"], i["num_gpus"], i["num_local_experts"], i["intermediate_size"])
            for i in plan if i.kind.startswith("grouped")}
    assert (128, 8, 16, 768) in keys  # qwen3-30b-a3b, EP 8
    assert (128, 8, 128, 96) in keys  # qwen3-30b-a3b, TP 8
    assert (8, 8, 1, 14336) in keys  # mixtral, EP 8
    assert (8, 2, 8, 7168) in keys  # mixtral, TP 2
    assert not any(e in (8, 128) and g == 1 and loc != e for e, g, loc, _ in keys)


def test_plan_is_in_tier_order_with_kinds_interleaved(plan):
    tiers = [item.tier for item in plan]
    assert tiers == sorted(tiers)
    tier1 = [item.kind for item in plan if item.tier == 1]
    first_tenth = Counter(tier1[: len(tier1) // 10])
    for kind, count in Counter(tier1).items():  # each kind is about 10% done after 10% of the tier
        assert abs(first_tenth[kind] - count / 10) <= 1 + count / 100, kind
    tiers = Counter(item.tier for item in plan)
    assert set(tiers) == {0, 1, 2} and tiers[0] < tiers[1]
    assert all(item.tier == 2 for item in plan if item.kind == "gemm" and item["m"] in grid.MID_M)


def test_options_restrict_the_plan():
    small = grid.build_plan(grid.GridOptions(models=("llama-3.1-8b",), tp_degrees=(1,), kinds=("gemm",)))
    assert {i.kind for i in small} == {"gemm"} and len(small) == 4 * len(grid.POW2_M + grid.MID_M)
    with pytest.raises(ValueError):
        grid.build_plan(grid.GridOptions(kinds=("gemm", "softmax")))


def test_plan_items_round_trip_and_map_to_table_rows(plan):
    for item in plan[:: max(1, len(plan) // 200)]:
        assert grid.PlanItem.from_dict(json.loads(json.dumps(item.to_dict()))) == item
        ref = plan_tables.table_ref(item, "h100")
        key = plan_tables.row_key(item)
        assert len(key) == len(ref.spec.key)
