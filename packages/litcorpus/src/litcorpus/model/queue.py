"""Reads and writes the screening queue: screening/queue.jsonl, one record a line, and
screening/duplicates.jsonl, one line for each record a search import removed as a duplicate.

Both hold facts only (ids, title, authors, year, venue, the search that found the record, its
state and the decisions taken on it), never an abstract: abstracts and raw exports are others'
prose and stay in the git-ignored local store (screening/.store/). A queued record is
`pending` until a reviewer decides; `included` and `excluded` records name the file the
decision wrote; `maybe`, `awaiting` (one of two reviewers of the dual sample has decided) and
`conflict` (they disagree) wait for more; `set_aside` records were left unscreened by a
stopping rule (PRISMA 2020: marked ineligible by an automation tool); `not_retrieved` records
were sought but neither their full text nor their abstract could be read (PRISMA 2020: reports
not retrieved), with a note on where they were sought. A record whose title is close to
another's while their identifiers differ carries `possible_duplicate`, naming the other.

Every new record is made what the queue accepts by `normalise`, the loader's own rules; a line
the loader cannot take is a problem naming its line, kept as it is when the queue is written
again, never a lock on the rest.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from .errors import CommandError
from .problems import Problem
from .taxonomy import Taxonomy
from .text import hidden_removed, url_problem

QUEUE_DIR = "screening"
QUEUE_FILE = f"{QUEUE_DIR}/queue.jsonl"
DUPLICATES_FILE = f"{QUEUE_DIR}/duplicates.jsonl"
STORE_DIR = f"{QUEUE_DIR}/.store"
QUEUE_ID = re.compile(r"Q\d{4,}\Z")
STATES = (
    "pending",
    "maybe",
    "awaiting",
    "conflict",
    "included",
    "excluded",
    "set_aside",
    "not_retrieved",
)
OPEN_STATES = frozenset({"pending", "maybe", "awaiting", "conflict"})
DECISIONS = ("include", "maybe", "exclude")
_FIELDS = ("id", "search", "title", "authors", "year", "date", "venue", "ids", "url", "state")
_OPTIONAL = ("decisions", "record", "dual", "set_aside", "not_retrieved", "possible_duplicate")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_PARTIAL_DAY = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?\Z")  # as precise as known
_QUEUE_ID_IN = re.compile(rb'"id"\s*:\s*"Q(\d{4,})"')


@dataclass(slots=True)
class Queued:
    """One record in the queue; `line` is where it is in queue.jsonl (0: not yet written)."""

    data: dict[str, Any]
    line: int = 0

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def state(self) -> str:
        return str(self.data.get("state", "pending"))

    @property
    def decisions(self) -> list[dict[str, Any]]:
        return list(self.data.get("decisions") or [])


@dataclass(slots=True)
class Queue:
    items: dict[str, Queued] = field(default_factory=dict)
    duplicates: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # lines that are no record, kept as they are (by line number) until someone mends them:
    # a bad line is a problem to fix, never a lock on the rest of the queue
    kept: dict[int, bytes] = field(default_factory=dict)
    whole: bool = True  # False: the file itself could not be read (a link, unreadable)

    def next_id(self) -> int:
        """The number of the next queue id: past every id the queue names, its bad lines'
        too, so that a mended line never clashes with a record queued meanwhile."""
        taken = [int(q[1:]) for q in self.items]
        taken += [int(m) for line in self.kept.values() for m in _QUEUE_ID_IN.findall(line)]
        return 1 + max(taken, default=0)

    def open(self) -> list[Queued]:
        return [q for q in self.items.values() if q.state in OPEN_STATES]

    def to_bytes(self, new: Sequence[dict[str, Any]] = ()) -> bytes:
        """queue.jsonl's new content: the records and the kept bad lines in the order they
        stood, then NEW records."""
        lines = [(q.line or 1 << 62, dump_line(q.data)) for q in self.items.values()]
        lines += [(n, raw + b"\n") for n, raw in self.kept.items()]
        lines.sort(key=lambda pair: pair[0])
        return b"".join(raw for _, raw in lines) + b"".join(dump_line(i) for i in new)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"gives '{k}' twice")
        out[k] = v
    return out


def _lines(
    path: Path, rel: str, problems: list[Problem], kept: dict[int, bytes] | None = None
) -> list[tuple[int, dict[str, Any], bytes]] | None:
    """The JSON objects of PATH's lines; a line that is none is a problem (and kept as it is
    in KEPT). None when the file cannot be read at all."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        problems.append(Problem(rel, "queue-invalid", "is not a regular file; it is not read"))
        return None
    if not path.is_file():
        return []
    out = []
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problems.append(Problem(rel, "queue-invalid", f"cannot be read ({exc.strerror or exc})"))
        return None
    for n, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line.decode("utf-8"), object_pairs_hook=_unique)
            why = "" if isinstance(item, dict) else "it holds no JSON object"
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            why = str(exc)[:200]
        if why:
            message = f"line {n} is not a JSON object ({why})"
            problems.append(Problem(rel, "queue-invalid", message, n, None, None, _MEND))
            if kept is not None:
                kept[n] = line
            continue
        out.append((n, item, line))
    return out


_MEND = "mend or remove the line; the rest of the queue is read and written around it"


def load_queue(root: Path, tax: Taxonomy) -> Queue:
    """Read and check ROOT's queue and duplicate log (absent files: an empty queue)."""
    queue = Queue()
    for rel in (QUEUE_DIR, STORE_DIR):
        if (root / rel).is_symlink():
            message = "is a symbolic link; the queue is neither read nor written through one"
            queue.problems.append(Problem(f"{rel}/", "queue-invalid", message))
            queue.whole = False
            return queue
    lines = _lines(root / QUEUE_FILE, QUEUE_FILE, queue.problems, queue.kept)
    queue.whole = lines is not None
    for n, item, raw in lines or []:
        bad = record_problems(item, tax)
        qid = str(item.get("id", ""))
        if not bad and qid in queue.items:
            bad = [("id", f"record {qid} is queued twice (lines {queue.items[qid].line} and {n})")]
        for fld, message in bad:
            queue.problems.append(
                Problem(QUEUE_FILE, "queue-invalid", message, n, None, fld, _HINTS.get(fld))
            )
        if bad:
            queue.kept[n] = raw
        else:
            queue.items[qid] = Queued(item, n)
    for n, item, _ in _lines(root / DUPLICATES_FILE, DUPLICATES_FILE, queue.problems) or []:
        if not (isinstance(item.get("search"), str) and isinstance(item.get("title"), str)):
            queue.problems.append(
                Problem(DUPLICATES_FILE, "queue-invalid", f"line {n} needs search and title", n)
            )
            continue
        queue.duplicates.append(item)
    return queue


def usable_queue(root: Path, tax: Taxonomy, code: str) -> Queue:
    """ROOT's queue for a run that changes it: refused (CODE) only when the file as a whole
    cannot be read; its bad lines are problems (see `line_warnings`), kept as they are."""
    queue = load_queue(root, tax)
    if not queue.whole:
        p = queue.problems[0]
        raise CommandError(code, f"{p.path}: {p.message}; nothing was written", p.hint)
    return queue


def line_warnings(queue: Queue) -> list[str]:
    """One line for each problem of QUEUE's files, for a run that worked around them."""
    return [
        f"{p.path}:{p.line or 1}: {p.message}; kept as it is (litcorpus check lists it)"
        for p in queue.problems
    ]


_HINTS = {
    "state": "one of " + ", ".join(STATES),
    "decisions": "a list of {reviewer, decision, date} (reason and note for exclusions)",
    "ids": "scheme: id, as in a record's ids",
    "not_retrieved": "{by, date, note}, as litcorpus screen not-retrieved writes it",
}


def _text_ok(value: Any) -> bool:
    return isinstance(value, str) and not _CONTROL.search(value)


def record_problems(item: dict[str, Any], tax: Taxonomy) -> list[tuple[str, str]]:
    """(field, message) for each way ITEM is not a queued record."""
    try:
        return _problems_of(item, tax)
    except (TypeError, AttributeError, ValueError, KeyError) as exc:  # a value of a wrong kind
        return [("id", f"the record is not one the queue holds ({type(exc).__name__}: {exc})")]


def _problems_of(item: dict[str, Any], tax: Taxonomy) -> list[tuple[str, str]]:
    bad: list[tuple[str, str]] = []
    unknown = set(item) - set(_FIELDS) - set(_OPTIONAL)
    bad += [(k, f"unknown field '{k}'") for k in sorted(unknown)]
    if not QUEUE_ID.match(str(item.get("id", ""))):
        bad.append(("id", f"'{item.get('id')}' is not a queue id (Q0001, Q0002, ...)"))
    for k in ("search", "title", "venue", "url", "date"):
        if not _text_ok(item.get(k)):
            bad.append((k, f"'{k}' must be text without control characters"))
    if "possible_duplicate" in item and not _text_ok(item["possible_duplicate"]):
        bad.append(("possible_duplicate", "names a queue id or a record file, as text"))
    if not item.get("title"):
        bad.append(("title", "a queued record needs a title"))
    authors = item.get("authors")
    if not isinstance(authors, list) or not all(_text_ok(a) and a for a in authors):
        bad.append(("authors", "'authors' must be a list of names"))
    year = item.get("year")
    if year is not None and (
        not isinstance(year, int) or isinstance(year, bool) or not 1000 < year < 3000
    ):
        bad.append(("year", f"'{year}' is not a year"))
    ids = item.get("ids")
    if not isinstance(ids, dict):
        bad.append(("ids", "'ids' must be a mapping"))
    else:
        for scheme, ident in ids.items():
            spec = tax.id_schemes.get(scheme)
            if spec is None or not isinstance(ident, str) or not spec.pattern.match(ident):
                bad.append(("ids", f"'{scheme}: {ident}' is not a valid identifier"))
    state = item.get("state")
    if state not in STATES:
        bad.append(("state", f"'{state}' is not a queue state"))
    decisions = item.get("decisions") or []
    if not isinstance(decisions, list):
        bad.append(("decisions", "'decisions' must be a list"))
        decisions = []
    reason_axis = tax.views.screening.axes.get("reason_axis", "") if decisions else ""
    reasons = {v.id for v in tax.axes[reason_axis].values} if reason_axis in tax.axes else set()
    for i, d in enumerate(decisions):
        if not (
            isinstance(d, dict)
            and d.get("decision") in DECISIONS
            and _text_ok(d.get("reviewer"))
            and d.get("reviewer")
            and _DAY.match(str(d.get("date", "")))
            and (d["decision"] != "exclude" or d.get(reason_axis) in reasons)
            and all(_text_ok(d[k]) for k in ("note",) if k in d)
        ):
            bad.append(("decisions", f"decision {i + 1} is not a valid decision"))
    if state in ("included", "excluded") and not isinstance(item.get("record"), str):
        bad.append(("record", f"a record that is {state} names the file its decision wrote"))
    sought = item.get("not_retrieved")  # kept once the record is found later, as history
    if (state == "not_retrieved" or sought is not None) and not (
        isinstance(sought, dict)
        and all(_text_ok(sought.get(k)) and sought.get(k) for k in ("by", "date", "note"))
        and _DAY.match(str(sought["date"]))
    ):
        bad.append(("not_retrieved", "says by whom, when and where the record was sought"))
    return bad


def dump_line(item: dict[str, Any]) -> bytes:
    return orjson.dumps(item) + b"\n"


def normalise(
    facts: dict[str, Any], tax: Taxonomy
) -> tuple[dict[str, Any] | None, list[tuple[str, str]]]:
    """A found record's FACTS (title, authors, year, date, venue, ids, url) made into what the
    queue accepts, by the rules its loader checks: control and bidirectional characters
    removed, and each value that still breaks a rule dropped. Returns the queue's fields and
    (field, what was done) for each change; the fields are None when no title is left, as
    such a record cannot be screened."""
    said: list[tuple[str, str]] = []

    def plain(name: str, value: Any) -> str:
        if not isinstance(value, str):
            if value not in (None, ""):
                said.append((name, f"'{value!r:.40}' is not text; dropped"))
            return ""
        clean, hidden = hidden_removed(value)
        if hidden:
            said.append((name, f"{hidden} control or bidirectional characters removed"))
        return clean.strip()

    title = plain("title", facts.get("title"))
    if not title:
        return None, said
    authors = [plain("authors", a) for a in facts.get("authors") or [] if isinstance(a, str)]
    unnamed = len(facts.get("authors") or []) - sum(1 for a in authors if a)
    if unnamed:
        said.append(("authors", f"{unnamed} author(s) without a name dropped"))
    year = facts.get("year")
    if year is not None and not (
        isinstance(year, int) and not isinstance(year, bool) and 1000 < year < 3000
    ):
        said.append(("year", f"'{year!s:.20}' is not a year; dropped"))
        year = None
    date = plain("date", facts.get("date"))
    if date and not _partial_day(date):
        said.append(("date", f"'{date:.20}' is not a date (YYYY[-MM[-DD]]); dropped"))
        date = ""
    ids: dict[str, str] = {}
    for scheme, ident in (facts.get("ids") or {}).items():
        spec = tax.id_schemes.get(scheme)
        if spec is not None and isinstance(ident, str) and spec.pattern.match(ident):
            ids[scheme] = ident
        else:
            shown, _ = hidden_removed(str(ident))
            said.append(
                ("ids", f"'{scheme}: {shown:.60}' is no identifier the taxonomy knows; dropped")
            )
    url = facts.get("url") or ""
    if url and (not isinstance(url, str) or url_problem(url) is not None):
        shown, _ = hidden_removed(str(url))
        said.append(("url", f"'{shown:.60}' is not an http(s) address; dropped"))
        url = ""
    if not url:  # the address of the first identifier left, as the taxonomy writes it
        url = next(
            (
                tax.id_schemes[s].url.format(id=quote(i, safe="/:;()._-"))
                for s, i in ids.items()
                if tax.id_schemes[s].url
            ),
            "",
        )
        url = url if url_problem(url) is None else ""
    fields = {
        "title": title,
        "authors": [a for a in authors if a],
        "year": year,
        "date": date,
        "venue": plain("venue", facts.get("venue")),
        "ids": ids,
        "url": url,
    }
    return fields, said


def _partial_day(text: str) -> bool:
    m = _PARTIAL_DAY.match(text)
    if m is None or not 1000 < int(m.group(1)) < 3000:
        return False
    month, day = int(m.group(2) or 1), int(m.group(3) or 1)
    try:
        dt.date(int(m.group(1)), month, day)
    except ValueError:
        return False
    return True
