"""Finds records that are the same work: shared keys, shared identifiers, near-identical titles.

Identifiers come from each record's `ids` and from its URLs (read back through the id schemes'
URL templates). Titles are compared only within blocks that share a rare word, so the work grows
with the corpus, not with its square.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from ..model.corpus import Corpus, Record
from ..model.problems import Problem
from ..model.taxonomy import IdScheme
from ..model.yamlio import FieldPath

TITLE_SIMILARITY = 92.0
RARE_WORDS_PER_TITLE = 3
MAX_BLOCK = 200
MATRIX_FROM = 16  # blocks this large are scored as one matrix
SCORE_DIGITS = 3  # a similarity is reported to a thousandth of a percent
_WORD = re.compile(r"[a-z0-9]+")
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "of",
        "on",
        "or",
        "the",
        "to",
        "via",
        "with",
    ]
)


@lru_cache(maxsize=4096)
def _latin_lookalike(char: str) -> str:
    """The Latin letter CHAR looks like (a Cyrillic or Greek A, say), from Unicode's
    confusables data; CHAR itself when it looks like none."""
    from confusable_homoglyphs import confusables  # only titles outside ASCII need it

    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"]) or []
    for item in found:
        for glyph in item["homoglyphs"]:
            if glyph["c"].isascii() and glyph["c"].isalnum():
                return str(glyph["c"])
    return char


def normalize_title(title: str) -> str:
    """Lower-case ASCII words of TITLE, with look-alike letters of other scripts read as the
    Latin letters they imitate, so that such titles compare equal."""
    if not title.isascii():
        title = "".join(c if c.isascii() else _latin_lookalike(c) for c in title)
    plain = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    return " ".join(_WORD.findall(plain))


@lru_cache(maxsize=64)
def _url_pattern(template: str) -> re.Pattern[str]:
    """A regex that reads the id back out of an address built from TEMPLATE."""
    head, _, tail = template.partition("{id}")
    head = re.sub(r"^https?://(www\.)?", "", head)
    return re.compile(
        r"https?://(?:www\.)?"
        + re.escape(head)
        + r"(?P<id>[^?#&\s]+?)"
        + re.escape(tail.rstrip("/"))
        + r"/?(?:[?#&].*)?\Z",
        re.IGNORECASE,
    )


@lru_cache(maxsize=8)
def _patterns(urls: tuple[tuple[str, str], ...]) -> dict[str, re.Pattern[str]]:
    return {scheme: _url_pattern(url) for scheme, url in urls}


def record_ids(rec: Record, schemes: dict[str, IdScheme]) -> dict[tuple[str, str], FieldPath]:
    """(scheme, normalized id) pairs a record carries, explicitly or through its URLs, with
    the field each was read from."""
    patterns = _patterns(tuple((s, spec.url) for s, spec in schemes.items()))

    def _normal_id(scheme: str, ident: str) -> tuple[str, str]:
        suffix = schemes[scheme].version_suffix
        ident = ident.strip().lower()
        return scheme, suffix.sub("", ident) if suffix else ident

    data = rec.data
    found: dict[tuple[str, str], FieldPath] = {}
    extra = data.get("extra_urls")
    urls: list[tuple[FieldPath, Any]] = [(("url",), data.get("url"))]
    urls += [(("extra_urls", i), u) for i, u in enumerate(extra)] if isinstance(extra, list) else []
    for path, url in urls:
        if isinstance(url, str):
            for scheme, pattern in patterns.items():
                m = pattern.match(url.strip())
                if m:
                    found[_normal_id(scheme, m["id"])] = path
    ids = data.get("ids")
    if isinstance(ids, dict):
        for scheme, ident in ids.items():
            if scheme in patterns and isinstance(ident, str) and ident.strip():
                found[_normal_id(scheme, ident)] = ("ids", scheme)
    return found


def _pair_problem(
    later: Record, first: Record, what: str, path: FieldPath, repeats: bool = False
) -> Problem:
    line, col = later.doc.where(path)
    field = ".".join(map(str, path))
    if repeats and later.kind == first.kind:
        return Problem(
            later.path,
            "shared-id",
            f"{what} as {first.path}: a repository works may share, not the same work",
            line,
            col,
            field,
            "nothing to do if they are two works; merge them if they are one",
        )
    if later.kind != first.kind:
        return Problem(
            later.path,
            "retained-and-excluded",
            f"{what} as {first.path}: a record cannot be both retained and excluded",
            line,
            col,
            field,
            "keep one of the two records",
        )
    code = "duplicate-id" if field != "title" else "near-duplicate-title"
    return Problem(
        later.path,
        code,
        f"{what} as {first.path}",
        line,
        col,
        field,
        "merge the two records, or tell them apart",
    )


def _near_titles(titles: dict[int, str]) -> Iterator[tuple[int, int, float]]:
    """Pairs (a, b, score) of record indexes, a < b, whose titles share one of their rarer
    words and are at least TITLE_SIMILARITY similar."""
    words = {i: set(t.split()) - STOP_WORDS for i, t in titles.items()}
    freq: dict[str, int] = defaultdict(int)
    for ws in words.values():
        for w in ws:
            freq[w] += 1
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, ws in words.items():
        for w in sorted(ws, key=lambda w: (freq[w], w))[:RARE_WORDS_PER_TITLE]:
            blocks[w].append(i)
    seen: set[tuple[int, int]] = set()
    for members in blocks.values():
        if not 1 < len(members) <= MAX_BLOCK:
            continue
        for a, b, score in _scored(members, titles):
            if (a, b) not in seen:
                seen.add((a, b))
                yield a, b, score


def _within_reach(a: Counter[str], b: Counter[str], length: int) -> bool:
    """Whether two titles with these letter counts could reach the cutoff: the ratio is twice
    their longest common subsequence over their total LENGTH, which shared letters bound."""
    return 200 * sum((a & b).values()) >= TITLE_SIMILARITY * max(length, 1)


def _scored(members: list[int], titles: dict[int, str]) -> Iterator[tuple[int, int, float]]:
    """The pairs of one block at or above the cutoff (scores below it read 0)."""
    texts = [titles[i] for i in members]
    if len(members) < MATRIX_FROM:  # a few pairs: cheaper one by one than through numpy
        letters = [Counter(t) for t in texts]
        for a_pos, a in enumerate(members):
            for b_pos in range(a_pos + 1, len(members)):
                length = len(texts[a_pos]) + len(texts[b_pos])
                if not _within_reach(letters[a_pos], letters[b_pos], length):
                    continue  # most pairs stop here, and rapidfuzz need not even load
                from rapidfuzz import fuzz

                score = fuzz.ratio(texts[a_pos], texts[b_pos], score_cutoff=TITLE_SIMILARITY)
                if score:
                    yield a, members[b_pos], round(score, SCORE_DIGITS)
        return
    from rapidfuzz import fuzz, process

    scores = process.cdist(texts, texts, scorer=fuzz.ratio, score_cutoff=TITLE_SIMILARITY)
    for a_pos, b_pos in zip(*scores.nonzero(), strict=True):
        if a_pos < b_pos:
            # the matrix holds float32: rounded, both ways of scoring report the same number
            yield members[a_pos], members[b_pos], round(float(scores[a_pos, b_pos]), SCORE_DIGITS)


def find_duplicates(corpus: Corpus) -> list[Problem]:
    problems: list[Problem] = []
    rank = {kind: i for i, kind in enumerate(corpus.taxonomy.kinds)}
    records = sorted(corpus.records, key=lambda r: (rank[r.kind], r.path))
    keys: dict[tuple[str, str], Record] = {}
    for rec in records:
        key_field = corpus.taxonomy.kinds[rec.kind].key_field
        for key in {rec.stem.lower(), str(rec.data.get(key_field, rec.stem)).lower()}:
            first = keys.setdefault((rec.kind, key), rec)
            if first is not rec:
                problems.append(
                    Problem(
                        rec.path,
                        "duplicate-key",
                        f"key '{key}' is already used by {first.path}",
                        *rec.doc.where((key_field,)),
                        key_field,
                        "choose another key",
                    )
                )
    ids = [record_ids(rec, corpus.taxonomy.id_schemes) for rec in records]
    owners: dict[tuple[str, str], Record] = {}
    for rec, own in zip(records, ids, strict=True):
        for ident, path in sorted(own.items()):
            first = owners.setdefault(ident, rec)
            if first is not rec:
                repeats = corpus.taxonomy.id_schemes[ident[0]].may_repeat
                what = f"same {ident[0]} id {ident[1]}"
                problems.append(_pair_problem(rec, first, what, path, repeats))
    titles = {}
    for i, rec in enumerate(records):
        title = rec.data.get(corpus.taxonomy.kinds[rec.kind].title_field)
        if isinstance(title, str) and title.strip():
            titles[i] = normalize_title(title)
    for a, b, score in _near_titles(titles):
        problems.append(
            _pair_problem(records[b], records[a], f"title {score:.0f}% similar", ("title",))
        )
    return problems + _shared_addresses(records, ids, owners)


# An arXiv id inside an address (an aggregator's page of a paper: /papers/2511.02303v1/...).
_ARXIV_IN_URL = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d.])")
_SHARED_HINT = "give the work's own address: its arXiv, DOI, OpenReview or publisher page"


def _shared_addresses(
    records: list[Record],
    ids: list[dict[tuple[str, str], FieldPath]],
    owners: dict[tuple[str, str], Record],
) -> list[Problem]:
    """A record's address that another record already gives, or that names another record's
    arXiv id: the page it was found on, not the work's own."""
    out: list[Problem] = []
    seen: dict[str, Record] = {}
    for rec, own in zip(records, ids, strict=True):
        url = rec.data.get("url")
        if not isinstance(url, str) or not url.strip():
            continue
        line, col = rec.doc.where(("url",))
        first = seen.setdefault(url.strip().rstrip("/").lower(), rec)
        if first is not rec:
            message = f"gives the address {first.path} gives, for another work"
            out.append(Problem(rec.path, "shared-address", message, line, col, "url", _SHARED_HINT))
            continue
        mine = {i for (s, i) in own if s == "arxiv"}
        for m in _ARXIV_IN_URL.finditer(url):
            owner = owners.get(("arxiv", m.group(1)))
            if owner is not None and m.group(1) not in mine:  # not rec: its ids are mine
                message = f"its address names arXiv {m.group(1)}, the work of {owner.path}"
                out.append(
                    Problem(rec.path, "shared-address", message, line, col, "url", _SHARED_HINT)
                )
                break
    return out
