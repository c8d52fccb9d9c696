"""Records a release: what changed since the previous one, appended to releases.yaml, a
CHANGELOG.md section made from it, and the version and date in CITATION.cff.

What changed comes from the semantic diff (workflow.diff) against the previous release's
recorded git ref when the repository still has it; otherwise from the records' `added` dates
(additions only: without the old state, retags cannot be seen). A release is refused, with
nothing written, when the corpus has problems, the version exists or is not newer, or the
date is in the future or before the previous release.

releases.yaml is written first: it holds everything the other two files say. A run killed
after it leaves a release that `check` reports as unfinished; running the same release again
writes the CHANGELOG.md section and CITATION.cff from the recorded release.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surewrite.files import write_file

from ..analysis.result import analyse
from ..model.corpus import Corpus, load_corpus
from ..model.errors import CommandError
from ..model.naming import plain_value
from ..model.releases import (
    CHANGELOG,
    CITATION,
    RELEASES_FILE,
    TAG,
    Release,
    load_releases,
    unfinished,
    version_key,
)
from ..model.text import character_problems
from ..publish.escape import md_text
from .diff import DiffError, corpus_at, record_changes


class ReleaseError(CommandError):
    """The release cannot be made; nothing was written."""


@dataclass(slots=True)
class Changes:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    retagged: list[dict[str, Any]] = field(default_factory=list)  # key, axis, old, new
    exact: bool = True  # False when retags could not be seen (no old state to compare with)
    finished: bool = False  # True when the run finished a release an earlier run cut short

    @classmethod
    def recorded(cls, release: Release) -> Changes:
        """The changes releases.yaml records for RELEASE."""
        c = release.changes or {}

        def listed(name: str) -> list[Any]:
            return list(c.get(name) or []) if isinstance(c.get(name), list) else []

        exact = c.get("retags_unknown") not in (True, "true")
        return cls(listed("added"), listed("removed"), listed("retagged"), exact, True)


def changes_since(corpus: Corpus, previous: Release | None) -> Changes:
    """What changed since PREVIOUS: from its git ref when the repository has it, else from the
    records' `added` dates."""
    if previous is None:
        return Changes(added=sorted(r.path for r in corpus))
    if previous.ref:
        try:
            with tempfile.TemporaryDirectory(prefix="litcorpus-release-") as tmp:
                old = corpus_at(corpus.root, previous.ref, Path(tmp))
                found = record_changes(old, corpus)
            return Changes(
                [f"{c['kind']}:{c['key']}" for c in found["added"]],
                [f"{c['kind']}:{c['key']}" for c in found["removed"]],
                found["retagged"],
            )
        except DiffError:
            pass  # a clone without that history: fall back on the dates
    new = corpus.after(previous)
    return Changes([f"{r.kind}:{r.stem}" for r in new], exact=False)


def _item(version: str, date: dt.date, title: str, changes: Changes) -> str:
    """The release's entry in releases.yaml (JSON strings are YAML scalars)."""
    lines = [
        f"  - version: {json.dumps(version)}",
        f"    date: {json.dumps(date.isoformat())}",
        f"    title: {json.dumps(title)}",
        f"    ref: {json.dumps(TAG.format(version=version))}",
        "    changes:",
    ]
    for name, items in (
        ("added", changes.added),
        ("removed", changes.removed),
        ("retagged", changes.retagged),
    ):
        lines.append(f"      {name}:{'' if items else ' []'}")
        lines += [f"        - {json.dumps(item, ensure_ascii=False)}" for item in items]
    if not changes.exact:
        lines.append("      retags_unknown: true")
    return "\n".join(lines) + "\n"


def checks(reviews: dict[str, dict[str, Any] | None]) -> list[str]:
    """The release notes' lines on the blind checks the corpus declares: the second
    screening's kappa, its conflicts and their resolution, and the blind second reader's
    agreement per axis."""
    lines = []
    if audit := reviews.get("screening_audit"):
        ci = audit.get("ci95") or ["n/a", "n/a"]
        settled = Counter(c["resolution"] or "unresolved" for c in audit["conflicts"])
        how = ", ".join(f"{n} {who}" for who, n in sorted(settled.items()))
        lines.append(
            f"- Blind second screening of {audit['records']} decided records: Cohen's kappa "
            f"{audit['kappa']} (95% CI {ci[0]} to {ci[1]}); {len(audit['conflicts'])} conflicts "
            f"({how or 'none'}); the same exclusion reason on "
            f"{audit['reason_agreement']['same_reason']} of "
            f"{audit['reason_agreement']['both_excluded']} records both excluded."
        )
    if blind := reviews.get("blind_agreement"):
        per_axis = "; ".join(
            f"{a['axis']} {100 * a['agreement']:.1f}%"
            + (f" (kappa {a['kappa']})" if a.get("kappa") is not None else "")
            for a in blind["axes"]
            if a["agreement"] is not None
        )
        lines.append(
            f"- Blind second reader on {blind['n']} entries, agreement per axis: {per_axis}."
        )
    return lines


def changelog_section(
    version: str, date: dt.date, title: str, changes: Changes, checked: list[str] | None = None
) -> str:
    shown = md_text(title)  # one line that starts no heading, quote or list
    lines = [
        f"## {version} ({date.isoformat()})",
        "",
        ("\\" if shown[:1] in tuple("#>+-=") else "") + shown,
        "",
    ]
    for word, keys in (("Added", changes.added), ("Removed", changes.removed)):
        if keys:
            lines.append(f"{word} ({len(keys)}):")
            lines += [f"- `{k}`" for k in keys]
            lines.append("")
    if changes.retagged:
        lines.append(f"Retagged ({len(changes.retagged)}):")
        lines += [
            f"- `{c['key']}` {c['axis']}: {plain_value(c['old'])} -> {plain_value(c['new'])}"
            for c in changes.retagged
        ]
        lines.append("")
    if not changes.exact:
        lines += ["Retags since the previous release are not listed: its state was not found.", ""]
    if not (changes.added or changes.removed or changes.retagged):
        lines += ["No entry was added, removed or retagged.", ""]
    if checked:
        lines += ["Checks:", *checked, ""]
    return "\n".join(lines)


def _citation(text: str, version: str, date: dt.date) -> str:
    for key, value in (("version", version), ("date-released", date.isoformat())):
        line = f"{key}: {json.dumps(value)}"
        text, n = re.subn(rf"^{key}:.*$", line, text, count=1, flags=re.MULTILINE)
        if not n:
            text = text.rstrip("\n") + f"\n{line}\n"
    return text


def release(root: Path, version: str, date: dt.date | None = None, title: str = "") -> Changes:
    """Record release VERSION of the corpus below ROOT (dated DATE, default today); returns
    what changed since the previous release. The caller holds the corpus lock."""
    today = dt.date.today()
    date = date or today
    key = version_key(version)
    if key is None:
        raise ReleaseError(
            "release-refused",
            f"'{version}' is not a release version",
            "a year and a month 01 to 12, then an optional patch: 2026.12, 2026.12.1",
        )
    bad_text = character_problems(title, prose=False)
    if bad_text:
        raise ReleaseError("release-refused", f"the title {bad_text[0][1]}", "one plain line")
    latest = load_releases(root).latest()
    if latest is not None and unfinished(root, latest):
        if version != latest.version:
            raise ReleaseError(
                "release-refused",
                f"release {latest.version} was not finished",
                f"run 'litcorpus release {latest.version}' to finish it first",
            )
        return _finish(root, latest)
    result = analyse(load_corpus(root), stats=False)
    if not result.report.ok:
        raise ReleaseError(
            "release-refused",
            f"the corpus has {len(result.report.errors)} problem(s); nothing was written",
            "run 'litcorpus check' and fix them first",
        )
    corpus = result.corpus
    known = corpus.releases
    previous = known.latest()
    if known.get(version):
        raise ReleaseError("release-refused", f"release {version} exists already")
    if previous and key <= (version_key(previous.version) or key):
        raise ReleaseError("release-refused", f"{version} is not newer than {previous.version}")
    if date > today or (previous and date < previous.date):
        after = f", nor before {previous.date}" if previous else ""
        raise ReleaseError("release-refused", f"{date} is not a release date", f"not in the "
                           f"future{after}")  # fmt: skip
    changes = changes_since(corpus, previous)
    title = title or f"Release {version}"
    files = {  # releases.yaml first: what the other two say can be written again from it
        root / RELEASES_FILE: _releases_text(root / RELEASES_FILE, version, date, title, changes),
        root / CHANGELOG: _changelog_text(
            root / CHANGELOG, version, date, title, changes, checks(result.reviews)
        ),
        root / CITATION: _citation(_read(root / CITATION), version, date),
    }
    _write_all(files)
    return changes


def _finish(root: Path, release: Release) -> Changes:
    """Write what RELEASE, recorded in releases.yaml, lacks in CHANGELOG.md and CITATION.cff."""
    changes = Changes.recorded(release)
    version, date = release.version, release.date
    files = {}
    missing = unfinished(root, release)
    if CHANGELOG in missing:
        text = _changelog_text(root / CHANGELOG, version, date, release.title, changes)
        files[root / CHANGELOG] = text
    if CITATION in missing:
        files[root / CITATION] = _citation(_read(root / CITATION), version, date)
    _write_all(files)
    return changes


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def _releases_text(path: Path, version: str, date: dt.date, title: str, changes: Changes) -> str:
    text = _read(path) or "releases:\n"
    return text.rstrip("\n") + "\n" + _item(version, date, title, changes)


def _changelog_text(
    path: Path,
    version: str,
    date: dt.date,
    title: str,
    changes: Changes,
    checked: list[str] | None = None,
) -> str:
    """CHANGELOG.md with the new section first, below the heading."""
    head = "# Changelog\n\nReleases of the corpus, newest first (`litcorpus release`).\n\n"
    text = _read(path) or head
    # a blank line before the next section's heading, whichever list the section ends with
    section = changelog_section(version, date, title, changes, checked).rstrip("\n") + "\n\n"
    at = text.find("\n## ")
    return text + section if at < 0 else text[: at + 1] + section + text[at + 1 :]


def _write_all(files: dict[Path, str]) -> None:
    """Write every file, or restore those already written if one fails."""
    done: dict[Path, str | None] = {}
    try:
        for path, text in files.items():
            done[path] = _read(path) if path.exists() else None
            write_file(path, text.encode())
    except BaseException:
        for path, old in done.items():
            if old is None:
                path.unlink(missing_ok=True)
            else:
                write_file(path, old.encode())
        raise
