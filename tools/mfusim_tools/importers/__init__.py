"""Importers of public measured kernel databases into the bench_data layout.

    python -m mfusim_tools.importers aiconfigurator SRC_DIR --out DIR [--gpu h100]
    python -m mfusim_tools.importers vidur SRC_DIR --out DIR --gpu a100

Imported tables are the user's data: the project commits none of them.
"""
