"""Reads claims.yaml: the survey's claims as queries, and the screening flow it declares.

A claim selects records with a filter (see query) and states an expectation: a count, an exact
set of keys, or tags a named entry must carry. `load_claims` checks every claim against the
taxonomy and keeps the well-formed ones; analysis.claims evaluates them. A claim, and the
declared flow, list the corrections made since their release, so that what was published stays
checkable after a record is retagged or decided again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .corpus import Corpus
from .problems import Problem
from .query import NUMERIC, Where, filter_problems
from .releases import LIVE, RELEASES_FILE
from .sections import Section, text_problems
from .taxonomy import Taxonomy
from .yamlio import Document, FieldPath, read_document

CLAIMS_FILE = "claims.yaml"
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
ALL_KINDS = "all"  # a claim over every record kind (a headline count)
MOVED = "kind"  # a correction's field when the record moved to another kind since the release
CLAIM_FIELDS = ("id", "text", "boundary", "snapshot", "kind", "where", "expect", "corrections")
CORRECTION_FIELDS = ("date", "entry", "field", "was", "now", "why")
FLOW_STAGE = "left_at"  # a flow's correction of a record excluded then: the stage it left at
TOP_FIELDS = ("claims", "prisma")
FORMS = "count: {eq: n}, keys: [..], or entry: key with has: {axis: value}"


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    text: str
    boundary: str
    snapshot: str  # a release's version, or "live"
    kind: str
    where: Where
    expect: dict[str, Any]
    # corrections of the release's own records made since: (entry, field, value as published)
    corrections: tuple[Correction, ...] = ()


@dataclass(frozen=True, slots=True)
class Correction:
    """A later correction of a record the claim's release holds: the claim's published verdict
    rests on the value the record had then."""

    date: str
    entry: str
    field: str
    was: Any
    now: Any
    why: str
    left_at: str = ""  # a declared flow's: the screening stage an exclusion left the flow at


@dataclass(slots=True)
class ClaimsFile:
    doc: Document = field(default_factory=Document)
    claims: list[Claim] = field(default_factory=list)
    prisma: dict[str, Any] | None = None  # the screening flow the survey declares
    # records decided again since the flow's release: counted as they stood when it was declared
    flow_corrections: tuple[Correction, ...] = ()
    problems: list[Problem] = field(default_factory=list)


def load_claims(corpus: Corpus) -> ClaimsFile:
    """Read and check claims.yaml below the corpus root (an absent file holds no claims)."""
    file = corpus.root / CLAIMS_FILE
    out = ClaimsFile()
    if not file.exists():
        return out
    out.doc = doc = read_document(file, CLAIMS_FILE, root=corpus.root)
    out.problems += doc.problems
    if doc.data is None:
        return out
    out.problems += text_problems(doc, CLAIMS_FILE)
    r = Section(doc, CLAIMS_FILE, "claim-invalid")
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("claims", []), list):
        r.bad((), "claims.yaml holds a mapping with a 'claims' list")
        out.problems += r.problems
        return out
    r.known(data, (), TOP_FIELDS, "claims.yaml")
    tax = corpus.taxonomy
    keys = {kind: {rec.stem for rec in corpus.of(kind)} for kind in tax.kinds}
    snapshots = [rel.version for rel in corpus.releases.items]
    # a corpus as it stood at a release knows nothing of the claims of later releases
    day = corpus.as_of_day
    later = {rel.version for rel in corpus.releases.items if day and rel.date > day}
    seen: set[str] = set()
    for i, raw in enumerate(data.get("claims") or []):
        if isinstance(raw, dict) and raw.get("snapshot") in later:
            continue
        path: FieldPath = ("claims", i)
        claim = _claim(r, raw, path, corpus, keys, snapshots, seen)
        if claim is not None:
            out.claims.append(claim)
    prisma = data.get("prisma")
    if prisma is not None:
        if isinstance(prisma, dict) and _snapshot_ok(
            r, prisma.get("snapshot"), ("prisma", "snapshot"), snapshots
        ):
            out.prisma = prisma
            out.flow_corrections = _flow_corrections(r, prisma.get("corrections"), corpus)
        elif not isinstance(prisma, dict):
            r.bad(("prisma",), "prisma is a mapping of the flow's boxes")
    out.problems += r.problems
    return out


def _flow_corrections(r: Section, raw: Any, corpus: Corpus) -> tuple[Correction, ...]:
    """A declared flow's corrections: records moved to another kind since its release (the
    only change that moves a box), each an exclusion then naming the stage it left at."""
    path: FieldPath = ("prisma", "corrections")
    if raw is None:
        return ()
    shape = "{date, entry, field: kind, was, now, why}, and left_at (a stage) for an exclusion"
    if not isinstance(raw, list):
        r.bad(path, f"corrections is a list of {shape}")
        return ()
    views = corpus.taxonomy.views.prisma
    stages = corpus.taxonomy.axes[views["stage_axis"]].current_ids if views else []
    out = []
    for i, c in enumerate(raw):
        where = (*path, i)
        excluded = isinstance(c, dict) and c.get("was") == views.get("kind")
        wanted = {*CORRECTION_FIELDS, FLOW_STAGE} if excluded else set(CORRECTION_FIELDS)
        if not isinstance(c, dict) or set(c) != wanted or c["field"] != MOVED:
            r.bad(where, f"a flow's correction is {shape}")
            continue
        if not DAY.fullmatch(str(c["date"])):
            r.bad((*where, "date"), f"'{c['date']}' is not a day", "YYYY-MM-DD")
            continue
        if excluded and c[FLOW_STAGE] not in stages:
            r.problem((*where, FLOW_STAGE), "unknown-value",
                      f"'{c[FLOW_STAGE]}' is not a screening stage",
                      f"one of: {', '.join(stages)}")  # fmt: skip
            continue
        if _moved_ok(r, c, where, corpus):
            out.append(_moved(c, str(c.get(FLOW_STAGE, ""))))
    return tuple(out)


def _moved(c: dict[str, Any], left_at: str = "") -> Correction:
    """The correction C of a record moved to another kind (checked by _moved_ok)."""
    return Correction(str(c["date"]), str(c["entry"]), MOVED, str(c["was"]), str(c["now"]),
                      str(c["why"]), left_at)  # fmt: skip


def _snapshot_ok(r: Section, value: Any, path: FieldPath, snapshots: list[str]) -> bool:
    if value == LIVE or value in snapshots:
        return True
    r.problem(
        path,
        "missing-field" if value is None else "unknown-value",
        "a claim or flow names the release it speaks of, or live"
        if value is None
        else f"'{value}' is not a release in {RELEASES_FILE}",
        f"one of: {', '.join([*snapshots, LIVE])}",
    )
    return False


def _claim(
    r: Section,
    raw: Any,
    path: FieldPath,
    corpus: Corpus,
    keys: dict[str, set[str]],
    snapshots: list[str],
    seen: set[str],
) -> Claim | None:
    """One claim, when it is well formed (its problems recorded in R either way)."""
    tax = corpus.taxonomy
    if not isinstance(raw, dict):
        r.bad(path, "a claim is a mapping")
        return None
    r.known(raw, path, CLAIM_FIELDS, "claim")
    cid, kind = raw.get("id"), raw.get("kind", next(iter(tax.kinds), ""))
    if cid is None or cid == "":
        r.bad(path, "a claim needs an id")
        return None
    if not r.safe_id((*path, "id"), cid, "claim id"):  # it names an anchor and a table row
        return None
    if cid in seen:
        r.bad((*path, "id"), f"claim id '{cid}' is used twice")
    seen.add(cid)
    before = len(r.problems)
    for name in ("text", "boundary"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            r.problem(path, "missing-field", f"claim '{cid}' needs a {name}")
    _snapshot_ok(r, raw.get("snapshot"), (*path, "snapshot"), snapshots)
    if kind == ALL_KINDS:
        if raw.get("where") or set(raw.get("expect") or {}) != {"count"}:
            r.bad((*path, "kind"), "kind 'all' counts every record: no where, only count")
            return None
    elif kind not in tax.kinds:
        r.bad(
            (*path, "kind"),
            f"unknown record kind '{kind}'",
            f"one of: {', '.join([*tax.kinds, ALL_KINDS])}",
        )
        return None
    where = raw.get("where") or {}
    if kind != ALL_KINDS:
        filter_problems(where, tax, kind, r, (*path, "where"))
    expect: Any = raw.get("expect")
    if not _expect_ok(r, expect, kind, keys.get(kind, set()), tax, (*path, "expect")):
        return None
    if len(r.problems) > before:  # only well-formed claims are evaluated
        return None
    corrections = _corrections(r, raw.get("corrections"), (*path, "corrections"), corpus, kind)
    if len(r.problems) > before:
        return None
    text, boundary = str(raw["text"]), str(raw["boundary"])
    snapshot = str(raw["snapshot"])
    return Claim(cid, text, boundary, snapshot, kind, where, dict(expect), corrections)


def _corrections(
    r: Section, raw: Any, path: FieldPath, corpus: Corpus, kind: str
) -> tuple[Correction, ...]:
    """The declared corrections, each naming a record of KIND whose FIELD is now NOW."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        r.bad(path, "corrections is a list of {date, entry, field, was, now, why}")
        return ()
    records = {rec.stem: rec.data for rec in corpus.of(kind)}
    out = []
    for i, c in enumerate(raw):
        where = (*path, i)
        if not isinstance(c, dict) or set(c) != set(CORRECTION_FIELDS):
            r.bad(where, "a correction is {date, entry, field, was, now, why}")
            continue
        if not DAY.fullmatch(str(c["date"])):
            r.bad((*where, "date"), f"'{c['date']}' is not a day", "YYYY-MM-DD")
        if c["field"] == MOVED:
            if _moved_ok(r, c, where, corpus):
                out.append(_moved(c))
            continue
        entry = records.get(str(c["entry"]))
        if entry is None:
            r.bad((*where, "entry"), f"'{c['entry']}' is not a {kind} in the corpus")
            continue
        if entry.get(str(c["field"])) != c["now"]:
            r.bad(
                (*where, "now"),
                f"{c['entry']}'s {c['field']} is {entry.get(str(c['field']))!r}, "
                f"not {c['now']!r} as the correction says",
            )
            continue
        out.append(Correction(str(c["date"]), str(c["entry"]), str(c["field"]), c["was"],
                              c["now"], str(c["why"])))  # fmt: skip
    return tuple(out)


def _moved_ok(r: Section, c: dict[str, Any], where: FieldPath, corpus: Corpus) -> bool:
    """A record moved to another kind since the release (an entry withdrawn to an exclusion,
    or the reverse): `was` is its kind then, `now` names the record it is now as kind:key,
    and no record of the old kind holds its key any more."""
    kinds = corpus.taxonomy.kinds
    now_kind, _, now_key = str(c["now"]).partition(":")
    if c["was"] not in kinds:
        r.bad((*where, "was"), f"'{c['was']}' is not a record kind", f"one of: {', '.join(kinds)}")
        return False
    # a past release's view may not hold the record yet: the live corpus is checked for it
    live = corpus.as_of_day is None
    if now_kind not in kinds or (live and now_key not in {rec.stem for rec in corpus.of(now_kind)}):
        r.bad((*where, "now"), f"'{c['now']}' names no record of the corpus",
              "kind:key of the record it is now, e.g. exclusion:E383")  # fmt: skip
        return False
    if str(c["entry"]) in {rec.stem for rec in corpus.of(str(c["was"]))}:
        r.bad((*where, "entry"), f"'{c['entry']}' is still a {c['was']} of the corpus")
        return False
    return True


def _expect_ok(
    r: Section, expect: Any, kind: str, known: set[str], tax: Taxonomy, path: FieldPath
) -> bool:
    if not isinstance(expect, dict) or not ({"count", "keys", "entry"} & set(expect)):
        r.bad(path, "a claim needs an expectation", FORMS)
        return False
    if "count" in expect:
        count = expect["count"]
        if (
            not isinstance(count, dict)
            or not count
            or any(op not in NUMERIC or not isinstance(n, int) for op, n in count.items())
        ):
            r.bad(
                (*path, "count"),
                "count takes comparisons with whole numbers",
                "e.g. count: {le: 2}",
            )
            return False
    listed = list(expect.get("keys") or [])
    if "entry" in expect:
        listed.append(expect["entry"])
        has = expect.get("has")
        if not isinstance(has, dict) or not has:
            r.bad((*path, "has"), "entry needs has: {axis: value}")
            return False
        as_filter = {a: {"all": v if isinstance(v, list) else [v]} for a, v in has.items()}
        filter_problems(as_filter, tax, kind, r, (*path, "has"))
    for key in listed:
        if key not in known:
            r.bad(path, f"'{key}' is not a {kind} in the corpus")
    return True
