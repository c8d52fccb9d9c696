"""Shared fixtures: the repository root, a small valid corpus copied into tmp_path, and headless
Chromium for the browser tests."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snapshot import copy_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "packages" / "litcorpus" / "tests"))
from corpusfixtures import FIXTURES as CORPUS_FIXTURES
from corpusfixtures import THIS_SURVEY, edit, make_mini_root

__all__ = ["CORPUS_FIXTURES", "THIS_SURVEY", "edit", "make_mini_root"]  # for the tests here

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"  # searches, services and arXiv answers recorded
TRACE_FIXTURES = REPO / "packages" / "orchtrace" / "tests" / "fixtures"  # real exports
REFERENCE = REPO / "tests" / "reference"  # CC0 facts of the survey's pool; see PROVENANCE.md


@pytest.fixture
def mini_root(tmp_path: Path) -> Path:
    """A valid three-paper, two-exclusion corpus with the real taxonomy (yours to modify)."""
    return make_mini_root(tmp_path)


@pytest.fixture(scope="session")
def mini_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The site of the unmodified fixture corpus, built once (read-only)."""
    from litcorpus.analysis.result import analyse
    from litcorpus.model.corpus import load_corpus
    from litcorpus.publish.site import build_site

    return build_site(analyse(load_corpus(make_mini_root(tmp_path_factory.mktemp("mini")))))


def snapshot_clone(parent: Path, docs: bool = False) -> Path:
    """The shipped corpus as the survey's snapshot left it, in PARENT/clone (see snapshot.py)."""
    return copy_snapshot(parent / "clone", docs)


@pytest.fixture(scope="session")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped corpus as the snapshot left it, made once (read-only: tests take a clone)."""
    return snapshot_clone(tmp_path_factory.mktemp("shipped"))


@pytest.fixture
def clone(shipped: Path, tmp_path: Path) -> Path:
    """A copy of the shipped corpus of the test's own (yours to modify)."""
    shutil.copytree(shipped, tmp_path / "c", symlinks=True)
    return tmp_path / "c"


def pages_of(root: Path) -> dict[str, bytes]:
    """The site of the corpus at ROOT without the copy of stats/ (its figures would be drawn
    for data no other test shows): for tests of the pages themselves."""
    from litcorpus.analysis.result import analyse
    from litcorpus.model.corpus import load_corpus
    from litcorpus.publish.site import site_files

    result = analyse(load_corpus(root))
    assert result.stats is not None, result.report.to_text()
    result.stats.update(figures={}, tables=[])  # what building stats/ would have added
    return dict(site_files(result, stats_files={}))


def js_data(script: bytes, name: str) -> Any:
    """The data a site script sets window.NAME to (the reverse of publish.escape.js_data)."""
    import json

    text = script.decode()
    head, tail = f"window.{name} = JSON.parse('", "');\n"
    assert text.startswith(head) and text.endswith(tail)
    literal = text[len(head) : -len(tail)]
    unescaped = re.sub(
        r"\\(u2028|u2029|.)",
        lambda m: {"u2028": "\u2028", "u2029": "\u2029"}.get(m[1], m[1]),
        literal,
    )
    return json.loads(unescaped)


CHROMIUM = "/usr/bin/chromium"  # Debian's; the browser tests never download one


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "install Debian's chromium (make test does: tests/sysdeps.sh)"
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()
