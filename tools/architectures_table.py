#!/usr/bin/env python3
"""The per-family tables of docs/architectures.md, from the CLI (roofline mode, H100, no MFU tables).

Usage: python3 tools/architectures_table.py build/bin/mfusim [reference_dir]

For each family: parameters (mfusim inspect), KV bytes per token, and the step time of a decode batch of 32 and of a
1024-token prefill chunk, at 1k and 128k context, by operation; the attention of each layer kind apart. Attention
time is a sum over layers of the same kernel, so the full layers' share is read from a variant whose every layer is
a full layer (its attention divided by its layer count, times the full layers), and the windowed layers' share is
the rest.
"""
import json
import os
import sys
import tempfile

from mfusim_tools.cli_tables import STEP_CASES, run_cli

CLI = sys.argv[1]
REF = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "shared", "reference")
FIX = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "arch2026")
ATTN = ("attn_decode", "attn_prefill")


def run(args, stdin=None):
    return run_cli(CLI, args, stdin)


def step(model, tp, requests):
    return run(["step", "--json"], json.dumps({"model": model, "gpu": "H100", "tp": tp, "requests": requests}))


def attention_us(result):
    return sum(result["breakdown"].get(op, {}).get("time_us", 0.0) for op in ATTN)


def table(name, model, tp, card, all_full=None, full_layers=None, layers=None):
    ins = run(["inspect", "--model", model, "--tp", str(tp), "--json"])
    total, active = ins["params_total"], ins["params_active"]
    print(f"\n### {name} (TP {tp})\n")
    line = f"Parameters: {total / 1e9:.2f} B total, {active / 1e9:.2f} B active"
    if card:
        line += (f" (card: {card[0]} B / {card[1]} B; {100 * (total / 1e9 / card[0] - 1):+.1f}% / "
                 f"{100 * (active / 1e9 / card[1] - 1):+.1f}%)")
    print(line + f". KV cache: {ins['kv_bytes_per_token']:.0f} bytes per token per GPU.\n")
    print("| step | context | total ms | attention: full layers | attention: windowed layers | "
          "projections (qkv + o) | MoE (experts + shared + router) | dense MLP | TP all-reduce | weights + other | engine |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    cases = STEP_CASES
    for label, ctx, reqs in cases:
        r = step(model, tp, reqs)
        b = {k: v["time_us"] for k, v in r["breakdown"].items()}
        attn = attention_us(r)
        if all_full:
            full = attention_us(step(all_full, tp, reqs)) / layers * full_layers
        else:
            full = attn
        g = lambda *ops: sum(b.get(o, 0.0) for o in ops) / 1e3
        known = ("attn_decode", "attn_prefill", "qkv_proj", "o_proj", "moe_experts", "moe_shared", "ffn",
                 "tp_allreduce", "engine")
        other = sum(v for k, v in b.items() if k not in known) / 1e3
        print(f"| {label} | {ctx} | {r['total_us'] / 1e3:.2f} | {full / 1e3:.2f} | {(attn - full) / 1e3:.2f} | "
              f"{g('qkv_proj', 'o_proj'):.2f} | {g('moe_experts', 'moe_shared'):.2f} | {g('ffn'):.2f} | "
              f"{g('tp_allreduce'):.2f} | {other:.2f} | {g('engine'):.2f} |")


def variant(path, edit):
    with open(path) as f:
        j = json.load(f)
    edit(j)
    fd, out = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(j, f)
    return out


mimo = os.path.join(FIX, "mimo_v2_flash.json")
mimo_full = variant(mimo, lambda j: (j.__setitem__("hybrid_layer_pattern", [0] * 48)))
table("MiMo-V2-Flash (fixture)", mimo, 8, (309, 15), mimo_full, 9, 48)

gemma = os.path.join(FIX, "gemma4_26b_a4b.json")
gemma_full = variant(gemma, lambda j: j["text_config"].__setitem__("layer_types", ["full_attention"] * 30))
table("Gemma-4 26B-A4B (fixture)", gemma, 1, (25.2, 3.8), gemma_full, 5, 30)

step37 = os.path.join(FIX, "step3p7_flash.json")
step37_full = variant(step37, lambda j: j["text_config"].__setitem__("layer_types", ["full_attention"] * 45))
table("Step-3.7-Flash (fixture; text tower)", step37, 8, (196, 11), step37_full, 12, 45)

glm = os.path.join(REF, "model_configs", "glm-5.2-fp8", "config.json")
if os.path.exists(glm):
    table("GLM-5.2 FP8 (real config, an indexer on every layer; attention includes the indexer)", glm, 8, None)
    glm4 = variant(glm, lambda j: j.__setitem__("index_topk_freq", 4))
    table("GLM-5.2 FP8 with shared indexers (index_topk_freq 4)", glm4, 8, None)
