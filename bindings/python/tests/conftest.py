"""Shared fixtures: the same estimators and steps as every other binding's tests (bindings/README.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import mfusim

sys.path.insert(0, str(Path(__file__).parent))  # _capi

ROOFLINE = dict(model="llama-3.1-8b-instruct", gpu="H100")
COMPAT = dict(model="qwen3-8b", gpu="H20", mode="infersim")


def mixed_step(n: int = 256) -> list[tuple[int, int, int]]:
    """4 prefill chunks of 512 over 0/1024/2048/3072 cached tokens (even ones NO_OUTPUT), then decodes."""
    out = []
    for i in range(n):
        if i < 4:
            out.append((512, 1024 * i, mfusim.NO_OUTPUT if i % 2 == 0 else 0))
        else:
            out.append((1, 256 + (i * 97) % 8192, 0))
    return out


def as_array(step) -> np.ndarray:
    a = np.zeros(len(step), dtype=mfusim.REQUEST_DTYPE)
    for i, r in enumerate(step):
        a["new_tokens"][i], a["context"][i] = r[0], r[1]
        a["flags"][i] = r[2] if len(r) > 2 else 0
    return a


@pytest.fixture(scope="session")
def est():
    with mfusim.Estimator(**ROOFLINE) as e:
        yield e


@pytest.fixture(scope="session")
def compat():
    with mfusim.Estimator(**COMPAT) as e:
        yield e


@pytest.fixture(scope="session")
def mixed():
    return mixed_step()


@pytest.fixture(scope="session")
def mixed_array(mixed):
    return as_array(mixed)


@pytest.fixture(scope="session")
def capi():
    import _capi

    return _capi.load()
