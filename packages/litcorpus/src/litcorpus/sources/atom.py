"""Reads an arXiv API response (an Atom feed): one record per entry, with its arXiv id (new or
old style, without the version), the v1 date, the authors in order, the DOI and journal
reference where the authors gave them, and the abstract."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .found import Found, SourceError, arxiv_id, normal_ids, person, text, venue

NS = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}


def atom_records(data: str, name: str) -> list[Found]:
    try:
        feed = ET.fromstring(data)
    except ET.ParseError as exc:
        line, col = exc.position
        raise SourceError(
            "import-invalid",
            f"{name}:{line}: not well-formed XML at column {col + 1} "
            f"({str(exc).split(':')[0]}); nothing was written",
            "the arXiv API answers with a complete Atom feed; fetch it again",
        ) from exc
    if feed.tag != f"{{{NS['a']}}}feed":
        raise SourceError(
            "import-wrong-format",
            f"{name} is XML but not an Atom feed (its root is <{feed.tag}>)",
            "--source arxiv reads the arXiv API's Atom responses",
        )
    out = []
    for i, entry in enumerate(feed.findall("a:entry", NS), 1):
        ident = entry.findtext("a:id", "", NS).strip()
        title = text(entry.findtext("a:title", "", NS))
        if "/api/errors" in ident or title.lower() == "error":
            raise SourceError(
                "import-invalid",
                f"{name}: the arXiv API answered with an error: "
                f"{text(entry.findtext('a:summary', '', NS))}",
            )
        found = arxiv_id(ident)
        if found is None:
            raise SourceError(
                "import-invalid", f"{name}: entry {i} has no arXiv id in <id> ({ident[:80]!r})"
            )
        ids = normal_ids(arxiv=found, dois=entry.findtext("arxiv:doi", "", NS).split())
        date = entry.findtext("a:published", "", NS).strip()[:10]
        out.append(
            Found(
                title=title,
                authors=[person(n.text) for n in entry.findall("a:author/a:name", NS)],
                year=int(date[:4]) if re.fullmatch(r"\d{4}-\d\d-\d\d", date) else None,
                date=date,
                venue=venue(entry.findtext("arxiv:journal_ref", "", NS)) or "arXiv",
                ids=ids,
                url=f"https://arxiv.org/abs/{found}",
                abstract=text(entry.findtext("a:summary", "", NS)),
                where=f"entry {i}",
            )
        )
    return out
