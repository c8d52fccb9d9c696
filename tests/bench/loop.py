"""The contributor's loop, timed against a peer in the same run: a no-op `make`, `make` after
a one-summary edit and after a retag (and which figures the retag redrew), and
`litcorpus readme`. The peer is the survey artifact's own statistics script
(`scripts/generate_stats.py` on its CSV, from a clone of xxzcc/awesome-llm-mas-rl given with
--peer; a bare git directory works too).

Runs on a copy of the repository (modification times kept, so make sees nothing to install),
with a figure cache of its own; the repository itself is not touched.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VENV = Path(sys.executable).parent.parent
SKIP = {".venv", ".git", "site", ".cache", "node_modules", ".pytest_cache", ".mypy_cache"}
EDITED = "papers/c3.yaml"  # the entry the loop edits and retags
TARGETS = {"noop_make": 12, "summary_make": 50, "readme": 8}  # at most this many times the peer


def _copy(target: Path) -> Path:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(REPO, target, ignore=lambda _d, names: [n for n in names if n in SKIP])
    return target


def _peer(peer: Path, into: Path) -> list[str]:
    """The command that runs the artifact's statistics script from a checkout of it."""
    if not (peer / "scripts" / "generate_stats.py").is_file():  # a bare git directory
        shutil.rmtree(into, ignore_errors=True)
        into.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "--git-dir", str(peer), "archive", "HEAD"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
        peer = into
    return [sys.executable, str(peer / "scripts" / "generate_stats.py")]


def _time(cmd: list[str], env: dict[str, str], before: Any = None) -> float:
    if before:
        before()
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    return time.perf_counter() - start


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _digests(root: Path) -> dict[str, str]:
    """Content digests of the files a commit would hold (site/ is not committed)."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and not SKIP.intersection(p.relative_to(root).parts)
    }


def bench_loop(reps: int, peer: Path | None, cache: Path) -> dict[str, Any]:
    root = _copy(cache / "loop")
    env = {**os.environ, "LITCORPUS_CACHE": str(cache / "loop-cache")}
    shutil.rmtree(cache / "loop-cache", ignore_errors=True)
    make = ["make", "-s", "-C", str(root), f"VENV={VENV}"]
    readme = [str(VENV / "bin" / "litcorpus"), "readme", "--root", str(root)]
    subprocess.run(make, check=True, env=env, stdout=subprocess.DEVNULL)  # the first build
    entry = root / EDITED
    summaries = ["is the first", "is, as measured here, the first"]

    def edit_summary(n: int) -> None:
        text = entry.read_text(encoding="utf-8").splitlines(keepends=True)
        at = next(i for i, line in enumerate(text) if line.startswith("summary:"))
        text[at] = text[at].rstrip("\n").rstrip(".") + f" ({summaries[n % 2]}).\n"
        entry.write_text("".join(text), encoding="utf-8")

    original = entry.read_text(encoding="utf-8")
    runs: dict[str, list[float]] = {"noop_make": [], "summary_make": [], "readme": [], "peer": []}
    peer_cmd = _peer(peer, cache / "peer") if peer else None
    for n in range(reps):  # taking turns, so that a slow spell of the machine hits them all
        runs["noop_make"].append(_time(make, env))
        entry.write_text(original, encoding="utf-8")
        runs["summary_make"].append(_time(make, env, lambda n=n: edit_summary(n)))
        runs["readme"].append(_time(readme, env))
        if peer_cmd:
            runs["peer"].append(_time(peer_cmd, env))
    entry.write_text(original, encoding="utf-8")
    subprocess.run(make, check=True, env=env, stdout=subprocess.DEVNULL)
    committed = _digests(root)
    edit_summary(0)
    subprocess.run(make, check=True, env=env, stdout=subprocess.DEVNULL)
    touched = sorted(p for p, d in _digests(root).items() if committed.get(p) != d)
    entry.write_text(original, encoding="utf-8")
    subprocess.run(make, check=True, env=env, stdout=subprocess.DEVNULL)
    before = json.loads((root / "stats" / "stats.json").read_text())["figures"]
    _replace(entry, "scenario: general", "scenario: research")  # one retag
    retag = _time(make, env)
    after = json.loads((root / "stats" / "stats.json").read_text())["figures"]
    redrawn = sorted(n for n in after if before.get(n, {}).get("key") != after[n]["key"])
    out: dict[str, Any] = {
        name: round(statistics.median(values), 3) for name, values in runs.items() if values
    }
    out["summary_files"] = [p for p in touched if p != EDITED]
    out["retag_make"] = round(retag, 3)
    out["retag_redrawn"] = redrawn
    out["figures"] = len(after)
    if runs["peer"]:
        for name, most in TARGETS.items():
            out[f"{name}_vs_peer"] = round(out[name] / out["peer"], 1)
            out[f"{name}_target"] = most
    return out


def report(loop: dict[str, Any]) -> str:
    lines = ["", "contributor loop (medians, seconds):"]
    for name in ("noop_make", "summary_make", "readme", "peer"):
        if name in loop:
            ratio = loop.get(f"{name}_vs_peer")
            target = loop.get(f"{name}_target")
            shown = f"  {ratio}x peer (at most {target}x)" if ratio is not None else ""
            lines.append(f"  {name:<14} {loop[name]:>7}{shown}")
    lines.append(
        f"  one-summary edit changes {len(loop['summary_files'])} committed files besides the "
        f"entry: {', '.join(loop['summary_files'])}"
    )
    lines.append(
        f"  retag_make     {loop['retag_make']:>7}  redrew {len(loop['retag_redrawn'])} of "
        f"{loop['figures']} figures: {', '.join(loop['retag_redrawn']) or 'none'}"
    )
    return "\n".join(lines)
