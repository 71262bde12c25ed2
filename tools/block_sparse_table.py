#!/usr/bin/env python3
"""The block-sparse attention table of docs/architectures.md (MiniMax-M3), from the CLI (roofline mode, no MFU tables).

Usage: python3 tools/block_sparse_table.py build/bin/mfusim [GPU] [TP]

Parameters and KV bytes (mfusim inspect), then the step time of a decode batch of 32 and of a 1024-token prefill
chunk at 1k and 128k context, by operation, with the attention of each layer kind apart. Attention is a sum over
layers of kernels linear in the keys they read, so the dense layers' share is the dense ablation's attention
(use_sparse_attention false: every layer reads its whole context) times dense layers / layers; the sparse layers'
share (their top-k blocks and their indexer's scoring) is the rest. The ablation's whole attention is printed beside.
"""
import json
import os
import sys
import tempfile

from mfusim_tools.cli_tables import STEP_CASES, run_cli

CLI = sys.argv[1]
GPU = sys.argv[2] if len(sys.argv) > 2 else "H200"
TP = int(sys.argv[3]) if len(sys.argv) > 3 else 8
FIXTURE = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "arch2026", "minimax_m3.json")
ATTN = ("attn_decode", "attn_prefill")
CARD = (428, 23)


def step(model, requests):
    return run_cli(CLI, ["step", "--json"], json.dumps({"model": model, "gpu": GPU, "tp": TP, "requests": requests}))


def attention_us(result):
    return sum(result["breakdown"].get(op, {}).get("time_us", 0.0) for op in ATTN)


def main():
    config = json.load(open(FIXTURE))
    text = config["text_config"]
    freq = text["sparse_attention_config"]["sparse_attention_freq"]
    layers, sparse = len(freq), sum(1 for f in freq if f)
    ins = run_cli(CLI, ["inspect", "--model", FIXTURE, "--tp", str(TP), "--gpu", GPU, "--json"])
    total, active = ins["params_total"], ins["params_active"]
    embeddings = 2 * text["vocab_size"] * text["hidden_size"]
    bare = active - embeddings
    print(f"Parameters: {total / 1e9:.2f} B total, {active / 1e9:.2f} B active, {bare / 1e9:.2f} B without the "
          f"embedding and LM head (card: {CARD[0]} B / {CARD[1]} B; {100 * (total / 1e9 / CARD[0] - 1):+.1f}% / "
          f"{100 * (bare / 1e9 / CARD[1] - 1):+.1f}%). "
          f"KV bytes per token per GPU (K/V of every layer + the sparse layers' index keys): "
          f"{ins['kv_bytes_per_token']:.0f}.\n")
    with tempfile.TemporaryDirectory() as tmp:
        dense = json.loads(json.dumps(config))
        dense["text_config"]["sparse_attention_config"]["use_sparse_attention"] = False
        ablation = os.path.join(tmp, "dense.json")
        with open(ablation, "w") as f:
            json.dump(dense, f)
        print(f"{GPU}, TP {TP}, analytical kernels, vLLM engine terms.\n")
        print(f"| step | context | total ms | attention: {layers - sparse} dense layers | attention: {sparse} sparse "
              "layers (top-k blocks + indexer) | projections (qkv + index + o) | MoE | dense MLP | TP all-reduce | "
              "weights + other | engine | all layers dense: attention / total ms |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for label, ctx, reqs in STEP_CASES:
            r = step(FIXTURE, reqs)
            d = step(ablation, reqs)
            b = {k: v["time_us"] for k, v in r["breakdown"].items()}
            dense_share = attention_us(d) * (layers - sparse) / layers
            sparse_share = attention_us(r) - dense_share
            proj = b.get("qkv_proj", 0) + b.get("o_proj", 0)
            moe = b.get("moe_experts", 0) + b.get("moe_shared", 0)
            mlp = b.get("ffn", 0)
            ar = b.get("tp_allreduce", 0)
            engine = b.get("engine", 0.0)
            other = r["total_us"] - attention_us(r) - proj - moe - mlp - ar - engine
            cells = [dense_share, sparse_share, proj, moe, mlp, ar, other, engine]
            print(f"| {label} | {ctx} | {r['total_us'] / 1e3:.2f} | " + " | ".join(f"{c / 1e3:.2f}" for c in cells)
                  + f" | {attention_us(d) / 1e3:.2f} / {d['total_us'] / 1e3:.2f} |")


main()
