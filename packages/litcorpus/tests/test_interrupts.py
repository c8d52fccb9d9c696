"""Interrupted `stats` and `site` runs leave the previous output whole, never a mix.

In process, a write fails at chosen points (a KeyboardInterrupt from inside the writer); as
commands, runs are killed with SIGKILL at random moments, so no cleanup code runs at all. After
each, the output folder holds exactly the old tree or exactly the new one, and the next run
clears what the killed one left."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpusfixtures import (
    edit,
    mini_root_fixture,  # noqa: F401 (the mini_root fixture)
)
from litcorpus.analysis.result import analyse
from litcorpus.model.corpus import load_corpus
from litcorpus.publish.site import write_site
from litcorpus.publish.statsdir import write_stats
from surewrite import tree as atomic

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


README = (
    "# List\n\n<!-- BEGIN GENERATED: awesome list (litcorpus readme; do not edit) -->\n"
    "<!-- END GENERATED: awesome list -->\n"
)


ROUNDS = 3  # each: two builds, a stats and a site at once, on a changed corpus


def _expected(root: Path) -> dict[str, dict[str, bytes]]:
    """What stats/ and site/ hold when one run builds the corpus at ROOT alone."""
    from litcorpus.publish.site import site_files
    from litcorpus.publish.statsdir import stats_files

    result = analyse(load_corpus(root))
    stats = stats_files(result)
    return {"stats": stats, "site": dict(site_files(result, stats_files=stats))}


def _whole(root: Path, expected: dict[str, dict[str, bytes]]) -> list[str]:
    """How stats/ and site/ differ from EXPECTED, their markers included (empty: both whole,
    exactly as one run alone builds them)."""
    return [
        f"{name}/{rel}"
        for name, files in expected.items()
        for rel in atomic.stale(root / name, files, "litcorpus", name)
    ]


def test_builds_at_once_take_turns_and_publish_whole_outputs(mini_root: Path) -> None:
    """Builds, stats and site run together for a few rounds: every run ends well, and site/
    and stats/ are always whole (watched while they run: their main files never go missing;
    after each round: exactly what one run alone builds). Runs once cleaned each other's
    temporary trees and published a site without its index."""
    import threading

    (mini_root / "README.md").write_text(README, encoding="utf-8")
    lit = [sys.executable, "-m", "litcorpus"]
    root = ["--root", str(mini_root)]
    assert subprocess.run([*lit, "build", *root], capture_output=True, timeout=120).returncode == 0
    gaps: list[str] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for rel in ("site/index.html", "site/.litcorpus-output", "stats/stats.json"):
                if not (mini_root / rel).is_file():
                    gaps.append(rel)
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for n in range(ROUNDS):
            edit(
                mini_root / "papers/gamma-survey.yaml",
                "among cooperating",
                f"among {n} cooperating",
            )
            runs = [
                subprocess.Popen(
                    [*lit, command, *root], stdout=subprocess.PIPE, stderr=subprocess.PIPE
                )
                for command in ("build", "stats", "build", "site")
            ]
            ended = [(p.wait(timeout=300), p.stderr.read() if p.stderr else b"") for p in runs]
            assert [code for code, _ in ended] == [0, 0, 0, 0], ended
            assert _whole(mini_root, _expected(mini_root)) == [], f"round {n}"
            edit(
                mini_root / "papers/gamma-survey.yaml",
                f"among {n} cooperating",
                "among cooperating",
            )
    finally:
        done.set()
        watcher.join()
    assert gaps == []
    assert not [p for p in mini_root.iterdir() if p.name.startswith((".site.", ".stats."))]


def test_a_run_never_removes_the_temporary_tree_of_a_run_still_writing(mini_root: Path) -> None:
    """While a run writes site/ (it holds the lock on the folder beside it, its temporary tree
    in place), another waits; once the first has ended, what it left is a leftover, cleaned."""
    import fcntl
    import os

    args = [sys.executable, "-m", "litcorpus", "site", "--root", str(mini_root)]
    writing = mini_root / ".site.new-running"
    fd = os.open(mini_root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a run writing site/ holds it
        writing.mkdir()
        (writing / "index.html").write_text("half a site\n")
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(3)
        assert proc.poll() is None, proc.communicate()  # it waits for the writer
        assert (writing / "index.html").read_text() == "half a site\n"
    finally:
        os.close(fd)
    assert proc.wait(timeout=120) == 0, proc.communicate()
    assert not writing.exists() and (mini_root / "site/index.html").is_file()


def test_the_up_to_date_check_finds_a_damaged_output(mini_root: Path) -> None:
    """A build whose record says it is done, over a site that lost a file its marker lists,
    builds again instead of saying 'up to date'."""
    from litcorpus.workflow import build

    (mini_root / "README.md").write_text(README, encoding="utf-8")
    args = [sys.executable, "-m", "litcorpus", "build", "--root", str(mini_root)]
    assert subprocess.run(args, capture_output=True, timeout=120).returncode == 0
    (mini_root / "site/index.html").unlink()
    print_ = build.fingerprint(mini_root)
    build._remember(mini_root, print_)  # as a run that published the damaged tree would
    again = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stdout.startswith("built:"), again.stdout
    assert (mini_root / "site/index.html").is_file()


# Runs `litcorpus release` and ends the process, as a SIGKILL would (no cleanup runs), just
# after its first AFTER writes.
KILLED_RELEASE = """
import os, sys
from litcorpus.workflow import release
real, done, after = release.write_file, [0], int(sys.argv[1])
def write_file(path, data, *args, **kwargs):
    if done[0] == after:
        os._exit(9)
    real(path, data, *args, **kwargs)
    done[0] += 1
release.write_file = write_file
sys.argv[1:] = sys.argv[2:]
from litcorpus.entry import main
main()
"""


RELEASED = ("releases.yaml", "CHANGELOG.md", "CITATION.cff")


@pytest.mark.parametrize("after", [1, 2])
def test_a_release_killed_between_its_writes_is_reported_then_finished(
    mini_root: Path, tmp_path: Path, after: int
) -> None:
    """Killed after releases.yaml (and CHANGELOG.md), the release is unfinished: `check`
    says so, another release is refused, and running it again writes what it lacks, as one
    whole run would have."""
    import shutil

    args = ["release", "--root", str(mini_root), "2026.06", "--date", "2026-06-01"]
    reference = shutil.copytree(mini_root, tmp_path / "reference")
    lit = [sys.executable, "-m", "litcorpus"]
    whole = subprocess.run([*lit, *args[:2], str(reference), *args[3:]], capture_output=True)
    assert whole.returncode == 0, whole.stderr
    killed = subprocess.run([sys.executable, "-c", KILLED_RELEASE, str(after), *args])
    assert killed.returncode == 9
    check = subprocess.run(
        [*lit, "check", "--root", str(mini_root)], capture_output=True, text=True
    )
    assert check.returncode == 1 and "release-invalid" in check.stdout, check.stdout
    assert "release 2026.06 was not finished" in check.stdout
    other = subprocess.run([*lit, *args[:3], "2026.07"], capture_output=True, text=True)
    assert other.returncode == 1 and "run 'litcorpus release 2026.06'" in other.stderr
    again = subprocess.run([*lit, *args], capture_output=True, text=True)
    assert again.returncode == 0 and "finished it" in again.stdout, again.stderr
    assert {n: (mini_root / n).read_text() for n in RELEASED} == {
        n: (reference / n).read_text() for n in RELEASED
    }
    assert subprocess.run([*lit, "check", "--root", str(mini_root)]).returncode == 0


def test_a_build_that_fails_half_way_says_what_it_wrote(
    mini_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that the system refuses once the checks passed (a full disk) names what was
    written before it, whole, instead of 'nothing was changed' alone."""
    from litcorpus.publish import site
    from litcorpus.workflow.build import build
    from surewrite.errors import OutputError, os_failure

    (mini_root / "README.md").write_text(README, encoding="utf-8")

    def full(*args: object, **kwargs: object) -> None:
        raise os_failure(OSError(28, "No space left on device"), mini_root / "site")

    monkeypatch.setattr(site, "write_site", full)
    with pytest.raises(OutputError) as caught:
        build(mini_root, force=True)
    assert "(stats/ and README.md were written; run the build again)" in str(caught.value)
    assert atomic.whole(mini_root / "stats", "litcorpus", "stats")
