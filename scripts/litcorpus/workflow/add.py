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
import logging
import os
import re
import stat
import sys
import unicodedata
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.middlewares import (
    LatexDecodingMiddleware,
    NormalizeFieldKeys,
    SeparateCoAuthors,
    SplitNameParts,
)
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock
from pylatexenc.latex2text import LatexNodes2Text
from rapidfuzz import fuzz

from safewrite.files import write_new_files

from ..check.dedupe import TITLE_SIMILARITY, normalize_title, record_ids
from ..model.corpus import Corpus
from ..model.errors import CommandError
from ..model.text import MAX_SLUG, SLUG
from ..publish.outputs import JOURNAL

ARXIV_API = os.environ.get("LITCORPUS_ARXIV_API", "https://export.arxiv.org/api/query")
ATOM = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}
ARXIV_IN_TEXT = re.compile(r"(?:arxiv[:/ ]|abs/)(\d{4}\.\d{4,5})", re.IGNORECASE)
ARXIV_ID = re.compile(r"(\d{4}\.\d{4,5}|[a-z][a-z.-]*(?:\.[A-Z]{2})?/\d{7})")  # new and old
# Where BibTeX and biblatex entries name their venue, in order of preference.
VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "howpublished", "institution", "publisher")
MAX_BIBTEX = 16 << 20
MAX_ARXIV = 4 << 20  # the API's answer for one paper is a few kilobytes
_LATEX = LatexNodes2Text()
STOP = {"a", "an", "the", "on", "of", "for", "and", "in", "to", "with", "via", "towards"}


class AddError(CommandError):
    """The input cannot be added; the message says why, and the hint what to do."""


@dataclass
class Draft:
    """One entry about to be written."""

    source: str
    facts: dict[str, Any]
    key: str = ""
    refused: list[str] = field(default_factory=list)


def _decoded(parts: list[str]) -> str:
    text = " ".join(str(_LATEX.latex_to_text(part)) for part in parts)
    return " ".join(text.split())


def _person(parts: Any) -> str:
    """'Family, Given' from BibTeX's name parts, LaTeX decoded only now: decoding first would
    drop the braces that keep a name whole."""
    last = _decoded([*parts.von, *parts.last])
    first = _decoded([*parts.first, *parts.jr])
    if last.lower() == "others":
        return "others"
    return f"{last}, {first}" if first else last


def read_bibtex(path: Path) -> str:
    """The text of a BibTeX file ('-': standard input), refusing what cannot be one."""
    if str(path) == "-":
        raw = sys.stdin.buffer.read(MAX_BIBTEX + 1)
    else:
        try:
            info = path.stat()
            if not stat.S_ISREG(info.st_mode):
                raise AddError(
                    "unreadable-input",
                    f"{path} is not a regular file (a pipe, a device or a folder)",
                )
            with open(path, "rb") as f:
                raw = f.read(MAX_BIBTEX + 1)
        except OSError as exc:
            raise AddError(
                "unreadable-input", f"cannot read {path}: {exc.strerror or exc}"
            ) from exc
    if len(raw) > MAX_BIBTEX:
        raise AddError(
            "unreadable-input", f"{path} is larger than {MAX_BIBTEX:,} bytes", "split it"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise AddError(
            "unreadable-input",
            f"{path}:{line}: invalid UTF-8 byte {raw[exc.start]:#04x}",
            "save the file as UTF-8",
        ) from exc


def _block_problem(block: Any) -> str:
    """What is wrong with one block bibtexparser could not take, and where."""
    line = (block.start_line or 0) + 1
    if isinstance(block, DuplicateBlockKeyBlock):
        first = (block.previous_block.start_line or 0) + 1
        return f"line {line}: key '{block.key}' is used twice (lines {first} and {line})"
    if isinstance(block, DuplicateFieldKeyBlock):
        fields = ", ".join(sorted(block.duplicate_keys))
        key = getattr(block.ignore_error_block, "key", "?")
        return f"line {line}: entry '{key}' gives {fields} twice"
    error = getattr(block, "error", None)
    reason = str(getattr(error, "abort_reason", "") or error or "syntax error").strip()
    head = str(getattr(block, "raw", "")).strip().splitlines()[:1]
    return f"line {line}: cannot parse {head[0][:60] if head else 'the block'!r}: {reason}"


def _library(text: str) -> Any:
    log = logging.getLogger("bibtexparser")
    level, log.level = log.level, logging.CRITICAL  # its problems are reported below, once
    try:
        library = bibtexparser.parse_string(
            text,
            append_middleware=[
                NormalizeFieldKeys(),  # field names are case-insensitive: Author = {...}
                SeparateCoAuthors(),
                SplitNameParts(),
                LatexDecodingMiddleware(),  # every field but the names (see _person)
            ],
        )
    except Exception as exc:  # bibtexparser gives up on input it cannot split into blocks
        raise AddError(
            "bibtex-invalid", f"cannot read the BibTeX input ({exc}); nothing was written"
        ) from exc
    finally:
        log.level = level
    if library.failed_blocks:
        first = library.failed_blocks[0]
        raise AddError(
            "bibtex-invalid",
            "the BibTeX input has problems; nothing was written:\n  "
            + "\n  ".join(_block_problem(b) for b in library.failed_blocks),
            "rename one of the repeated keys, or remove one of the two entries"
            if isinstance(first, DuplicateBlockKeyBlock)
            else "keep one value of each field"
            if isinstance(first, DuplicateFieldKeyBlock)
            else "fix the entry at that line (an unclosed brace or a missing comma?)",
        )
    return library


def _with_crossref(entry: Any, by_key: dict[str, Any]) -> dict[str, Any]:
    """An entry's fields, completed from the entry its crossref names (BibTeX's inheritance)."""
    fields = {k.lower(): v.value for k, v in entry.fields_dict.items()}
    parent = by_key.get(str(fields.get("crossref", "")).strip().lower())
    if parent is not None:
        for k, v in parent.fields_dict.items():
            name = "booktitle" if k.lower() == "title" else k.lower()
            fields.setdefault(name, v.value)
    return fields


def drafts_from_bibtex(text: str) -> list[Draft]:
    library = _library(text)
    by_key = {e.key.lower(): e for e in library.entries}
    containers = {
        str(e.fields_dict["crossref"].value).strip().lower()
        for e in library.entries
        if "crossref" in e.fields_dict
    }
    drafts = []
    for entry in library.entries:
        if entry.key.lower() in containers or entry.entry_type.lower() == "set":
            continue  # a volume that papers cross-reference, or a biblatex set: not a paper
        f = _with_crossref(entry, by_key)
        clean = {
            k: re.sub(r"\s+", " ", v.replace("{", "").replace("}", "")).strip()
            for k, v in f.items()
            if isinstance(v, str)
        }
        facts: dict[str, Any] = {"title": clean.get("title", "")}
        if isinstance(f.get("author"), list):
            facts["authors"] = [_person(p) for p in f["author"]]
        year = re.search(r"\d{4}", clean.get("year") or clean.get("date", ""))  # biblatex: date
        if year:
            facts["year"] = int(year.group())
        venue = next((clean[k] for k in VENUE_FIELDS if clean.get(k)), "")
        facts["venue"] = venue
        ids = {}
        eprint = re.sub(r"^arxiv:|v\d+$", "", clean.get("eprint", ""), flags=re.IGNORECASE)
        blob = " ".join(clean.get(k, "") for k in ("journal", "url", "note"))
        arxiv = ARXIV_ID.fullmatch(eprint) or ARXIV_IN_TEXT.search(blob)
        if arxiv:
            ids["arxiv"] = arxiv.group(1)
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
        line = (entry.start_line or 0) + 1
        drafts.append(Draft(f"BibTeX entry '{entry.key}' (line {line})", facts, key=entry.key))
    return drafts


def _arxiv_id(text: str) -> str:
    """An arXiv id without its version (2412.01928v3 -> 2412.01928)."""
    return re.sub(r"v\d+$", "", text.strip())


def _one_line(text: str, limit: int = 200) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 3] + "..."


def fetch_arxiv(arxiv_id: str, api: str = ARXIV_API, timeout: float = 20) -> str:
    if not re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?", arxiv_id):
        raise AddError("unreadable-input", f"'{arxiv_id}' is not an arXiv id such as 2412.01928")
    url = f"{api}?id_list={arxiv_id}&max_results=1"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = bytes(response.read(MAX_ARXIV + 1))
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise AddError(
            "arxiv-unavailable",
            f"cannot reach the arXiv API at {api} ({reason}); are you offline? "
            "Use --bibtex with the paper's BibTeX instead",
        ) from exc
    if len(body) > MAX_ARXIV:
        raise AddError(
            "arxiv-bad-answer",
            f"the arXiv API answered with more than {MAX_ARXIV:,} bytes for one paper; "
            "nothing was written",
        )
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AddError(
            "arxiv-bad-answer",
            f"the arXiv API answered with text that is not UTF-8 (byte {body[exc.start]:#04x} "
            f"at {exc.start}); nothing was written",
            "try again later, or use --bibtex",
        ) from exc


def drafts_from_arxiv(atom: str, requested: str | None = None) -> list[Draft]:
    """The draft of the paper REQUESTED (any version) from the API's answer ATOM; an answer
    that holds anything else, or not that paper, is refused (AddError), whole."""
    try:
        feed = ET.fromstring(atom)
    except ET.ParseError as exc:
        raise AddError(
            "arxiv-unavailable", f"the arXiv API answered with malformed XML ({exc})"
        ) from exc
    drafts = []
    for entry in feed.findall("a:entry", ATOM):
        ident = (entry.findtext("a:id", "", ATOM) or "").rsplit("/", 1)[-1]
        arxiv_id = _arxiv_id(ident)
        title = re.sub(r"\s+", " ", entry.findtext("a:title", "", ATOM)).strip()
        if not arxiv_id or title.lower() == "error":
            found = _one_line(entry.findtext("a:summary", "", ATOM))
            raise AddError("arxiv-unavailable", f"the arXiv API found no paper: {found}")
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
        raise AddError("arxiv-unavailable", "the arXiv API returned no entry for this id")
    wanted = _arxiv_id(requested) if requested else None
    others = [d.facts["ids"]["arxiv"] for d in drafts if d.facts["ids"]["arxiv"] != wanted]
    if wanted and (others or len(drafts) != 1):
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise AddError(
            "arxiv-bad-answer",
            f"the arXiv API answered {wanted} with {len(drafts)} entries"
            + (f", for {shown}" if others else "")
            + "; nothing was written",
            "try again later, or use --bibtex with the paper's BibTeX",
        )
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
        raise AddError(
            "add-refused",
            "refused, nothing was written:\n  " + "\n  ".join(refused),
            "an entry that duplicates a record is already in the corpus: drop it from the "
            "input; of two near-identical entries in the input, keep the one you mean",
        )
    for d in drafts:
        d.key = make_key(d.facts, taken, d.key)
        taken.add(d.key)
    files = {
        folder / f"{d.key}.yaml": render_entry(d.key, d.facts, corpus, today).encode()
        for d in drafts
    }
    write_new_files(files, corpus.root / JOURNAL)
    return list(files)
