"""The claims as readers read them: in the taxonomy's labels rather than field names, with the
entries they expect named by title, their verdict at their release beside the verdict on the
live corpus, and the gap-map cells each one speaks of (an empty cell only by a claim that finds
no entry there, which so explains it).

Reads the evaluated claims (analysis.claims) and the stats' gap tables; returns plain values
for the claims and gap-map templates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..analysis.claims import ClaimResult, verdicts
from ..model.taxonomy import Taxonomy
from ..model.views import GapTable

Segment = tuple[str, str | None]  # a run of text, and the address it links to (or None)
# Words of a claim's prose that are no field name, though they look like one ("so_called").
FIELD_NAME = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")


@dataclass(slots=True)
class ClaimView:
    id: str
    text: str
    boundary: list[Segment]
    snapshot: str  # a release's version, or "live"
    held: bool  # at its release (on the live corpus, for a live claim)
    expected: str
    actual: str
    expected_keys: list[str]  # the entries it names, when it names entries
    keys: list[str]  # the entries it found
    now: dict[str, Any] | None  # the live corpus's outcome, for a release's claim
    # held only as published: corrections of its release's records since change the verdict,
    # each {entry, field, was, now, date}
    revised: list[dict[str, str]] = field(default_factory=list)
    corrected: str = ""  # the verdict at its release on the corrected records
    corrected_keys: list[str] = field(default_factory=list)  # the entries that verdict found
    since: str = ""  # the first day after its release an entry breaking it appeared
    later: list[list[str]] = field(default_factory=list)  # [key, day] published after it
    missed: list[list[str]] = field(default_factory=list)  # [key, day] its search missed
    cells: list[dict[str, str]] = field(default_factory=list)  # gap cells it speaks of

    @property
    def differs(self) -> bool:
        """Whether the live corpus gives the other verdict."""
        return self.now is not None and bool(self.now["held"]) != self.held

    @property
    def verdicts(self) -> list[tuple[str, str]]:
        """[(state, label)] at its release and now, in the one vocabulary (analysis.claims)."""
        return verdicts(self.held, self.snapshot, bool(self.now["held"]) if self.now else None)

    @property
    def open_checks(self) -> list[str]:
        """The sentences of its boundary that name an open check."""
        text = "".join(t for t, _ in self.boundary)
        return [s.strip() for s in re.split(r"(?<=\.)\s+", text) if "open check" in s.lower()]


def reader_words(text: str, tax: Taxonomy, claim_ids: dict[str, str]) -> list[Segment]:
    """TEXT with each field name said by its label (orchestration_decisions: Orchestration
    sub-decisions learned) and each claim id made a link to that claim, its text as label."""
    names = {a.id: a.label for a in tax.axes.values()}
    for kind in tax.kinds.values():
        for f in kind.fields.values():
            names.setdefault(f.id, f.label or f.id.replace("_", " "))
    pattern = re.compile(
        r"\b(" + "|".join(re.escape(c) for c in sorted(claim_ids, key=len, reverse=True)) + r")\b"
        if claim_ids
        else r"(?!)"
    )
    out: list[Segment] = []
    pos = 0
    for m in pattern.finditer(text):
        out.append((_labels(text[pos : m.start()], names), None))
        out.append((f"\u201c{claim_ids[m.group(1)]}\u201d", f"#claim-{m.group(1)}"))
        pos = m.end()
    out.append((_labels(text[pos:], names), None))
    return [s for s in out if s[0]]


def _labels(text: str, names: dict[str, str]) -> str:
    return FIELD_NAME.sub(lambda m: names.get(m.group(0), m.group(0).replace("_", " ")), text)


def _speaks_of(where: dict[str, Any], view: GapTable) -> tuple[list[str], list[str]] | None:
    """The row and column values of VIEW a claim filtered by WHERE speaks of ([] for all of
    them), or None when it speaks of none: it must name the rows' or the columns' axis by a
    list of values, and may narrow, but not widen, the table's own filter."""
    if not any(isinstance(where.get(a), list) for a in (view.rows, view.cols)):
        return None
    for axis, cond in where.items():
        if not isinstance(cond, list):
            return None
        if axis in (view.rows, view.cols):
            continue
        scope = view.where.get(axis)
        if scope is not None and (not isinstance(scope, list) or not set(cond) <= set(scope)):
            return None
    return [str(v) for v in where.get(view.rows) or []], [
        str(v) for v in where.get(view.cols) or []
    ]


def _asserts_none(expect: dict[str, Any]) -> bool:
    """Whether a claim expects no entry at all (count eq 0, le 0 or lt 1)."""
    count = expect.get("count")
    return isinstance(count, dict) and (
        count.get("eq") == 0 or count.get("le") == 0 or count.get("lt") == 1
    )


def _correction(x: Any) -> dict[str, str]:
    return {"entry": x.entry, "field": x.field, "was": str(x.was), "now": str(x.now),
            "date": x.date}  # fmt: skip


def claim_views(
    results: list[ClaimResult], tax: Taxonomy, gaps: list[dict[str, Any]]
) -> list[ClaimView]:
    """Every evaluated claim for the site, each with the gap cells it speaks of."""
    titles = {r.claim.id: r.claim.text.rstrip(".") for r in results}
    views = {g.id: g for g in tax.views.gaps}
    out = []
    for r in results:
        c = r.claim
        expect = c.expect
        named = [str(k) for k in expect.get("keys") or []] or (
            [str(expect["entry"])] if "entry" in expect else []
        )
        view = ClaimView(
            c.id,
            c.text,
            reader_words(c.boundary, tax, {k: v for k, v in titles.items() if k != c.id}),
            c.snapshot,
            r.held,
            r.at.expected,
            r.published.actual if r.revised and r.published else r.at.actual,
            sorted(named),
            r.published.keys if r.revised and r.published else r.at.keys,
            r.now.to_dict() if r.now else None,
            [_correction(x) for x in c.corrections] if r.revised else [],
            r.at.actual if r.revised else "",
            r.at.keys if r.revised else [],
            r.since,
            [list(x) for x in r.later],
            [list(x) for x in r.missed],
        )
        for gap in gaps if c.kind == "paper" else []:
            spec = views.get(gap["id"])
            spoken = _speaks_of(c.where, spec) if spec else None
            if spoken is None:
                continue
            rows, cols = spoken
            for cell in gap["cells"]:
                if cell["state"] == "empty" and not _asserts_none(expect):
                    continue  # a claim that finds entries explains no empty cell
                if (not rows or cell["row"] in rows) and (not cols or cell["col"] in cols):
                    view.cells.append(
                        {
                            "gap": gap["id"],
                            "row": cell["row"],
                            "col": cell["col"],
                            "id": f"cell-{gap['id']}-{cell['row']}-{cell['col']}",
                            "state": cell["state"],
                        }
                    )
        out.append(view)
    return out


def claims_by_cell(views: list[ClaimView]) -> dict[str, list[ClaimView]]:
    """{cell id: the claims that speak of it}."""
    out: dict[str, list[ClaimView]] = {}
    for v in views:
        for cell in v.cells:
            out.setdefault(cell["id"], []).append(v)
    return out
