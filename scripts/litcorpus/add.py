"""Scaffolds new entries from BibTeX or from the arXiv API, never overwriting anything.

Reads BibTeX text (bibtexparser v2) or an arXiv Atom response; checks each new entry against
the corpus and the exclusions (same arXiv id or DOI, near-identical title); writes
papers/<key>.yaml with every bibliographic fact filled and each taxonomy field present but
empty, commented with its allowed values, so that `check` lists what is left to decide.
All entries are written or none.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import unicodedata
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors, SplitNameParts
from rapidfuzz import fuzz

from .corpus import Corpus
from .dedupe import TITLE_SIMILARITY, normalize_title, record_ids
from .validate import MAX_SLUG, SLUG

ARXIV_API = os.environ.get("LITCORPUS_ARXIV_API", "https://export.arxiv.org/api/query")
ATOM = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}
ARXIV_IN_TEXT = re.compile(r"(?:arxiv[:/ ]|abs/)(\d{4}\.\d{4,5})", re.IGNORECASE)
STOP = {"a", "an", "the", "on", "of", "for", "and", "in", "to", "with", "via", "towards"}


class AddError(Exception):
    """The input cannot be added; the message says why."""


@dataclass
class Draft:
    """One entry about to be written."""

    source: str
    facts: dict[str, Any]
    key: str = ""
    refused: list[str] = field(default_factory=list)


def _person(parts: Any) -> str:
    last = " ".join([*parts.von, *parts.last]).strip()
    first = " ".join([*parts.first, *parts.jr]).strip()
    if last.lower() == "others":
        return "others"
    return f"{last}, {first}" if first else last


def drafts_from_bibtex(text: str) -> list[Draft]:
    library = bibtexparser.parse_string(
        text, append_middleware=[LatexDecodingMiddleware(), SeparateCoAuthors(), SplitNameParts()]
    )
    if library.failed_blocks:
        lines = ", ".join(str((b.start_line or 0) + 1) for b in library.failed_blocks)
        raise AddError(
            f"{len(library.failed_blocks)} BibTeX block(s) failed to parse "
            f"(starting on line {lines}); nothing was written"
        )
    drafts = []
    for entry in library.entries:
        f = {k.lower(): v.value for k, v in entry.fields_dict.items()}
        clean = {
            k: re.sub(r"\s+", " ", v.replace("{", "").replace("}", "")).strip()
            for k, v in f.items()
            if isinstance(v, str)
        }
        facts: dict[str, Any] = {"title": clean.get("title", "")}
        if isinstance(f.get("author"), list):
            facts["authors"] = [_person(p) for p in f["author"]]
        year = re.search(r"\d{4}", clean.get("year", ""))
        if year:
            facts["year"] = int(year.group())
        venue = (
            clean.get("booktitle")
            or clean.get("journal")
            or clean.get("howpublished")
            or clean.get("publisher")
            or ""
        )
        facts["venue"] = venue
        ids = {}
        blob = " ".join(clean.get(k, "") for k in ("eprint", "journal", "url", "note"))
        arxiv = re.fullmatch(r"\d{4}\.\d{4,5}", clean.get("eprint", "")) or ARXIV_IN_TEXT.search(
            blob
        )
        if arxiv:
            ids["arxiv"] = arxiv.group(1) if arxiv.groups() else arxiv.group()
        if clean.get("doi"):
            ids["doi"] = re.sub(r"^https?://(dx\.)?doi\.org/", "", clean["doi"])
        facts["ids"] = ids
        url = clean.get("url") or (
            f"https://arxiv.org/abs/{ids['arxiv']}"
            if "arxiv" in ids
            else f"https://doi.org/{ids['doi']}"
            if "doi" in ids
            else ""
        )
        facts["url"] = url
        if venue == "" and "arxiv" in ids:
            facts["venue"] = "arXiv"
        drafts.append(Draft(f"BibTeX entry '{entry.key}'", facts, key=entry.key))
    return drafts


def fetch_arxiv(arxiv_id: str, api: str = ARXIV_API, timeout: float = 20) -> str:
    if not re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?", arxiv_id):
        raise AddError(f"'{arxiv_id}' is not an arXiv id such as 2412.01928")
    url = f"{api}?id_list={arxiv_id}&max_results=1"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return str(response.read().decode("utf-8"))
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise AddError(
            f"cannot reach the arXiv API at {api} ({reason}); are you offline? "
            "Use --bibtex with the paper's BibTeX instead"
        ) from exc


def drafts_from_arxiv(atom: str) -> list[Draft]:
    try:
        feed = ET.fromstring(atom)
    except ET.ParseError as exc:
        raise AddError(f"the arXiv API answered with malformed XML ({exc})") from exc
    drafts = []
    for entry in feed.findall("a:entry", ATOM):
        ident = (entry.findtext("a:id", "", ATOM) or "").rsplit("/", 1)[-1]
        arxiv_id = re.sub(r"v\d+$", "", ident)
        title = re.sub(r"\s+", " ", entry.findtext("a:title", "", ATOM)).strip()
        if not arxiv_id or title.lower() == "error":
            raise AddError(f"the arXiv API found no paper: {entry.findtext('a:summary', '', ATOM)}")
        names = [
            re.sub(r"\s+", " ", n.text or "").strip()
            for n in entry.findall("a:author/a:name", ATOM)
        ]
        authors = [
            f"{n.rsplit(' ', 1)[1]}, {n.rsplit(' ', 1)[0]}" if " " in n else n for n in names
        ]
        published = entry.findtext("a:published", "", ATOM)
        facts: dict[str, Any] = {
            "title": title,
            "authors": authors,
            "year": int(published[:4]) if published[:4].isdigit() else None,
            "venue": entry.findtext("arxiv:journal_ref", "", ATOM).strip() or "arXiv",
            "ids": {"arxiv": arxiv_id},
            "url": f"https://arxiv.org/abs/{arxiv_id}",
        }
        doi = entry.findtext("arxiv:doi", "", ATOM).strip()
        if doi:
            facts["ids"]["doi"] = doi
        drafts.append(Draft(f"arXiv {arxiv_id}", facts))
    if not drafts:
        raise AddError("the arXiv API returned no entry for this id")
    return drafts


_FOLD = str.maketrans(
    {
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "ø": "o",
        "Ø": "O",
        "œ": "oe",
        "Œ": "OE",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "þ": "th",
    }
)


def _ascii(text: str) -> str:
    """Lower-case ASCII for keys: accents dropped, letters without a decomposition spelled out."""
    plain = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return plain.encode("ascii", "ignore").decode().lower()


def make_key(facts: dict[str, Any], taken: set[str], proposed: str = "") -> str:
    """The BibTeX key when it is a safe, free slug; else family name + year + title word."""
    if proposed and SLUG.match(proposed) and len(proposed) <= MAX_SLUG and proposed not in taken:
        return proposed
    authors = facts.get("authors") or ["anonymous"]
    family = re.sub(r"[^a-z0-9]", "", _ascii(str(authors[0]).split(",")[0])) or "anonymous"
    words = [
        w for w in re.findall(r"[a-z0-9]+", _ascii(str(facts.get("title", "")))) if w not in STOP
    ]
    base = f"{family}{facts.get('year', '')}{words[0] if words else ''}"[: MAX_SLUG - 4]
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    return key


def find_duplicates(drafts: list[Draft], corpus: Corpus) -> None:
    """Mark drafts that duplicate a record (or an earlier draft) with the reason."""
    schemes = corpus.taxonomy.id_schemes
    owners: dict[tuple[str, str], str] = {}
    titles: list[tuple[str, str]] = []
    for rec in corpus:
        for ident in record_ids(rec, schemes):
            owners.setdefault(ident, rec.path)
        title = rec.data.get(corpus.taxonomy.kinds[rec.kind].title_field)
        if isinstance(title, str):
            titles.append((normalize_title(title), rec.path))
    for d in drafts:
        ids = {(s, str(v).lower()) for s, v in d.facts.get("ids", {}).items()}
        for ident in sorted(ids):
            if ident in owners:
                d.refused.append(f"same {ident[0]} id {ident[1]} as {owners[ident]}")
        norm = normalize_title(str(d.facts.get("title", "")))
        for other, path in titles:
            if norm and fuzz.ratio(norm, other) >= TITLE_SIMILARITY:
                d.refused.append(f"near-identical title to {path}")
                break
        for ident in ids:
            owners.setdefault(ident, d.source)
        titles.append((norm, d.source))


def _q(value: Any) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(str(value), ensure_ascii=False)


def render_entry(key: str, facts: dict[str, Any], corpus: Corpus, today: dt.date) -> str:
    tax = corpus.taxonomy
    lines = [f"key: {key}", f"title: {_q(facts.get('title', ''))}", "authors:"]
    lines += [f"  - {_q(a)}" for a in facts.get("authors", [])] or ['  # - "Family, Given"']
    year = facts.get("year")
    lines.append(f"year: {year}" if isinstance(year, int) else "year:  # the year, e.g. 2026")
    lines.append(
        f"venue: {_q(facts['venue'])}"
        if facts.get("venue")
        else "venue:  # where it appeared: arXiv, a conference, a journal"
    )
    lines.append("affiliation:  # the first author's affiliation, or unknown")
    if facts.get("ids"):
        lines.append("ids:")
        lines += [f"  {s}: {_q(v)}" for s, v in facts["ids"].items()]
    lines.append(f"url: {_q(facts['url'])}" if facts.get("url") else "url:  # https://...")
    for axis in tax.axes_for("paper"):
        allowed = ", ".join(axis.current_ids)
        rule = (
            "required"
            if axis.required
            else "required when "
            + "; ".join(f"{k} is {' or '.join(v)}" for k, v in axis.required_when.items())
            if axis.required_when
            else "optional"
        )
        if axis.only_when:
            rule += ", only when " + "; ".join(
                f"{k} is {' or '.join(v)}" for k, v in axis.only_when.items()
            )
        kind = "list of" if axis.multi else "one of"
        lines.append(f"# {axis.label} ({rule}): {kind} {allowed}")
        lines.append(f"{axis.id}:{' []' if axis.multi and not axis.required_when else ''}")
    lines.append("summary:  # one sentence, in your own words")
    lines.append("notes:  # what you read (an arXiv id or address); say 'abstract only' if so")
    lines.append("# each O-tag needs orchestration_evidence: {spawn: {source, quote, where}}")
    lines.append(f"added: {_q(today.isoformat())}")
    return "\n".join(lines) + "\n"


def add_entries(corpus: Corpus, drafts: list[Draft], today: dt.date | None = None) -> list[Path]:
    """Write each draft to papers/<key>.yaml: all or nothing, never overwriting. Each entry
    is dated TODAY (default: the current date), the day it enters the corpus."""
    today = today or dt.date.today()
    folder = corpus.root / corpus.taxonomy.kinds["paper"].dir
    taken = {r.stem for r in corpus.of("paper")} | {p.stem for p in folder.glob("*.yaml")}
    find_duplicates(drafts, corpus)
    refused = [f"{d.source}: {'; '.join(d.refused)}" for d in drafts if d.refused]
    if refused:
        raise AddError("refused, nothing was written:\n  " + "\n  ".join(refused))
    for d in drafts:
        d.key = make_key(d.facts, taken, d.key)
        taken.add(d.key)
    written: list[Path] = []
    try:
        for d in drafts:
            path = folder / f"{d.key}.yaml"
            with open(path, "x", encoding="utf-8") as f:  # "x": never overwrite
                f.write(render_entry(d.key, d.facts, corpus, today))
            written.append(path)
    except OSError as exc:
        for path in written:
            path.unlink(missing_ok=True)
        raise AddError(f"cannot write {exc.filename}: {exc.strerror}; nothing was written") from exc
    return written
