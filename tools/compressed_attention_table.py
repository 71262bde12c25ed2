#!/usr/bin/env python3
"""The compressed-attention table of docs/architectures.md (DeepSeek-V4), from the CLI (roofline mode, no MFU tables).

Usage: python3 tools/compressed_attention_table.py build/bin/mfusim [GPU] [TP]

Parameters and KV bytes (mfusim inspect), then the step time of a decode batch of 32 and of a 1024-token prefill
chunk at 1k and 128k context, by operation, with the attention of each layer kind apart. Attention is a sum over
layers of kernels linear in the keys they read, so each kind's share is read from variants of the config: every
layer window-only (the window branch of all layers), then only the sparse layers compressed, then only the dense
ones; each kind's share is its variant's attention less the window-only variant's.
"""
import json
import os
import sys
import tempfile

from mfusim_tools.cli_tables import STEP_CASES, run_cli

CLI = sys.argv[1]
GPU = sys.argv[2] if len(sys.argv) > 2 else "H200"
TP = int(sys.argv[3]) if len(sys.argv) > 3 else 8
FIXTURE = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "arch2026", "deepseek_v4_flash.json")
ATTN = ("attn_decode", "attn_prefill")
CARD = (284, 13)


def run(args, stdin=None):
    return run_cli(CLI, args, stdin)


def step(model, requests):
    return run(["step", "--json"], json.dumps({"model": model, "gpu": GPU, "tp": TP, "requests": requests}))


def attention_us(result):
    return sum(result["breakdown"].get(op, {}).get("time_us", 0.0) for op in ATTN)


def variant(config, keep, tmp):
    """The config with only the ratios in `keep` left (others set to 0, window-only)."""
    c = dict(config)
    c["compress_ratios"] = [r if r in keep else 0 for r in config["compress_ratios"]]
    path = os.path.join(tmp, "v_" + "_".join(map(str, sorted(keep))) + ".json")
    with open(path, "w") as f:
        json.dump(c, f)
    return path


def main():
    config = json.load(open(FIXTURE))
    ratios = sorted({r for r in config["compress_ratios"] if r})
    ins = run(["inspect", "--model", FIXTURE, "--tp", str(TP), "--gpu", GPU, "--json"])
    total, active = ins["params_total"], ins["params_active"]
    # DeepSeek's cards count active parameters without the input embedding and the LM head.
    embeddings = 2 * config["vocab_size"] * config["hidden_size"]
    bare = active - embeddings
    print(f"Parameters: {total / 1e9:.2f} B total, {active / 1e9:.2f} B active, {bare / 1e9:.2f} B without the "
          f"embedding and LM head (card: {CARD[0]} B / {CARD[1]} B; {100 * (total / 1e9 / CARD[0] - 1):+.1f}% / "
          f"{100 * (bare / 1e9 / CARD[1] - 1):+.1f}%). "
          f"KV bytes per token per GPU (window + compressed): {ins['kv_bytes_per_token']:.0f}.\n")
    with tempfile.TemporaryDirectory() as tmp:
        window_only = variant(config, set(), tmp)
        kinds = {r: variant(config, {r}, tmp) for r in ratios}
        print(f"{GPU}, TP {TP}, analytical kernels, vLLM engine terms.\n")
        print("| step | context | total ms | attention: window branch (all layers) | "
              + " | ".join(f"attention: ratio {r} layers (beyond their window)" for r in ratios)
              + " | projections (qkv + o + compressors + indexer) | MoE | TP all-reduce | weights + other | engine |")
        print("|---|---|---|---|" + "---|" * len(ratios) + "---|---|---|---|---|")
        cases = STEP_CASES
        for label, ctx, reqs in cases:
            r = step(FIXTURE, reqs)
            b = {k: v["time_us"] for k, v in r["breakdown"].items()}
            base = attention_us(step(window_only, reqs))
            extra = [attention_us(step(kinds[k], reqs)) - base for k in ratios]
            proj = b.get("qkv_proj", 0) + b.get("o_proj", 0)
            moe = b.get("moe_experts", 0) + b.get("moe_shared", 0)
            ar = b.get("tp_allreduce", 0)
            engine = b.get("engine", 0.0)
            other = r["total_us"] - attention_us(r) - proj - moe - ar - engine
            cells = [base] + extra + [proj, moe, ar, other, engine]
            print(f"| {label} | {ctx} | {r['total_us'] / 1e3:.2f} | " + " | ".join(f"{c / 1e3:.2f}" for c in cells) + " |")


main()
