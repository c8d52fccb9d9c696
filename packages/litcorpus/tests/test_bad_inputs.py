"""Bad inputs for `litcorpus check` run as a command: exit 1, the file named, bounded cost.

Each case breaks one file or one field of the small valid corpus, then runs
`python -m litcorpus check --strict --format json` in a child process under an address-space
limit and a timeout. A case passes when the command exits 1 without a traceback, reports the
expected code at the expected file (and line, where the input has one), stays within its time
and memory bounds, and leaves every file of the corpus byte for byte as it was.

The cases (badinputs.py) are the one-per-code list of test_check_problems plus hostile inputs:
huge files, deep nesting, alias bombs, paths that try to leave the corpus, pipes and link
loops, values that only look like dates, years or ids."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml

from badinputs import ALL, KILL_AFTER, MEMORY_LIMIT, RSS_MIB, BadInput, nested_mappings
from corpusfixtures import make_mini_root
from litcorpus.model import yamlio
from litcorpus.model.problems import CODES

# Runs the command given after two arguments (where to write the measurements, the address-space
# limit) and records its exit status, wall time and peak RSS. The command is started from this
# small process rather than from pytest, because a forked child's peak RSS on Linux includes the
# memory of the process it was forked from.
LAUNCHER = """
import json, os, resource, subprocess, sys, time
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
start = time.monotonic()
child = subprocess.Popen(sys.argv[3:])
_, status, usage = os.wait4(child.pid, 0)
child.returncode = os.waitstatus_to_exitcode(status)
result = {"exit": child.returncode, "seconds": time.monotonic() - start,
          "rss_kib": usage.ru_maxrss}
with open(sys.argv[1], "w", encoding="utf-8") as f:
    json.dump(result, f)
"""


class Run(NamedTuple):
    exit: int
    seconds: float
    rss_mib: float
    stdout: str
    stderr: str


def run_check(root: Path, work: Path) -> Run:
    """Run `litcorpus check` on ROOT in a child process, measured and limited; WORK is scratch."""
    measured, out, err = work / "measured.json", work / "stdout", work / "stderr"
    command = [sys.executable, "-m", "litcorpus", "check", "--strict", "--format", "json"]
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, measured, str(MEMORY_LIMIT), *command, "--root", root],
            cwd=work,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,  # one process group: a timeout kills the command too
        )
        try:
            proc.wait(timeout=KILL_AFTER)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail(f"check did not finish within {KILL_AFTER:.0f} s")
    if not measured.exists():
        pytest.fail(f"the launcher failed:\n{err.read_text(errors='replace')}")
    got = json.loads(measured.read_text(encoding="utf-8"))
    return Run(
        got["exit"],
        got["seconds"],
        got["rss_kib"] / 1024,
        out.read_bytes().decode("utf-8", "surrogateescape"),  # file names need not be UTF-8
        err.read_bytes().decode("utf-8", "replace"),
    )


def snapshot(root: Path, skip: Path) -> dict[str, str]:
    """Every entry below ROOT but outside SKIP: a file's SHA-256, a link's target, or its kind."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) != str(skip)]
        for name in dirs + files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                found[path] = "link " + os.readlink(path)
            elif stat.S_ISREG(mode):
                with open(path, "rb") as f:
                    found[path] = hashlib.file_digest(f, "sha256").hexdigest()
            else:
                found[path] = f"mode {stat.S_IFMT(mode):o}"
    return found


class Outcome(NamedTuple):
    run: Run
    changed: bool


def attempt(case: BadInput, base: Path) -> Outcome:
    """Break a fresh corpus below BASE as CASE says, run check on it, then remove BASE."""
    root, work = make_mini_root(base), base / "work"
    work.mkdir()
    try:
        case.action(root)
        before = snapshot(base, skip=work)
        run = run_check(root, work)
        return Outcome(run, snapshot(base, skip=work) != before)
    finally:
        shutil.rmtree(base, ignore_errors=True)  # several cases leave 50 MB behind


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Future[Outcome]]:
    """The selected cases, run two at a time (each run is one short, mostly idle process)."""
    chosen = {
        item.callspec.params["case"].id
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.module is not None
        and item.module.__name__ == __name__
        and item.originalname == "test_bad_input"
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        return {
            case.id: pool.submit(attempt, case, tmp_path_factory.mktemp(case.id))
            for case in ALL
            if case.id in chosen
        }


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_bad_input(
    case: BadInput, outcomes: dict[str, Future[Outcome]], request: pytest.FixtureRequest
) -> None:
    run, changed = outcomes[case.id].result()
    request.node.user_properties += [("seconds", run.seconds), ("peak_rss_mib", run.rss_mib)]
    shown = f"exit {run.exit}\nstderr:\n{run.stderr[-3000:]}\nstdout:\n{run.stdout[:3000]}"
    assert "Traceback" not in run.stderr, shown
    assert run.exit == 1, shown
    report = json.loads(run.stdout)
    assert report["ok"] is False
    hits = [p for p in report["problems"] if p["code"] == case.code and p["path"] == case.path]
    assert hits, f"expected {case.code} at {case.path}\n{shown}"
    if case.line is not None:
        assert case.line in {p["line"] for p in hits}, shown
    assert run.seconds < case.seconds, f"took {run.seconds:.2f} s (bound {case.seconds} s)"
    assert run.rss_mib < RSS_MIB, f"peak RSS {run.rss_mib:.0f} MiB (bound {RSS_MIB} MiB)"
    assert not changed, "check changed the corpus"


def test_the_valid_corpus_passes_under_the_same_limits(tmp_path: Path) -> None:
    """The baseline: the unbroken corpus exits 0 with no problems."""
    root = make_mini_root(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    run = run_check(root, work)
    assert (run.exit, json.loads(run.stdout)) == (0, {"ok": True, "problems": []}), run.stderr
    assert run.rss_mib < RSS_MIB


def test_suite_is_broad() -> None:
    """At least 40 cases with distinct names, covering every registered problem code."""
    assert len(ALL) >= 40
    assert len({c.id for c in ALL}) == len(ALL)
    assert {c.code for c in ALL} == set(CODES)


@pytest.mark.parametrize(
    "text",
    [
        "x: " + "[" * 10_000 + "]" * 10_000,
        "x:\n" + "- " * 10_000 + "x",
        b"".join(nested_mappings(1200)).decode(),
    ],
    ids=["flow", "block-seq", "block-map"],
)
def test_deep_nesting_without_libyaml(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pure-Python YAML reader recurses once per level: deep input is a problem, not a crash."""
    monkeypatch.setattr(yamlio, "_Loader", yaml.SafeLoader)
    file = tmp_path / "deep.yaml"
    file.write_text(text, encoding="utf-8")
    doc = yamlio.read_document(file, "papers/deep.yaml")
    assert [p.code for p in doc.problems] == ["too-deep"]
