"""How to cite the corpus itself: a BibTeX entry and a line of text for each release, made
from CITATION.cff (title, authors, licence) and releases.yaml (version and date).

Reads ROOT/CITATION.cff; returns plain values for the site's footer and statistics page. The
text follows the reference that the Citation File Format's own tools write for a dataset:
authors (year). title (Version v) [Data set].
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..model.releases import Release
from .escape import bib_text, bib_verbatim

CITATION_FILE = "CITATION.cff"


@dataclass(frozen=True, slots=True)
class Citation:
    version: str
    date: str
    text: str
    bibtex: str


def author(a: Any) -> str:
    """A CITATION.cff person or body as its name reads: 'Given Family', or the body's name."""
    if not isinstance(a, dict):
        return ""
    if a.get("name"):
        return str(a["name"])
    return " ".join(str(a[k]) for k in ("given-names", "family-names") if a.get(k))


def _bib_author(a: Any) -> str:
    """An author for BibTeX: a person as 'Family, Given', a body in braces (never split)."""
    if isinstance(a, dict) and a.get("family-names"):
        given = f", {a['given-names']}" if a.get("given-names") else ""
        return bib_text(f"{a['family-names']}{given}")
    return "{" + bib_text(author(a)) + "}"


def read_cff(root: Path) -> dict[str, Any]:
    """CITATION.cff as data; {} when it is absent or not a mapping."""
    file = root / CITATION_FILE
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def citations(
    cff: dict[str, Any], releases: list[Release], base: str | None = None, slug: str = "corpus"
) -> list[Citation]:
    """One citation per release, newest first, keyed SLUG-version; none without a title in
    CITATION.cff. Its `url` is the site's public address BASE when known, else CITATION.cff's
    url or code."""
    title = str(cff.get("title") or "").strip()
    if not title:
        return []
    authors = [a for a in cff.get("authors") or [] if author(a)]
    names = ", ".join(author(a) for a in authors) or "Anonymous"
    out = []
    for r in reversed(releases):
        key = f"{slug}-" + r.version.replace(".", "-")
        fields = [
            ("author", " and ".join(_bib_author(a) for a in authors) or "{Anonymous}"),
            ("title", "{" + bib_text(title) + "}"),
            ("year", str(r.date.year)),
            ("version", r.version),
            ("note", f"Release {r.version} of {r.date.isoformat()}"),
        ]
        url = base or cff.get("url") or cff.get("repository-code")
        if url:
            fields.append(("url", bib_verbatim(str(url))))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        out.append(
            Citation(
                r.version,
                r.date.isoformat(),
                f"{names} ({r.date.year}). {title} (Version {r.version}) [Data set].",
                f"@misc{{{key},\n{body}\n}}",
            )
        )
    return out
