#!/usr/bin/env python3
"""Launcher for the GPU harness from any directory: python3 tools/bench/run_bench.py --out DIR [...].

Same as ``python -m mfusim_tools.bench`` run from tools/ (the code lives in tools/mfusim_tools/bench/).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mfusim_tools.bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
