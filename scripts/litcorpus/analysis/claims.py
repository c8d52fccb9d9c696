"""Reads claims.yaml and evaluates the survey's claims against the corpus.

A claim selects records with a filter (see `query`) and states an expectation: a count, an
exact set of keys, or tags a named entry must carry. `claim_problems` checks the file against
the taxonomy (for `check`); `evaluate` says, per claim, whether it held and which entries
stand behind it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model.corpus import Corpus, load_corpus
from ..model.problems import Problem
from ..model.query import NUMERIC, Where, filter_problems, matches
from ..model.yamlio import Document, FieldPath, read_document

CLAIMS_FILE = "claims.yaml"
ALL_KINDS = "all"  # a claim over every record kind (a headline count)
CLAIM_FIELDS = ("id", "text", "boundary", "kind", "where", "expect")
SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    text: str
    boundary: str
    kind: str
    where: Where
    expect: dict[str, Any]


@dataclass(slots=True)
class ClaimsFile:
    doc: Document = field(default_factory=Document)
    claims: list[Claim] = field(default_factory=list)
    prisma: dict[str, Any] | None = None
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ClaimResult:
    claim: Claim
    held: bool
    expected: str
    actual: str
    keys: list[str]

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id,
            "text": c.text,
            "boundary": c.boundary,
            "held": self.held,
            "expected": self.expected,
            "actual": self.actual,
            "keys": self.keys,
        }


def load_claims(corpus: Corpus) -> ClaimsFile:
    """Read and check claims.yaml below the corpus root (an absent file holds no claims)."""
    file = corpus.root / CLAIMS_FILE
    out = ClaimsFile()
    if not file.exists():
        return out
    out.doc = doc = read_document(file, CLAIMS_FILE)
    out.problems += doc.problems
    tax = corpus.taxonomy
    default_kind = next(iter(tax.kinds), "")

    def bad(
        p: FieldPath, message: str, hint: str | None = None, code: str = "claim-invalid"
    ) -> None:
        line, col = doc.where(p)
        out.problems.append(
            Problem(CLAIMS_FILE, code, message, line, col, ".".join(map(str, p)) or None, hint)
        )

    data = doc.data
    if data is None:
        return out
    if not isinstance(data, dict) or not isinstance(data.get("claims", []), list):
        bad((), "claims.yaml holds a mapping with a 'claims' list")
        return out
    keys = {kind: {r.stem for r in corpus.of(kind)} for kind in tax.kinds}
    seen: set[str] = set()
    for i, raw in enumerate(data.get("claims") or []):
        path: FieldPath = ("claims", i)
        if not isinstance(raw, dict):
            bad(path, "a claim is a mapping")
            continue
        for name in raw:
            if name not in CLAIM_FIELDS:
                bad(
                    (*path, name),
                    f"unknown claim field '{name}'",
                    f"allowed: {', '.join(CLAIM_FIELDS)}",
                    "unknown-field",
                )
        cid, kind = raw.get("id"), raw.get("kind", default_kind)
        if not isinstance(cid, str) or not cid:
            bad(path, "a claim needs an id")
            continue
        if cid in seen:
            bad((*path, "id"), f"claim id '{cid}' is used twice")
        seen.add(cid)
        for name in ("text", "boundary"):
            if not isinstance(raw.get(name), str) or not raw[name].strip():
                bad(path, f"claim '{cid}' needs a {name}", code="missing-field")
        if kind == ALL_KINDS:
            if raw.get("where") or set(raw.get("expect") or {}) != {"count"}:
                bad((*path, "kind"), "kind 'all' counts every record: no where, only count")
                continue
        elif kind not in tax.kinds:
            bad(
                (*path, "kind"),
                f"unknown record kind '{kind}'",
                f"one of: {', '.join([*tax.kinds, ALL_KINDS])}",
            )
            continue
        before = len(out.problems)
        where = raw.get("where") or {}
        if kind != ALL_KINDS:
            out.problems += filter_problems(where, tax, kind, doc, (*path, "where"), CLAIMS_FILE)
        expect: Any = raw.get("expect")
        ok = _expect_ok(expect, kind, keys.get(kind, set()), tax, doc, (*path, "expect"), bad, out)
        if ok and len(out.problems) == before:  # only well-formed claims are evaluated
            text, boundary = str(raw.get("text", "")), str(raw.get("boundary", ""))
            out.claims.append(Claim(cid, text, boundary, kind, where, dict(expect)))
    prisma = data.get("prisma")
    out.prisma = prisma if isinstance(prisma, dict) else None
    return out


def _expect_ok(
    expect: Any,
    kind: str,
    known: set[str],
    tax: Any,
    doc: Document,
    path: FieldPath,
    bad: Any,
    out: ClaimsFile,
) -> bool:
    forms = "count: {eq: n}, keys: [..], or entry: key with has: {axis: value}"
    if not isinstance(expect, dict) or not ({"count", "keys", "entry"} & set(expect)):
        bad(path, "a claim needs an expectation", forms)
        return False
    if "count" in expect:
        count = expect["count"]
        if (
            not isinstance(count, dict)
            or not count
            or any(op not in NUMERIC or not isinstance(n, int) for op, n in count.items())
        ):
            bad(
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
            bad((*path, "has"), "entry needs has: {axis: value}")
            return False
        as_filter = {a: {"all": v if isinstance(v, list) else [v]} for a, v in has.items()}
        out.problems.extend(filter_problems(as_filter, tax, kind, doc, (*path, "has"), CLAIMS_FILE))
    for key in listed:
        if key not in known:
            bad(path, f"'{key}' is not a {kind} in the corpus", code="claim-invalid")
    return True


def evaluate(claims: list[Claim], corpus: Corpus) -> list[ClaimResult]:
    data = {kind: {r.stem: r.data for r in corpus.of(kind)} for kind in corpus.taxonomy.kinds}
    data[ALL_KINDS] = {r.path: r.data for r in corpus}
    return [evaluate_one(c, data[c.kind]) for c in claims]


def evaluate_one(claim: Claim, records: dict[str, dict[str, Any]]) -> ClaimResult:
    hits = sorted(k for k, d in records.items() if matches(d, claim.where))
    expect = claim.expect
    if "entry" in expect:
        key, has = expect["entry"], expect["has"]
        entry = records.get(key, {})
        want = {a: {"all": v if isinstance(v, list) else [v]} for a, v in has.items()}
        held = key in records and matches(entry, want) and (not claim.where or key in hits)
        shown = ", ".join(f"{a}={v}" for a, v in has.items())
        actual = ", ".join(f"{a}={entry.get(a)}" for a in has)
        return ClaimResult(claim, held, f"{key} has {shown}", actual, [key])
    if "keys" in expect:
        want_keys = sorted(map(str, expect["keys"]))
        return ClaimResult(
            claim,
            hits == want_keys,
            f"entries == {{{', '.join(want_keys)}}}",
            f"{{{', '.join(hits)}}}",
            hits,
        )
    count = expect["count"]
    held = all(NUMERIC[op](len(hits), n) for op, n in count.items())
    expected = " and ".join(f"count {SYMBOLS[op]} {n}" for op, n in count.items())
    return ClaimResult(claim, held, expected, f"count = {len(hits)}", hits)


def claims_report(root: Path) -> tuple[list[ClaimResult], list[Problem]]:
    """Load the corpus and evaluate claims.yaml (what `litcorpus claims` runs)."""
    corpus = load_corpus(root)
    loaded = load_claims(corpus)
    errors = [p for p in loaded.problems if p.severity == "error"]
    return evaluate(loaded.claims, corpus), errors
