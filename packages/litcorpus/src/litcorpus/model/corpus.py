"""Finds and reads the corpus: one YAML file per record under each kind's directory.

Reads taxonomy.yaml, papers/*.yaml and exclusions/*.yaml below a root. Files that cannot be
records (wrong extension, symlinks leaving the root, unreadable content) become problems; the
rest are still read.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..parallel import map_slices, no_cycle_collection
from ..progress import Progress
from .problems import Problem
from .releases import RELEASES_FILE, Release, Releases, load_releases
from .taxonomy import TAXONOMY_FILE, Taxonomy, load_taxonomy
from .text import parse_day
from .yamlio import Document, leaves, read_document

# the files beside the records that the corpus hash covers (claims and searches are read by
# modules that import this one)
CORPUS_FILES = (
    TAXONOMY_FILE,
    "claims.yaml",
    RELEASES_FILE,
    "searches.yaml",
    "screening/queue.jsonl",
    "screening/duplicates.jsonl",
)


@dataclass(slots=True)
class Record:
    kind: str
    stem: str
    path: str
    doc: Document

    @property
    def data(self) -> dict[str, Any]:
        return self.doc.data if isinstance(self.doc.data, dict) else {}

    @property
    def added(self) -> dt.date | None:
        """The day the record entered the corpus (None when it does not say so validly)."""
        return parse_day(self.data.get("added"))


@dataclass(slots=True)
class Corpus:
    root: Path
    taxonomy: Taxonomy
    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    releases: Releases = field(default_factory=Releases)
    as_of_day: dt.date | None = None  # set on a view of the corpus as it stood on that day
    as_of_release: Release | None = None  # set on the view of a release's corpus

    def of(self, kind: str) -> list[Record]:
        return [r for r in self.records if r.kind == kind]

    def as_of(self, day: dt.date) -> Corpus:
        """The records added up to DAY (with their tags as they are now): a release's corpus."""
        kept = [r for r in self.records if (r.added or dt.date.max) <= day]
        return Corpus(self.root, self.taxonomy, kept, [], self.releases, day)

    def at(self, release: Release) -> Corpus:
        """The records RELEASE holds (with their tags as they are now): its corpus."""
        kept = [r for r in self.records if release.holds(r.kind, r.stem, r.added)]
        return Corpus(self.root, self.taxonomy, kept, [], self.releases, release.date, release)

    def after(self, release: Release) -> list[Record]:
        """The records added since RELEASE was made."""
        return [r for r in self.records if r.added and not release.holds(r.kind, r.stem, r.added)]

    def version(self) -> str:
        """The release this corpus stands for (the latest up to its day), '+N' when N of its
        records were added after that release: '2026.05', '2026.05+3'."""
        day = self.as_of_day or dt.date.max
        included = [r for r in self.releases.items if r.date <= day]
        if not included:
            return "unreleased"
        # a release's own view is that release, though a later one may share its day
        release = self.as_of_release or included[-1]
        since = len(self.after(release))
        return release.version + (f"+{since}" if since else "")

    def first_added(self) -> dt.date | None:
        days = [r.added for r in self.records if r.added]
        return min(days) if days else None

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def hash(self) -> str:
        """A content hash of the taxonomy, the claims and every record file: the exact
        state of the corpus, as cited in stats.json and the READMEs."""
        digest = hashlib.sha256()
        for rel in [*CORPUS_FILES, *sorted(r.path for r in self.records)]:
            path = self.root / rel
            if path.is_file():
                digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
        return digest.hexdigest()[:16]

    def forget_positions(self) -> None:
        """Drop what only locates problems (field positions, YAML's retypings): a valid
        corpus on its way to stats or the site needs its data alone."""
        for rec in self.records:
            rec.doc.positions.clear()
            rec.doc.implicit.clear()


def find_root(start: Path | None = None) -> Path:
    """The nearest directory at or above START that holds taxonomy.yaml (else START)."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / TAXONOMY_FILE).is_file():
            return candidate
    return here


def _files(root: Path, dirname: str, problems: list[Problem]) -> Iterator[tuple[Path, str]]:
    folder = root / dirname
    if not dirname or not folder.is_dir():  # no folder: taxonomy.yaml names none it may read
        return
    if leaves(folder, root):
        problems.append(
            Problem(
                f"{dirname}/",
                "symlink-outside",
                "the record folder is a symbolic link to a place outside the repository; "
                "nothing in it is read",
                hint="commit the folder itself",
            )
        )
        return
    for entry in sorted(folder.iterdir()):
        rel = f"{dirname}/{entry.name}"
        if entry.name.startswith("."):
            if entry.suffix in (".yaml", ".yml"):
                problems.append(
                    Problem(
                        rel,
                        "unexpected-file",
                        "hidden file in a record folder; it is not read",
                        hint="record file names start with a letter or digit",
                    )
                )
            continue
        if leaves(entry, root):
            problems.append(
                Problem(
                    rel,
                    "symlink-outside",
                    "symbolic link points outside the repository",
                    hint="commit the file itself",
                )
            )
        elif entry.is_dir():
            problems.append(
                Problem(
                    rel,
                    "unexpected-file",
                    "directory inside a record folder",
                    hint=f"records are files directly in {dirname}/",
                )
            )
        elif entry.suffix == ".yaml":
            yield entry, rel
        elif entry.suffix == ".yml":
            problems.append(
                Problem(
                    rel,
                    "wrong-extension",
                    "record files end in .yaml",
                    hint=f"rename it to {entry.stem}.yaml",
                )
            )
        else:
            problems.append(Problem(rel, "unexpected-file", "not a record file; it is ignored"))


def _read_slice(jobs: list[tuple[str, Path, str]], start: int, stop: int) -> list[tuple[Any, ...]]:
    # plain tuples: a worker's documents come back pickled, and tuples unpickle twice as fast
    docs = (read_document(file, rel) for _, file, rel in jobs[start:stop])
    return [(d.data, d.positions, d.implicit, d.problems) for d in docs]


def load_corpus(root: Path, progress: Progress | None = None) -> Corpus:
    """Read the taxonomy and every record file below ROOT (a large corpus in parallel)."""
    taxonomy, problems = load_taxonomy(root)
    releases = load_releases(root)
    corpus = Corpus(root, taxonomy, problems=[*problems, *releases.problems], releases=releases)
    jobs = [
        (kind.id, file, rel)
        for kind in taxonomy.kinds.values()
        for file, rel in _files(root, kind.dir, corpus.problems)
    ]
    on_done = (lambda d, t: progress("reading records", d, t)) if progress else None
    with no_cycle_collection():
        docs = map_slices(_read_slice, jobs, len(jobs), on_done)
        for (kind, file, rel), doc in zip(jobs, docs, strict=True):
            corpus.records.append(Record(kind, file.stem, rel, Document(*doc)))
    return corpus
