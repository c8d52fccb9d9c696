"""`litcorpus search update`: re-runs each saved search for the days since its last run, one
page at a time, and imports what it found as one logged search (records found, duplicates and
new records computed as `search import` computes them).

A run is resumable. Every answer is written to the local store as it comes
(screening/.store/runs/<saved id>/page-NNN.raw) beside a state file naming the window, the
pages and the cursor of the next page; a killed update started again finishes that window from
where it stopped. Once all pages are in, a manifest listing every page and its SHA-256 is
stored with the search and its digest logged, so the import can be replayed offline; the
window is logged with it (`saved`, `window_from`, `window_to`), which is how the next run
knows where to start and how a window is never logged twice.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surewrite.files import write_file
from surewrite.paths import below

from ..model.corpus import Corpus
from ..model.errors import CommandError
from ..model.queue import STORE_DIR
from ..model.saved import Saved, load_saved, next_window, query_families
from ..model.searches import load_searches
from ..publish.outputs import corpus_lock
from ..screening.imports import Imported, import_search
from ..sources.detect import records
from ..sources.found import Found, SourceError
from . import services
from .services import Clock, ServiceError

MAX_PAGES = 50
NAMES = {
    "arxiv": "arXiv",
    "openalex": "OpenAlex",
    "semanticscholar": "Semantic Scholar",
    "crossref": "Crossref",
}


@dataclass(slots=True)
class Outcome:
    """What became of one saved search in an update."""

    saved: str
    window: tuple[dt.date, dt.date]
    status: str  # logged, up-to-date, failed, capped
    message: str = ""
    imported: Imported | None = None
    pages: int = 0


@dataclass(slots=True)
class Update:
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0
    politeness: float = 0.0  # of SECONDS, the time slept between requests as the APIs ask
    not_api: int = 0  # logged searches of sources no API serves (web pages, lists): not re-run

    @property
    def ok(self) -> bool:
        return all(o.status in ("logged", "up-to-date") for o in self.outcomes)


def _runs(root: Path) -> Path:
    return below(root, STORE_DIR) / "runs"


def _state(folder: Path) -> dict[str, Any] | None:
    try:
        state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
        return state if isinstance(state, dict) and isinstance(state.get("pages"), list) else None
    except (OSError, ValueError):
        return None  # no run under way (or a damaged one: started again from its first page)


def update(
    corpus: Corpus,
    source: str | None = None,
    family: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    max_pages: int = MAX_PAGES,
    clock: Clock | None = None,
) -> Update:
    """Re-run the saved searches (of SOURCE, of FAMILY) for their windows, which end UNTIL
    (default today); SINCE moves every window's first day. A search that fails is said and
    skipped; the others go on."""
    started = time.monotonic()
    root, tax = corpus.root, corpus.taxonomy
    today = dt.date.today()
    until = min(until or today, today)
    clock = clock or Clock()
    saved = load_saved(root, query_families(tax))
    if saved.problems:
        p = saved.problems[0]
        raise CommandError("search-refused", f"{p.path}:{p.line or 1}: {p.message}", p.hint)
    chosen = [
        s
        for s in saved.items.values()
        if (source is None or s.source == source) and (family is None or s.family == family)
    ]
    out = Update()
    logged = load_searches(root, today).items.values()
    out.not_api = sum(1 for x in logged if not x.saved and x.source not in NAMES)
    for s in chosen:
        try:
            out.outcomes.append(_one(root, s, since, until, today, max_pages, clock))
        except (ServiceError, SourceError) as exc:
            out.outcomes.append(Outcome(s.id, (since or s.start, until), "failed", str(exc)))
    out.seconds, out.politeness = time.monotonic() - started, clock.slept
    return out


def _one(
    root: Path,
    s: Saved,
    since: dt.date | None,
    until: dt.date,
    today: dt.date,
    max_pages: int,
    clock: Clock,
) -> Outcome:
    folder = _runs(root) / s.id
    state = _state(folder)
    searches = load_searches(root, today)
    if state is not None:  # a run killed before it was logged: finish its window
        window = (
            dt.date.fromisoformat(state["window"][0]),
            dt.date.fromisoformat(state["window"][1]),
        )
        if any(x.saved == s.id and x.window == window for x in searches.items.values()):
            shutil.rmtree(folder)  # logged, then killed before its pages were tidied away
            return Outcome(s.id, window, "up-to-date", "logged already")
    else:
        window = next_window(s, searches, until)
        if since is not None:
            window = (since, window[1])
        if window[0] > window[1]:
            return Outcome(s.id, window, "up-to-date", f"searched up to {window[1]}")
        state = {
            "saved": s.id,
            "window": [str(window[0]), str(window[1])],
            "pages": [],
            "next": None,
        }
    while state.get("next") is not None or not state["pages"]:
        if len(state["pages"]) >= max_pages:
            message = (
                f"{len(state['pages'])} pages and more to come: narrow the query or raise "
                "--max-pages; the pages are kept, and the next update goes on from there"
            )
            return Outcome(s.id, window, "capped", message, pages=len(state["pages"]))
        url, params, headers = services.request(s.source, s.query, window, state.get("next"))
        clock.wait(s.source)
        raw = services.fetch(url, params, headers)
        cursor, count = services.next_cursor(s.source, raw, state.get("next"))
        name = f"page-{len(state['pages']) + 1:03d}.raw"
        folder.mkdir(parents=True, exist_ok=True)
        write_file(folder / name, raw)
        page = {
            "file": name,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "url": services.query_url(url, params),
            "records": count,
        }
        state["pages"].append(page)
        state["next"] = cursor
        write_file(folder / "state.json", json.dumps(state).encode())
        if cursor is None:
            break
    imported = _log(root, s, window, folder, state, today)
    shutil.rmtree(folder)
    return Outcome(s.id, window, "logged", imported=imported, pages=len(state["pages"]))


def _log(
    root: Path,
    s: Saved,
    window: tuple[dt.date, dt.date],
    folder: Path,
    state: dict[str, Any],
    today: dt.date,
) -> Imported:
    """Import every page's records as one search of S, its manifest stored and hashed."""
    from ..model.corpus import load_corpus

    fmt = s.source
    found: list[Found] = []
    for n, page in enumerate(state["pages"], 1):
        raw = (folder / page["file"]).read_bytes()
        if hashlib.sha256(raw).hexdigest() != page["sha256"]:
            raise ServiceError(
                "search-unavailable", f"{folder / page['file']} changed since it was fetched"
            )
        for f in records(raw.decode("utf-8"), fmt, f"{s.id} page {n}", allow_empty=True):
            f.where = f"page {n}, {f.where}"
            found.append(f)
    manifest = {
        "saved": s.id,
        "source": s.source,
        "query": s.query,
        "window": state["window"],
        "pages": [{**p, "bytes": (folder / p["file"]).stat().st_size} for p in state["pages"]],
    }
    raw = json.dumps(manifest, indent=1).encode()
    with corpus_lock(root):
        logged = load_searches(root, today).items.values()
        if any(x.saved == s.id and x.window == window for x in logged):
            raise ServiceError(  # another update logged it meanwhile: never twice
                "search-refused", f"{s.id} {window[0]}..{window[1]} is logged already"
            )
        done = import_search(
            load_corpus(root),
            found,
            raw,
            f"{s.id}-{window[0]}-{window[1]}.json",
            fmt,
            s.query,
            today,
            NAMES[fmt],
            "database",
            s.family,
            extra={"saved": s.id, "window_from": str(window[0]), "window_to": str(window[1])},
            pages={p["file"]: (folder / p["file"]).read_bytes() for p in state["pages"]},
        )
    return done


def replay(root: Path, sid: str) -> list[Found]:
    """The records of logged search SID (a saved search's run) read again from the pages the
    store kept, without the network; refused when a page is missing or was changed."""
    store = below(root, STORE_DIR)
    try:
        manifest = json.loads((store / f"{sid}.raw").read_text(encoding="utf-8"))
        pages = manifest["pages"]
        source = manifest["source"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CommandError("search-refused", f"{sid}: no stored run to replay ({exc})") from exc
    found: list[Found] = []
    for n, page in enumerate(pages, 1):
        raw = (store / f"{sid}.pages" / str(page["file"])).read_bytes()
        if hashlib.sha256(raw).hexdigest() != page["sha256"]:
            raise CommandError("search-refused", f"{sid}: page {n} is not the page fetched")
        found += records(raw.decode("utf-8"), source, f"{sid} page {n}", allow_empty=True)
    return found
