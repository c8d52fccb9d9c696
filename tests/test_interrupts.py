"""Interrupted `stats` and `site` runs leave the previous output whole, never a mix.

In process, a write fails at chosen points (a KeyboardInterrupt from inside the writer); as
commands, runs are killed with SIGKILL at random moments, so no cleanup code runs at all. After
each, the output folder holds exactly the old tree or exactly the new one, and the next run
clears what the killed one left.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import edit
from litcorpus.analysis.result import analyse
from litcorpus.model.corpus import load_corpus
from litcorpus.publish.site import write_site
from litcorpus.publish.statsdir import write_stats
from safewrite import tree as atomic

WRITERS = {
    "stats": lambda corpus, out: write_stats(analyse(corpus), out),
    "site": lambda corpus, out: write_site(analyse(corpus), out),
}


def change_corpus(root: Path) -> None:
    edit(root / "papers/gamma-survey.yaml", "year: 2026", "year: 2025")


@pytest.mark.parametrize(
    ("command", "where"), [("stats", 0.0), ("stats", 1.0), ("site", 0.5), ("site", 1.0)]
)
def test_a_failed_write_keeps_the_old_tree(
    mini_root: Path, monkeypatch: pytest.MonkeyPatch, command: str, where: float
) -> None:
    """WHERE: how far into the writing the failure comes (0: the first file, 1: the last)."""
    out = mini_root / command
    WRITERS[command](load_corpus(mini_root), out)
    before = atomic.read_tree(out)
    fail_at = 1 + round(where * (len(before) - 2))  # the marker, written last, is not counted
    change_corpus(mini_root)
    calls = {"n": 0}
    real_write, real_link = Path.write_bytes, atomic.os.link

    def count() -> None:  # each file of the new tree is written, or linked when unchanged
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise KeyboardInterrupt

    def write(self: Path, data: bytes) -> int:
        count()
        return real_write(self, data)

    def link(src: Path, dst: Path) -> None:
        count()
        real_link(src, dst)

    monkeypatch.setattr(Path, "write_bytes", write)
    monkeypatch.setattr(atomic.os, "link", link)
    with pytest.raises(KeyboardInterrupt):
        WRITERS[command](load_corpus(mini_root), out)
    monkeypatch.undo()
    assert calls["n"] == fail_at  # the failure happened where intended
    assert atomic.read_tree(out) == before
    assert not [p for p in mini_root.iterdir() if p.name.startswith(f".{command}.")]


KILLS = 5  # per command: 20 SIGKILLs at random moments over add, readme, stats and site


@pytest.mark.parametrize("command", ["stats", "site"])
def test_a_killed_command_leaves_the_old_tree_or_the_new(mini_root: Path, command: str) -> None:
    out = mini_root / command
    args = [sys.executable, "-m", "litcorpus", command, "--root", str(mini_root)]
    args += ["--out", str(out)]
    start = time.monotonic()
    assert subprocess.run(args, capture_output=True, timeout=120).returncode == 0
    duration = time.monotonic() - start
    old = atomic.read_tree(out)
    change_corpus(mini_root)
    rng = random.Random(f"{command}-kills")
    seen = []
    for _ in range(KILLS):
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, duration))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        seen.append(atomic.read_tree(out))
    assert subprocess.run(args, capture_output=True, timeout=120).returncode == 0
    new = atomic.read_tree(out)
    assert new != old
    assert all(tree in (old, new) for tree in seen)
    assert not [p for p in mini_root.iterdir() if p.name.startswith(f".{command}.")]


def _papers(root: Path) -> dict[str, bytes]:
    """Every file in papers/ and at the root's top level (journal, temporary files)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for folder in (root, root / "papers")
        for p in sorted(folder.iterdir())
        if p.is_file() and p.name != ".litcorpus.lock"
    }


def test_a_killed_add_is_complete_or_undone_by_the_next_run(mini_root: Path) -> None:
    """However `add` dies, the next add finds the corpus as it was or with every new entry,
    and leaves no journal and no temporary file."""
    bib = Path(__file__).resolve().parent / "fixtures" / "bibtex" / "good.bib"
    args = [sys.executable, "-m", "litcorpus", "add", "--root", str(mini_root), "--bibtex", bib]
    old = _papers(mini_root)
    start = time.monotonic()
    assert subprocess.run(args, capture_output=True, timeout=120).returncode == 0
    duration = time.monotonic() - start
    new = _papers(mini_root)
    assert len(new) == len(old) + 3

    def reset() -> None:
        for rel in new.keys() - old.keys():
            (mini_root / rel).unlink()

    rng = random.Random("add-kills")
    for _ in range(KILLS):
        reset()
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, duration))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        again = subprocess.run(args, capture_output=True, text=True, timeout=120)
        # the killed run had finished (the rerun refuses duplicates) or was undone (it adds)
        assert again.returncode == 0 or "add-refused" in again.stderr, again.stderr
        assert _papers(mini_root) == new


def test_a_killed_readme_leaves_the_old_file_or_the_new(mini_root: Path) -> None:
    readme = mini_root / "README.md"
    readme.write_text(
        "# List\n\n<!-- BEGIN GENERATED: awesome list (litcorpus readme; do not edit) -->\n"
        "<!-- END GENERATED: awesome list -->\n",
        encoding="utf-8",
    )
    old = readme.read_bytes()
    args = [sys.executable, "-m", "litcorpus", "readme", "--root", str(mini_root)]
    start = time.monotonic()
    assert subprocess.run(args, capture_output=True, timeout=120).returncode == 0
    duration = time.monotonic() - start
    new = readme.read_bytes()
    assert new != old
    rng = random.Random("readme-kills")
    for _ in range(KILLS):
        readme.write_bytes(old)
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, duration))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        assert readme.read_bytes() in (old, new)
    assert subprocess.run(args, capture_output=True, timeout=120).returncode == 0
    assert readme.read_bytes() == new
    assert not list(mini_root.glob(".README.md.*"))
