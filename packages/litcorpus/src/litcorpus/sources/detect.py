"""Reads a search export in the format it is said to be, after checking that it is that format:
a file of another format, an empty one or one that is not text is refused with one line that
names what it looks like. A record without a title is read as it is: the import keeps it out
of the queue and counts it.
"""

from __future__ import annotations

import codecs
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .atom import atom_records
from .bibtex import bibtex_records
from .found import Found, SourceError
from .jsonapis import (
    crossref_records,
    csl_records,
    openalex_records,
    parse_json,
    semanticscholar_records,
)
from .tabular import csv_records, ris_records
from .tagged import medline_records, wos_records

MAX_EXPORT = 1 << 30
LABELS = {
    "arxiv": "an arXiv API Atom feed",
    "openalex": "OpenAlex works JSON",
    "semanticscholar": "Semantic Scholar Graph API JSON",
    "crossref": "Crossref works JSON",
    "ris": "RIS",
    "bibtex": "BibTeX",
    "csl-json": "CSL-JSON",
    "csv": "CSV",
    "wos": "Web of Science plain text",
    "medline": "MEDLINE (PubMed's .nbib)",
}
FORMATS = tuple(LABELS)
_JSON_READERS: dict[str, Callable[[Any, str], list[Found]]] = {
    "openalex": openalex_records,
    "semanticscholar": semanticscholar_records,
    "crossref": crossref_records,
    "csl-json": csl_records,
}


def read_bytes(path: Path) -> bytes:
    """The bytes of PATH ('-': standard input), refusing what cannot be an export."""
    if str(path) == "-":
        raw = sys.stdin.buffer.read(MAX_EXPORT + 1)
    else:
        try:
            if not stat.S_ISREG(path.stat().st_mode):
                raise SourceError("unreadable-input", f"{path} is not a regular file")
            with open(path, "rb") as f:
                raw = f.read(MAX_EXPORT + 1)
        except OSError as exc:
            raise SourceError(
                "unreadable-input", f"cannot read {path}: {exc.strerror or exc}"
            ) from exc
    if len(raw) > MAX_EXPORT:
        raise SourceError("unreadable-input", f"{path} is larger than {MAX_EXPORT:,} bytes")
    return raw


def decode(raw: bytes, name: str) -> str:
    """RAW as text: UTF-8 (with or without its byte-order mark) or UTF-16 with one."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise SourceError("unreadable-input", f"{name}: broken UTF-16 ({exc.reason})") from exc
    if b"\0" in raw[:4096]:
        raise SourceError(
            "unreadable-input", f"{name} is binary, not a text export", "export as text"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SourceError(
            "unreadable-input",
            f"{name}:{line}: invalid UTF-8 byte {raw[exc.start]:#04x}",
            "save the file as UTF-8",
        ) from exc


def _json_kind(doc: Any) -> str | None:
    items = doc if isinstance(doc, list) else [doc]
    first = next((i for i in items if i is not None), None)  # a batch lists misses as null
    if isinstance(first, dict):
        keys = set(first)
        # Crossref gives titles as lists; CSL-JSON (Zotero's export too) has the same DOI,
        # title and type keys with the title as text
        if "message-type" in keys or ("DOI" in keys and isinstance(first.get("title"), list)):
            return "crossref"
        if "results" in keys and "meta" in keys:
            return "openalex"
        if {"abstract_inverted_index", "authorships", "publication_year"} & keys or str(
            first.get("id", "")
        ).startswith("https://openalex.org/"):
            return "openalex"
        if "paperId" in keys or "citedPaper" in keys or "citingPaper" in keys:
            return "semanticscholar"
        if "data" in keys and isinstance(first["data"], list):
            return _json_kind(first["data"]) if first["data"] else "semanticscholar"
        if keys <= {"total", "offset", "next", "token"} and "total" in keys:
            return "semanticscholar"  # a search that found nothing: no `data` at all
        if "type" in keys and ({"issued", "container-title", "author", "title"} & keys):
            return "csl-json"
    return None


def sniff(data: str) -> tuple[str | None, Any]:
    """The format DATA looks like (None: none of ours), and its parsed JSON when it is JSON."""
    head = data.lstrip()[:4096]
    if head.startswith("<"):
        return ("arxiv" if "<feed" in head else "xml"), None
    if re.match(r"FN |PT [A-Z]\s", head) or re.search(r"^VR \d", head, re.MULTILINE):
        return "wos", None
    if re.search(r"^PMID- ", head, re.MULTILINE):
        return "medline", None
    if re.search(r"^TY {1,2}-", head, re.MULTILINE):  # Ovid numbers records: "1. " first
        return "ris", None
    # text before the first entry is a comment to BibTeX (Scopus: "Scopus\nEXPORT DATE: ...")
    if not head.startswith(("{", "[")) and re.search(r"^\s*@\w+\s*[{(]", head, re.MULTILINE):
        return "bibtex", None
    if head.startswith(("{", "[")):
        try:
            doc = parse_json(data, "")
        except SourceError:
            return "json", None
        return _json_kind(doc) or "json", doc
    first = head.splitlines()[0] if head else ""
    if re.search(r"(^|[,;\t\"])\s*\"?title\"?\s*([,;\t]|$)", first, re.IGNORECASE):
        return "csv", None
    return None, None


def records(data: str, fmt: str, name: str, allow_empty: bool = False) -> list[Found]:
    """The records of DATA read as FMT; refused when DATA is another format or empty (unless
    ALLOW_EMPTY: a search that found nothing)."""
    if not data.strip():
        raise SourceError("import-empty", f"{name} is empty; nothing was written")
    if fmt in _JSON_READERS and data.lstrip()[:1] in ("{", "["):
        doc = parse_json(data, name)  # its own errors (a position, a repeated key) come first
        looks: str | None = _json_kind(doc) or "json"
    else:
        looks, doc = sniff(data)
    if looks != fmt and not (fmt == "csv" and looks is None):
        seen = LABELS.get(looks or "", {"xml": "XML", "json": "JSON"}.get(looks or "", ""))
        guess = f"it looks like {seen}" if seen else "it is none of the formats read here"
        hint = f"use --source {looks}" if looks in LABELS else "formats: " + ", ".join(FORMATS)
        raise SourceError(
            "import-wrong-format",
            f"{name} is not {LABELS[fmt]}: {guess}; nothing was written",
            hint,
        )
    if fmt == "arxiv":
        found = atom_records(data, name)
    elif fmt == "ris":
        found = ris_records(data, name)
    elif fmt == "bibtex":
        found = bibtex_records(data, name)
    elif fmt == "csv":
        found = csv_records(data, name)
    elif fmt == "wos":
        found = wos_records(data, name)
    elif fmt == "medline":
        found = medline_records(data, name)
    else:
        found = _JSON_READERS[fmt](doc, name)
    if not found and not allow_empty:
        raise SourceError(
            "import-empty",
            f"{name} holds no records; nothing was written",
            "a search that found nothing is logged with --allow-empty",
        )
    return found
