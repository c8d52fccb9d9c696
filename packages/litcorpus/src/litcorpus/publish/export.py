"""Exports the retained corpus (BibTeX with bibtexparser v2, CSL-JSON, RIS with rispy, CSV,
JSON) and the screening decisions (CSV, JSON, RIS).

Reads a loaded corpus; each exporter returns text. BibTeX keys are the corpus keys; titles
are LaTeX-encoded with acronyms brace-protected so styles do not lower-case them. RIS carries
each record's key as its ID, and the taxonomy's tags as keywords.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import bibtexparser
from bibtexparser.middlewares import default_unparse_stack
from bibtexparser.model import Entry, Field

from ..model.corpus import Corpus
from .escape import bib_text, bib_verbatim, csv_cell

CONFERENCE = re.compile(
    r"NeurIPS|ICLR|ICML|ACL|EMNLP|NAACL|COLM|AAAI|AAMAS|AISec|Findings|"
    r"Workshop|OpenReview|ARR\b"
)
REPORT = re.compile(r"Report|Blog|Documentation|Post", re.IGNORECASE)
ACRONYM = re.compile(r"(?<![\\{\w])([A-Za-z]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9.-]*)")


def latex_title(title: str) -> str:
    """LaTeX-safe title with words of two or more capitals (LLM, GRPO, MAGRPO) in braces."""
    return ACRONYM.sub(lambda m: "{" + m.group(1) + "}", bib_text(title))


def _name_part(text: str) -> str:
    """One part of a name; braced when BibTeX would split it (a comma, the word 'and')."""
    latex = bib_text(text)
    return "{" + latex + "}" if "," in text or re.search(r"\band\b", text, re.I) else latex


def _person(name: str) -> str:
    """'Family, Given' as BibTeX reads names; anything else (an organisation) as one braced
    name, so that no comma or 'and' in it starts another name."""
    if name == "others":
        return name
    family, comma, given = (" ".join(part.split()) for part in name.partition(","))
    if not comma or not family:
        return "{" + bib_text(" ".join(name.replace(",", " ").split())) + "}"
    return f"{_name_part(family)}, {_name_part(given)}" if given else _name_part(family)


def entry_type(data: dict[str, Any]) -> tuple[str, str]:
    """(BibTeX type, the field that names the venue)."""
    venue = str(data.get("venue", ""))
    if REPORT.search(venue) or (not (data.get("ids") or {}).get("arxiv") and "arXiv" in venue):
        return "misc", "howpublished"
    if CONFERENCE.search(venue) and "arXiv" not in venue:
        return "inproceedings", "booktitle"
    return "article", "journal"


def papers(corpus: Corpus) -> list[dict[str, Any]]:
    return [r.data for r in sorted(corpus.of("paper"), key=lambda r: r.stem)]


def bibtex_entry(data: dict[str, Any]) -> Entry:
    kind, venue_field = entry_type(data)
    ids = data.get("ids") or {}
    venue = str(data.get("venue", ""))
    if kind == "article" and "arXiv" in venue and ids.get("arxiv"):
        venue = f"arXiv preprint arXiv:{ids['arxiv']}"
    fields = [
        Field("title", latex_title(str(data["title"]))),
        Field("author", " and ".join(_person(a) for a in data.get("authors", []))),
        Field("year", str(data["year"])),
        Field(venue_field, bib_text(venue)),
    ]
    if ids.get("doi"):
        fields.append(Field("doi", bib_verbatim(str(ids["doi"]))))
    if ids.get("arxiv"):
        fields += [
            Field("eprint", bib_verbatim(str(ids["arxiv"]))),
            Field("archiveprefix", "arXiv"),
        ]
    fields.append(Field("url", bib_verbatim(str(data["url"]))))
    return Entry(kind, str(data["key"]), fields)


def _write(entries: list[Entry]) -> str:
    library = bibtexparser.Library()
    for entry in entries:
        library.add(entry)
    # the library is thrown away after writing, so the writer may modify it in place
    stack = default_unparse_stack(allow_inplace_modification=True)
    return str(bibtexparser.write_string(library, unparse_stack=stack))


def to_bibtex(corpus: Corpus) -> str:
    return _write([bibtex_entry(data) for data in papers(corpus)])


def entry_bibtex(data: dict[str, Any]) -> str:
    return _write([bibtex_entry(data)]).strip() + "\n"


def _csl_name(name: str) -> dict[str, str]:
    """A CSL name; a truncated list's final "others" stays a literal "others", the name
    citeproc (pandoc's, for one) reads as "et al.", as pandoc writes BibTeX's "and others"."""
    if "," in name:
        family, given = (p.strip() for p in name.split(",", 1))
        return {"family": family, "given": given}
    return {"literal": name}


def csl_item(d: dict[str, Any]) -> dict[str, Any]:
    kind, _ = entry_type(d)
    ids = d.get("ids") or {}
    item: dict[str, Any] = {
        "id": d["key"],
        "type": {"article": "article-journal", "inproceedings": "paper-conference"}.get(
            kind, "report" if "Report" in str(d.get("venue")) else "webpage"
        ),
        "title": d["title"],
        "author": [_csl_name(a) for a in d.get("authors", [])],
        "issued": {"date-parts": [[d["year"]]]},
        "container-title": d.get("venue"),
        "URL": d["url"],
    }
    if "arXiv" in str(d.get("venue")) and ids.get("arxiv"):
        item["type"] = "article"
        item["number"] = f"arXiv:{ids['arxiv']}"
    if ids.get("doi"):
        item["DOI"] = ids["doi"]
    return item


def to_csl_json(corpus: Corpus) -> str:
    return json.dumps([csl_item(d) for d in papers(corpus)], indent=2, ensure_ascii=False) + "\n"


def to_json(corpus: Corpus) -> str:
    return json.dumps(papers(corpus), indent=2, ensure_ascii=False) + "\n"


def _id_cell(scheme: str, ids: dict[str, Any]) -> str:
    """An identifier as a CSV cell: 'arxiv:2602.17100', the scheme first, so that no reader's
    default typing (pandas, R's read.csv, a spreadsheet) turns it into the number 2602.171."""
    value = ids.get(scheme)
    return f"{scheme}:{value}" if value not in (None, "") else ""


def _axis_cell(axis: Any, value: Any, codes: bool) -> Any:
    """An axis's value (or list of values) as a CSV cell: its id, but "Not applicable" for NA,
    which the default readers (pandas, R's read.csv) take for a missing value; with CODES, the
    survey's codes instead (R1-R8, O1-O5, E1-E4)."""
    values = value if isinstance(value, list) else [] if value is None else [value]
    if codes:
        return [axis.code_of(str(v)) or "" for v in values]
    out = [axis.by_id[str(v)].label if str(v) == "NA" and str(v) in axis.by_id else v
           for v in values]  # fmt: skip
    return out if isinstance(value, list) else (out[0] if out else None)


def csv_header(corpus: Corpus) -> list[str]:
    """The CSV's columns (see to_csv)."""
    tax = corpus.taxonomy
    columns = tax.allowed_fields("paper")
    header = [c for c in columns if c != "ids"]
    header[header.index("url") : header.index("url")] = [f"ids.{s}" for s in tax.id_schemes]
    coded = [c for c in header if c in tax.axes and any(tax.axes[c].code_of(v.id)
             for v in tax.axes[c].values)]  # fmt: skip
    for c in coded:
        header.insert(header.index(c) + 1, f"{c}.code")
    return header


def csv_line(row: list[Any]) -> str:
    """One CSV line, quoted as the csv module quotes, with its line end."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(row)
    return buf.getvalue()


def csv_row(d: dict[str, Any], header: list[str], corpus: Corpus) -> str:
    """One entry's CSV line under HEADER."""
    tax = corpus.taxonomy
    ids = d.get("ids") or {}
    row = []
    for col in header:
        base = col.removesuffix(".code")
        value: Any
        if col.startswith("ids."):
            value = _id_cell(col[4:], ids)
        elif base in tax.axes:
            value = _axis_cell(tax.axes[base], d.get(base), col != base)
        else:
            value = d.get(col)
        row.append(
            csv_cell(
                "; ".join(map(str, value))
                if isinstance(value, list)
                else json.dumps(value, ensure_ascii=False)
                if isinstance(value, dict)
                else ""
                if value is None
                else value
            )
        )
    return csv_line(row)


def to_csv(corpus: Corpus) -> str:
    """One row per entry; lists joined with '; ', mappings as JSON, id schemes as ids.<scheme>
    columns written scheme:id, axis values by id (NA as "Not applicable") with a <axis>.code
    column beside each axis whose values have the survey's codes; cells that a spreadsheet
    would run as formulas are neutralised (see escape)."""
    header = csv_header(corpus)
    return csv_line(header) + "".join(csv_row(d, header, corpus) for d in papers(corpus))


def _one_line(value: Any) -> str:
    """RIS holds one value a line: a line break in text becomes a space."""
    return " ".join(str(value).split())


def _ris_type(data: dict[str, Any]) -> str:
    kind, _ = entry_type(data)
    return {"inproceedings": "CONF", "misc": "GEN"}.get(kind, "JOUR")


def ris_text(entries: list[dict[str, Any]]) -> str:
    """ENTRIES as RIS, one record after another (no numbered header line before each). Every
    value is made one line, so that no text can end a record or start a tag of its own."""
    import rispy

    entries = [
        {
            k: [_one_line(x) for x in v] if isinstance(v, list) else _one_line(v)
            for k, v in e.items()
        }
        for e in entries
    ]

    class Writer(rispy.RisWriter):  # type: ignore[misc]
        def set_header(self, count: int) -> str:
            return ""

    return str(rispy.dumps(entries, implementation=Writer))


def ris_entry(d: dict[str, Any], axes: list[str]) -> dict[str, Any]:
    """An entry as a rispy record: its key as ID, the tags on AXES as keywords."""
    ids = d.get("ids") or {}
    entry: dict[str, Any] = {
        "type_of_reference": _ris_type(d),
        "id": d["key"],
        "title": d["title"],
        "authors": [a for a in d.get("authors", []) if a != "others"],
        "year": str(d["year"]),
        "journal_name": d.get("venue", ""),
        "urls": [d["url"]],
    }
    if ids.get("doi"):
        entry["doi"] = ids["doi"]
    if ids.get("arxiv"):
        entry["notes"] = [f"arXiv:{ids['arxiv']}"]
    tags = [f"{a}: {v}" for a in axes for v in _values(d.get(a))]
    if tags:
        entry["keywords"] = tags
    return entry


def ris_axes(corpus: Corpus) -> list[str]:
    return [a.id for a in corpus.taxonomy.axes_for("paper")]


def to_ris(corpus: Corpus) -> str:
    axes = ris_axes(corpus)
    return ris_text([ris_entry(d, axes) for d in papers(corpus)])


def _values(value: Any) -> list[str]:
    if value in (None, ""):
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def decisions(corpus: Corpus) -> list[dict[str, Any]]:
    """The screening decisions (exclusion records), in id order."""
    kind = corpus.taxonomy.views.prisma.get("kind", "")
    return [r.data for r in sorted(corpus.of(kind), key=lambda r: r.stem)]


def decisions_csv(corpus: Corpus) -> str:
    kind = corpus.taxonomy.views.prisma.get("kind", "")
    columns = [c for c in corpus.taxonomy.allowed_fields(kind) if c != "ids"]
    schemes = list(corpus.taxonomy.id_schemes)
    header = [*columns[:2], *(f"ids.{s}" for s in schemes), *columns[2:]]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for d in decisions(corpus):
        ids = d.get("ids") or {}
        writer.writerow(
            [
                csv_cell(_id_cell(c[4:], ids) if c.startswith("ids.") else d.get(c, ""))
                for c in header
            ]
        )
    return buf.getvalue()


def decisions_json(corpus: Corpus) -> str:
    return json.dumps(decisions(corpus), indent=2, ensure_ascii=False) + "\n"


def decisions_ris(corpus: Corpus) -> str:
    entries = []
    for d in decisions(corpus):
        ids = d.get("ids") or {}
        entry: dict[str, Any] = {
            "type_of_reference": "GEN",
            "id": d.get("id"),
            "title": d.get("title", ""),
            "urls": [d.get("url")],
            "notes": [f"Excluded ({d.get('reason')}): {d.get('note', '')}"],
        }
        if ids.get("doi"):
            entry["doi"] = ids["doi"]
        entries.append(entry)
    return ris_text(entries)


EXPORTERS = {
    "bibtex": to_bibtex,
    "csl-json": to_csl_json,
    "ris": to_ris,
    "csv": to_csv,
    "json": to_json,
}
DECISION_EXPORTERS = {"csv": decisions_csv, "json": decisions_json, "ris": decisions_ris}
