#!/usr/bin/env python3
"""Launcher for the importers from any directory:
python3 tools/import/run_import.py {aiconfigurator,vidur} SRC --out DIR [--gpu PROFILE].

Same as ``python -m mfusim_tools.importers`` run from tools/ (the code lives in tools/mfusim_tools/importers/).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mfusim_tools.importers.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
