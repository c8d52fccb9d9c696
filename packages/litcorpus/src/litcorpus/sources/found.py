"""A bibliographic record as an export gives it, with its facts normalised the one way every
reader shares: identifiers (arXiv without its version, old-style ids kept, arXiv DOIs read as
arXiv ids, DOIs lower-cased, OpenAlex and Semantic Scholar ids, OpenReview forum ids), names as
"Family, Given" with their particles, the many spellings of arXiv as one venue, and plain-text
abstracts (markup of JATS or HTML removed).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from ..model.errors import CommandError

# New-style (2308.03688) and old-style (cs/0112017, math.GT/0309136, hep-th/9901001) arXiv ids.
ARXIV = r"(?:\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})"
_ARXIV_ONLY = re.compile(rf"(?:arxiv:)?({ARXIV})(?:v\d+)?", re.IGNORECASE)
_ARXIV_DOI = re.compile(rf"10\.48550/arxiv\.({ARXIV})(?:v\d+)?", re.IGNORECASE)
_ARXIV_URL = re.compile(rf"arxiv\.org/(?:abs|pdf|html)/({ARXIV})(?:v\d+)?", re.IGNORECASE)
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_OPENALEX = re.compile(r"^(?:https?://openalex\.org/)?(W\d+)$", re.IGNORECASE)
_S2 = re.compile(r"^(?:https?://www\.semanticscholar\.org/paper/(?:[^/]+/)?)?([0-9a-f]{40})$")
_OPENREVIEW = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([A-Za-z0-9_-]{6,20})")
_TAGS = re.compile(r"<[^>]{0,200}>")
# How services and tools spell the arXiv as a venue ("arXiv (Cornell University)", "ArXiv.org",
# "CoRR", "arXiv preprint arXiv:2308.03688", "arXiv e-prints").
_ARXIV_VENUE = re.compile(
    r"^(?:arxiv(?:\.org)?(?:\s*\(cornell university\))?|corr|arxiv e-prints|"
    r"arxiv preprint(?: arxiv:\S+)?|arxiv \(preprint\)|arxiv:\S+(?: \[[^\]]*\])?)$",
    re.IGNORECASE,
)
# Name particles that belong to the family name ("Ludwig van Beethoven": van Beethoven).
PARTICLES = frozenset(
    [
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "dei",
        "degli",
        "di",
        "da",
        "dal",
        "du",
        "des",
        "le",
        "la",
        "las",
        "los",
        "lo",
        "dos",
        "das",
        "do",
        "ter",
        "ten",
        "bin",
        "ibn",
        "al",
        "el",
        "st.",
        "zu",
    ]
)
SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


class SourceError(CommandError):
    """An export that cannot be read as the format it is given as; nothing was written."""


def all_read(name: str, tag: str, starts: list[int], entries: list[Any]) -> None:
    """Refuse an export whose parser read fewer records than start with TAG: a record it
    skipped (an unclosed one, a stray line) would be lost without a word."""
    if len(entries) != len(starts):
        raise SourceError(
            "import-invalid",
            f"{name}: {len(starts)} records start with {tag} but {len(entries)} could be read; "
            "nothing was written",
            "export the search again",
        )


@dataclass(slots=True)
class Found:
    """One record of a search export: the facts the queue keeps, and its abstract (others'
    prose, kept only in the local store)."""

    title: str
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    date: str = ""  # YYYY-MM-DD, YYYY-MM or YYYY, as precise as the export says
    venue: str = ""
    ids: dict[str, str] = field(default_factory=dict)
    url: str = ""
    abstract: str = ""
    where: str = ""  # "record 3 (line 41)": where a message about it points
    key: str = ""  # the export's own key for it (a BibTeX key, a CSL-JSON id)
    clashes: list[str] = field(default_factory=list)  # its fields disagree: said on import

    def facts(self) -> dict[str, Any]:
        """The record's facts as the queue and a scaffolded entry take them."""
        out: dict[str, Any] = {"title": self.title, "authors": list(self.authors)}
        if self.year is not None:
            out["year"] = self.year
        if self.date:
            out["date"] = self.date
        out["venue"] = self.venue or ("arXiv" if "arxiv" in self.ids else "")
        out["ids"] = dict(self.ids)
        out["url"] = self.url or default_url(self.ids)
        return out


def text(value: Any) -> str:
    """VALUE as one line of plain text: markup and entities gone, whitespace collapsed."""
    if value is None:
        return ""
    if isinstance(value, list):  # Crossref gives titles as lists
        value = value[0] if value else ""
    plain = str(value)
    if "<" in plain or "&" in plain:  # most values hold no markup: skip the regex
        plain = html.unescape(_TAGS.sub(" ", plain))
    return " ".join(plain.split())


def arxiv_id(value: Any) -> str | None:
    """The arXiv id (no version) that VALUE is or names: a bare id, 'arXiv:ID', an arXiv
    address or an arXiv DOI."""
    raw = str(value or "").strip()
    for pattern in (_ARXIV_DOI, _ARXIV_URL):
        m = pattern.search(raw)
        if m:
            return m.group(1)
    m = _ARXIV_ONLY.fullmatch(raw)
    return m.group(1) if m else None


def doi(value: Any) -> str | None:
    """VALUE as a lower-case DOI without its resolver, or None when it is none."""
    m = _DOI.match(str(value or "").strip())
    return m.group(1).lower().rstrip(".") if m else None


def normal_ids(
    *,
    dois: Any = (),
    arxiv: Any = (),
    urls: Any = (),
    openalex: Any = None,
    semanticscholar: Any = None,
    openreview: Any = None,
    pmid: Any = None,
    clashes: list[str] | None = None,
) -> dict[str, str]:
    """The identifiers a record's fields name, normalised; an arXiv DOI becomes the arXiv id
    it stands for rather than a DOI of its own. The first field to name an identifier wins;
    where a later one names another, `clashes` (if given) is told which was kept."""
    ids: dict[str, str] = {}

    def keep(kind: str, value: str) -> None:
        kept = ids.setdefault(kind, value)
        if kept != value and clashes is not None:
            clashes.append(f"{kind} {kept} kept, {value} also named")

    for value in _many(arxiv):
        found = arxiv_id(value)
        if found:
            keep("arxiv", found)
    for value in _many(dois):
        found = arxiv_id(value) if _ARXIV_DOI.search(str(value)) else None
        if found:
            keep("arxiv", found)
        elif (d := doi(value)) is not None:
            keep("doi", d)
    for value in _many(urls):
        u = str(value)
        if (a := _ARXIV_URL.search(u) or _ARXIV_DOI.search(u)) is not None:
            keep("arxiv", a.group(1))
        elif (o := _OPENREVIEW.search(u)) is not None:
            keep("openreview", o.group(1))
        elif "doi.org/" in u and (d := doi(u)) is not None:
            keep("doi", d)
    if openalex and (m := _OPENALEX.match(str(openalex).strip())):
        ids["openalex"] = m.group(1).upper()
    if semanticscholar and (m := _S2.match(str(semanticscholar).strip())):
        ids["semanticscholar"] = m.group(1)
    if openreview and re.fullmatch(r"[A-Za-z0-9_-]{6,20}", str(openreview)):
        ids.setdefault("openreview", str(openreview))
    if pmid and re.fullmatch(r"[1-9]\d{0,8}", str(pmid).strip()):
        ids["pmid"] = str(pmid).strip()
    return ids


def _many(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, (list, tuple, set)) else [value]


def default_url(ids: dict[str, str]) -> str:
    """The canonical address of a record with these identifiers (arXiv first)."""
    if "arxiv" in ids:
        return f"https://arxiv.org/abs/{ids['arxiv']}"
    if "doi" in ids:  # older DOIs hold <, >, # and [ ]: percent-encoded in the address
        return f"https://doi.org/{quote(ids['doi'], safe='/:;()._-')}"
    if "openreview" in ids:
        return f"https://openreview.net/forum?id={ids['openreview']}"
    if "openalex" in ids:
        return f"https://openalex.org/{ids['openalex']}"
    if "semanticscholar" in ids:
        return f"https://www.semanticscholar.org/paper/{ids['semanticscholar']}"
    if "pmid" in ids:
        return f"https://pubmed.ncbi.nlm.nih.gov/{ids['pmid']}/"
    return ""


def venue(value: Any) -> str:
    """A venue's name, with every spelling of the arXiv read as 'arXiv'."""
    name = text(value)
    return "arXiv" if _ARXIV_VENUE.match(name) else name


def person(display: Any) -> str:
    """'Family, Given' from a display name ('Ludwig van Beethoven' -> 'van Beethoven, Ludwig';
    'Martin Luther King Jr.' -> 'King, Martin Luther Jr.'); a name that already has its comma,
    or a single word (an organisation), is kept as it is."""
    name = text(display)
    if not name or "," in name:
        return name
    words = name.split()
    suffix = [words.pop()] if len(words) > 2 and words[-1].lower() in SUFFIXES else []
    if len(words) < 2:
        return " ".join(words + suffix)
    start = len(words) - 1
    for i in range(1, len(words) - 1):  # the first particle after the first given name
        if words[i].lower() in PARTICLES and words[i][0].islower():
            start = i
            break
    family, given = " ".join(words[start:]), " ".join(words[:start] + suffix)
    return f"{family}, {given}"


def family_given(family: Any, given: Any) -> str:
    """'Family, Given' from the two parts (either may be empty)."""
    f, g = text(family), text(given)
    return f"{f}, {g}" if f and g else f or g


def year_of(date: str) -> int | None:
    m = re.match(r"(\d{4})", date)
    return int(m.group(1)) if m else None


def date_from_parts(parts: Any) -> str:
    """YYYY[-MM[-DD]] from CSL/Crossref date parts ([[2023, 8, 7]])."""
    try:
        first = [int(p) for p in parts[0] if p is not None][:3]
    except (TypeError, ValueError, IndexError, KeyError):
        return ""
    if not first:
        return ""
    return "-".join([f"{first[0]:04d}", *(f"{p:02d}" for p in first[1:])])
