"""Readers of the two-letter-tag exports of the big indexes: Web of Science plain text (`FN`,
`PT`, ... `ER`, `EF`; rispy's WoK parser, every tag it does not name kept aside) and PubMed's
MEDLINE format, the .nbib files PubMed and most reference managers write (Biopython's Medline
parser). Names come as "Family, Given" (WoS `AF`, MEDLINE `FAU`); DOIs, PubMed ids and the
publication day are read from their own tags.
"""

from __future__ import annotations

import io
import re
from typing import Any

from .found import Found, SourceError, all_read, normal_ids, text, venue, year_of

_MONTHS = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
)}  # fmt: skip


def _first(entry: dict[str, Any], *keys: str) -> str:
    for k in keys:
        value = entry.get(k)
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if value:
            return str(value)
    return ""


def wos_records(data: str, name: str) -> list[Found]:
    import rispy
    from rispy.parser import WOK_TAG_KEY_MAPPING, WokParser

    starts = [n for n, line in enumerate(data.splitlines(), 1) if line.startswith("PT ")]
    try:
        entries = rispy.loads(
            data.replace("\r\n", "\n"),
            implementation=WokParser,
            mapping={**WOK_TAG_KEY_MAPPING, "UK": "unknown_tag"},  # newer tags (WE, ...)
        )
    except Exception as exc:  # rispy raises bare errors on malformed input
        raise SourceError("import-invalid", f"{name}: cannot read the export ({exc})") from exc
    all_read(name, "PT", starts, entries)
    out = []
    for line, e in zip(starts, entries, strict=True):
        full = e.get("author_full_name") or e.get("authors") or []
        out.append(
            Found(
                title=text(_first(e, "document_title")),
                authors=[text(a) for a in full],
                year=year_of(_first(e, "publication_year")),
                date=_first(e, "publication_year")[:4],
                venue=venue(_first(e, "publication_name")),
                ids=normal_ids(dois=_first(e, "doi") or None, pmid=_first(e, "pubmed_id")),
                abstract=text(_first(e, "abstract")),
                where=f"record at line {line}",
            )
        )
    return out


def _day(dp: str) -> str:
    """YYYY[-MM[-DD]] from MEDLINE's DP ("2018 Dec 27", "2006", "2021 Spring")."""
    parts = dp.split()
    if not parts or not re.fullmatch(r"\d{4}", parts[0]):
        return ""
    month = _MONTHS.get(parts[1][:3].lower()) if len(parts) > 1 else None
    if month is None:
        return parts[0]
    if len(parts) > 2 and re.fullmatch(r"\d{1,2}", parts[2]):
        return f"{parts[0]}-{month:02d}-{int(parts[2]):02d}"
    return f"{parts[0]}-{month:02d}"


def medline_records(data: str, name: str) -> list[Found]:
    from Bio import Medline

    starts = [n for n, line in enumerate(data.splitlines(), 1) if line.startswith("PMID-")]
    try:
        entries = [e for e in Medline.parse(io.StringIO(data.replace("\r\n", "\n"))) if e]  # type: ignore[no-untyped-call]
    except Exception as exc:  # Biopython raises ValueError and others on malformed lines
        raise SourceError(
            "import-invalid", f"{name}: cannot read the MEDLINE file ({exc})"
        ) from exc
    all_read(name, "PMID", starts, entries)
    out = []
    for line, e in zip(starts, entries, strict=True):
        ids = [*(e.get("AID") or []), *([e["LID"]] if e.get("LID") else [])]
        doi = next((i.split()[0] for i in ids if i.endswith("[doi]")), None)
        date = _day(_first(e, "DP"))
        out.append(
            Found(
                title=text(_first(e, "TI", "BTI")),
                authors=[text(a) for a in e.get("FAU") or e.get("AU") or []],
                year=year_of(date),
                date=date,
                venue=venue(_first(e, "JT", "TA")),
                ids=normal_ids(dois=doi, pmid=e.get("PMID")),
                abstract=text(_first(e, "AB")),
                where=f"record at line {line}",
            )
        )
    return out
