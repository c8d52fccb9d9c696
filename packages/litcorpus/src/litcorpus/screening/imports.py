"""Brings a search's results in: reads the export, removes what the corpus and the queue
already hold (each merge with its reason), logs the search in searches.yaml with its counts
computed, and queues the new records, all as one change.

Writes searches.yaml (a new item appended, the rest left byte for byte), screening/queue.jsonl
and screening/duplicates.jsonl (facts only), and, in the git-ignored store, the export as it
came and the abstracts of the queued records.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from surewrite.paths import below

from ..model.corpus import Corpus
from ..model.errors import CommandError
from ..model.queue import (
    DUPLICATES_FILE,
    QUEUE_FILE,
    Queue,
    dump_line,
    line_warnings,
    normalise,
    record_problems,
    usable_queue,
)
from ..model.searches import SEARCHES_FILE, Searches, load_searches
from ..model.text import option_problem
from ..publish.outputs import commit_changes
from ..sources.detect import decode, records
from ..sources.found import Found
from .dedupe import Matcher, Merge, known_records
from .store import Store

DATABASES = {
    "arxiv": "arXiv",
    "openalex": "OpenAlex",
    "semanticscholar": "Semantic Scholar",
    "crossref": "Crossref",
    "wos": "Web of Science",
    "medline": "PubMed",
}
HEADER = (
    "# Every search run to find records for the corpus: where, what, when, how many records it\n"
    "# returned and how many of them were duplicates removed before screening. Logged by\n"
    "# `litcorpus search import`, which computes the counts; `litcorpus check` verifies them.\n"
    "searches:\n"
)


@dataclass(slots=True)
class Imported:
    search: str
    found: int
    queued: list[str] = field(default_factory=list)
    merges: list[Merge] = field(default_factory=list)
    unscreenable: list[str] = field(default_factory=list)  # where each untitled record was
    warnings: list[str] = field(default_factory=list)  # each value dropped or changed, by record


class ImportRefused(CommandError):
    """The search cannot be imported; nothing was written."""


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def search_item(fields: dict[str, Any]) -> str:
    """One search as a block item of searches.yaml (every string quoted: nothing retyped)."""
    lines = []
    for i, (k, v) in enumerate(fields.items()):
        value = str(v) if isinstance(v, int) else _quoted(str(v))
        lines.append(f"  {'- ' if i == 0 else '  '}{k}: {value}")
    return "\n".join(lines) + "\n"


def _appended(root: Path, searches: Searches, item: str, fields: dict[str, Any]) -> bytes:
    """searches.yaml with ITEM appended, checked to read back as the old log plus FIELDS."""
    path = root / SEARCHES_FILE
    old = path.read_bytes() if path.exists() else b""
    text = old.decode("utf-8") if old else HEADER
    if text and not text.endswith("\n"):
        text += "\n"
    new = text + item
    try:
        logged = (yaml.safe_load(new) or {}).get("searches")
    except yaml.YAMLError:
        logged = None
    if (
        not isinstance(logged, list)
        or len(logged) != len(searches.items) + 1
        or logged[-1].get("id") != fields["id"]
    ):
        raise ImportRefused(
            "search-refused",
            f"{SEARCHES_FILE} does not end in its 'searches:' list in block form, so the new "
            "search cannot be appended; nothing was written",
            "write the list as '- id: S001' items, the last thing in the file",
        )
    return new.encode("utf-8")


def read_export(raw: bytes, name: str, fmt: str, allow_empty: bool = False) -> list[Found]:
    """The records of an export RAW (read as FMT), refused when it is not one."""
    return records(decode(raw, name), fmt, name, allow_empty)


def import_search(
    corpus: Corpus,
    found: list[Found],
    raw: bytes,
    name: str,
    fmt: str,
    query: str,
    date_run: dt.date,
    database: str = "",
    method: str = "database",
    family: str | None = None,
    today: dt.date | None = None,
    extra: dict[str, Any] | None = None,
    pages: dict[str, bytes] | None = None,
) -> Imported:
    """Log a search whose export RAW (FMT) holds FOUND, and queue its new records; FAMILY is
    the taxonomy's query family its exclusions will carry. EXTRA fields join the search's log
    entry (a saved search's run and window); PAGES (name: answer) are kept in the store with
    RAW, their manifest."""
    root, tax = corpus.root, corpus.taxonomy
    today = today or dt.date.today()
    family_axis = tax.views.screening.axes.get("family_axis", "")
    families = [v.id for v in tax.axes[family_axis].values] if family_axis in tax.axes else []
    if family is not None and family not in families:
        raise ImportRefused(
            "search-refused", f"'{family}' is not a query family", ", ".join(families), usage=True
        )
    if date_run > today:
        raise ImportRefused("search-refused", f"--date-run {date_run} lies in the future")
    if not query.strip():
        raise ImportRefused("search-refused", "--query is empty", "give the query as it was run")
    for option, value in (("--query", query), ("--database", database)):
        if (bad := option_problem(value)) is not None:
            raise ImportRefused("search-refused", f"{option} {bad}", "type it again", usage=True)
    searches = load_searches(root, today, tax.views.screening.axes.get("family_axis", ""))
    if searches.problems:
        p = searches.problems[0]
        raise ImportRefused(
            "search-refused",
            f"{p.path}:{p.line or 1}: {p.message}; fix it first (litcorpus check); "
            "nothing was written",
        )
    queue = usable_queue(root, tax, "search-refused")
    sid = f"S{1 + max((int(s[1:]) for s in searches.items), default=0):03d}"
    result = Imported(sid, len(found), warnings=line_warnings(queue))
    screenable = []
    for rec in found:  # every record made what the queue accepts, by the queue's own rules
        queued, said = normalise(rec.facts(), tax)
        result.warnings += [f"{rec.where}: {name}: {what}" for name, what in said]
        if queued is None:
            result.unscreenable.append(rec.where)
        else:
            clean = {k: queued[k] for k in ("title", "authors", "year", "date", "venue", "ids")}
            screenable.append((replace(rec, **clean, url=queued["url"]), queued))
    known = known_records(corpus, queue)
    matcher = Matcher(known, [k.title for k in known] + [f["title"] for _, f in screenable])
    new_items: dict[str, dict[str, Any]] = {}
    abstracts: dict[str, str] = {}
    n = queue.next_id()
    for rec, facts in screenable:
        qid = f"Q{n:04d}"
        merge = matcher.match(rec, qid)
        if merge is not None:
            result.merges.append(merge)
            _join(queue, new_items, merge)
            continue
        item = {"id": qid, "search": sid, **facts, "state": "pending"}
        if qid in matcher.possible:
            item["possible_duplicate"] = matcher.possible[qid]
            result.warnings.append(
                f"{rec.where}: its title is close to {matcher.possible[qid]}'s but their ids "
                "differ: queued, marked as a possible duplicate for the screener"
            )
        if problems := record_problems(item, tax):  # normalise keeps the rules: a last guard
            result.warnings += [f"{rec.where}: {k}: {what}; not queued" for k, what in problems]
            result.unscreenable.append(rec.where)
            continue
        new_items[qid] = item
        result.queued.append(qid)
        if rec.abstract:
            abstracts[qid] = rec.abstract
        n += 1
    digest = hashlib.sha256(raw).hexdigest()
    fields: dict[str, Any] = {
        "id": sid,
        "source": fmt,
        "database": database or DATABASES.get(fmt) or Path(name).name,
        "method": method,
        "query": query,
        "date_run": date_run.isoformat(),
        "records_found": len(found),
        "duplicates": len(result.merges),
        **({"unscreenable": len(result.unscreenable)} if result.unscreenable else {}),
        "file": name if "://" in name else Path(name).name,
        "sha256": digest,
    }
    if family:
        fields[family_axis] = family
    fields.update(extra or {})
    changes = {
        SEARCHES_FILE: _appended(root, searches, search_item(fields), fields),
        QUEUE_FILE: queue.to_bytes(list(new_items.values())),
        DUPLICATES_FILE: _existing(root / DUPLICATES_FILE)
        + b"".join(dump_line(_duplicate_line(sid, m)) for m in result.merges),
    }
    for rel in changes:  # no write through a link: refused before the store is written
        below(root, rel)
    Store(root).save_search(sid, Path(name).name, raw, abstracts, pages)
    commit_changes(root, changes)
    return result


def _join(queue: Queue, new_items: dict[str, dict[str, Any]], merge: Merge) -> None:
    """Give the kept queue record (queued before, or earlier in this file) what its duplicate
    adds: ids it lacked, a published version's venue."""
    if not merge.joined:
        return
    kept = queue.items.get(merge.of.where)
    data = kept.data if kept else new_items.get(merge.of.where)
    if data is None:
        return
    # the duplicate was normalised before it was matched: what it adds keeps the queue's rules
    data["ids"] = {**data.get("ids", {}), **merge.joined.get("ids", {})}
    if "venue" in merge.joined:
        data["venue"] = merge.joined["venue"]


def _duplicate_line(sid: str, m: Merge) -> dict[str, Any]:
    line: dict[str, Any] = {
        "search": sid,
        "title": m.found.title,
        "year": m.found.year,
        "ids": m.found.ids,
        "duplicate_of": m.of.where,
        "reason": m.reason,
    }
    if m.joined:
        line["joined"] = sorted(m.joined)
    return line


def _existing(path: Path) -> bytes:
    data = path.read_bytes() if path.exists() else b""
    return data if not data or data.endswith(b"\n") else data + b"\n"
