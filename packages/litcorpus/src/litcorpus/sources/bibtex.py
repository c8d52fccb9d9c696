"""Reads BibTeX and biblatex (bibtexparser v2): capitalised field names, crossref inheritance,
@string and month macros, biblatex dates and eprint fields, names split into their parts and
LaTeX decoded. A repeated key, a repeated field or an unparsable block refuses the whole file,
with the lines of each problem.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

import bibtexparser
from bibtexparser.middlewares import (
    NormalizeFieldKeys,
    SeparateCoAuthors,
    SplitNameParts,
)
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock
from pylatexenc.latex2text import LatexNodes2Text

from .found import Found, SourceError, normal_ids, text, venue, year_of

# Where BibTeX and biblatex entries name their venue, in order of preference.
VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "howpublished", "institution", "publisher")
_LATEX = LatexNodes2Text()
_ARXIV_IN_TEXT = re.compile(r"(?:arxiv[:/ ]|abs/)(\d{4}\.\d{4,5})", re.IGNORECASE)
# An arXiv category where the venue belongs ("quant-ph", "cs.AI"), as some tools write an
# eprint's primary class into `journal`: it names the arXiv, not a journal.
_ARXIV_CATEGORY = re.compile(
    r"^(?:cs|math|physics|stat|eess|econ|q-bio|q-fin|astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|"
    r"hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|quant-ph)(?:\.[A-Za-z-]+)?$"
)


# Fields that hold an address or an identifier: LaTeX would read their % as a comment and their
# & as a column break (Scopus writes `url = {...eid=2-s2.0-...&doi=10.1080%2f...}`).
_VERBATIM = frozenset({"url", "doi", "eprint", "eid", "issn", "isbn"})
_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_UNESCAPE = re.compile(r"\\([&%_#$])")


def _field(name: str, value: str) -> str:
    """One field's text: HTML entities that some exports write (Web of Science: `&apos;`)
    read first, then LaTeX decoded; an address or identifier only loses its escapes."""
    if name in _VERBATIM:
        return _UNESCAPE.sub(r"\1", value)
    if "&" in value:
        value = _ENTITY.sub(lambda m: html.unescape(m.group()), value)
        value = re.sub(r"(?<!\\)&", r"\\&", value)  # a bare & is text, not a column break
    if "%" in value:
        value = re.sub(r"(?<!\\)%", r"\\%", value)  # and a bare % is not a comment
    return str(_LATEX.latex_to_text(value))


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


def _library(data: str) -> Any:
    log = logging.getLogger("bibtexparser")
    level, log.level = log.level, logging.CRITICAL  # its problems are reported below, once
    try:
        library = bibtexparser.parse_string(
            data,
            append_middleware=[
                NormalizeFieldKeys(),  # field names are case-insensitive: Author = {...}
                SeparateCoAuthors(),
                SplitNameParts(),  # fields are LaTeX-decoded one by one (see _field)
            ],
        )
    except Exception as exc:  # bibtexparser gives up on input it cannot split into blocks
        raise SourceError(
            "bibtex-invalid", f"cannot read the BibTeX input ({exc}); nothing was written"
        ) from exc
    finally:
        log.level = level
    if library.failed_blocks:
        first = library.failed_blocks[0]
        raise SourceError(
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
    fields = {k.lower(): _value(k.lower(), v.value) for k, v in entry.fields_dict.items()}
    parent = by_key.get(str(fields.get("crossref", "")).strip().lower())
    if parent is not None:
        for k, v in parent.fields_dict.items():
            name = "booktitle" if k.lower() == "title" else k.lower()
            fields.setdefault(name, _value(k.lower(), v.value))
    return fields


def _value(name: str, value: Any) -> Any:
    return _field(name, value) if isinstance(value, str) else value


def bibtex_records(data: str, name: str = "the BibTeX input") -> list[Found]:
    library = _library(data)
    by_key = {e.key.lower(): e for e in library.entries}
    containers = {
        str(e.fields_dict["crossref"].value).strip().lower()
        for e in library.entries
        if "crossref" in e.fields_dict
    }
    out = []
    for entry in library.entries:
        if entry.key.lower() in containers or entry.entry_type.lower() == "set":
            continue  # a volume that papers cross-reference, or a biblatex set: not a paper
        f = _with_crossref(entry, by_key)
        clean = {
            k: re.sub(r"\s+", " ", v.replace("{", "").replace("}", "")).strip()
            for k, v in f.items()
            if isinstance(v, str)
        }
        eprint = clean.get("eprint", "")
        archive = clean.get("archiveprefix", clean.get("eprinttype", "arxiv")).lower()
        blob = " ".join(clean.get(k, "") for k in ("journal", "note", "howpublished"))
        in_text = _ARXIV_IN_TEXT.search(blob)
        clashes: list[str] = []
        ids = normal_ids(
            dois=clean.get("doi"),
            arxiv=[eprint if archive == "arxiv" else "", in_text.group(1) if in_text else ""],
            urls=clean.get("url"),
            clashes=clashes,
        )
        raw_venue = next((clean[k] for k in VENUE_FIELDS if clean.get(k)), "")
        # "arXiv preprint arXiv:2308.03688" names the arXiv as its venue
        arxiv_named = raw_venue.lower().startswith("arxiv") or (
            "arxiv" in ids and _ARXIV_CATEGORY.match(raw_venue) is not None
        )
        plain_venue = "arXiv" if arxiv_named else venue(raw_venue)
        line = (entry.start_line or 0) + 1
        out.append(
            Found(
                title=text(clean.get("title", "")),
                authors=[_person(p) for p in f["author"]]
                if isinstance(f.get("author"), list)
                else [],
                year=year_of(clean.get("year") or clean.get("date", "")),  # biblatex: date
                date=clean.get("date", "")[:10],
                venue=plain_venue,
                ids=ids,
                url=clean.get("url", ""),
                abstract=text(clean.get("abstract", "")),
                where=f"BibTeX entry '{entry.key}' (line {line})",
                key=entry.key,
                clashes=clashes,
            )
        )
    return out
