"""libmfusim tools: MFU table layout, FLOP formulas, GPU peaks, run plans, validator and importers.

Everything importable from this package is pure Python (standard library only). The GPU benchmark code
lives in ``mfusim_tools.bench`` and imports torch only when a benchmark actually runs.
"""

__version__ = "0.1.0"
