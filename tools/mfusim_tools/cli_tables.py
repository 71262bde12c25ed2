"""What the per-architecture table scripts (tools/*_table.py, docs/architectures.md) share: the CLI call and the
four steps every table times (a decode batch of 32 and a 1024-token prefill chunk, at 1k and 128k context)."""
import json
import subprocess

STEP_CASES = [("decode x32", 1024, [{"new_tokens": 1, "context": 1024}] * 32),
              ("decode x32", 131072, [{"new_tokens": 1, "context": 131072}] * 32),
              ("prefill 1024", 0, [{"new_tokens": 1024, "context": 0}]),
              ("prefill 1024", 130048, [{"new_tokens": 1024, "context": 130048}])]


def run_cli(cli, args, stdin=None):
    """Runs the `mfusim` binary `cli` with `args` (and `stdin`), returns its JSON output; fails on a non-zero exit."""
    out = subprocess.run([cli] + args, input=stdin, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)
