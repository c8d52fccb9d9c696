"""Reads releases.yaml: the corpus's releases, the survey's snapshot first.

A release names the records added up to its date (each record carries `added`); claims and
screening flows say which release they speak of, or that they are live, and
`litcorpus stats --as-of VERSION|DATE` reproduces a release's statistics whatever was added
later. `litcorpus release` appends to the list (workflow.release), then writes the release's
CHANGELOG.md section and CITATION.cff version: `unfinished` tells a release whose writing was
cut short, which `check` reports and the next `litcorpus release` finishes.

Versions are calendar versions compared as numbers (2026.05.10 comes after 2026.05.9): a year,
a month 01 to 12, and an optional patch number.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .problems import Problem
from .sections import Section, text_problems
from .text import parse_day
from .yamlio import Document, FieldPath, read_document

RELEASES_FILE = "releases.yaml"
CHANGELOG = "CHANGELOG.md"
CITATION = "CITATION.cff"
TAG = "corpus-{version}"  # the git tag that is to hold a release's state
LIVE = "live"  # what a claim or flow names when it speaks of the corpus as it is now
VERSION = re.compile(r"(\d{4})\.(0[1-9]|1[0-2])(?:\.([1-9]\d{0,5}))?\Z")  # 2026.05, 2026.05.1
RELEASE_FIELDS = ("version", "date", "title", "ref", "changes")
CHANGE_FIELDS = ("added", "removed", "retagged", "retags_unknown")


def version_key(version: str) -> tuple[int, int, int] | None:
    """A version as numbers (year, month, patch), or None when it is not a release version."""
    found = VERSION.match(version)
    if found is None:
        return None
    year, month, patch = found.groups()
    return int(year), int(month), int(patch or 0)


@dataclass(frozen=True, slots=True)
class Release:
    version: str
    date: dt.date
    title: str
    ref: str | None = None  # the git ref of its state, when one was recorded
    changes: dict[str, Any] | None = None  # added, removed, retagged since the one before
    before: Release | None = None  # a release made earlier on the same day

    def holds(self, kind: str, stem: str, added: dt.date | None) -> bool:
        """Whether the release holds a record added on ADDED: one added before its day does,
        one added later does not, and one added on its day does when the release lists it among
        its additions (or lists none), or an earlier release of that day holds it: a record
        added that day after the release was made is not in it."""
        if added is None or added > self.date:
            return False
        listed = (self.changes or {}).get("added")
        return (
            added < self.date
            or not isinstance(listed, list)
            or f"{kind}:{stem}" in listed
            or (self.before is not None and self.before.holds(kind, stem, added))
        )


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
    """The day AS_OF (YYYY-MM-DD) stands for, checked against the corpus's life; a release's
    version is not a day (Corpus.at takes the release itself), and is named in the refusal."""
    day = parse_day(as_of)
    if day is None:
        known = ", ".join(r.version for r in releases.items) or "none yet"
        raise AsOfError(
            f"'{as_of}' is neither a release nor a date (YYYY-MM-DD); releases: {known}"
        )
    if day > dt.date.today():
        raise AsOfError(f"{as_of} is in the future: the corpus has no state on that day yet")
    if first_added is None or day < first_added:
        raise AsOfError(
            f"{as_of} is before the first record entered the corpus"
            + (f" ({first_added.isoformat()})" if first_added else "")
        )
    return day


def load_releases(root: Path, today: dt.date | None = None) -> Releases:
    """Read and check ROOT/releases.yaml (an absent file declares no release)."""
    file = root / RELEASES_FILE
    if not file.is_symlink() and not file.exists():
        return Releases()
    doc = read_document(file, RELEASES_FILE, root=root)
    r = Section(doc, RELEASES_FILE, "release-invalid")
    out = Releases(doc=doc, problems=[*doc.problems, *text_problems(doc, RELEASES_FILE)])
    r.known(r.data, (), ("releases",), "releases.yaml")
    today = today or dt.date.today()
    previous: Release | None = None
    where: FieldPath = ()
    for path, item in r.items(r.data, (), "releases", list):
        r.known(item, path, RELEASE_FIELDS, "release")
        version, day, title = (str(item.get(k, "")) for k in ("version", "date", "title"))
        ref = item.get("ref")
        key = version_key(version)
        if key is None:
            r.bad(
                (*path, "version"),
                f"'{version}' is not a release version",
                "a year and a month 01 to 12, then an optional patch: 2026.12, 2026.12.1",
            )
            continue
        date = parse_day(day)
        if date is None:
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
        elif changes is not None:
            r.known(changes, (*path, "changes"), CHANGE_FIELDS, "changes")
        same_day = previous if previous is not None and previous.date == date else None
        release = Release(version, date, title, str(ref) if ref else None, changes, same_day)
        if out.get(version):
            r.bad((*path, "version"), f"release {version} is declared twice")
        elif previous and (date < previous.date or key <= (version_key(previous.version) or key)):
            r.bad(path, f"release {version} must come after {previous.version}, in date order")
        else:
            out.items.append(release)
            previous, where = release, path
    latest = out.latest()
    if latest is not None and not r.problems:
        for name in unfinished(root, latest):
            r.bad(
                where,
                f"release {latest.version} was not finished: {name} does not record it",
                f"run 'litcorpus release {latest.version}' to finish it",
            )
    out.problems += r.problems
    return out


def unfinished(root: Path, release: Release) -> list[str]:
    """The files that do not record RELEASE as `litcorpus release` writes them (its CHANGELOG.md
    section, its version in CITATION.cff): a run cut short between its writes. A release that
    was written by hand is held to the files that exist."""
    made = release.ref == TAG.format(version=release.version)
    wanted = {
        CHANGELOG: re.compile(rf"^## {re.escape(release.version)} \(", re.MULTILINE),
        CITATION: re.compile(rf"^version: \"?{re.escape(release.version)}\"?\s*$", re.MULTILINE),
    }
    missing = []
    for name, pattern in wanted.items():
        try:
            text = (root / name).read_text(encoding="utf-8")
        except FileNotFoundError:
            text = None
        except (OSError, UnicodeDecodeError):
            text = ""
        if (text is not None or made) and not pattern.search(text or ""):
            missing.append(name)
    return missing
