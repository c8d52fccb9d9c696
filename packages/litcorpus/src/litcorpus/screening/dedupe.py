"""Finds which records of a search export the corpus already holds: retained entries,
exclusions, records queued by earlier searches, and earlier records of the same file.

Identifiers decide first (arXiv, DOI, OpenReview, OpenAlex, Semantic Scholar, ACL: any one
shared); then the folded title (rapidfuzz, the corpus's own near-duplicate cutoff) with the
year: equal, or one apart when one of the two is a preprint and the other its published
version, which are joined. Two records that carry different ids of the same scheme are never
merged, whatever their titles: a near-title pair with conflicting ids is queued with a
`possible_duplicate` mark naming the other record, and the screener decides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..check.dedupe import STOP_WORDS, TITLE_SIMILARITY, normalize_title, record_ids
from ..model.corpus import Corpus
from ..model.queue import Queue
from ..sources.found import Found

# Ids that disagree without naming different works: a code repository that works share, and
# the record ids of aggregators, which give a preprint and its published version one each.
_NOT_CONFLICTING = frozenset({"github", "openalex", "semanticscholar"})
RARE_WORDS = 3
MAX_BLOCK = 200  # as check's duplicate search: a word this common blocks nothing more


@dataclass(slots=True)
class Known:
    """A record that is already held: where it is, and what it can be matched on."""

    where: str  # papers/x.yaml, exclusions/E001.yaml, Q0003, "record 5 of this file"
    ids: dict[str, str]
    title: str  # folded
    year: int | None
    preprint: bool


@dataclass(slots=True)
class Merge:
    """A record of the export that is removed as a duplicate, with why."""

    found: Found
    of: Known
    reason: str
    joined: dict[str, Any]  # facts the kept queue record gains (a published version's DOI)


def _is_preprint(venue: Any, ids: dict[str, str]) -> bool:
    return str(venue or "arXiv").lower() in ("arxiv", "") or set(ids) <= {"arxiv"}


def known_records(corpus: Corpus, queue: Queue) -> list[Known]:
    schemes = corpus.taxonomy.id_schemes
    out = []
    for rec in corpus:
        ids = {s: i for (s, i) in record_ids(rec, schemes)}
        title = rec.data.get(corpus.taxonomy.kinds[rec.kind].title_field)
        year = rec.data.get("year")
        out.append(
            Known(
                rec.path,
                ids,
                normalize_title(str(title or "")),
                year if isinstance(year, int) else None,
                _is_preprint(rec.data.get("venue"), ids),
            )
        )
    for q in queue.items.values():
        ids = {s: str(i).lower() for s, i in (q.data.get("ids") or {}).items()}
        out.append(
            Known(
                q.id,
                ids,
                normalize_title(str(q.data.get("title", ""))),
                q.data.get("year"),
                _is_preprint(q.data.get("venue"), ids),
            )
        )
    return out


class Matcher:
    """Holds what is known; `match` tells whether a record is one of them, then remembers it.

    Titles are looked up whole first (folded), then compared with rapidfuzz only against the
    titles that share one of their rarest words, each word's block capped as `check`'s are, so
    the work grows with the records, not with their square."""

    def __init__(self, known: Iterable[Known], titles: Iterable[str]) -> None:
        """KNOWN records, and every title that will be seen (known and new), whose word
        frequencies pick the rare words titles are blocked by."""
        self.freq: Counter[str] = Counter()
        for t in titles:
            self.freq.update(set(normalize_title(t).split()))
        self.by_id: dict[tuple[str, str], Known] = {}
        self.by_title: dict[str, Known] = {}
        self.by_word: dict[str, tuple[list[str], list[Known]]] = {}
        self.possible: dict[str, str] = {}  # a queued record's id: a near-title with other ids
        for k in known:
            self._remember(k)

    def _rare(self, title: str) -> list[str]:
        words = set(title.split()) - STOP_WORDS
        return sorted(words, key=lambda w: (self.freq[w], -len(w), w))[:RARE_WORDS]

    def _remember(self, k: Known) -> None:
        for ident in k.ids.items():
            self.by_id.setdefault(ident, k)
        if k.title:
            self.by_title.setdefault(k.title, k)
        for w in self._rare(k.title):  # titles are compared only with titles sharing one
            titles, knowns = self.by_word.setdefault(w, ([], []))
            if len(titles) < MAX_BLOCK:
                titles.append(k.title)
                knowns.append(k)

    def match(self, found: Found, where: str) -> Merge | None:
        ids = {s: v.lower() for s, v in found.ids.items()}
        for ident in sorted(ids.items()):
            if ident in self.by_id:
                other = self.by_id[ident]
                label = {"arxiv": "arXiv", "doi": "DOI"}.get(ident[0], ident[0])
                return Merge(found, other, f"same {label} id {ident[1]}", self._join(found, other))
        title = normalize_title(found.title)
        if not title:
            return None
        merge = self._by_title(found, ids, title, where)
        if merge is None:
            self._remember(
                Known(where, ids, title, found.year, _is_preprint(found.venue, found.ids))
            )
        return merge

    def _by_title(self, found: Found, ids: dict[str, str], title: str, where: str) -> Merge | None:
        from rapidfuzz import fuzz, process

        exact = self.by_title.get(title)
        hits: list[tuple[float, Known]] = [(100.0, exact)] if exact is not None else []
        for w in self._rare(title):
            titles, knowns = self.by_word.get(w, ((), ()))
            found_here = process.extract(
                title, titles, scorer=fuzz.ratio, score_cutoff=TITLE_SIMILARITY, limit=None
            )
            hits += [(score, knowns[i]) for _, score, i in found_here]
        for score, other in sorted(hits, key=lambda h: -h[0]):
            if any(
                s in other.ids and other.ids[s] != v
                for s, v in ids.items()
                if s not in _NOT_CONFLICTING
            ):
                # ids that disagree are never merged on a title: the screener decides
                self.possible.setdefault(where, other.where)
                continue
            reason = self._years(found, other, score)
            if reason:
                return Merge(found, other, reason, self._join(found, other))
        return None

    @staticmethod
    def _years(found: Found, other: Known, score: float) -> str | None:
        similar = f"title {score:.0f}% similar"
        if found.year is None or other.year is None or found.year == other.year:
            return f"{similar}, same year" if found.year and other.year else similar
        preprint = _is_preprint(found.venue, found.ids)
        if abs(found.year - other.year) == 1 and preprint != other.preprint:
            return (
                f"{similar}; preprint ({min(found.year, other.year)}) and published version joined"
            )
        return None

    @staticmethod
    def _join(found: Found, other: Known) -> dict[str, Any]:
        """What a queued record gains from its duplicate: ids it lacks, and the venue of a
        published version when it is a preprint."""
        if not other.where.startswith("Q"):
            return {}
        joined: dict[str, Any] = {}
        extra = {s: v for s, v in found.ids.items() if s not in other.ids}
        if extra:
            joined["ids"] = extra
            other.ids.update({s: v.lower() for s, v in extra.items()})
        if other.preprint and not _is_preprint(found.venue, found.ids) and found.venue:
            joined["venue"] = found.venue
            other.preprint = False
        return joined
