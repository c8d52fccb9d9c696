"""Readers of line-based reference files: RIS of every common dialect (rispy; TI or T1
titles, AU or A1 authors, PY, Y1 or DA dates, CRLF or LF) and CSV with a header row (columns
named as the common tools name them: title, authors, year, abstract, doi, ...).

rispy drops a last record that lacks its ER tag; a record is checked to be closed first, so a
truncated file is refused rather than read short.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from typing import Any

from .found import Found, SourceError, all_read, normal_ids, person, text, venue, year_of

_TAG = re.compile(r"^([A-Z][A-Z0-9])  ?-(?: (.*))?$")


def _ris_blocks(data: str, name: str) -> list[int]:
    """The line each record starts on, once every record is known to be closed by ER."""
    starts: list[int] = []
    open_at = 0
    for n, line in enumerate(data.splitlines(), 1):
        m = _TAG.match(line.rstrip())
        if not m:
            continue  # a value's continuation, or text between records (Ovid numbers them)
        if m.group(1) == "TY":
            if open_at:
                raise SourceError(
                    "import-invalid",
                    f"{name}:{n}: a record starts before the one of line {open_at} ends (ER)",
                )
            open_at = n
            starts.append(n)
        elif m.group(1) == "ER":
            open_at = 0
    if open_at:
        raise SourceError(
            "import-invalid",
            f"{name}:{open_at}: the last record is not closed with 'ER  - '; the file seems cut "
            "short; nothing was written",
            "export the search again",
        )
    return starts


def ris_records(data: str, name: str) -> list[Found]:
    import rispy

    # one line ending for rispy, which splits on LF only: IEEE Xplore ends a record with
    # "ER  - \r\n\n\r", so the next "TY" would start with a CR and be read as a continuation
    data = data.replace("\r\n", "\n").replace("\r", "\n")
    starts = _ris_blocks(data, name)
    try:
        entries = rispy.loads(data)
    except Exception as exc:  # rispy raises bare IOError and others on malformed input
        raise SourceError("import-invalid", f"{name}: cannot read the RIS ({exc})") from exc
    all_read(name, "TY", starts, entries)
    out = []
    for line, e in zip(starts, entries, strict=True):
        date = _first(e, "date", "publication_year", "year").replace("/", "-").strip("-")
        authors = e.get("authors") or e.get("first_authors") or []
        out.append(
            Found(
                title=text(_first(e, "title", "primary_title", "translated_title")),
                authors=[person(a) for a in authors],
                year=year_of(_first(e, "year", "publication_year", "date")),
                date=date[:10] if re.match(r"\d{4}", date) else "",
                venue=venue(
                    _first(
                        e,
                        "journal_name",
                        "secondary_title",
                        "alternate_title3",
                        "alternate_title1",
                        "publisher",
                    )
                ),
                ids=normal_ids(
                    dois=e.get("doi"), urls=e.get("urls") or [], pmid=_pmid(e.get("notes"))
                ),
                url=next((u for u in e.get("urls") or [] if u.startswith("http")), ""),
                abstract=text(_first(e, "abstract", "notes_abstract")),
                where=f"record at line {line}",
            )
        )
    return out


def _first(entry: dict[str, Any], *keys: str) -> str:
    for k in keys:
        value = entry.get(k)
        if isinstance(value, list):
            value = value[0] if value else ""
        if value:
            return str(value)
    return ""


def _pmid(notes: Any) -> str | None:
    """The PubMed id a RIS record's notes name ("PMID: 12345678"), as Zotero writes it."""
    for note in notes if isinstance(notes, list) else [notes or ""]:
        if m := re.search(r"\bPMID:\s*(\d{1,9})\b", str(note)):
            return m.group(1)
    return None


# What each fact's column is called across tools (lower case, spaces and dashes as _):
# IEEE Xplore ("Document Title", "Publication Title"), Springer Link ("Item Title", "Item
# DOI"), Scopus ("Source title", "Link"), PubMed ("Journal/Book", "PMID"), Web of Science.
COLUMNS = {
    "title": ("title", "primary_title", "article_title", "document_title", "item_title"),
    "authors": ("authors", "author", "author_full_names", "author_names"),
    "year": ("year", "publication_year", "pubyear", "py"),
    "date": ("date", "publication_date", "published"),
    "venue": (
        "venue",
        "journal",
        "source_title",
        "publication_title",
        "journal/book",
        "container_title",
        "source",
        "booktitle",
    ),
    "doi": ("doi", "item_doi"),
    "arxiv": ("arxiv", "arxiv_id", "eprint"),
    "openalex": ("openalex", "openalex_id"),
    "pmid": ("pmid", "pubmed_id"),
    "url": ("url", "link", "landing_page_url"),
    "abstract": ("abstract", "ab"),
}
# "Family Initials" names as PubMed and Scopus list them ("Lim SM", "Phillips J.C.",
# "Siu K.-C.", "da Silva T.C.O.")
_FAMILY_INITIALS = re.compile(r"(\S.*?) ((?:[A-Z]\.?-?){1,4}\.?)\Z")


def _names(cell: str, run_together: bool = False) -> list[str]:
    """The authors of one cell, as "Family, Given". Semicolons separate names in most exports;
    PubMed and older Scopus separate "Family Initials" names with commas ("Lim SM, Lau Y.");
    Springer Link runs them together ("Araz R. AlievNigar T. Ismayilova"): RUN_TOGETHER splits
    where a lower-case letter meets a capitalised word (a name such as "McDonald" is split
    wrongly)."""
    cell = cell.strip()
    if cell.endswith(".") and cell.count(".") == 1 and "," in cell:  # PubMed: "..., Lau Y."
        cell = cell[:-1]
    if ";" in cell or " and " in cell:
        parts = re.split(r"\s*;\s*|\s+and\s+", cell)
    elif "," in cell and all(_FAMILY_INITIALS.match(p.strip()) for p in cell.split(",")):
        parts = cell.split(",")
    elif run_together:
        parts = re.split(r"(?<=[a-z\u00df-\u00ff])(?=[A-Z][a-z\u00e0-\u00ff]*\.? )", cell)
    else:
        parts = [cell]
    out = []
    for p in (p.strip() for p in parts):
        m = _FAMILY_INITIALS.match(p)
        out.append(f"{m.group(1)}, {m.group(2)}" if m and "," not in p else person(p))
    return [a for a in out if a]


def csv_records(data: str, name: str) -> list[Found]:
    # only the delimiter is sniffed: the sniffer's guess of how quotes are escaped is
    # unreliable (it guessed "not doubled" for a file that doubles them in its second row),
    # and every common tool writes CSV with doubled quotes
    try:
        delimiter = csv.Sniffer().sniff(data[:4096], delimiters=",;\t").delimiter
    except csv.Error:
        delimiter = ","
    rows = csv.reader(io.StringIO(data, newline=""), delimiter=delimiter)
    try:
        header = next(rows)
    except StopIteration:
        return []
    except csv.Error as exc:
        raise SourceError("import-invalid", f"{name}:1: not CSV ({exc})") from exc
    norm = [re.sub(r"[\s-]+", "_", h.strip().strip('"').lower()) for h in header]
    repeated = {h for h, n in Counter(norm).items() if h and n > 1}
    if repeated:
        raise SourceError(
            "import-duplicate-key",
            f"{name}:1: the header names {', '.join(sorted(repeated))} twice",
            "keep one column of each name",
        )
    position = {h: i for i, h in reversed(list(enumerate(norm)))}  # the first of each name
    at = {
        f: next((position[c] for c in names if c in position), None) for f, names in COLUMNS.items()
    }
    if at["title"] is None:
        raise SourceError(
            "import-invalid",
            f"{name}:1: no title column in the header ({', '.join(header[:8])})",
            "name the columns title, authors, year, abstract, doi, arxiv, url, venue",
        )
    springer = "item_title" in position  # Springer Link runs its authors' names together
    out = []
    try:
        for row in rows:
            n = rows.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise SourceError(
                    "import-invalid",
                    f"{name}:{n}: {len(row)} cells where the header has {len(header)}",
                    "a cell holding the delimiter or a line break must be quoted",
                )

            def cell(fact: str, row: list[str] = row) -> str:
                i = at[fact]
                return row[i].strip() if i is not None else ""

            date = cell("date")
            out.append(
                Found(
                    title=text(cell("title")),
                    authors=_names(cell("authors"), springer),
                    year=year_of(cell("year")) or year_of(date),
                    date=date[:10],
                    venue=venue(cell("venue")),
                    ids=normal_ids(
                        dois=cell("doi"),
                        arxiv=cell("arxiv"),
                        urls=cell("url"),
                        openalex=cell("openalex"),
                        pmid=cell("pmid"),
                    ),
                    url=cell("url"),
                    abstract=text(cell("abstract")),
                    where=f"row at line {n}",
                )
            )
    except csv.Error as exc:
        raise SourceError("import-invalid", f"{name}: not CSV ({exc})") from exc
    return out
