"""Shared fixtures: paths to the test fixtures and to the shared reference data (skipped when absent)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1]
REPO = TOOLS.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

if str(TOOLS) not in sys.path:  # also works when pytest is not started from tools/ or with another config
    sys.path.insert(0, str(TOOLS))


def reference_root() -> Path | None:
    """``$MFUSIM_REFERENCE_DIR`` (the ``reference`` folder), else ``../shared/reference`` beside the repo."""
    env = os.environ.get("MFUSIM_REFERENCE_DIR")
    root = Path(env) if env else REPO.parent / "shared" / "reference"
    return root if root.is_dir() else None


@pytest.fixture(scope="session")
def reference() -> Path:
    root = reference_root()
    if root is None:
        pytest.skip("shared reference data absent (set MFUSIM_REFERENCE_DIR or provide ../shared/reference)")
    return root


@pytest.fixture(scope="session")
def ref(reference: Path):
    """``ref("infersim/bench_data")``: a path inside the reference folder; skips the test when it is absent."""

    def get(relative: str) -> Path:
        path = reference / relative
        if not path.exists():
            pytest.skip(f"reference data {relative} absent from {reference}")
        return path

    return get


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES
