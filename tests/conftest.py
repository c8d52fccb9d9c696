"""Shared fixtures: the repository root and a small valid corpus copied into tmp_path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
REFERENCE = REPO.parent / "shared" / "reference"


@pytest.fixture
def mini_root(tmp_path: Path) -> Path:
    """A valid three-paper, two-exclusion corpus with the real taxonomy."""
    root = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", root)
    shutil.copy(REPO / "taxonomy.yaml", root / "taxonomy.yaml")
    (root / "traces").mkdir()
    shutil.copy(REPO / "traces" / "trace.schema.json", root / "traces" / "trace.schema.json")
    return root


def edit(path: Path, old: str, new: str) -> None:
    """Replace one exact occurrence of OLD in a text file."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
