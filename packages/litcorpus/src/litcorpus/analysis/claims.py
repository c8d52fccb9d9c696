"""Evaluates the survey's claims (read by model.claimsfile) against the corpus.

A claim speaks of a release (the survey's snapshot, say) or of the live corpus. It is
evaluated on the records added up to its release, with their tags as they are now, so that
a later retag can still break it while a later addition cannot; a release's claim is also
evaluated on the live corpus, to say whether it still holds. Outcomes are worded plainly:
"no entry", "at most 2 entries", "exactly c3 and debate-as-reward".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..model.claimsfile import ALL_KINDS, MOVED, Claim
from ..model.corpus import Corpus
from ..model.naming import plain_value
from ..model.query import NUMERIC, matches
from ..model.releases import LIVE

_BOUNDS = {"eq": "", "ne": "other than ", "lt": "fewer than ", "le": "at most ",
           "gt": "more than ", "ge": "at least "}  # fmt: skip


def entries(n: int) -> str:
    return "no entry" if n == 0 else "1 entry" if n == 1 else f"{n:,} entries"


def _listed(keys: list[str]) -> str:
    return ", ".join(keys) if keys else "none"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One evaluation of a claim: whether it held, what it expects and what was found."""

    held: bool
    expected: str
    actual: str
    keys: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "held": self.held,
            "expected": self.expected,
            "actual": self.actual,
            "keys": self.keys,
        }


# One vocabulary for a claim's verdicts wherever they are shown (the claims command, the README,
# stats/README.md, the claims page and the gap map): a state, which is also the colour (green
# held, orange broken; MARKS in Markdown, where no style reaches), and a label.
MARKS = {"held": "\U0001f7e2", "broken": "\U0001f7e0"}


def verdicts(held: bool, snapshot: str, now_held: bool | None) -> list[tuple[str, str]]:
    """[(state, label)]: the verdict at its release ("Held at 2026.05", "Broken at 2026.05"),
    then on the live corpus ("Holds now", "No longer holds", "Broken now"); a live claim has
    only the second."""
    if snapshot == LIVE:
        return [("held", "Holds now") if held else ("broken", "Broken now")]
    out = [("held", f"Held at {snapshot}") if held else ("broken", f"Broken at {snapshot}")]
    if now_held is not None:
        now = "Holds now" if now_held else "No longer holds" if held else "Broken now"
        out.append(("held" if now_held else "broken", now))
    return out


def marked(pairs: list[tuple[str, str]]) -> str:
    """The verdicts in Markdown: 'MARK **label**', joined by ', '."""
    return ", ".join(f"{MARKS[state]} **{label}**" for state, label in pairs)


@dataclass(frozen=True, slots=True)
class ClaimResult:
    claim: Claim
    at: Outcome  # at the claim's release (the live corpus, for a live claim)
    now: Outcome | None = None  # on the live corpus, for a release's claim
    # at the claim's release with its declared corrections undone: the verdict as published
    published: Outcome | None = None
    # entries the live corpus adds to its hits: published after its release (by day), and
    # before it (work the release's search missed), each as (key, day)
    later: tuple[tuple[str, str], ...] = ()
    missed: tuple[tuple[str, str], ...] = ()

    @property
    def since(self) -> str:
        """The first day after its release that an entry breaking it appeared."""
        return self.later[0][1] if self.later else ""

    @property
    def held(self) -> bool:
        """Whether the claim stands as published: it holds at its release, or it did on the
        records as they were and only a declared correction changed that."""
        return self.at.held or (self.published is not None and self.published.held)

    @property
    def revised(self) -> bool:
        return not self.at.held and self.held

    @property
    def verdicts(self) -> list[tuple[str, str]]:
        return verdicts(self.held, self.claim.snapshot, self.now.held if self.now else None)

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id,
            "text": c.text,
            "boundary": c.boundary,
            "snapshot": c.snapshot,
            **self.at.to_dict(),
            "held": self.held,
            "revised": self.revised,
            "published": self.published.to_dict() if self.published else None,
            "corrections": [asdict(x) for x in c.corrections],
            "now": self.now.to_dict() if self.now else None,
            "since": self.since or None,
            "later": [list(x) for x in self.later],
            "missed": [list(x) for x in self.missed],
        }

    def summary(self) -> str:
        """'Held at 2026.05 (no entry); Holds now (no entry)', or for a live claim
        'Holds now (no entry)': the verdicts' labels, each with what was found."""
        first, *rest = self.verdicts
        at = first[1]
        if self.revised and self.published is not None:
            fixed = ", ".join(
                f"{x.entry} {x.field} {x.was} to {x.now} ({x.date})" for x in self.claim.corrections
            )
            at = (
                f"{at} as published ({self.published.actual}); "
                f"the corrections since ({fixed}) change it to"
            )
        text = f"{at} ({self.at.actual})"
        if self.now is not None:
            since = f" since {self.since}" if self.since and not self.now.held else ""
            text += f"; {rest[0][1]}{since} ({self.now.actual})"
            if self.missed and not self.now.held:
                text += (
                    f"; {len(self.missed)} of the entries added since were published "
                    f"before {self.claim.snapshot} and missed by its search"
                )
        return text


def _records(corpus: Corpus) -> dict[str, dict[str, dict[str, Any]]]:
    data = {kind: {r.stem: r.data for r in corpus.of(kind)} for kind in corpus.taxonomy.kinds}
    data[ALL_KINDS] = {r.path: r.data for r in corpus}
    return data


def evaluate(claims: list[Claim], corpus: Corpus) -> list[ClaimResult]:
    """Each claim at its release and, for a release's claim, on CORPUS as it is."""
    live = _records(corpus)
    paths = {f"{r.kind}:{r.stem}": r.path for r in corpus}  # a moved record's key, all kinds
    views: dict[str, dict[str, dict[str, dict[str, Any]]]] = {LIVE: live}
    cutoffs = {LIVE: ""}
    for release in corpus.releases.items:
        views[release.version] = _records(corpus.at(release))
        cutoffs[release.version] = str(release.date)
    out = []
    for c in claims:
        view = views.get(c.snapshot, live)[c.kind]
        at = evaluate_one(c, view)
        published = evaluate_one(c, _undone(view, c, paths)) if c.corrections else None
        now = None if c.snapshot == LIVE else evaluate_one(c, live[c.kind])
        history = _added_since(at, now, live[c.kind], cutoffs[c.snapshot]) if now else ((), ())
        out.append(ClaimResult(c, at, now, published, *history))
    return out


def _undone(
    records: dict[str, dict[str, Any]], claim: Claim, paths: dict[str, str]
) -> dict[str, dict[str, Any]]:
    """RECORDS with the claim's corrections undone: the values its release published. A
    record moved to another kind since is counted as the kind it was (its present data stand
    for it), and not as the kind it is now."""
    out = dict(records)
    every = claim.kind == ALL_KINDS
    for x in claim.corrections:
        if x.field != MOVED:
            if x.entry in out:
                out[x.entry] = {**out[x.entry], x.field: x.was}
            continue
        now_kind, _, now_key = str(x.now).partition(":")
        present = paths.get(str(x.now), "") if every else now_key
        moved = out.pop(present, None) if (every or now_kind == claim.kind) else None
        if every or x.was == claim.kind:
            out[f"{x.was}:{x.entry}" if every else x.entry] = moved or {}
    return out


def _added_since(
    at: Outcome, now: Outcome, live: dict[str, dict[str, Any]], cutoff: str
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """The entries the live corpus adds to a release's claim's hits, split at the release's
    day CUTOFF by their `published` day (else their year) into those that appeared after it
    and those its search missed, each by day. An entry known only by the release's year is in
    neither."""
    later: list[tuple[str, str]] = []
    missed: list[tuple[str, str]] = []
    for k in sorted(set(now.keys) - set(at.keys)):
        day = str(live.get(k, {}).get("published") or live.get(k, {}).get("year") or "")
        if not day:
            continue
        if len(day) > 4:
            (later if day > cutoff else missed).append((k, day))
        elif day != cutoff[:4]:  # a year alone says nothing within the release's own year
            (later if day > cutoff[:4] else missed).append((k, day))
    later.sort(key=lambda x: (x[1], x[0]))
    missed.sort(key=lambda x: (x[1], x[0]))
    return tuple(later), tuple(missed)


def evaluate_one(claim: Claim, records: dict[str, dict[str, Any]]) -> Outcome:
    hits = sorted(k for k, d in records.items() if matches(d, claim.where))
    expect = claim.expect
    if "entry" in expect:
        key, has = expect["entry"], expect["has"]
        entry = records.get(key, {})
        want = {a: {"all": v if isinstance(v, list) else [v]} for a, v in has.items()}
        held = key in records and matches(entry, want) and (not claim.where or key in hits)
        shown = "; ".join(f"{a}: {', '.join(v) if isinstance(v, list) else v}"
                          for a, v in has.items())  # fmt: skip
        found = "; ".join(f"{a}: {plain_value(entry.get(a))}" for a in has)
        actual = found if key in records else f"{key} is not in the corpus"
        return Outcome(held, f"{key} is tagged {shown}", actual, [key])
    if "keys" in expect:
        want_keys = sorted(map(str, expect["keys"]))
        return Outcome(hits == want_keys, f"exactly {_listed(want_keys)}", _listed(hits), hits)
    count = expect["count"]
    held = all(NUMERIC[op](len(hits), n) for op, n in count.items())
    expected = " and ".join(
        "no entry" if (op, n) == ("eq", 0) else _BOUNDS[op] + entries(n) for op, n in count.items()
    )
    return Outcome(held, expected, entries(len(hits)), hits)
