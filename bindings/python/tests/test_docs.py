"""The examples of docs/python.md run as written (in a repository checkout; an sdist has no docs/)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "python.md"


def python_blocks() -> list[str]:
    if not DOC.is_file():
        return []
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


@pytest.mark.skipif(not DOC.is_file(), reason="docs/python.md not found (not a repository checkout)")
@pytest.mark.parametrize("index", range(6))
def test_doc_example_runs(index, monkeypatch, capsys):
    blocks = python_blocks()
    assert len(blocks) == 6
    code = blocks[index]
    if "import pandas" in code:
        pytest.importorskip("pandas")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # the example must work without matplotlib
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    if "backend=\"ray\"" in code:
        try:
            import ray  # a real Ray runs the example as it is
        except ImportError:
            ray = None
        if not hasattr(ray, "remote"):
            from _fake_ray import FakeRay

            monkeypatch.setitem(sys.modules, "ray", FakeRay())
    namespace: dict = {}
    if index == 2:  # the pandas snippet continues the sweep example's session
        exec(blocks[1], namespace)
    exec(compile(code, f"docs/python.md[{index}]", "exec"), namespace)
