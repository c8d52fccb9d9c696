"""Reads searches.yaml: the searches run to find new records since a release.

Each search names its source, its query, the day it ran, how many records it returned and
how many of those were removed as duplicates before screening; every record it brought in
names it in its `search` field. A record that names no search was found through other methods
(citations, a website, a colleague), as PRISMA 2020 counts it. analysis.prisma checks that the
counts add up and computes the update flow.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from .problems import Problem
from .sections import Section, text_problems
from .text import parse_day
from .yamlio import Document, read_document

SEARCHES_FILE = "searches.yaml"
SEARCH_ID = re.compile(r"S\d{3,}\Z")
SEARCH_FIELDS = ("id", "source", "query", "date_run", "records_found", "duplicates")
# What `search import` adds: where the records came from, how PRISMA counts the search, the
# export it read (name and digest); and the query family, named after its taxonomy axis.
# `unscreenable`: records the export held that could not be screened (no title), removed
# before screening (PRISMA 2020: records removed for other reasons).
# `saved`, `window_from`, `window_to`: a run of a saved search (saved-searches.yaml) and the
# days of publication or indexing it covered.
IMPORT_FIELDS = (
    "database",
    "method",
    "file",
    "sha256",
    "unscreenable",
    "saved",
    "window_from",
    "window_to",
)


# How PRISMA 2020 counts a search: in the databases arm, or among other methods (websites such
# as published paper lists, citation searching).
METHODS = ("database", "website", "citations")


@dataclass(frozen=True, slots=True)
class Search:
    id: str
    source: str
    query: str
    date_run: dt.date
    records_found: int
    duplicates: int
    database: str = ""  # where the records came from, as PRISMA counts them per source
    method: str = "database"
    imported: bool = False  # logged by `search import`: its duplicates are listed one by one
    unscreenable: int = 0  # removed before screening: no title to screen
    saved: str = ""  # the saved search this run re-ran, with the days it covered
    window: tuple[dt.date, dt.date] | None = None


@dataclass(slots=True)
class Searches:
    items: dict[str, Search] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    doc: Document = field(default_factory=Document)


def load_searches(root: Path, today: dt.date | None = None, family_field: str = "") -> Searches:
    """Read and check ROOT/searches.yaml (an absent file logs no search); FAMILY_FIELD is the
    query-family axis a search may name."""
    file = root / SEARCHES_FILE
    if not file.is_symlink() and not file.exists():
        return Searches()
    doc = read_document(file, SEARCHES_FILE, root=root)
    r = Section(doc, SEARCHES_FILE, "search-invalid")
    out = Searches(doc=doc, problems=[*doc.problems, *text_problems(doc, SEARCHES_FILE)])
    r.known(r.data, (), ("searches",), "searches.yaml")
    today = today or dt.date.today()
    for path, item in r.items(r.data, (), "searches", list):
        allowed = (*SEARCH_FIELDS, *IMPORT_FIELDS, *([family_field] if family_field else []))
        r.known(item, path, allowed, "search")
        sid = str(item.get("id", ""))
        if not SEARCH_ID.match(sid):
            r.bad((*path, "id"), f"'{sid}' is not a search id", "S001, S002, ...")
            continue
        if sid in out.items:
            r.bad((*path, "id"), f"search {sid} is logged twice")
            continue
        source, query = r.get(item, path, "source", str), r.get(item, path, "query", str)
        day = parse_day(item.get("date_run"))
        if day is None:
            r.bad((*path, "date_run"), f"'{item.get('date_run')}' is not a date", "YYYY-MM-DD")
            continue
        if day > today:
            r.bad((*path, "date_run"), f"search {sid} ran in the future ({day})")
        found = r.get(item, path, "records_found", int)
        duplicates = r.get(item, path, "duplicates", int, 0)
        unscreenable = r.get(item, path, "unscreenable", int, 0)
        if (
            isinstance(found, bool)
            or min(found, duplicates, unscreenable) < 0
            or duplicates + unscreenable > found
        ):
            r.problem(
                path,
                "search-mismatch",
                f"search {sid}: {duplicates} duplicates and {unscreenable} unscreenable records "
                f"of {found} records found",
                "both are part of what the search found",
            )
            continue
        method = r.get(item, path, "method", str, "database")
        if method not in METHODS:
            r.bad((*path, "method"), f"'{method}' is not a search method", ", ".join(METHODS))
        database = r.get(item, path, "database", str, "") or source
        imported = "sha256" in item
        saved = r.get(item, path, "saved", str, "")
        start, end = parse_day(item.get("window_from")), parse_day(item.get("window_to"))
        window = (start, end) if saved and start and end and start <= end else None
        if saved and window is None:
            r.bad(path, f"search {sid} runs {saved} for no window", "window_from <= window_to")
            continue
        out.items[sid] = Search(
            sid, source, query, day, found, duplicates, database, method, imported, unscreenable,
            saved, window,
        )  # fmt: skip
    out.problems += r.problems
    return out


def last_searched(searches: Searches, until: dt.date | None = None) -> list[dict[str, str]]:
    """Each source's last day searched, from the log (a saved search's run: the last day its
    window covered; any other search: the day it ran), in the order sources were first
    searched; UNTIL leaves out searches run after it (a release's view)."""
    out: dict[str, str] = {}
    for s in searches.items.values():
        if until is not None and s.date_run > until:
            continue
        day = str(s.window[1] if s.window else s.date_run)
        out[s.database] = max(out.get(s.database, day), day)
    return [{"database": name, "last_day": day} for name, day in out.items()]
