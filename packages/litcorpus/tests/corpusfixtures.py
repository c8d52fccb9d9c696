"""What litcorpus's tests share: the small fixture corpus (fixtures/corpus, a taxonomy of its
own, frozen, so that what is tested and its golden files change only when the code does), the
`mini_root` fixture that copies it, and a one-place text edit. Imported by name: a test module
that takes `mini_root` imports `mini_root_fixture` from here."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from orchtrace.core.schema import schema_bytes

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# What only this corpus says of itself: another survey's outputs must hold none of it.
THIS_SURVEY = re.compile(
    r"awesome-llm-mas-rl|LLM-based multi-agent|orchestration|2605\.02801|xxzcc", re.IGNORECASE
)


def make_mini_root(parent: Path) -> Path:
    """Copy the small valid fixture corpus below PARENT, with the trace schema its site
    documents (the traces extra)."""
    root = parent / "corpus"
    shutil.copytree(FIXTURES / "corpus", root)
    (root / "traces").mkdir()
    (root / "traces" / "trace.schema.json").write_bytes(schema_bytes())
    return root


@pytest.fixture(name="mini_root")
def mini_root_fixture(tmp_path: Path) -> Path:
    """A copy of the fixture corpus of the test's own."""
    return make_mini_root(tmp_path)


def edit(path: Path, old: str, new: str) -> None:
    """Replace one exact occurrence of OLD in a text file."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
