"""Reads saved-searches.yaml: the searches `litcorpus search update` re-runs on the services'
APIs, each for the days since its last run.

A saved search names its service (arxiv, openalex, semanticscholar, crossref), its query in
that service's own syntax, the query family its exclusions carry, and the first day its first
run covers (`from`). The windows already searched are not kept here but read from the search
log: every run is logged in searches.yaml with `saved`, `window_from` and `window_to`, so the
next window starts the day after the last one ended and two runs never cover a day twice.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from .problems import Problem
from .searches import Searches
from .sections import Section, text_problems
from .taxonomy import Taxonomy
from .text import parse_day
from .yamlio import Document, read_document

SAVED_FILE = "saved-searches.yaml"
SAVED_ID = re.compile(r"R\d{3,}\Z")
SERVICES = ("arxiv", "openalex", "semanticscholar", "crossref")
FIELDS = ("id", "source", "query", "family", "from", "note")
HEADER = (
    "# Saved searches: `litcorpus search update` re-runs each on its service's API for the days\n"
    "# since its last run (the search log, searches.yaml, holds every window already searched).\n"
    "# `litcorpus search add` appends one; the query is in the service's own syntax.\n"
    "saved:\n"
)


def query_families(tax: Taxonomy) -> list[str]:
    """The query families a search may name: the values of the screening view's family axis."""
    axis = tax.views.screening.axes.get("family_axis", "")
    return [v.id for v in tax.axes[axis].values] if axis in tax.axes else []


@dataclass(frozen=True, slots=True)
class Saved:
    id: str
    source: str
    query: str
    family: str | None
    start: dt.date  # the first day the first run covers
    note: str = ""


@dataclass(slots=True)
class SavedSearches:
    items: dict[str, Saved] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    doc: Document = field(default_factory=Document)


def load_saved(root: Path, families: list[str]) -> SavedSearches:
    """Read and check ROOT/saved-searches.yaml (absent: no saved search); FAMILIES are the
    taxonomy's query families a search may name."""
    file = root / SAVED_FILE
    if not file.is_symlink() and not file.exists():
        return SavedSearches()
    doc = read_document(file, SAVED_FILE, root=root)
    r = Section(doc, SAVED_FILE, "saved-search-invalid")
    out = SavedSearches(doc=doc, problems=[*doc.problems, *text_problems(doc, SAVED_FILE)])
    r.known(r.data, (), ("saved",), "saved-searches.yaml")
    seen: dict[tuple[str, str], str] = {}
    for path, item in r.items(r.data, (), "saved", list):
        r.known(item, path, FIELDS, "saved search")
        sid = str(item.get("id", ""))
        if not SAVED_ID.match(sid) or sid in out.items:
            r.bad((*path, "id"), f"'{sid}' is not a new saved-search id", "R001, R002, ...")
            continue
        source, query = r.get(item, path, "source", str), r.get(item, path, "query", str)
        if source not in SERVICES:
            r.bad((*path, "source"), f"'{source}' is no service with an API", ", ".join(SERVICES))
            continue
        if not query.strip():
            r.bad((*path, "query"), "the query is empty")
            continue
        family = r.get(item, path, "family", str, None)
        if family is not None and family not in families:
            r.bad((*path, "family"), f"'{family}' is not a query family", ", ".join(families))
        start = parse_day(item.get("from"))
        if start is None:
            r.bad((*path, "from"), f"'{item.get('from')}' is not a day", "YYYY-MM-DD")
            continue
        if (source, query) in seen:
            r.bad(path, f"{sid} repeats {seen[source, query]}: the same query on {source}")
            continue
        seen[source, query] = sid
        note = r.get(item, path, "note", str, "")
        out.items[sid] = Saved(sid, source, query, family, start, note)
    out.problems += r.problems
    return out


def next_window(saved: Saved, searches: Searches, until: dt.date) -> tuple[dt.date, dt.date]:
    """The days SAVED's next run covers: from the day after its last logged window (or its
    `from` day) to UNTIL; empty (start after end) when it is up to date."""
    ends = [s.window[1] for s in searches.items.values() if s.saved == saved.id and s.window]
    start = max(ends) + dt.timedelta(days=1) if ends else saved.start
    return start, until
