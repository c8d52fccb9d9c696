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
from litcorpus import atomic
from litcorpus.corpus import load_corpus
from litcorpus.site import write_site
from litcorpus.statsdir import write_stats

WRITERS = {"stats": write_stats, "site": write_site}


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
    fail_at = 1 + round(where * (len(before) - 1))
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
    for _ in range(3):
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
