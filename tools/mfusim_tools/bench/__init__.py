"""The GPU benchmark harness: ``python -m mfusim_tools.bench --out DIR [--budget-min 25] [--only ...]``.

Only ``torch_backend`` imports torch, and only when a benchmark runs; the plan, timing and runner logic are
plain Python and tested on the CPU.
"""
