"""Reads releases.yaml: the corpus's releases, the survey's snapshot first.

A release names the records added up to its date (each record carries `added`); claims and
screening flows say which release they speak of, or that they are live, and
`litcorpus stats --as-of VERSION|DATE` reproduces a release's statistics whatever was added
later. `litcorpus release` appends to the list (workflow.release).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .problems import Problem
from .sections import Section
from .yamlio import Document, read_document

RELEASES_FILE = "releases.yaml"
LIVE = "live"  # what a claim or flow names when it speaks of the corpus as it is now
VERSION = re.compile(r"\d{4}\.\d{2}(\.\d+)?\Z")  # calendar versions: 2026.05, 2026.05.1


@dataclass(frozen=True, slots=True)
class Release:
    version: str
    date: dt.date
    title: str
    ref: str | None = None  # the git ref of its state, when one was recorded
    changes: dict[str, Any] | None = None  # added, removed, retagged since the one before


@dataclass(slots=True)
class Releases:
    items: list[Release] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    doc: Document = field(default_factory=Document)

    def get(self, version: str) -> Release | None:
        return next((r for r in self.items if r.version == version), None)

    def latest(self) -> Release | None:
        return self.items[-1] if self.items else None


class AsOfError(ValueError):
    """An --as-of that names no release and no day the corpus existed on."""


def resolve(releases: Releases, as_of: str, first_added: dt.date | None) -> dt.date:
    """The day AS_OF stands for (a release's version or a YYYY-MM-DD day)."""
    release = releases.get(as_of)
    if release is not None:
        return release.date
    try:
        day = dt.date.fromisoformat(as_of)
    except ValueError:
        known = ", ".join(r.version for r in releases.items) or "none yet"
        raise AsOfError(
            f"'{as_of}' is neither a release nor a date (YYYY-MM-DD); releases: {known}"
        ) from None
    if first_added is None or day < first_added:
        raise AsOfError(
            f"{as_of} is before the first record entered the corpus"
            + (f" ({first_added.isoformat()})" if first_added else "")
        )
    return day


def load_releases(root: Path, today: dt.date | None = None) -> Releases:
    """Read and check ROOT/releases.yaml (an absent file declares no release)."""
    file = root / RELEASES_FILE
    if not file.exists():
        return Releases()
    doc = read_document(file, RELEASES_FILE)
    r = Section(doc, RELEASES_FILE, "release-invalid")
    out = Releases(doc=doc, problems=[*doc.problems])
    today = today or dt.date.today()
    previous: Release | None = None
    for path, item in r.items(r.data, (), "releases", list):
        version, day, title = (str(item.get(k, "")) for k in ("version", "date", "title"))
        ref = item.get("ref")
        if not VERSION.match(version):
            r.bad((*path, "version"), f"'{version}' is not a release version", "e.g. 2026.12")
            continue
        try:
            date = dt.date.fromisoformat(day)
        except ValueError:
            r.bad((*path, "date"), f"'{day}' is not a date", "write YYYY-MM-DD")
            continue
        if date > today:
            r.bad((*path, "date"), f"release {version} is dated in the future ({day})")
        if not title.strip():
            r.bad(path, f"release {version} needs a title")
        changes = item.get("changes")
        if changes is not None and not isinstance(changes, dict):
            r.bad((*path, "changes"), "changes is a mapping: added, removed, retagged")
            changes = None
        release = Release(version, date, title, str(ref) if ref else None, changes)
        if out.get(version):
            r.bad((*path, "version"), f"release {version} is declared twice")
        elif previous and (date < previous.date or version <= previous.version):
            r.bad(path, f"release {version} must come after {previous.version}, in date order")
        else:
            out.items.append(release)
            previous = release
    out.problems += r.problems
    return out
