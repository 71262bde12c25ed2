#!/usr/bin/env python3
"""The Kimi Delta Attention table of docs/architectures.md, from the CLI (roofline mode, H100, no MFU tables).

Usage: python3 tools/kda_table.py build/bin/mfusim [tp...]

For the Kimi-Linear-48B-A3B fixture: parameters and state / KV bytes (mfusim inspect), then the step time of a
decode batch of 32 and of a 1024-token prefill chunk, at 1k and 128k context, by layer kind: the KDA layers
(linear_attn: their projections, gates and recurrent core), the MLA layers (their attention core, and their
projections under qkv + o), the MoE and dense MLP, the rest.
"""
import json
import os
import sys

from mfusim_tools.cli_tables import STEP_CASES, run_cli

CLI = sys.argv[1]
TPS = [int(t) for t in sys.argv[2:]] or [1]
MODEL = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "arch2026", "kimi_linear_48b_a3b.json")


def run(args, stdin=None):
    return run_cli(CLI, args, stdin)


for tp in TPS:
    ins = run(["inspect", "--model", MODEL, "--tp", str(tp), "--json"])
    print(f"\n#### TP {tp}\n")
    print(f"Parameters: {ins['params_total'] / 1e9:.2f} B total ({100 * (ins['params_total'] / 48e9 - 1):+.1f}% "
          f"against the card's 48 B), {ins['params_active'] / 1e9:.2f} B active. KV cache (MLA layers): "
          f"{ins['kv_bytes_per_token']:.0f} bytes per token per GPU; KDA state: "
          f"{ins.get('state_bytes_per_request', 0):.0f} bytes per request per GPU.\n")
    print("| step | context | total ms | KDA layers (linear_attn) | MLA attention | MLA projections (qkv + o) | "
          "MoE (experts + shared) | dense MLP | TP all-reduce | weights + other | engine |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    cases = STEP_CASES
    for label, ctx, reqs in cases:
        r = run(["step", "--json"], json.dumps({"model": MODEL, "gpu": "H100", "tp": tp, "requests": reqs}))
        b = {k: v["time_us"] for k, v in r["breakdown"].items()}
        g = lambda *ops: sum(b.get(o, 0.0) for o in ops) / 1e3
        known = ("linear_attn", "attn_decode", "attn_prefill", "qkv_proj", "o_proj", "moe_experts", "moe_shared",
                 "ffn", "tp_allreduce", "engine")
        other = sum(v for k, v in b.items() if k not in known) / 1e3
        print(f"| {label} | {ctx} | {r['total_us'] / 1e3:.2f} | {g('linear_attn'):.2f} | "
              f"{g('attn_decode', 'attn_prefill'):.2f} | {g('qkv_proj', 'o_proj'):.2f} | "
              f"{g('moe_experts', 'moe_shared'):.2f} | {g('ffn'):.2f} | {g('tp_allreduce'):.2f} | {other:.2f} | "
              f"{g('engine'):.2f} |")
